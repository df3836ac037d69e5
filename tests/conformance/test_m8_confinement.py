"""M8 — confinement: with --root nothing outside the root is reachable, by dot-dot, prefix
siblings, absolute paths, symbolic links (file, directory, dangling, chained, looping, mid-path,
swapped during the call), FIFOs or devices; odd names are ordinary bytes. Without --root a
reader follows the path as given (documented here)."""

import ctypes
import os
import threading
import time

import pytest

import tack
from tack import SECRET, run


def no_secret(r):
    """The outside file's content appears nowhere: raw bytes, stderr, decoded b64, retries."""
    assert SECRET not in r.out and SECRET not in r.err
    for chunk in _b64_values(r.json):
        assert SECRET not in chunk
    for again in r.retried:
        no_secret(again)


def _b64_values(v):
    if isinstance(v, dict):
        if set(v) == {"b64"}:
            yield tack.tob(v)
        else:
            for x in v.values():
                yield from _b64_values(x)
    elif isinstance(v, list):
        for x in v:
            yield from _b64_values(x)


def refused(tree, path, rule, *extra, timeout=10):
    r = run("peek", "--root", tree.root, *extra, path, timeout=timeout)
    assert r.rules == [rule], f"{path!r}: {r.rules}"
    assert r.exit == tack.CATALOGUE[rule]
    assert "data" not in r.doc
    no_secret(r)
    return r


# --- dot-dot ------------------------------------------------------------------------------

def test_dotdot_inside_is_refused_with_the_normal_form(tree):
    r = refused(tree, "dir/sub/../../plain.txt", "path.dotdot")
    assert [tack.tob(a) for a in r.doc["error"]["repair"]["argv"]][-1] == b"plain.txt"


@pytest.mark.parametrize("path", ["../outside/secret.txt", "dir/../../outside/secret.txt",
                                  "./../root/../outside/secret.txt", "..", "../",
                                  "dir/sub/../../../outside/dir/secret.txt"])
def test_dotdot_escaping_is_refused_without_a_retry(tree, path):
    r = refused(tree, path, "path.dotdot")
    rep = r.doc["error"]["repair"]
    assert rep is None or rep["kind"] == "none"


def test_dotdot_through_escape_and_back_is_still_refused(tree):
    # ../root/plain.txt names a file inside, but only by leaving the root: refused, and its
    # repair (if any) must not spell a path through the parent.
    r = refused(tree, "../root/plain.txt", "path.dotdot")
    rep = r.doc["error"]["repair"]
    if rep and rep["kind"] == "retry":
        assert b".." not in tack.tob(rep["argv"][-1])


# --- prefix siblings and absolute paths ---------------------------------------------------

def test_prefix_sibling_is_outside(tree):
    assert str(tree.evil).startswith(str(tree.root))  # /…/rootevil starts with /…/root
    refused(tree, f"{tree.evil}/secret.txt", "path.outside-root")


@pytest.mark.parametrize("root_spelling", ["abs-slash", "relative", "dotted"])
def test_prefix_sibling_is_outside_however_the_root_is_spelled(tree, root_spelling):
    root = {"abs-slash": f"{tree.root}/", "relative": "root",
            "dotted": f"{tree.root.parent}/./root//"}[root_spelling]
    r = run("peek", "--root", root, f"{tree.evil}/secret.txt", cwd=tree.root.parent)
    assert r.rules == ["path.outside-root"]
    no_secret(r)


def test_absolute_inside_is_refused_with_the_relative_spelling(tree):
    r = refused(tree, f"{tree.root}/dir/sub/deep.txt", "path.absolute")
    assert tack.tob(r.doc["error"]["repair"]["argv"][-1]) == b"dir/sub/deep.txt"
    assert r.retried[0].exit == 0


def test_absolute_root_itself(tree):
    r = refused(tree, str(tree.root), "path.absolute")
    assert tack.tob(r.doc["error"]["repair"]["argv"][-1]) == b"."


@pytest.mark.parametrize("path", ["/etc/passwd", "/dev/zero", "/", "{outside}/secret.txt",
                                  "{root}/../outside/secret.txt", "{parent}"])
def test_absolute_outside_is_refused(tree, path):
    path = path.format(outside=tree.outside, root=tree.root, parent=tree.root.parent)
    refused(tree, path, "path.outside-root")


# --- symbolic links -----------------------------------------------------------------------

def test_link_to_a_file_outside(tree):
    refused(tree, "link_out_file", "path.symlink")


def test_link_to_a_directory_outside(tree):
    refused(tree, "link_out_dir/secret.txt", "path.symlink")
    refused(tree, "link_out_dir", "path.symlink")


def test_dangling_link(tree):
    refused(tree, tree.dangling(), "path.symlink")


def test_chained_links_even_inside(tree):
    refused(tree, tree.chain(), "path.symlink")


def test_looping_links(tree):
    refused(tree, tree.loop(), "path.symlink")


def test_link_in_the_middle_of_the_path(tree):
    refused(tree, tree.mid_link() + b"/sub/deep.txt", "path.symlink")


def test_relative_link_climbing_out(tree):
    tree.link("climb", "../outside/secret.txt")
    refused(tree, "climb", "path.symlink")
    os.symlink("../../../outside/dir", tree.root / "dir" / "sub" / "up")
    refused(tree, "dir/sub/up/secret.txt", "path.symlink")


def test_dev_zero_through_a_link_is_refused_at_once(tree):
    name = tree.devzero()
    t = time.monotonic()
    refused(tree, name, "path.symlink", timeout=5)
    assert time.monotonic() - t < 5


def test_fifo_is_refused_without_blocking(tree):
    name = tree.fifo()
    t = time.monotonic()
    refused(tree, name, "io.special-file", timeout=5)
    assert time.monotonic() - t < 5
    refused(tree, name, "io.special-file", "--bytes", "0:10", timeout=5)


def test_socket_is_refused(tree):
    refused(tree, tree.socket(), "io.special-file")


def test_root_spelled_through_a_link_is_the_operators_choice(tree):
    os.symlink(tree.root, tree.root.parent / "rootlink")
    r = run("peek", "--root", tree.root.parent / "rootlink", "plain.txt")
    assert r.exit == 0 and r.texts()[0] == b"alpha"


def test_collapsing_dot_slashes_and_trailing_slash(tree):
    for path in ["./dir//sub/./deep.txt", "dir/sub/deep.txt/", ".//dir/sub//deep.txt"]:
        r = run("peek", "--root", tree.root, path)
        assert r.exit == 0 and r.texts() == [b"deep inside"], path


# --- swapped during the call --------------------------------------------------------------

def test_directory_swapped_for_a_link_during_calls(tree):
    """A thread exchanges `swap` (a real directory) with a link to outside/dir, as fast as it
    can, while peek reads swap/secret.txt. Each answer is either the inside file or a refusal;
    the outside file never leaks."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = libc.renameat2
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    tree.write("swap/secret.txt", b"inside swap\n")
    tree.link("swap_link", str(tree.outside / "dir"))
    a, b = tree.p("swap"), tree.p("swap_link")
    assert renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0, "renameat2 unsupported"
    assert renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0
    stop = threading.Event()
    swaps = [0]

    def swapper():
        while not stop.is_set():
            renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
            swaps[0] += 1

    th = threading.Thread(target=swapper)
    th.start()
    outcomes = set()
    try:
        deadline = time.monotonic() + 8
        for _ in range(300):
            r = run("peek", "--root", tree.root, "swap/secret.txt")
            no_secret(r)
            if r.exit == 0:
                assert r.texts() == [b"inside swap"]
                outcomes.add("read")
            else:
                assert r.rules[0] in ("path.symlink", "io.not-found"), r.rules
                outcomes.add(r.rules[0])
            if len(outcomes) >= 2 and time.monotonic() > deadline - 6:
                break
            if time.monotonic() > deadline:
                break
    finally:
        stop.set()
        th.join()
    assert swaps[0] > 100
    assert "read" in outcomes and "path.symlink" in outcomes, outcomes


# --- names are bytes ----------------------------------------------------------------------

def test_odd_names_are_ordinary(tree):
    names = tree.odd_names()
    for name, content in names.items():
        r = run("peek", "--root", tree.root, "--", name)
        assert r.exit == 0, (name, r)
        assert r.texts() == [content.rstrip(b"\n")], name
        assert tack.tob(r.data["path"]) == name


def test_odd_names_without_root(tree):
    names = tree.odd_names()
    for name, content in names.items():
        r = run("peek", "--", name, cwd=tree.root)
        assert r.exit == 0 and r.texts() == [content.rstrip(b"\n")], name


def test_tilde_is_not_home(tree):
    tree.odd_names()
    r = run("peek", "--root", tree.root, "~", env={"HOME": str(tree.outside), "PATH": "/usr/bin"})
    assert r.texts() == [b"content of ~"]
    refused(tree, "~/secret.txt", "io.not-a-directory")


def test_percent_encoded_dotdot_is_a_name(tree):
    tree.odd_names()
    r = run("peek", "--root", tree.root, "%2e%2e")
    assert r.texts() == [b"content of %2e%2e"]
    refused(tree, "%2e%2e/outside/secret.txt", "io.not-a-directory")


def test_leading_dash_needs_double_dash(tree):
    tree.odd_names()
    r = run("peek", "--root", tree.root, "-rf")
    assert r.rules[0] == "args.unknown-flag"
    assert run("peek", "--root", tree.root, "--", "-rf").texts() == [b"content of -rf"]


def test_file_named_like_a_subcommand(tree):
    tree.odd_names()
    assert run("peek", "--root", tree.root, "--", "introspect").texts() == [b"content of introspect"]
    assert run("peek", "--", "introspect", cwd=tree.root).texts() == [b"content of introspect"]


def test_dotdot_repair_to_a_dash_name_reads_that_file(tree):
    """A retry must run as it stands: the normal form `-rf` of `x/../-rf` is a file, and the
    repair must still read it rather than turn it into a flag."""
    tree.odd_names()
    r = run("peek", "--root", tree.root, "dir/../-rf")
    assert r.rules == ["path.dotdot"]
    again = r.retried[0]
    assert again.exit == 0 and again.texts() == [b"content of -rf"], again


def test_absolute_repair_to_a_dash_name_reads_that_file(tree):
    tree.odd_names()
    r = run("peek", "--root", tree.root, f"{tree.root}/-rf")
    assert r.rules == ["path.absolute"]
    again = r.retried[0]
    assert again.exit == 0 and again.texts() == [b"content of -rf"], again


# --- without --root -----------------------------------------------------------------------

def test_without_root_a_reader_follows_links_as_given(tree):
    """CONTRACT §5: without --root, a reader opens paths as given (like grep), links and
    dot-dots included. This is the documented behaviour, not a leak."""
    r = run("peek", "link_out_file", cwd=tree.root)
    assert r.exit == 0 and r.texts() == [SECRET]
    r = run("peek", "link_out_dir/secret.txt", cwd=tree.root)
    assert r.exit == 0 and r.texts() == [SECRET + b" in dir"]
    r = run("peek", "../outside/secret.txt", cwd=tree.root)
    assert r.exit == 0 and r.texts() == [SECRET]


def test_without_root_devices_are_still_refused(tree):
    name = tree.devzero()
    t = time.monotonic()
    r = run("peek", name, cwd=tree.root, timeout=5)
    assert r.rules == ["io.special-file"] and time.monotonic() - t < 5
    fifo = tree.fifo()
    r = run("peek", fifo, cwd=tree.root, timeout=5)
    assert r.rules == ["io.special-file"]


# --- run: its working directory is a path beneath the root; its program writes beneath it -----

@pytest.mark.parametrize("cwd,rule", [("link_out_dir", "path.symlink"), ("../outside", "path.dotdot"),
                                       ("{outside}", "path.outside-root"), ("{evil}", "path.outside-root"),
                                       ("plain.txt", "io.not-a-directory")])
def test_run_working_directory_stays_beneath_the_root(tree, cwd, rule):
    cwd = cwd.format(outside=tree.outside, evil=tree.evil)
    r = run("run", "--root", tree.root, "--cwd", cwd, "--", "pwd")
    assert r.rules == [rule] and "data" not in r.doc


@pytest.mark.parametrize("target", ["link_out_dir/new.txt", "../outside/new.txt", "{evil}/new.txt",
                                    "{outside}/dir/new.txt"])
def test_run_program_writes_nothing_outside_the_root(tree, target):
    """The program is not held to lexical rules (it is not tack): Landlock refuses the write
    wherever the path leads, links included."""
    before = {p: sorted(os.listdir(p)) for p in (tree.outside, tree.outside / "dir", tree.evil)}
    r = run("run", "--root", tree.root, "--", "write",
            target.format(outside=tree.outside, evil=tree.evil))
    assert r.exit == 0 and r.data["exit_code"] == 3, r
    assert b"Permission denied" in tack.tob(r.data["stderr"]["text"])
    assert {p: sorted(os.listdir(p)) for p in before} == before
    assert tack.run_survivors() == []
