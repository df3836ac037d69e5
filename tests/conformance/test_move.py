"""move — rename beneath the root, never over anything; --remove renames to a tombstone.

M5 against `mv -n -T` (same final tree), M3 every declared rule reached and every retry
cleared, the retry that already landed (changed:false), the tombstone and its undo, and the
hostile cases: links in either path, a link as the destination (even dangling), a link moved
as itself, a directory flipped to a link while calls run. Every invocation goes through
tack.run, which validates the output against schemas/move.v1.json (M1).
"""

import fcntl
import os
import subprocess

import pytest

import tack
from mutation import FLIPPER, read, sha, snapshot
from tack import SECRET, run


def M(tree, *args, **kw):
    return run("move", "--root", tree.root, *args, cwd=tree.root.parent, **kw)


H_PLAIN = sha(tack.PLAIN)
TOMB = f".plain.txt.removed-{H_PLAIN[:8]}"


# --- the basic contract ---------------------------------------------------------------------

def test_move_across_directories_keeps_the_inode(tree):
    before = os.stat(tree.p("plain.txt"))
    r = M(tree, "plain.txt", "dir/sub/moved.txt")
    assert r.exit == 0
    assert r.data == {"from": "plain.txt", "to": "dir/sub/moved.txt", "changed": True,
                      "removed": False, "journal": {"id": 1}}
    assert not os.path.exists(tree.p("plain.txt"))
    after = os.stat(tree.p("dir/sub/moved.txt"))
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert read(tree.p("dir/sub/moved.txt")) == tack.PLAIN


def test_an_existing_destination_is_never_replaced(tree):
    before = snapshot(tree.root)
    r = M(tree, "plain.txt", "crlf.txt")
    assert r.rules == ["conflict.exists"]
    e = r.errors[0]
    assert e["detail"]["kind"] == "file" and e["detail"]["actual_sha256"] == sha(tack.CRLF)
    assert e["repair"]["kind"] == "none"
    tree.dangling("dangling")
    r = M(tree, "plain.txt", "dangling")
    assert r.rules == ["conflict.exists"] and r.errors[0]["detail"]["kind"] == "symlink"
    r = M(tree, "plain.txt", "dir")
    assert r.rules == ["conflict.exists"] and r.errors[0]["detail"]["kind"] == "directory"
    r = M(tree, "plain.txt", "link_out_file")
    assert r.rules == ["conflict.exists"]
    del before  # the links made above are new; the files are what matters
    assert read(tree.p("plain.txt")) == tack.PLAIN and read(tree.p("crlf.txt")) == tack.CRLF
    assert read(tree.outside / "secret.txt") == SECRET + b"\n"


def test_if_sha256_is_checked_and_names_the_actual_hash(tree):
    r = M(tree, "--if-sha256", "0" * 64, "plain.txt", "moved.txt")
    assert r.rules == ["precondition.hash-mismatch"]
    e = r.errors[0]
    assert e["detail"]["actual_sha256"] == H_PLAIN and e["repair"]["kind"] == "none"
    assert os.path.exists(tree.p("plain.txt")) and not os.path.exists(tree.p("moved.txt"))
    ok = M(tree, "--if-sha256", H_PLAIN.upper(), "plain.txt", "moved.txt")
    assert ok.exit == 0 and read(tree.p("moved.txt")) == tack.PLAIN


def test_a_retry_that_already_landed_is_unchanged(tree):
    assert M(tree, "--if-sha256", H_PLAIN, "plain.txt", "moved.txt").data["changed"] is True
    again = M(tree, "--if-sha256", H_PLAIN, "plain.txt", "moved.txt")
    assert again.exit == 0 and again.data["changed"] is False
    # Without a hash nothing shows the move landed: a mistyped PATH looks the same.
    plain = M(tree, "plain.txt", "moved.txt")
    assert plain.rules == ["io.not-found"] and plain.exit == 3
    e = plain.errors[0]
    assert e["detail"]["destination"] == "moved.txt" and e["detail"]["destination_kind"] == "file"
    assert "'moved.txt' exists" in e["hint"] and "--if-sha256" in e["hint"]
    assert read(tree.p("moved.txt")) == tack.PLAIN
    dry = M(tree, "--dry-run", "plain.txt", "moved.txt")
    assert dry.rules == ["io.not-found"]
    # Something else at the destination is not a landed retry: the source is missing.
    r = M(tree, "--if-sha256", sha(tack.CRLF), "plain.txt", "moved.txt")
    assert r.rules == ["io.not-found"]
    assert r.errors[0]["detail"]["destination_sha256"] == H_PLAIN
    assert "does not hash to --if-sha256" in r.errors[0]["hint"]
    gone = M(tree, "nothing.txt", "nowhere.txt")
    assert gone.rules == ["io.not-found"] and "destination" not in gone.errors[0]["detail"]


def test_a_mistyped_source_over_an_existing_name_is_not_found(tree):
    """`move missing.txt existing.txt` is not a retry that landed: nothing was moved."""
    before = snapshot(tree.root)
    r = M(tree, "missing.txt", "plain.txt")
    assert r.rules == ["io.not-found"] and r.exit == 3 and not r.doc["ok"]
    assert r.errors[0]["detail"]["destination"] == "plain.txt"
    assert snapshot(tree.root) == before
    # The destination's hash decides: what a move of PATH would have left is a landed retry.
    assert M(tree, "--if-sha256", H_PLAIN, "missing.txt", "plain.txt").data["changed"] is False
    assert M(tree, "--if-sha256", sha(tack.CRLF), "missing.txt", "plain.txt").rules == ["io.not-found"]
    assert snapshot(tree.root) == before


def test_parents_are_made_and_a_dry_run_makes_none(tree):
    dry = M(tree, "--parents", "--dry-run", "plain.txt", "a/b/plain.txt")
    assert dry.exit == 9 and dry.data["parents_created"] == ["a", "a/b"]
    assert [a["op"] for a in dry.doc["planned_actions"]] == ["mkdir", "mkdir", "rename"]
    assert not os.path.exists(tree.p("a"))
    r = M(tree, "--parents", "plain.txt", "a/b/plain.txt")
    assert r.exit == 0 and r.data["parents_created"] == ["a", "a/b"]
    no = M(tree, "crlf.txt", "x/y.txt")
    assert no.rules == ["io.not-found"] and not os.path.exists(tree.p("x"))


def test_remove_renames_to_a_tombstone_that_undoes(tree):
    dry = M(tree, "--remove", "--if-sha256", H_PLAIN, "--dry-run", "plain.txt")
    assert dry.exit == 9 and os.path.exists(tree.p("plain.txt"))
    assert dry.doc["planned_actions"] == [
        {"op": "rename", "from": "plain.txt", "to": TOMB, "kind": "file"}]
    r = M(tree, "--remove", "--if-sha256", H_PLAIN, "plain.txt")
    assert r.exit == 0
    assert r.data == {"from": "plain.txt", "to": TOMB, "changed": True, "removed": True,
                      "tombstone": TOMB, "journal": {"id": 1}}
    assert not os.path.exists(tree.p("plain.txt")) and read(tree.p(TOMB)) == tack.PLAIN
    again = M(tree, "--remove", "--if-sha256", H_PLAIN, "plain.txt")
    assert again.exit == 0 and again.data["changed"] is False
    # Undo: move it back.
    back = M(tree, TOMB, "plain.txt")
    assert back.exit == 0 and read(tree.p("plain.txt")) == tack.PLAIN
    # In a subdirectory the tombstone stays beside the file.
    r = M(tree, "--remove", "--if-sha256", sha(tack.DEEP), "dir/sub/deep.txt")
    assert r.data["to"] == f"dir/sub/.deep.txt.removed-{sha(tack.DEEP)[:8]}"
    assert read(tree.p(r.data["to"])) == tack.DEEP


def test_a_name_too_long_to_keep_whole_in_its_tombstone_is_cut_and_still_undone(tree):
    name = "n" * 250
    tree.write(name, tack.PLAIN)
    r = M(tree, "--remove", "--if-sha256", H_PLAIN, name)
    tomb = "." + "n" * 237 + ".removed-" + H_PLAIN[:8]
    assert r.exit == 0 and r.data["to"] == tomb and len(tomb) == 255
    assert read(tree.p(tomb)) == tack.PLAIN and not os.path.exists(tree.p(name))
    u = run("undo", "--root", tree.root, "--last", cwd=tree.root.parent)
    assert u.exit == 0 and read(tree.p(name)) == tack.PLAIN
    # A create of such a name is taken back the same way.
    w = run("write", "--root", tree.root, "--create", "--stdin", "m" * 250, stdin=b"x\n",
            cwd=tree.root.parent)
    assert w.exit == 0
    u = run("undo", "--root", tree.root, "--last", cwd=tree.root.parent)
    assert u.exit == 0 and not os.path.exists(tree.p("m" * 250))
    assert os.path.exists(tree.p("." + "m" * 237 + ".removed-" + sha(b"x\n")[:8]))


def test_remove_refuses_an_existing_tombstone_and_a_wrong_hash(tree):
    tree.write(TOMB, b"an older removal\n")
    r = M(tree, "--remove", "--if-sha256", H_PLAIN, "plain.txt")
    assert r.rules == ["conflict.exists"]
    assert read(tree.p(TOMB)) == b"an older removal\n" and os.path.exists(tree.p("plain.txt"))
    r = M(tree, "--remove", "--if-sha256", sha(b"x"), "crlf.txt")
    assert r.rules == ["precondition.hash-mismatch"] and os.path.exists(tree.p("crlf.txt"))
    # A tombstone that is not the file's is not a landed retry.
    os.unlink(tree.p("plain.txt"))
    r = M(tree, "--remove", "--if-sha256", H_PLAIN, "plain.txt")
    assert r.rules == ["io.not-found"]


def test_text_mode(tree):
    t = M(tree, "--format", "text", "plain.txt", "moved.txt")
    assert t.out == b"plain.txt -> moved.txt\n"
    t = M(tree, "--format", "text", "--remove", "--if-sha256", sha(tack.CRLF), "crlf.txt")
    assert t.out == f"removed crlf.txt (tombstone .crlf.txt.removed-{sha(tack.CRLF)[:8]})\n".encode()


def test_a_link_is_moved_as_itself(tree):
    r = M(tree, "link_out_file", "dir/moved_link")
    assert r.exit == 0, r
    assert os.fsdecode(os.readlink(tree.p("dir/moved_link"))) == str(tree.outside / "secret.txt")
    assert read(tree.outside / "secret.txt") == SECRET + b"\n"
    target = os.fsencode(str(tree.outside / "secret.txt"))
    r = M(tree, "--remove", "--if-sha256", sha(target), "dir/moved_link")
    assert r.exit == 0 and os.path.islink(tree.p(r.data["to"]))


def test_a_link_hash_is_its_target_text(tree):
    r = M(tree, "--remove", "--if-sha256", "0" * 64, "link_out_file")
    assert r.rules == ["precondition.hash-mismatch"]
    assert r.errors[0]["detail"]["kind"] == "symlink"
    assert r.errors[0]["detail"]["actual_sha256"] == sha(os.fsencode(str(tree.outside / "secret.txt")))


def test_a_directory_is_moved_whole(tree):
    r = M(tree, "dir", "renamed")
    assert r.exit == 0, r
    assert read(tree.p("renamed/sub/deep.txt")) == tack.DEEP
    r = M(tree, "--parents", "renamed/sub", "x/y/sub")
    assert r.exit == 0 and read(tree.p("x/y/sub/deep.txt")) == tack.DEEP


def test_a_directory_cannot_be_hashed_or_moved_into_itself(tree):
    r = M(tree, "--remove", "--if-sha256", "0" * 64, "dir")
    assert r.rules == ["io.is-a-directory"]
    r = M(tree, "dir", "dir/sub/inner")
    assert r.rules == ["path.bad-name"]
    r = M(tree, "dir", "dir")
    assert r.rules == ["path.bad-name"]
    assert os.path.isdir(tree.p("dir/sub"))


def test_without_root_paths_are_as_given(tree):
    r = run("move", "plain.txt", "dir/moved.txt", cwd=tree.root)
    assert r.exit == 0 and read(tree.p("dir/moved.txt")) == tack.PLAIN
    r = run("move", "--remove", "--if-sha256", H_PLAIN, tree.p("dir/moved.txt"))
    assert r.exit == 0
    assert os.path.basename(tack.tob(r.data["to"])) == f".moved.txt.removed-{H_PLAIN[:8]}".encode()
    r = run("move", "crlf.txt", "link_out_file", cwd=tree.root)
    assert r.rules == ["conflict.exists"]


# --- hostile: links in the paths ----------------------------------------------------------------

def test_links_in_either_path_are_refused(tree):
    outside = snapshot(tree.outside)
    r = M(tree, "link_out_dir/secret.txt", "stolen.txt")
    assert r.rules == ["path.symlink"]
    r = M(tree, "plain.txt", "link_out_dir/planted.txt")
    assert r.rules == ["path.symlink"]
    r = M(tree, "--parents", "plain.txt", "link_out_dir/new/planted.txt")
    assert r.rules == ["path.symlink"]
    tree.mid_link("dirlink")
    r = M(tree, "dirlink/sub/deep.txt", "deep.txt")
    assert r.rules == ["path.symlink"]
    assert snapshot(tree.outside) == outside
    assert read(tree.p("plain.txt")) == tack.PLAIN and read(tree.p("dir/sub/deep.txt")) == tack.DEEP


def test_a_hard_link_to_an_outside_file_moves_only_the_name(tree):
    os.link(tree.outside / "secret.txt", tree.p("hard"))
    r = M(tree, "hard", "dir/hard2")
    assert r.exit == 0
    assert read(tree.outside / "secret.txt") == SECRET + b"\n"
    assert os.path.samefile(tree.outside / "secret.txt", tree.p("dir/hard2"))


def test_directory_swapped_for_a_link_during_300_moves(tree):
    os.mkdir(tree.p("swap_real"))
    tree.write("swap_real/secret.txt", SECRET + b" in dir\n")
    tree.write("token.txt", b"token\n")
    tree.link("swap_link", tree.outside / "dir")
    outside = snapshot(tree.outside)
    flipper = subprocess.Popen(["/usr/bin/python3", "-c", FLIPPER, str(tree.root)])
    seen = {}
    try:
        for i in range(300):
            if i % 3 == 0:
                r = M(tree, "swap/secret.txt", "stolen.txt")  # would take the outside file
            elif i % 3 == 1:
                r = M(tree, "token.txt", "swap/token.txt")  # would plant a file outside
            else:
                r = M(tree, "swap/token.txt", "token.txt")
            key = r.rules[0] if r.rules else "ok"
            seen[key] = seen.get(key, 0) + 1
            assert key in ("ok", "path.symlink", "io.not-found", "conflict.exists"), r
            if key == "ok" and i % 3 == 0:
                # Only ever the inside file: put it back for the next round.
                assert read(tree.p("stolen.txt")) == SECRET + b" in dir\n"
                for _ in range(10000):  # the real directory is away while it is named swap
                    try:
                        os.rename(tree.p("stolen.txt"), tree.p("swap_real/secret.txt"))
                        break
                    except FileNotFoundError:
                        continue
    finally:
        open(tree.p("stop"), "w").close()
        flipper.wait(30)
    assert snapshot(tree.outside) == outside, "something outside the root changed"
    assert seen.get("path.symlink", 0) > 0 and seen.get("ok", 0) > 0, seen


# --- M5: against mv -n -T ---------------------------------------------------------------------

SCENARIOS = [
    ("to-new-name", "plain.txt", "renamed.txt"),
    ("across-dirs", "plain.txt", "dir/sub/p.txt"),
    ("onto-file", "plain.txt", "crlf.txt"),
    ("onto-dir", "plain.txt", "dir"),
    ("onto-dangling", "plain.txt", "dangling"),
    ("missing-source", "nothing.txt", "x.txt"),
    ("odd-names", "-rf", "with space.txt"),
]


@pytest.mark.parametrize("sc", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_same_final_tree_as_mv_no_clobber(tmp_path, sc):
    _, src, dst = sc
    trees = {}
    for who in ("mv", "move"):
        t = tack.make_tree(tmp_path / who / "root")
        t.dangling("dangling")
        t.odd_names()
        os.unlink(t.p("with space.txt"))
        trees[who] = t
    subprocess.run(["mv", "-n", "-T", "--", src, dst], cwd=trees["mv"].root, capture_output=True,
                   env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"})
    r = run("move", "--root", trees["move"].root, "--", src, dst)
    def comparable(who):
        # Inode numbers differ between the two trees, and absolute link targets name each
        # tree's own outside directory. move's journal (.tack/) is its own deliberate addition.
        out = {}
        for k, v in snapshot(trees[who].root).items():
            if k == ".tack" or k.startswith(".tack/"):
                assert who == "move"
                continue
            if v[0] == "file":
                v = v[:3]
            elif v[0] == "link":
                v = ("link", v[1].replace(str(tmp_path / who), "BASE"))
            out[k] = v
        return out

    assert comparable("mv") == comparable("move"), r


# --- M3: every declared rule reached, every retry cleared -------------------------------------

R = "{root}"
STRACE = ["strace", "-f", "-qq", "-o", "/dev/null"]
NO_NOREPLACE = STRACE + ["-e", "trace=renameat2", "-e", "inject=renameat2:error=EINVAL"]
RENAME_EIO = STRACE + ["-e", "trace=renameat2", "-e", "inject=renameat2:error=EIO"]
READ_EIO = STRACE + ["-e", "trace=pread64", "-e", "inject=pread64:error=EIO"]

FIXTURES = [
    ("args.unknown-flag", [R, "--parnets", "plain.txt", "p/q.txt"], {}),
    ("args.missing-value", [R, "plain.txt", "x.txt", "--if-sha256"], {}),
    ("args.bad-value", [R, "--if-sha256", "nothex", "plain.txt", "x.txt"], {}),
    ("args.unexpected-value", [R, "--parents=1", "plain.txt", "x.txt"], {}),
    ("args.duplicate-flag", [R, "--parents", "--parents", "plain.txt", "x.txt"], {}),
    ("args.conflict", [R, "--remove", "--parents", "--if-sha256", H_PLAIN, "plain.txt"], {}),
    ("args.missing-operand", [R, "plain.txt"], {}),
    ("args.missing-operand", [R], {}),
    ("args.too-many-operands", [R, "plain.txt", "a.txt", "b.txt"], {}),
    ("args.conflict", [R, "--remove", "--if-sha256", H_PLAIN, "plain.txt", "x.txt"], {}),
    ("args.conflict", [R, "--remove", "--if-sha256", H_PLAIN, "--if-sha256", H_PLAIN,
                       "plain.txt", "plain.txt"], {}),
    ("args.duplicate-flag", [R, "--if-sha256", H_PLAIN, "--if-sha256", H_PLAIN, "plain.txt",
                             "x.txt"], {}),
    ("path.empty", [R, "plain.txt", ""], {}),
    ("path.dotdot", [R, "plain.txt", "dir/../dd.txt"], {}),
    ("path.dotdot", [R, "../outside/secret.txt", "x.txt"], {}),
    ("path.absolute", [R, R + "/plain.txt", "abs.txt"], {}),
    ("path.outside-root", [R, "plain.txt", "/etc/tack-never.txt"], {}),
    ("path.too-long", [R, "plain.txt", "a" * 4097], {}),
    ("path.symlink", [R, "link_out_dir/secret.txt", "x.txt"], {}),
    ("path.bad-name", [R, "dir", "dir/sub/x"], {}),
    ("io.not-found", [R, "missing.txt", "x.txt"], {}),
    ("io.not-a-directory", [R, "plain.txt/x", "x.txt"], {}),
    ("io.is-a-directory", [R, "--if-sha256", H_PLAIN, "dir", "x"], {}),
    ("io.special-file", [R, "--if-sha256", H_PLAIN, "fifo", "x"], {}),
    ("io.special-file", [R, "--remove", "--if-sha256", H_PLAIN, "--if-sha256", H_PLAIN, "fifo",
                         "plain.txt"], {}),
    ("io.permission-denied", [R, "ro/f.txt", "x.txt"], {"wrap": tack.NO_DAC}),
    ("io.read-failed", [R, "--if-sha256", H_PLAIN, "plain.txt", "x.txt"], {"wrap": READ_EIO}),
    ("io.write-failed", [R, "plain.txt", "x.txt"], {"wrap": RENAME_EIO}),
    ("io.rename-unsupported", [R, "plain.txt", "x.txt"], {"wrap": NO_NOREPLACE}),
    ("precondition.required", [R, "--remove", "plain.txt"], {}),
    ("precondition.hash-mismatch", [R, "--if-sha256", "0" * 64, "plain.txt", "x.txt"], {}),
    ("conflict.exists", [R, "plain.txt", "crlf.txt"], {}),
    ("conflict.locked", [R, "plain.txt", "dir/x.txt"], {"lock": "dir"}),
]


def _prepare(tree):
    if not os.path.lexists(tree.p("fifo")):
        tree.fifo("fifo")
    if not os.path.exists(tree.p("ro")):
        os.mkdir(tree.p("ro"))
        tree.write("ro/f.txt", b"ro\n")
        os.chmod(tree.p("ro"), 0o555)


def _mfix(tree, args, opts, extra=()):
    _prepare(tree)
    a = []
    for x in args:
        if x == R:
            a += ["--root", str(tree.root)]
        else:
            a.append(x.replace(R, str(tree.root)))
    holder = None
    if opts.get("lock"):
        holder = os.open(tree.p(opts["lock"]), os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        return run("move", *extra, *a, wrap=opts.get("wrap"), cwd=tree.root.parent, timeout=30)
    finally:
        if holder is not None:
            os.close(holder)


@pytest.mark.parametrize("fx", FIXTURES, ids=[f"{f[0]}-{i}" for i, f in enumerate(FIXTURES)])
def test_fixture_reaches_its_rule(tree, fx):
    rule, args, opts = fx
    outside = snapshot(tree.outside)
    r = _mfix(tree, args, opts)
    assert r.rules and r.rules[0] == rule, r
    assert r.exit == tack.CATALOGUE[rule]
    assert snapshot(tree.outside) == outside
    if rule not in ("args.unknown-flag", "path.dotdot", "path.absolute"):  # their retries ran
        assert read(tree.p("plain.txt")) == tack.PLAIN
    t = _mfix(tree, args, opts, extra=("--format", "text"))
    assert t.exit == tack.CATALOGUE[rule] and t.err.startswith(f"move: {rule}: ".encode()), t


def test_reached_rules_equal_declared_rules(tree):
    reached = set()
    for rule, args, opts in FIXTURES:
        reached.update(_mfix(tree, args, opts).rules)
        # Put back what a retry moved, so every fixture sees the same tree.
        for moved in ("p/q.txt", "dd.txt", "abs.txt"):
            if os.path.exists(tree.p(moved)):
                os.rename(tree.p(moved), tree.p("plain.txt"))
    declared = set(tack.declared_rules("move"))
    assert reached == declared, (declared - reached, reached - declared)


def test_retry_repairs_were_executed_and_cleared(tree):
    before = len(tack.RETRIES)
    r = M(tree, "--no-jornal", "plain.txt", "q.txt")
    assert r.retried and r.retried[0].exit == 0 and read(tree.p("q.txt")) == tack.PLAIN
    # A typo of --parents is named, not retried: a repair never adds a flag that widens.
    r = M(tree, "--parnets", "q.txt", "p/q.txt")
    assert r.errors[0]["repair"] is None and r.errors[0]["detail"]["nearest"] == "--parents"
    assert not os.path.exists(tree.p("p"))
    r = M(tree, "crlf.txt", "dir/./sub/../../dd.txt")
    assert r.retried[0].exit == 0 and r.retried[0].data["to"] == "dd.txt"
    r = M(tree, f"{tree.root}/mixed.txt", "abs.txt")
    assert r.retried[0].exit == 0 and read(tree.p("abs.txt")) == tack.MIXED
    rules = {x["rule"] for x in tack.RETRIES[before:] if x["tool"] == "move"}
    assert rules == {"args.unknown-flag", "path.dotdot", "path.absolute"}


def test_rename_unsupported_never_falls_back(tree):
    r = M(tree, "plain.txt", "x.txt", wrap=NO_NOREPLACE)
    assert r.rules == ["io.rename-unsupported"] and r.errors[0]["detail"]["errno"] == "EINVAL"
    assert os.path.exists(tree.p("plain.txt")) and not os.path.exists(tree.p("x.txt"))
    w = run("write", "--root", tree.root, "--create", "--stdin", "new.txt", stdin=b"x",
            wrap=NO_NOREPLACE)
    assert w.rules == ["io.rename-unsupported"]
    assert not os.path.exists(tree.p("new.txt"))
    assert [n for n in os.listdir(tree.root) if ".tack-" in n] == []


# --- --remove of several paths, each with its own hash -------------------------------------------

THREE = {"r1.txt": b"one\n", "dir/r2.txt": b"two\n", "r3.txt": b"three\n"}


def _three(tree):
    for name, content in THREE.items():
        tree.write(name, content)
    args = []
    for content in THREE.values():
        args += ["--if-sha256", sha(content)]
    return args + list(THREE)


def _tomb(name, content):
    head, _, base = name.rpartition("/")
    return (head + "/" if head else "") + f".{base}.removed-{sha(content)[:8]}"


def test_remove_several_dry_run_apply_and_apply_again(tree):
    args = _three(tree)
    before = snapshot(tree.root)
    dry = M(tree, "--remove", "--dry-run", *args)
    assert dry.exit == 9 and snapshot(tree.root) == before
    assert [a["to"] for a in dry.doc["planned_actions"]] == [_tomb(n, c) for n, c in THREE.items()]
    assert [f["written"] for f in dry.data["files"]] == [False] * 3
    assert (dry.data["files_changed"], dry.data["files_written"]) == (3, 0)
    r = M(tree, "--remove", *args)
    assert r.exit == 0 and (r.data["files_changed"], r.data["files_written"]) == (3, 3)
    for f, (name, content) in zip(r.data["files"], THREE.items()):
        assert f == {"from": name, "to": _tomb(name, content), "changed": True, "removed": True,
                     "tombstone": _tomb(name, content), "written": True}
        assert not os.path.lexists(tree.p(name)) and read(tree.p(f["to"])) == content
    after = snapshot(tree.root)
    again = M(tree, "--remove", *args)
    assert again.exit == 0 and [f["changed"] for f in again.data["files"]] == [False] * 3
    assert again.data["files_written"] == 0 and snapshot(tree.root) == after
    dry = M(tree, "--remove", "--dry-run", *args)
    assert dry.exit == 9 and dry.doc["planned_actions"] == []
    t = M(tree, "--remove", "--format", "text", *args)
    assert t.out.count(b"already moved") == 3


@pytest.mark.parametrize("spoil", ["hash", "missing", "tombstone", "directory", "mid-link"])
def test_remove_several_one_bad_among_three_moves_nothing(tree, spoil):
    args = _three(tree)
    bad = "dir/r2.txt"
    if spoil == "hash":
        tree.write(bad, b"changed since it was read\n")
    elif spoil == "missing":
        os.unlink(tree.p(bad))
    elif spoil == "tombstone":
        tree.write(_tomb(bad, THREE[bad]), b"an older removal\n")
    elif spoil == "directory":
        os.unlink(tree.p(bad))
        os.mkdir(tree.p(bad))
    else:  # a link in the middle of the path
        tree.mid_link("dirlink")
        args[args.index(bad)] = "dirlink/r2.txt"
    before, outside = snapshot(tree.root), snapshot(tree.outside)
    r = M(tree, "--remove", *args)
    want = {"hash": "precondition.hash-mismatch", "missing": "io.not-found",
            "tombstone": "conflict.exists", "directory": "io.is-a-directory",
            "mid-link": "path.symlink"}[spoil]
    assert r.rules == [want], r
    assert snapshot(tree.root) == before and snapshot(tree.outside) == outside
    # The others passed their checks and are listed, none renamed.
    assert [f["from"] for f in r.data["files"]] == ["r1.txt", "r3.txt"]
    assert r.data["files_written"] == 0 and not any(f["written"] for f in r.data["files"])
    if spoil == "directory":
        assert r.errors[0]["message"].startswith("cannot remove 'dir/r2.txt'")


def test_remove_several_errors_in_path_order_and_all_reported(tree):
    args = _three(tree)
    os.unlink(tree.p("r3.txt"))
    tree.write("r1.txt", b"other\n")
    r = M(tree, "--remove", *args)
    assert r.rules == ["precondition.hash-mismatch", "io.not-found"]
    assert [e["detail"]["path"] for e in r.errors] == ["r1.txt", "r3.txt"]
    assert os.path.exists(tree.p("dir/r2.txt"))


def test_remove_several_pairing_and_duplicates_are_argument_errors(tree):
    args = _three(tree)
    before = snapshot(tree.root)
    r = M(tree, "--remove", *args[2:])  # two hashes, three paths
    assert r.rules == ["args.conflict"] and r.errors[0]["detail"]["paths"] == 3
    r = M(tree, "--remove", *args, "r1.txt", "--if-sha256", "nothex")
    assert r.rules == ["args.bad-value", "args.conflict"]
    h = sha(THREE["r1.txt"])
    r = M(tree, "--remove", "--if-sha256", h, "--if-sha256", h, "r1.txt", "./r1.txt")
    assert r.rules == ["args.conflict"] and r.errors[0]["detail"]["path"] == "r1.txt"
    assert snapshot(tree.root) == before


def test_remove_several_with_a_link_removes_the_link_itself(tree):
    tree.write("r1.txt", b"one\n")
    target = os.fsencode(str(tree.outside / "secret.txt"))
    outside = snapshot(tree.outside)
    r = M(tree, "--remove", "--if-sha256", sha(b"one\n"), "--if-sha256", sha(target), "r1.txt",
          "link_out_file")
    assert r.exit == 0 and r.data["files_written"] == 2
    assert os.path.islink(tree.p(r.data["files"][1]["to"]))
    assert snapshot(tree.outside) == outside


def test_remove_several_a_failed_rename_midway_says_which_were_renamed(tree):
    args = _three(tree)
    wrap = STRACE + ["-e", "trace=renameat2", "-e", "inject=renameat2:error=EIO:when=2"]
    r = M(tree, "--remove", *args, wrap=wrap)
    assert r.rules == ["io.write-failed"] and r.errors[0]["detail"]["path"] == "dir/r2.txt"
    assert [f["written"] for f in r.data["files"]] == [True, False, False]
    assert r.data["files_written"] == 1
    assert not os.path.exists(tree.p("r1.txt")) and os.path.exists(tree.p("dir/r2.txt"))
    assert os.path.exists(tree.p("r3.txt"))
    # The same call again finishes the batch: the first is a landed retry.
    again = M(tree, "--remove", *args)
    assert again.exit == 0 and [f["written"] for f in again.data["files"]] == [False, True, True]


def test_remove_several_dry_run_makes_no_mutating_call(tree, tmp_path):
    from test_m7_mutation import mutations, traced
    args = _three(tree)
    before = snapshot(tree.root)
    code, calls = traced("move", ["--root", tree.root, "--remove", "--dry-run", *args], None,
                         tmp_path)
    assert code == 9 and mutations(calls) == [] and snapshot(tree.root) == before
    code, calls = traced("move", ["--root", tree.root, "--remove", *args], None, tmp_path)
    assert code == 0 and [n for n, _ in calls].count("renameat2") == 3
    assert "flock" in [n for n, _ in calls]


def test_remove_several_two_racing_removers(tree):
    for round_ in range(20):
        args = _three(tree)
        procs = [subprocess.Popen([tack.bin_path("move"), "--root", str(tree.root), "--remove",
                                   *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for _ in range(2)]
        docs = []
        for p in procs:
            out, err = p.communicate(timeout=30)
            docs.append(tack.check_output("move", [b"--remove"], p.returncode, out, err))
        written = [d["data"]["files_written"] for d in docs if d["ok"]]
        for d in docs:
            assert d["ok"] or d["errors"][0]["rule"] == "conflict.locked", d
        # Each path renamed exactly once between the two.
        assert sum(written) == 3, docs
        for name, content in THREE.items():
            assert not os.path.lexists(tree.p(name))
            os.rename(tree.p(_tomb(name, content)), tree.p(name))


def test_remove_one_name_spelled_two_ways_is_refused_hard_links_are_two_names(tree):
    tree.write("r1.txt", b"one\n")
    h = sha(b"one\n")
    before = snapshot(tree.root)
    r = run("move", "--remove", "--if-sha256", h, "--if-sha256", h, "r1.txt", tree.p("r1.txt"),
            cwd=tree.root)
    assert r.rules == ["args.conflict"] and r.errors[0]["detail"]["same_as"] == "r1.txt"
    assert r.data["files"] == [] and snapshot(tree.root) == before
    os.link(tree.p("r1.txt"), tree.p("hard.txt"))
    r = M(tree, "--remove", "--if-sha256", h, "--if-sha256", h, "r1.txt", "hard.txt")
    assert r.exit == 0 and r.data["files_written"] == 2
    assert not os.path.exists(tree.p("r1.txt")) and not os.path.exists(tree.p("hard.txt"))
