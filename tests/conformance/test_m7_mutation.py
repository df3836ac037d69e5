"""M7 — the tools that change files: a dry run performs no mutating system call (strace, with
the real run as the positive control), applying a call twice gives the same state and
changed:false, two tack writers with the same --if-sha256 never both win and never lose a
write, a creator that takes no lock is never silently replaced by `write --create`, and a
write killed (-9) at any of its system calls, or at random moments of a large one, leaves the
old content or the new, never a mix, and no litter after the next call.

Covers write and move (replace and edit bring their own cases).
"""

import os
import random
import re
import signal
import stat
import subprocess
import time

import pytest

import tack
from mutation import MiB, W, kill_at, litter, read, sha, strace_calls, syscall_steps
from tack import run


def state(directory) -> dict:
    out = {}
    for dirpath, dirnames, filenames in os.walk(directory):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode):
                out[p] = (read(p), stat.S_IMODE(st.st_mode))
            elif stat.S_ISLNK(st.st_mode):
                out[p] = ("link", os.readlink(p))
            else:
                out[p] = ("dir",)
    return out


# --- dry runs under strace --------------------------------------------------------------------

OPEN_FOR_WRITING = re.compile(r"\b(O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND)\b")
MUTATING = re.compile(
    r"^(rename|renameat|renameat2|unlink|unlinkat|rmdir|mkdir|mkdirat|fsync|fdatasync|sync|"
    r"syncfs|fchmod|fchmodat|chmod|fchown|fchownat|chown|lchown|truncate|ftruncate|link|"
    r"linkat|symlink|symlinkat|mknod|mknodat|flock|utimensat)$")


def traced(tool, args, stdin, tmp_path):
    """(exit, [(syscall, line)]) of one run under strace -f -e trace=%file,%desc."""
    p, calls = strace_calls([tack.bin_path(tool), *[os.fspath(a) for a in args]],
                            tmp_path / f"strace-{time.monotonic_ns()}.txt", "-e",
                            "trace=%file,%desc", input=stdin, timeout=60)
    # The tool's own output is the same with and without strace.
    tack.check_output(tool, [os.fsencode(os.fspath(a)) for a in args], p.returncode, p.stdout,
                      p.stderr)
    return p.returncode, calls


def mutations(calls):
    bad = []
    for name, line in calls:
        if name.startswith("open") and OPEN_FOR_WRITING.search(line):
            bad.append(line)
        elif MUTATING.match(name):
            bad.append(line)
    return bad


def _setup(tree):
    tree.write("dir/stale/f.txt", b"old\n")
    tree.write("dir/stale/.f.txt.tack-tmp", b"half a write")  # a killed writer's litter
    tree.write("gone.txt", b"to remove\n")


CASES = [
    ("write-replace", "write", ["--if-sha256", sha(tack.PLAIN), "--stdin", "plain.txt"], b"new\n"),
    ("write-create", "write", ["--create", "--stdin", "fresh.txt"], b"fresh\n"),
    ("write-parents", "write", ["--create", "--parents", "--stdin", "a/b/c.txt"], b"deep\n"),
    ("write-stale-temp", "write", ["--if-sha256", sha(b"old\n"), "--stdin", "dir/stale/f.txt"],
     b"new\n"),
    ("write-crlf-keep", "write", ["--if-sha256", sha(tack.CRLF), "--stdin", "crlf.txt"], b"1\n2\n"),
    ("move", "move", ["plain.txt", "dir/moved.txt"], None),
    ("move-parents", "move", ["--parents", "plain.txt", "x/y/moved.txt"], None),
    ("move-remove", "move", ["--remove", "--if-sha256", sha(b"to remove\n"), "gone.txt"], None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_dry_run_makes_no_mutating_system_call(tree, tmp_path, case):
    _, tool, args, stdin = case
    _setup(tree)
    before = state(tree.root)
    code, calls = traced(tool, ["--root", tree.root, "--dry-run", *args], stdin, tmp_path)
    assert code == 9
    assert mutations(calls) == [], "\n".join(mutations(calls))
    assert state(tree.root) == before
    # Positive control: the same call for real shows the writes strace is looking for.
    code, calls = traced(tool, ["--root", tree.root, *args], stdin, tmp_path)
    assert code == 0
    names = [n for n, _ in calls]
    assert any(n.startswith("rename") for n in names), names
    assert "fsync" in names and "flock" in names
    if tool == "write":
        assert any(n.startswith("open") and "O_CREAT" in l for n, l in calls)
    if "--parents" in args:
        assert "mkdirat" in names
    if case[0] == "write-stale-temp":
        assert any(n == "unlinkat" and ".f.txt.tack-tmp" in l for n, l in calls)
    assert mutations(calls) != [] and state(tree.root) != before


# --- apply twice --------------------------------------------------------------------------------

APPLY = [
    ("write-create", "write", ["--create", "--stdin", "fresh.txt"], b"fresh\n"),
    ("write-replace", "write", ["--if-sha256", sha(tack.PLAIN), "--stdin", "plain.txt"], b"x\n"),
    ("write-parents", "write", ["--create", "--parents", "--stdin", "p/q/r.txt"], b"r\n"),
    ("write-empty", "write", ["--if-sha256", sha(tack.PLAIN), "--stdin", "plain.txt"], b""),
    ("write-crlf-keep", "write", ["--if-sha256", sha(tack.CRLF), "--stdin", "crlf.txt"], b"1\n2\n"),
    ("write-bom-keep", "write", ["--if-sha256", sha(tack.BOM), "--stdin", "bom.txt"], b"b\n"),
    ("write-eol-lf", "write", ["--eol", "lf", "--if-sha256", sha(tack.MIXED), "--stdin",
                               "mixed.txt"], b"m\r\nn\n"),
    ("write-create-crlf", "write", ["--create", "--eol", "crlf", "--bom", "add", "--stdin",
                                    "fresh.txt"], b"f\ng\n"),
    ("move", "move", ["--if-sha256", sha(tack.PLAIN), "plain.txt", "dir/moved.txt"], None),
    ("move-hash", "move", ["--if-sha256", sha(tack.PLAIN), "plain.txt", "moved.txt"], None),
    ("move-parents", "move", ["--parents", "--if-sha256", sha(tack.CRLF), "crlf.txt",
                              "m/n/crlf.txt"], None),
    ("move-remove", "move", ["--remove", "--if-sha256", sha(tack.PLAIN), "plain.txt"], None),
]


@pytest.mark.parametrize("case", APPLY, ids=[c[0] for c in APPLY])
def test_apply_twice_same_state_second_unchanged(tree, case):
    _, tool, args, stdin = case
    first = run(tool, "--root", tree.root, *args, stdin=stdin)
    assert first.exit == 0 and first.data["changed"] is True
    after = state(tree.root)
    second = run(tool, "--root", tree.root, *args, stdin=stdin)
    assert second.exit == 0 and second.data["changed"] is False, second
    assert state(tree.root) == after
    # A dry run of the applied call agrees: nothing left to do.
    dry = run(tool, "--root", tree.root, "--dry-run", *args, stdin=stdin)
    assert dry.exit == 9 and dry.data["changed"] is False and dry.doc["planned_actions"] == []
    if tool == "move" and "--remove" not in args:
        # A move is shown to have landed only by the hash: without it, PATH is not found.
        i = args.index("--if-sha256")
        bare = run(tool, "--root", tree.root, *(args[:i] + args[i + 2:]))
        assert bare.rules == ["io.not-found"] and state(tree.root) == after


# --- concurrent writers -------------------------------------------------------------------------

def finish(p):
    """stdout, stderr of a process whose stdin was already closed (communicate would flush it)."""
    out, err = p.stdout.read(), p.stderr.read()
    p.wait(30)
    return out, err


def test_200_races_of_two_writers_with_the_same_if_sha256(tree):
    path = tree.p("race.txt")
    tree.write("race.txt", b"start\n")
    outcomes = {}
    for i in range(200):
        cur = read(path)
        contents = (b"A%d\n" % i, b"B%d\n" % i)
        procs = [subprocess.Popen([tack.bin_path("write"), "--root", str(tree.root),
                                   "--if-sha256", sha(cur), "--stdin", "race.txt"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE) for _ in contents]
        for p, c in zip(procs, contents):
            p.stdin.write(c)
        for p in procs:  # both released together: they race for the lock
            p.stdin.close()
        docs = []
        for p in procs:
            out, err = finish(p)
            docs.append(tack.check_output("write", [b"--if-sha256", b"--stdin", b"race.txt"],
                                          p.returncode, out, err))
        won = [k for k, d in enumerate(docs) if d["ok"]]
        assert len(won) == 1, docs
        winner, loser = docs[won[0]], docs[1 - won[0]]
        assert winner["data"]["changed"] is True
        rule = loser["errors"][0]["rule"]
        assert rule in ("precondition.hash-mismatch", "conflict.locked"), loser
        if rule == "precondition.hash-mismatch":
            # The loser names the winner's write as the file's state now: nothing was lost.
            assert loser["errors"][0]["detail"]["actual_sha256"] == sha(contents[won[0]])
        assert read(path) == contents[won[0]]
        outcomes[rule] = outcomes.get(rule, 0) + 1
    assert [n for n in os.listdir(tree.root) if ".tack-" in n] == []
    assert sum(outcomes.values()) == 200


def typical_duration(tree, tool_args, stdin):
    """A write's usual duration here (fsync dominates; it differs across disks by 100x), so the
    racing creator's delays straddle the moment write renames."""
    times = []
    for k in range(3):
        t = time.monotonic()
        subprocess.run([tack.bin_path("write"), "--root", str(tree.root), *tool_args(k)],
                       input=stdin, capture_output=True, timeout=30)
        times.append(time.monotonic() - t)
    return sorted(times)[1]


def test_lock_free_creator_racing_write_create_loses_nothing(tree):
    rng = random.Random(3)
    wins = {"python": 0, "write": 0}
    typical = typical_duration(tree, lambda k: ["--create", "--stdin", f"probe{k}.txt"], b"x")
    for i in range(200):
        name = f"c{i}.txt"
        path = tree.p(name)
        mine, theirs = b"python %d\n" % i, b"write %d\n" % i
        p = subprocess.Popen([tack.bin_path("write"), "--root", str(tree.root), "--create",
                              "--stdin", name], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        p.stdin.write(theirs)
        p.stdin.close()
        time.sleep(rng.uniform(0, 1.5 * typical))
        created = False
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            created = True
            os.write(fd, mine)
            os.close(fd)
        except FileExistsError:
            pass
        out, err = finish(p)
        doc = tack.check_output("write", [b"--create", b"--stdin", name.encode()], p.returncode,
                                out, err)
        if created:
            # The creator that took no lock got there first: write must have refused.
            assert not doc["ok"] and doc["errors"][0]["rule"] == "conflict.exists", doc
            assert read(path) == mine
            wins["python"] += 1
        else:
            assert doc["ok"] and doc["data"]["created"] is True, doc
            assert read(path) == theirs
            wins["write"] += 1
    assert wins["python"] > 0 and wins["write"] > 0, wins  # both sides of the race were run
    assert [n for n in os.listdir(tree.root) if ".tack-" in n] == []


def test_move_racing_a_lock_free_creator_never_replaces(tree):
    rng = random.Random(4)
    seen = set()
    tree.write("probe.txt", b"p")
    typical = typical_duration(tree, lambda k: ["--create", "--stdin", f"probe{k}.txt"], b"x")
    for i in range(100):
        tree.write(f"src{i}.txt", b"moving %d\n" % i)
        dst = tree.p(f"dst{i}.txt")
        p = subprocess.Popen([tack.bin_path("move"), "--root", str(tree.root), f"src{i}.txt",
                              f"dst{i}.txt"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0, 1.5 * typical))
        created = False
        try:
            fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            created = True
            os.write(fd, b"theirs\n")
            os.close(fd)
        except FileExistsError:
            pass
        out, err = p.communicate(timeout=30)
        doc = tack.check_output("move", [b"src", b"dst"], p.returncode, out, err)
        if created:
            assert not doc["ok"] and doc["errors"][0]["rule"] == "conflict.exists"
            assert read(dst) == b"theirs\n" and read(tree.p(f"src{i}.txt")) == b"moving %d\n" % i
        else:
            assert doc["ok"] and read(dst) == b"moving %d\n" % i
        seen.add(created)
    assert seen == {True, False}


# --- kill -9 at every step -----------------------------------------------------------------

def test_kill_9_at_every_system_call_leaves_old_or_new_and_no_litter(tree, tmp_path):
    old, new = b"old content\n" * 1000, b"new content\n" * 1200
    tree.write("k.txt", old)
    tree.write("new.bin", new)
    argv = [tack.bin_path("write"), "--root", str(tree.root), "--if-sha256", sha(old),
            "--content-file", "new.bin", "k.txt"]
    # Every run starts without a journal, so each makes the same system calls (the first
    # change makes .tack/journal; test_undo kills journaled writes and undos the same way).
    import shutil
    steps = syscall_steps(argv, tmp_path)
    tree.write("k.txt", old)
    shutil.rmtree(tree.p(".tack"))
    assert {"renameat", "fsync", "flock"} <= {n for n, _ in steps}
    outcomes = set()
    for name, nth in steps:
        shutil.rmtree(tree.p(".tack"), ignore_errors=True)
        kill_at(name, nth, argv)
        now = read(tree.p("k.txt"))
        assert now in (old, new), f"partial target after kill at {name} #{nth}"
        outcomes.add(now == new)
        # The next call cleans up after the killed one, whatever it then does.
        r = W(tree, "--if-sha256", sha(now), "--stdin", "k.txt", stdin=old)
        assert r.exit == 0 and read(tree.p("k.txt")) == old
        assert litter(tree.root) == [], f"litter after kill at {name} #{nth}"
    assert outcomes == {False, True}  # killed before and after the rename both happened


def test_kill_9_at_random_moments_of_a_large_write(tree):
    rng = random.Random(11)
    old, new = b"o" * (24 * MiB), bytes(rng.getrandbits(8) for _ in range(4096)) * (6 * 1024)
    tree.write("big.bin", old)
    tree.write("src.bin", new)
    argv = [tack.bin_path("write"), "--root", str(tree.root), "--max-bytes", str(64 * MiB),
            "--content-file", "src.bin", "big.bin"]
    for i in range(25):
        cur = read(tree.p("big.bin"))
        p = subprocess.Popen(argv[:1] + ["--if-sha256", sha(cur)] + argv[1:],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, 0.25))
        p.send_signal(signal.SIGKILL)
        p.wait()
        now = read(tree.p("big.bin"))
        assert now in (old, new), f"partial target after kill {i}"
        if now == new:
            tree.write("big.bin", old)
    r = W(tree, "--if-sha256", sha(read(tree.p("big.bin"))), "--max-bytes", str(64 * MiB),
          "--content-file", "src.bin", "big.bin")
    assert r.exit == 0 and read(tree.p("big.bin")) == new
    assert litter(tree.root) == []


# --- durability: the directory is fsynced after the rename -----------------------------------

def _edit_stdin(tree, name):
    """An edits list changing the second line of `name`, by its witness from peek."""
    import json
    r = run("peek", "--root", tree.root, "--witness", "--lines", "2:2", name)
    witness = r.data["lines"][0]["witness"]
    return json.dumps([{"witness": witness, "lines": ["changed"]}]).encode()


# (id, tool, args, stdin or a function of the tree giving it, directories whose entries change)
DURABLE = [
    ("write-replace", "write", ["--if-sha256", sha(tack.PLAIN), "--stdin", "plain.txt"], b"new\n",
     ["."]),
    ("write-create", "write", ["--create", "--stdin", "dir/fresh.txt"], b"fresh\n", ["dir"]),
    ("write-parents", "write", ["--create", "--parents", "--stdin", "a/b/c.txt"], b"deep\n",
     ["a/b"]),
    ("replace", "replace", ["--old", "beta", "--new", "BETA", "plain.txt"], None, ["."]),
    ("replace-several", "replace", ["--all", "--old", "one", "--new", "ONE", "crlf.txt",
                                    "dir/crlf2.txt"], None, [".", "dir"]),
    ("edit", "edit", ["--if-sha256", sha(tack.PLAIN), "--stdin", "plain.txt"], _edit_stdin, ["."]),
    ("move", "move", ["plain.txt", "moved.txt"], None, ["."]),
    ("move-across", "move", ["plain.txt", "dir/moved.txt"], None, [".", "dir"]),
    ("move-parents", "move", ["--parents", "plain.txt", "x/y/moved.txt"], None, [".", "x/y"]),
    ("move-remove", "move", ["--remove", "--if-sha256", sha(tack.PLAIN), "plain.txt"], None, ["."]),
]


def dir_fsyncs_after_renames(calls, root):
    """For each rename, the directories fsynced after it and before the next rename."""
    out, current = [], None
    for name, line in calls:
        if name.startswith("rename") and line.rstrip().endswith("= 0"):
            current = set()
            out.append(current)
        elif name == "fsync" and current is not None and line.rstrip().endswith("= 0"):
            m = re.match(r"^(?:\d+\s+)?fsync\(\d+<(.*)>\)", line)
            if m and os.path.isdir(m.group(1)):
                current.add(os.path.relpath(m.group(1), root))
    return out


@pytest.mark.parametrize("case", DURABLE, ids=[c[0] for c in DURABLE])
def test_every_rename_is_followed_by_an_fsync_of_its_directory(tree, tmp_path, case):
    """README promises fsync of the file, the rename, and an fsync of the directory: strace
    (-y names each descriptor's path) shows each directory whose entry a rename changed
    fsynced after that rename. A build without the directory fsync fails here."""
    _, tool, args, stdin, dirs = case
    tree.write("dir/crlf2.txt", tack.CRLF)
    if callable(stdin):
        stdin = stdin(tree, "plain.txt")
    root = os.path.realpath(tree.root)
    p, calls = strace_calls([tack.bin_path(tool), "--root", root, *args],
                            tmp_path / "fsync-trace.txt", "-y", "-e",
                            "trace=rename,renameat,renameat2,fsync,fdatasync", input=stdin,
                            timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    after = dir_fsyncs_after_renames(calls, root)
    # Every rename is followed by an fsync of a directory (the journal's own: a blob, the entry
    # pending; and the file's) but the last, which marks the entry complete once the change is
    # durable: an entry left pending by a crash is read by the files (test_undo).
    renamed = [line for name, line in calls if name.startswith("rename") and line.rstrip().endswith("= 0")]
    assert re.search(r'\.tack/journal/entries>, "\d{16}\.pending", \d+<[^>]*entries>, "\d{16}"\)',
                     renamed[-1]), calls
    assert after[-1] == set() and set() not in after[:-1], calls
    after = after[:-1]
    # The pending entry is made under its name: its directory is fsynced before any change.
    first = next(i for i, (n, l) in enumerate(calls) if n.startswith("rename") and ".tack/" not in l)
    assert any(n == "fsync" and re.search(r"fsync\(\d+<[^>]*\.tack/journal/entries>\)", l)
               for n, l in calls[:first]), calls
    after = [d for d in after if not all(x.startswith(".tack/journal") for x in d)]
    renames = len(dirs) if tool == "replace" else 1
    assert len(after) == renames, calls
    if tool == "replace":  # one rename a file, each followed by its own directory's fsync
        assert [sorted(s) for s in after] == [[d] for d in dirs], calls
    else:
        assert after[0] == set(dirs), calls
