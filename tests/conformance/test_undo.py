"""undo and the writers' journal (.tack/journal beneath the root).

Every writer (write, replace, edit, move) records its change before it makes it; undo takes a
change back only where each file is still exactly what the change left, restores the exact
bytes, mode and name, and is itself an entry. Hostile first: a person's edit since, another
writer since, a journal that is damaged or made of links, an entry naming a path outside the
root. Every invocation goes through tack.run, which validates the output against its schema.
"""

import fcntl
import json
import os
import stat
import subprocess
import threading

import pytest

import tack
from mutation import MiB, kill_at, read, sha, snapshot, syscall_steps
from tack import SECRET, run


def T(tool, tree, *args, **kw):
    return run(tool, "--root", tree.root, *args, cwd=tree.root.parent, **kw)


def U(tree, *args, **kw):
    return T("undo", tree, *args, **kw)


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def jid(r) -> int:
    return r.data["journal"]["id"]


def outside_untouched(tree):
    assert read(tree.outside / "secret.txt") == SECRET + b"\n"
    assert read(tree.outside / "dir" / "secret.txt") == SECRET + b" in dir\n"


def witnesses(tree, name):
    r = run("peek", "--root", tree.root, "--witness", "--lines", "1:", "--max-line-bytes",
            str(4 * MiB), name)
    return [l["witness"] for l in r.lines]


# --- change, then undo: the exact bytes, mode and name --------------------------------------

@pytest.mark.parametrize("name", ["crlf.txt", "latin1.txt", "bom.txt", "nofinal.txt", "nul.bin",
                                  "empty.txt"])
def test_write_then_undo_gives_back_bytes_and_mode(tree, name):
    os.chmod(tree.p(name), 0o640)
    old = read(tree.p(name))
    r = T("write", tree, "--if-sha256", sha(old), "--stdin", name, stdin=b"new\ncontent")
    assert r.exit == 0 and r.data["changed"]
    new = read(tree.p(name))
    assert new != old
    u = U(tree, str(jid(r)))
    assert u.exit == 0, u.out
    assert read(tree.p(name)) == old and mode(tree.p(name)) == 0o640
    assert u.data["files"][0]["after_sha256"] == sha(old)
    # The undo is an entry too: taking it back gives the write's content again.
    again = U(tree, str(jid(u)))
    assert again.exit == 0 and read(tree.p(name)) == new


def test_replace_on_crlf_latin1_then_undo(tree):
    old = read(tree.p("latin1.txt"))
    r = T("replace", tree, "--old", "plain", "--new", "PLAIN", "latin1.txt")
    assert r.exit == 0
    assert U(tree, "--last").exit == 0
    assert read(tree.p("latin1.txt")) == old
    old = read(tree.p("crlf.txt"))
    r = T("replace", tree, "--old", "two", "--new", "2\n2b", "crlf.txt")
    assert r.exit == 0 and read(tree.p("crlf.txt")) == b"one\r\n2\r\n2b\r\nthree\r\n"
    assert U(tree, str(jid(r))).exit == 0
    assert read(tree.p("crlf.txt")) == old


def test_multi_file_replace_is_one_entry_and_one_undo(tree):
    tree.write("a.txt", b"x = 1\n")
    tree.write("b.txt", b"y = 1\r\nx = 1\r\n")
    r = T("replace", tree, "--old", "x = 1", "--new", "x = 2", "a.txt", "b.txt")
    assert r.exit == 0 and r.data["files_written"] == 2
    entry = U(tree, "--list").data["entries"][0]
    assert entry["id"] == jid(r) and entry["tool"] == "replace"
    assert [f["path"] for f in entry["files"]] == ["a.txt", "b.txt"]
    u = U(tree, str(jid(r)))
    assert u.exit == 0 and len(u.data["files"]) == 2
    assert read(tree.p("a.txt")) == b"x = 1\n" and read(tree.p("b.txt")) == b"y = 1\r\nx = 1\r\n"


def test_edit_then_undo(tree):
    old = read(tree.p("bom.txt"))
    w = witnesses(tree, "bom.txt")
    r = T("edit", tree, "--stdin", "bom.txt",
          stdin=json.dumps([{"witness": w[1], "lines": ["SECOND", "third"]}]).encode())
    assert r.exit == 0 and r.data["changed"]
    assert U(tree, str(jid(r))).exit == 0
    assert read(tree.p("bom.txt")) == old


def test_create_is_taken_back_to_a_tombstone(tree):
    r = T("write", tree, "--create", "--stdin", "new.txt", stdin=b"fresh\n")
    assert r.exit == 0
    entry = U(tree, "--list", "new.txt").data["entries"][0]
    assert entry["files"][0]["kind"] == "create" and entry["files"][0]["before_sha256"] is None
    u = U(tree, str(jid(r)))
    assert u.exit == 0
    tomb = f".new.txt.removed-{sha(b'fresh' + bytes([10]))[:8]}"
    assert not os.path.lexists(tree.p("new.txt"))
    assert read(tree.p(tomb)) == b"fresh\n"
    # and back
    assert U(tree, str(jid(u))).exit == 0
    assert read(tree.p("new.txt")) == b"fresh\n" and not os.path.lexists(tree.p(tomb))


def test_remove_and_rename_are_taken_back(tree):
    os.chmod(tree.p("plain.txt"), 0o600)
    ino = os.stat(tree.p("plain.txt")).st_ino
    r = T("move", tree, "--remove", "--if-sha256", sha(tack.PLAIN), "plain.txt")
    assert r.exit == 0 and not os.path.exists(tree.p("plain.txt"))
    assert U(tree, str(jid(r))).exit == 0
    assert read(tree.p("plain.txt")) == tack.PLAIN and os.stat(tree.p("plain.txt")).st_ino == ino
    assert mode(tree.p("plain.txt")) == 0o600
    r = T("move", tree, "plain.txt", "dir/sub/moved.txt")
    assert r.exit == 0
    assert U(tree, "--last").exit == 0
    assert read(tree.p("plain.txt")) == tack.PLAIN and not os.path.exists(tree.p("dir/sub/moved.txt"))
    # a directory renamed, and back
    r = T("move", tree, "dir", "dir2")
    assert r.exit == 0
    assert U(tree, str(jid(r))).exit == 0
    assert read(tree.p("dir/sub/deep.txt")) == tack.DEEP


# --- refusals: what anyone changed since is never overwritten --------------------------------

def test_undo_after_a_persons_edit_refuses_and_changes_nothing(tree):
    r = T("replace", tree, "--old", "beta", "--new", "BETA", "plain.txt")
    assert r.exit == 0
    with open(tree.p("plain.txt"), "ab") as f:
        f.write(b"a person's line\n")
    before = snapshot(tree.root)
    u = U(tree, str(jid(r)))
    assert u.rules == ["conflict.changed-since"] and u.exit == 5
    d = u.errors[0]["detail"]
    assert d["path"] == "plain.txt" and d["expected_sha256"] == r.data["after_sha256"]
    assert d["actual_sha256"] == sha(read(tree.p("plain.txt")))
    assert d["show"][0] == "diff" and d["later_entries"] == []
    assert snapshot(tree.root) == before
    # what show names, run from the root, shows the difference
    p = subprocess.run(d["show"], cwd=tree.root, capture_output=True)
    assert p.returncode == 1 and b"a person's line" in p.stdout
    # the dry run refuses the same way
    assert U(tree, "--dry-run", str(jid(r))).rules == ["conflict.changed-since"]


def test_a_link_in_place_of_a_moved_file_is_not_it_and_the_other_way_round(tree):
    # A link whose text hashes as the file's content did: undo must not rename it back.
    (tree.root / "c").write_bytes(b"xyz")
    r = T("move", tree, "c", "d")
    assert r.exit == 0
    os.unlink(tree.p("d"))
    os.symlink("xyz", tree.p("d"))
    u = U(tree, str(jid(r)))
    assert u.rules == ["conflict.changed-since"] and os.path.islink(tree.p("d"))
    assert not os.path.lexists(tree.p("c"))
    # A moved link replaced by a file holding the link's text.
    os.symlink("target", tree.p("L"))
    r = T("move", tree, "L", "M")
    assert r.exit == 0
    os.unlink(tree.p("M"))
    (tree.root / "M").write_bytes(b"target")
    u = U(tree, str(jid(r)))
    assert u.rules == ["conflict.changed-since"] and not os.path.lexists(tree.p("L"))
    # Each as it was moved is taken back.
    os.unlink(tree.p("M"))
    os.symlink("target", tree.p("M"))
    assert U(tree, str(jid(r))).exit == 0 and os.fsdecode(os.readlink(tree.p("L"))) == "target"


def test_undo_after_another_writer_names_the_later_entry(tree):
    r1 = T("replace", tree, "--old", "beta", "--new", "BETA", "plain.txt")
    r2 = T("replace", tree, "--old", "gamma", "--new", "GAMMA", "plain.txt")
    before = snapshot(tree.root)
    u = U(tree, str(jid(r1)))
    assert u.rules == ["conflict.changed-since"]
    assert u.errors[0]["detail"]["later_entries"] == [jid(r2)]
    assert snapshot(tree.root) == before
    # newest first, they come back in turn
    assert U(tree, str(jid(r2))).exit == 0
    assert U(tree, str(jid(r1))).exit == 0
    assert read(tree.p("plain.txt")) == tack.PLAIN


def test_undo_of_a_rename_refuses_when_the_name_is_taken_again(tree):
    r = T("move", tree, "plain.txt", "moved.txt")
    tree.write("plain.txt", b"someone else's file\n")
    before = snapshot(tree.root)
    u = U(tree, str(jid(r)))
    assert u.rules == ["conflict.exists"]
    assert snapshot(tree.root) == before


def test_dry_run_shows_the_diff_and_changes_nothing(tree):
    r = T("replace", tree, "--old", "beta", "--new", "BETA", "plain.txt")
    before = snapshot(tree.root)
    u = U(tree, "--dry-run", str(jid(r)))
    assert u.exit == 9
    hunk = u.data["files"][0]["diff"]["hunks"][0]
    assert {"op": "-", "text": "BETA"} in hunk["lines"] and {"op": "+", "text": "beta"} in hunk["lines"]
    assert snapshot(tree.root) == before


# --- the journal itself -----------------------------------------------------------------------

def test_journal_layout_gitignore_and_no_journal(tree):
    r = T("write", tree, "--if-sha256", sha(tack.PLAIN), "--stdin", "plain.txt", stdin=b"x\n")
    assert r.data["journal"]["id"] == 1
    assert read(tree.p(".tack/.gitignore")).endswith(b"*\n")
    assert os.listdir(tree.p(".tack/journal/entries")) == [b"0000000000000001"]
    assert os.listdir(tree.p(".tack/journal/blobs")) == [sha(tack.PLAIN).encode()]
    r = T("write", tree, "--no-journal", "--if-sha256", sha(b"x\n"), "--stdin", "plain.txt",
          stdin=b"y\n")
    assert r.exit == 0 and r.data["journal"] is None
    assert len(os.listdir(tree.p(".tack/journal/entries"))) == 1


def test_list_is_newest_first_and_filters_by_path(tree):
    a = T("replace", tree, "--old", "beta", "--new", "B", "plain.txt")
    b = T("replace", tree, "--old", "two", "--new", "2", "crlf.txt")
    c = T("move", tree, "crlf.txt", "c.txt")
    ids = [e["id"] for e in U(tree, "--list").data["entries"]]
    assert ids == [jid(c), jid(b), jid(a)]
    assert [e["id"] for e in U(tree, "--list", "crlf.txt").data["entries"]] == [jid(c), jid(b)]
    f = U(tree, "--list", "plain.txt").data["entries"][0]["files"][0]
    assert (f["added"], f["removed"]) == (1, 1)
    # A change's kind is shown only where the tool does not already say it.
    text = U(tree, "--list", "--format", "text").out.decode()
    assert text.splitlines() == [f"{jid(c)} move  crlf.txt -> c.txt +0 -0",
                                 f"{jid(b)} replace  crlf.txt +1 -1",
                                 f"{jid(a)} replace  plain.txt +1 -1"]
    T("write", tree, "--create", "--stdin", "new.txt", stdin=b"n\n")
    d = T("move", tree, "--remove", "--if-sha256", sha(b"n\n"), "new.txt")
    u = U(tree, "--last")
    lines = U(tree, "--list", "--format", "text").out.decode().splitlines()
    assert lines[0] == f"{jid(u)} undo  rename {d.data['to']} -> new.txt +0 -0"
    assert lines[1] == f"{jid(d)} move  remove new.txt -> {d.data['to']} +0 -0"
    assert lines[2].endswith(" write  create new.txt +1 -0")


def test_no_journal_yet(tree):
    assert U(tree, "--list").data == {"entries": []}
    assert U(tree, "--last").rules == ["journal.no-entry"]
    assert U(tree, "7").rules == ["journal.no-entry"]
    assert not os.path.exists(tree.p(".tack"))


def test_journal_without_root_is_beneath_the_working_directory(tree):
    r = run("write", "--if-sha256", sha(tack.PLAIN), "--stdin", "plain.txt", stdin=b"z\n",
            cwd=tree.root)
    assert r.exit == 0 and os.path.isdir(tree.p(".tack/journal"))
    u = run("undo", "--last", cwd=tree.root)
    assert u.exit == 0 and read(tree.p("plain.txt")) == tack.PLAIN


def test_without_root_a_change_outside_the_working_directory_is_not_recorded(tree):
    # Its journal would be beneath the working directory, and undo keeps to what lies there.
    work = tree.p("dir")
    r = run("replace", "--old", "beta", "--new", "B", "../plain.txt", cwd=work)
    assert r.exit == 0 and r.data["journal"] is None and read(tree.p("plain.txt")) != tack.PLAIN
    r = run("write", "--create", "--stdin", os.path.join(tree.root, "abs-out.txt"), stdin=b"a\n",
            cwd=work)
    assert r.exit == 0 and r.data["journal"] is None
    assert not os.path.exists(os.path.join(work, b".tack"))
    # Inside it, absolute or not, it is.
    r = run("write", "--create", "--stdin", os.path.join(work, b"in.txt"), stdin=b"i\n", cwd=work)
    assert r.exit == 0 and r.data["journal"] == {"id": 1}
    u = run("undo", "--last", cwd=work)
    assert u.exit == 0 and not os.path.exists(os.path.join(work, b"in.txt"))


def test_pruning_at_the_cap_says_so(tree):
    T("write", tree, "--create", "--stdin", "x.txt", stdin=b"0\n")
    for i in range(1, 4):
        T("write", tree, "--if-sha256", sha(f"{i - 1}\n".encode()), "--stdin", "x.txt",
          stdin=f"{i}\n".encode())
    entries = tree.p(".tack/journal/entries")
    assert len(os.listdir(entries)) == 4
    with open(tree.p(".tack/journal/max-bytes"), "w") as f:
        f.write("1500\n")
    r = T("write", tree, "--if-sha256", sha(b"3\n"), "--stdin", "x.txt", stdin=b"4\n")
    assert r.exit == 0
    pruned = r.data["journal"]["pruned"]
    assert pruned and pruned == sorted(pruned) and pruned[0] == 1
    left = sorted(int(n) for n in os.listdir(entries))
    assert jid(r) in left and not set(pruned) & set(left)
    total = sum(os.path.getsize(os.path.join(d, n)) for d in (entries, tree.p(".tack/journal/blobs"))
                for n in os.listdir(d))
    assert total <= 1500
    # the entries left still undo
    assert U(tree, str(jid(r))).exit == 0 and read(tree.p("x.txt")) == b"3\n"


def test_two_writers_at_once_are_both_listed(tree):
    for i in range(8):
        tree.write(f"f{i}.txt", b"v0\n")
    results = [None] * 8

    def one(i):
        results[i] = T("write", tree, "--if-sha256", sha(b"v0\n"), "--stdin", f"f{i}.txt",
                       stdin=f"w{i}\n".encode())

    threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.exit == 0 for r in results)
    ids = sorted(jid(r) for r in results)
    assert ids == list(range(1, 9))
    listed = U(tree, "--list").data["entries"]
    assert sorted(e["id"] for e in listed) == ids
    for r in results:
        assert U(tree, str(jid(r))).exit == 0
    assert all(read(tree.p(f"f{i}.txt")) == b"v0\n" for i in range(8))


# --- a hostile or damaged journal -------------------------------------------------------------

def test_tack_dir_a_link_outside_refuses_the_write(tree):
    os.symlink(tree.outside, tree.p(".tack"))
    before = snapshot(tree.root)
    r = T("write", tree, "--if-sha256", sha(tack.PLAIN), "--stdin", "plain.txt", stdin=b"x\n")
    assert r.rules == ["path.symlink"]
    assert snapshot(tree.root) == before
    assert sorted(os.listdir(tree.outside)) == ["dir", "secret.txt"]
    outside_untouched(tree)
    # --no-journal still writes
    assert T("write", tree, "--no-journal", "--if-sha256", sha(tack.PLAIN), "--stdin",
             "plain.txt", stdin=b"x\n").exit == 0


def test_journal_dirs_as_links_inside(tree):
    T("replace", tree, "--old", "beta", "--new", "B", "plain.txt")
    os.rename(tree.p(".tack/journal/blobs"), tree.p("blobs-moved"))
    os.symlink(tree.outside, tree.p(".tack/journal/blobs"))
    r = T("replace", tree, "--old", "gamma", "--new", "G", "plain.txt")
    assert r.rules == ["path.symlink"]
    assert b"G" not in read(tree.p("plain.txt"))
    outside_untouched(tree)


def _entry_path(tree, n):
    return tree.p(f".tack/journal/entries/{n:016d}")


def test_truncated_entry_is_damaged_and_nothing_changes(tree):
    r = T("replace", tree, "--old", "beta", "--new", "B", "plain.txt")
    p = _entry_path(tree, jid(r))
    data = read(p)
    with open(p, "wb") as f:
        f.write(data[: len(data) // 2])
    before = snapshot(tree.root)
    u = U(tree, str(jid(r)))
    assert u.rules == ["journal.damaged"] and u.exit == 8
    assert snapshot(tree.root) == before
    listed = U(tree, "--list").data["entries"]
    assert listed[0]["state"] == "damaged" and listed[0]["rule"] == "journal.damaged"


def test_entry_naming_a_path_outside_the_root(tree):
    r = T("replace", tree, "--old", "beta", "--new", "B", "plain.txt")
    p = _entry_path(tree, jid(r))
    data = read(p)
    for evil in [b"../outside/secret.txt", b"/etc/passwd", b".tack/journal/max-bytes",
                 b"link_out_file"]:
        with open(p, "wb") as f:
            f.write(data.replace(b"plain.txt".hex().encode(), evil.hex().encode()))
        u = U(tree, str(jid(r)))
        assert u.rules and u.rules[0] in ("journal.damaged", "path.symlink",
                                          "conflict.changed-since"), (evil, u.out)
        if evil != b"link_out_file":
            assert u.rules == ["journal.damaged"], (evil, u.out)
        outside_untouched(tree)


def test_entry_as_a_link_and_blob_not_what_it_names(tree):
    r = T("replace", tree, "--old", "beta", "--new", "B", "plain.txt")
    blob = tree.p(".tack/journal/blobs/" + sha(tack.PLAIN))
    with open(blob, "wb") as f:
        f.write(b"forged earlier content\n")
    before = snapshot(tree.root)
    u = U(tree, str(jid(r)))
    assert u.rules == ["journal.damaged"] and snapshot(tree.root) == before
    p = _entry_path(tree, jid(r))
    os.rename(p, tree.p("saved-entry"))
    os.symlink(tree.outside / "secret.txt", p)
    u = U(tree, str(jid(r)))
    assert u.rules == ["journal.damaged"]
    outside_untouched(tree)


def test_huge_blob_is_refused_not_read(tree):
    r = T("write", tree, "--if-sha256", sha(tack.PLAIN), "--stdin", "plain.txt", stdin=b"x\n")
    blob = tree.p(".tack/journal/blobs/" + sha(tack.PLAIN))
    with open(blob, "wb") as f:
        f.truncate(300 * MiB)  # sparse: past what the journal holds
    before = snapshot(tree.root)
    u = U(tree, str(jid(r)))
    assert u.rules == ["journal.damaged"]
    assert read(tree.p("plain.txt")) == b"x\n"
    del before


# --- large files: only what the change took out is kept --------------------------------------

def _journal_bytes(tree):
    total = 0
    for dirpath, _, files in os.walk(tree.p(".tack/journal")):
        total += sum(os.path.getsize(os.path.join(dirpath, n)) for n in files)
    return total


@pytest.mark.parametrize("tool", ["replace", "edit"])
def test_one_line_in_100_mib_keeps_only_that_line(tree, tool):
    line = b"%09d the quick brown fox jumps over the lazy dog\n"
    n = (100 * MiB) // len(line % 0)
    big = b"".join(line % i for i in range(n))
    tree.write("big.txt", big)
    os.chmod(tree.p("big.txt"), 0o604)
    h = sha(big)
    grown_from = _journal_bytes(tree) if os.path.exists(tree.p(".tack")) else 0
    target = line % (n // 2)
    if tool == "replace":
        r = T("replace", tree, "--max-bytes", str(256 * MiB), "--old", target.decode(), "--new",
              "CHANGED\n", "big.txt", timeout=240)
    else:
        w = run("peek", "--root", tree.root, "--witness", "--lines", f"{n // 2 + 1}:{n // 2 + 1}",
                "big.txt").doc["data"]["lines"][0]["witness"]
        r = T("edit", tree, "--max-bytes", str(256 * MiB), "--stdin", "big.txt",
              stdin=json.dumps([{"witness": w, "lines": ["CHANGED"]}]).encode(), timeout=240)
    assert r.exit == 0, r.out
    assert _journal_bytes(tree) - grown_from <= len(target) + 1024
    del big
    u = U(tree, str(jid(r)), timeout=240)
    assert u.exit == 0, u.out
    p = subprocess.run(["sha256sum", tree.p("big.txt")], capture_output=True, check=True)
    assert p.stdout.split()[0].decode() == h
    assert mode(tree.p("big.txt")) == 0o604


# --- kill -9 at every system call: file and journal stay consistent ---------------------------

def _entries_for(tree, path):
    """(id, state, after) of each listed entry naming path, newest first."""
    out = []
    for e in U(tree, "--list", path).data["entries"]:
        out.append((e["id"], e["state"], e["files"][0]["after_sha256"]))
    return out


def _reset(tree, content):
    import shutil
    shutil.rmtree(tree.p(".tack"), ignore_errors=True)
    tree.write("k.txt", content)


def test_kill_9_at_every_system_call_of_a_journaled_write(tree, tmp_path):
    old, new = b"old content\n" * 1000, b"new content\n" * 1200
    tree.write("new.bin", new)
    argv = [tack.bin_path("write"), "--root", str(tree.root), "--if-sha256", sha(old),
            "--content-file", "new.bin", "k.txt"]
    _reset(tree, old)
    steps = syscall_steps(argv, tmp_path)
    outcomes = set()
    for name, nth in steps:
        _reset(tree, old)
        kill_at(name, nth, argv)
        now = read(tree.p("k.txt"))
        assert now in (old, new), f"partial target after kill at {name} #{nth}"
        outcomes.add(now == new)
        entries = _entries_for(tree, "k.txt") if os.path.exists(tree.p(".tack/journal")) else []
        if now == new:
            # never a change without its record; and undo takes it back
            assert entries and entries[0][2] == sha(new), (name, nth, entries)
            u = U(tree, str(entries[0][0]))
            assert u.exit == 0, (name, nth, u.out)
            assert read(tree.p("k.txt")) == old
        else:
            # the old file: at most a pending entry, whose undo refuses and changes nothing
            assert all(state == "pending" for _, state, _ in entries), (name, nth, entries)
            for n, _, _ in entries:
                assert U(tree, str(n)).rules == ["conflict.changed-since"]
                assert read(tree.p("k.txt")) == old
        outside_untouched(tree)
    assert outcomes == {False, True}


def test_kill_9_at_every_system_call_of_an_undo(tree, tmp_path):
    old, new = b"old\r\nbytes\r\n" * 500, b"new content\r\n" * 700

    def prepare():
        _reset(tree, old)
        r = T("write", tree, "--if-sha256", sha(old), "--stdin", "k.txt", stdin=new)
        assert jid(r) == 1

    argv = [tack.bin_path("undo"), "--root", str(tree.root), "1"]
    prepare()
    steps = syscall_steps(argv, tmp_path)
    outcomes = set()
    for name, nth in steps:
        prepare()
        kill_at(name, nth, argv)
        now = read(tree.p("k.txt"))
        assert now in (old, new), f"partial target after kill at {name} #{nth}"
        outcomes.add(now == old)
        entries = _entries_for(tree, "k.txt")
        if now == old:
            # the undo landed: its own entry is there, and taking it back gives `new`
            assert entries[0][0] == 2 and entries[0][2] == sha(old), (name, nth, entries)
            assert U(tree, "2").exit == 0 and read(tree.p("k.txt")) == new
        else:
            # not landed: undo still works from the write's entry
            assert U(tree, "1").exit == 0, (name, nth)
            assert read(tree.p("k.txt")) == old
    assert outcomes == {False, True}


def test_seek_and_list_skip_the_journal_by_default(tree):
    T("replace", tree, "--old", "beta", "--new", "BETA", "plain.txt")
    assert os.path.isdir(tree.p(".tack/journal/blobs"))
    listed = [l["path"] for l in run("list", "--root", tree.root, ".").json if l["type"] == "entry"]
    assert listed and not [p for p in listed if p.startswith(".tack")]
    # the blob holds "beta": seek finds it only in the file it was taken from, never in .tack
    r = run("seek", "--root", tree.root, "alpha", ".")
    assert not [l for l in r.json if str(l.get("path", "")).startswith(".tack")]


def test_a_change_whose_writer_died_after_its_commit_is_taken_back_by_last(tree):
    a = T("replace", tree, "--old", "beta", "--new", "B", "plain.txt")
    # renameat 1: the blob, 2: the file's own commit, 3: the entry marked complete, where the
    # writer is killed (the pending entry is made under its name, not renamed)
    argv = [str(tack.BIN / "replace"), "--root", str(tree.root), "--old", "two", "--new", "2",
            "crlf.txt"]
    kill_at("renameat", 3, argv)
    assert read(tree.p("crlf.txt")) == tack.CRLF.replace(b"two", b"2")
    assert os.path.exists(tree.p(".tack/journal/entries/%016d.pending" % 2))
    # its change was made: the list says complete, as --last takes it
    listed = U(tree, "--list").data["entries"]
    assert [(e["id"], e["state"]) for e in listed] == [(2, "complete"), (jid(a), "complete")]
    u = U(tree, "--last")
    assert u.exit == 0 and u.data["id"] == 2 and read(tree.p("crlf.txt")) == tack.CRLF
    assert read(tree.p("plain.txt")) != tack.PLAIN  # the older change is left alone


def test_an_entry_torn_while_it_was_written_is_passed_over(tree):
    a = T("replace", tree, "--old", "beta", "--new", "B", "plain.txt")
    b = T("replace", tree, "--old", "two", "--new", "2", "crlf.txt")
    entries = os.fsdecode(tree.p(".tack/journal/entries"))
    whole = read(os.path.join(entries, "%016d" % jid(b)))
    # What a writer killed while writing its entry leaves: part of it, under the pending name
    # (its change never made).
    with open(os.path.join(entries, "%016d.pending" % (jid(b) + 1)), "wb") as f:
        f.write(whole[:len(whole) // 2])
    listed = U(tree, "--list").data["entries"]
    assert listed[0]["id"] == jid(b) + 1 and listed[0]["state"] == "damaged"
    assert "before it changed anything" in listed[0]["message"]
    u = U(tree, "--last")
    assert u.exit == 0 and u.data["id"] == jid(b) and read(tree.p("crlf.txt")) == tack.CRLF
    c = T("replace", tree, "--old", "gamma", "--new", "G", "plain.txt")
    assert jid(c) == jid(u) + 1 and jid(u) == jid(b) + 2
    assert U(tree, "--last").data["id"] == jid(c)
    assert jid(a) == 1


def tally(tree) -> tuple[int, int]:
    last, size = read(tree.p(".tack/journal/tally")).split()
    return int(last), int(size)


def journal_size(tree) -> int:
    return sum(os.path.getsize(os.path.join(d, n))
               for d in (tree.p(".tack/journal/entries"), tree.p(".tack/journal/blobs"))
               for n in os.listdir(d))


def flip(tree, i):
    return T("write", tree, "--if-sha256", sha(f"{i}\n".encode()), "--stdin", "x.txt",
             stdin=f"{i + 1}\n".encode())


def test_the_tally_keeps_the_newest_id_and_the_size(tree):
    T("write", tree, "--create", "--stdin", "x.txt", stdin=b"0\n")
    for i in range(3):
        assert jid(flip(tree, i)) == i + 2
        assert tally(tree) == (i + 2, journal_size(tree))


# The tally is a hint: whatever it says (stale, ahead, torn, naming a pruned id, a link), the
# next id is after the newest entry there is, and every entry still undoes.
@pytest.mark.parametrize("text", [b"", b"garbage\n", b"1 0\n", b"2 0", b"999 5\n",
                                  b"00000000000000000001 00000000000000000000\n" + b"x" * 20,
                                  b"18446744073709551615 1\n", b"0 0\n", b"-3 7\n"])
def test_a_wrong_tally_costs_a_listing_never_an_id(tree, text):
    T("write", tree, "--create", "--stdin", "x.txt", stdin=b"0\n")
    for i in range(4):
        flip(tree, i)
    # the oldest two pruned, as the cap does
    for n in ("0000000000000001", "0000000000000002"):
        os.unlink(tree.p(".tack/journal/entries/" + n))
    with open(tree.p(".tack/journal/tally"), "wb") as f:
        f.write(text)
    r = flip(tree, 4)
    assert r.exit == 0 and jid(r) == 6
    assert tally(tree)[0] == 6
    listed = U(tree, "--list").data["entries"]
    assert [e["id"] for e in listed] == [6, 5, 4, 3]
    u = U(tree, "--last")
    assert u.exit == 0 and u.data["id"] == 6 and read(tree.p("x.txt")) == b"4\n"


def test_a_tally_that_is_a_link_is_not_followed(tree):
    T("write", tree, "--create", "--stdin", "x.txt", stdin=b"0\n")
    os.unlink(tree.p(".tack/journal/tally"))
    os.symlink(tree.outside / "secret.txt", tree.p(".tack/journal/tally"))
    r = flip(tree, 0)
    assert r.exit == 0 and jid(r) == 2
    outside_untouched(tree)


def test_a_tally_under_the_size_prunes_once_measured(tree):
    T("write", tree, "--create", "--stdin", "x.txt", stdin=b"0\n")
    for i in range(3):
        flip(tree, i)
    with open(tree.p(".tack/journal/max-bytes"), "w") as f:
        f.write("1500\n")
    # Told the journal is far over its cap, the writer measures it and prunes what is over.
    last, _ = tally(tree)
    with open(tree.p(".tack/journal/tally"), "w") as f:
        f.write("%020d %020d\n" % (last, 10**9))
    r = flip(tree, 3)
    assert r.exit == 0 and r.data["journal"]["pruned"]
    assert journal_size(tree) <= 1500 and tally(tree) == (jid(r), journal_size(tree))


def test_a_change_that_failed_after_its_record_stays_pending_and_last_skips_it(tree):
    a = T("replace", tree, "--old", "beta", "--new", "B", "plain.txt")
    # renameat 1: the blob, 2: the file's own commit, made to fail (the pending entry is made
    # under its name, not renamed)
    wrap = ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=renameat",
            "-e", "inject=renameat:error=EIO:when=2"]
    r = T("replace", tree, "--old", "two", "--new", "2", "crlf.txt", wrap=wrap)
    assert r.rules == ["io.write-failed"] and read(tree.p("crlf.txt")) == tack.CRLF
    listed = U(tree, "--list").data["entries"]
    assert [(e["id"], e["state"]) for e in listed] == [(2, "pending"), (jid(a), "complete")]
    before = snapshot(tree.root)
    assert U(tree, "2").rules == ["conflict.changed-since"] and snapshot(tree.root) == before
    u = U(tree, "--last")
    assert u.exit == 0 and u.data["id"] == jid(a) and read(tree.p("plain.txt")) == tack.PLAIN


# --- M3: every rule undo declares is reached, and only those ---------------------------------

STRACE_QUIET = ["strace", "-f", "-qq", "-o", "/dev/null"]


def _changed(tree):
    """plain.txt replaced once: entry 1."""
    return T("replace", tree, "--old", "beta", "--new", "B", "plain.txt")


def _in_dir(tree):
    """dir/sub/deep.txt replaced once (the directories on its way are what the fixture spoils)."""
    return T("write", tree, "--if-sha256", sha(tack.DEEP), "--stdin", "dir/sub/deep.txt", stdin=b"d\n")


def _moved(tree):
    return T("move", tree, "plain.txt", "moved.txt")


def _spoil_entry(tree):
    _changed(tree)
    entry = os.path.join(tree.p(".tack/journal/entries"), os.listdir(tree.p(".tack/journal/entries"))[0])
    with open(entry, "r+b") as f:
        f.truncate(20)


def _edited_since(tree):
    _changed(tree)
    tree.write("plain.txt", b"someone else\n")


def _taken_again(tree):
    _moved(tree)
    tree.write("plain.txt", b"a new one\n")


def _dir_is_a_link(tree):
    _in_dir(tree)
    os.rename(tree.p("dir"), tree.p("dir2"))
    os.symlink("dir2", tree.p("dir"))


def _dir_gone(tree):
    _in_dir(tree)
    os.rename(tree.p("dir"), tree.p("dir2"))


def _dir_is_a_file(tree):
    _dir_gone(tree)
    tree.write("dir", b"x\n")


# (rule, setup, args, options): options wrap (a command prefix) or lock (flock of the root).
UNDO_FIXTURES = [
    ("args.unknown-flag", None, ["--lst"], {}),
    ("args.missing-value", None, ["--last", "--format"], {}),
    ("args.bad-value", None, ["abc"], {}),
    ("args.unexpected-value", None, ["--last=yes"], {}),
    ("args.duplicate-flag", None, ["--last", "--last"], {}),
    ("args.conflict", None, ["--last", "1"], {}),
    ("args.too-many-operands", None, ["1", "2"], {}),
    ("path.empty", None, ["--list", ""], {}),
    ("path.dotdot", None, ["--list", "../outside/secret.txt"], {}),
    ("path.absolute", None, ["--list", "{root}/plain.txt"], {}),
    ("path.outside-root", None, ["--list", "/etc/passwd"], {}),
    ("path.too-long", None, ["--list", "a" * 4097], {}),
    ("journal.no-entry", None, ["--last"], {}),
    ("journal.damaged", _spoil_entry, ["--last"], {}),
    ("conflict.changed-since", _edited_since, ["--last"], {}),
    ("conflict.exists", _taken_again, ["--last"], {}),
    ("conflict.locked", _changed, ["--last"], {"lock": True}),
    ("io.read-failed", _changed, ["--last"],
     {"wrap": STRACE_QUIET + ["-e", "trace=pread64", "-e", "inject=pread64:error=EIO"]}),
    ("io.write-failed", _changed, ["--last"],
     {"wrap": STRACE_QUIET + ["-e", "trace=fsync", "-e", "inject=fsync:error=EIO"]}),
    ("io.rename-unsupported", _moved, ["--last"],
     {"wrap": STRACE_QUIET + ["-e", "trace=renameat2", "-e", "inject=renameat2:error=EINVAL"]}),
    ("path.symlink", _dir_is_a_link, ["--last"], {}),
    ("io.not-found", _dir_gone, ["--last"], {}),
    ("io.not-a-directory", _dir_is_a_file, ["--last"], {}),
]


def _ufix(tree, fx):
    rule, setup, args, opts = fx
    if setup:
        setup(tree)
    args = [a.replace("{root}", str(tree.root)) for a in args]
    holder = None
    if opts.get("lock"):
        holder = os.open(tree.root, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        return U(tree, *args, wrap=opts.get("wrap"), timeout=30)
    finally:
        if holder is not None:
            os.close(holder)


@pytest.mark.parametrize("fx", UNDO_FIXTURES, ids=[f[0] for f in UNDO_FIXTURES])
def test_m3_fixture_reaches_its_rule(tree, fx):
    r = _ufix(tree, fx)
    assert r.rules and r.rules[0] == fx[0], r
    assert r.exit == tack.CATALOGUE[fx[0]]
    outside_untouched(tree)


def test_m3_every_declared_rule_has_a_fixture_and_no_other_is_met():
    declared = set(tack.declared_rules("undo"))
    assert {f[0] for f in UNDO_FIXTURES} == declared
