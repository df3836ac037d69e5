"""digest over many files: the files are hashed on several threads, and the answer is still the
serial one. Records come in operand (or list) order whichever thread finishes first, with
every kind of failing file interleaved among many files of mixed sizes (large ones placed so
that the small ones after them finish first); the end record counts what the records say;
the bytes are the same run after run; one file starts no thread; a reader that goes away
mid-stream stops the pool without a hang.
"""

import hashlib
import os
import random
import subprocess

import pytest

import tack

WHOLE = ["--max-bytes", "16777216"]  # a budget that does not cut these answers
from tack import run

MiB = 1024 * 1024


def sha(data, algo="sha256"):
    return hashlib.new(algo, data).hexdigest()


def mixed_sizes(rnd, n):
    """Sizes of n files: mostly small, some around the read buffer, a few of megabytes."""
    out = []
    for i in range(n):
        pick = rnd.random()
        if i % 97 == 3 or pick < 0.01:
            out.append(rnd.randrange(2 * MiB, 4 * MiB))
        elif pick < 0.1:
            out.append(rnd.randrange(200_000, 600_000))
        else:
            out.append(rnd.randrange(0, 5000))
    return out


def build(root, rnd, n):
    """n files of mixed sizes under root (in two directories); their names and contents."""
    (root / "d").mkdir(parents=True, exist_ok=True)
    files = {}
    for i, size in enumerate(mixed_sizes(rnd, n)):
        name = f"{'d/' if i % 3 else ''}f{i:04d}.bin"
        data = rnd.randbytes(size)
        (root / name).write_bytes(data)
        files[name] = data
    return files


def failing(root):
    """Operands that cannot be hashed, each with the rule it must be reported with (under
    --root, run without the capabilities that override file modes)."""
    (root / "noaccess.bin").write_bytes(b"guarded\n")
    os.chmod(root / "noaccess.bin", 0)
    os.mkfifo(root / "fifo")
    os.symlink("f0000.bin", root / "link")
    (root / "adir").mkdir()
    return {"noaccess.bin": "io.permission-denied", "fifo": "io.special-file",
            "link": "path.symlink", "adir": "io.is-a-directory",
            "gone.bin": "io.not-found"}


def interleave(rnd, names, extra, copies=3):
    """names in order with each of extra inserted `copies` times at random places."""
    out = list(names)
    for name in extra:
        for _ in range(copies):
            out.insert(rnd.randrange(len(out) + 1), name)
    return out


def shape(records):
    """A record list as comparable tuples: a digest's path, hex and size, an error's rule and
    path."""
    out = []
    for r in records:
        if r["type"] == "digest":
            out.append(("digest", tack.tob(r["path"]).decode(), r["hex"], r["bytes"]))
        elif r["type"] == "error":
            e = r["error"]
            out.append(("error", e["rule"], tack.tob(e["detail"].get("path", b"")).decode()))
        else:
            out.append((r["type"],))
    return out


# --- operands ------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [1, 2])
def test_many_files_with_errors_interleaved_come_in_operand_order(tmp_path, seed):
    rnd = random.Random(seed)
    root = tmp_path / "root"
    files = build(root, rnd, 700)
    bad = failing(root)
    # a large file first, so that the threads finish what follows it before it
    names = interleave(rnd, list(files), list(bad))
    big = next(n for n in files if len(files[n]) > 2 * MiB)
    names.insert(0, big)
    want = []
    for n in names:
        if n in bad:
            want.append(("error", bad[n], n))
        else:
            want.append(("digest", n, sha(files[n]), len(files[n])))
    r = run("digest", *WHOLE, "--root", root, *names, wrap=tack.NO_DAC, timeout=120)
    assert shape(r.json[:-1]) == want
    first = next(w for w in want if w[0] == "error")
    assert r.exit == tack.CATALOGUE[first[1]]
    e = r.json[-1]
    good = [n for n in names if n not in bad]
    assert (e["files"], e["errors"], e["complete"]) == (len(good), len(names) - len(good), False)
    assert e["bytes"] == sum(len(files[n]) for n in good)
    # the same bytes again, whichever thread finishes first this time
    again = run("digest", *WHOLE, "--root", root, *names, wrap=tack.NO_DAC, timeout=120)
    assert again.out == r.out
    # text mode is sha256sum's output on the files it could read, in the same order
    t = run("digest", *WHOLE, "--root", root, "--format", "text", *names, wrap=tack.NO_DAC,
            timeout=120)
    gnu = subprocess.run(["sha256sum", "--", *good], capture_output=True, cwd=root,
                         env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}, timeout=120)
    assert gnu.returncode == 0 and t.out == gnu.stdout
    assert t.err.count(b"\n") == len(names) - len(good)


def test_without_root_links_and_read_failures_keep_their_place(tmp_path):
    rnd = random.Random(7)
    files = build(tmp_path, rnd, 300)
    os.symlink("d/f0001.bin", tmp_path / "link")
    names = interleave(rnd, list(files), ["link", "/proc/self/mem", "gone.bin"], copies=4)
    r = run("digest", *WHOLE, *names, cwd=tmp_path, timeout=120)
    got = []
    for rec in r.json[:-1]:
        if rec["type"] == "digest":
            got.append((rec["path"], rec["hex"], rec.get("link", {}).get("target")))
        else:
            got.append((rec["error"]["detail"]["path"], rec["error"]["rule"],
                        rec["error"]["detail"].get("algo")))
    want = []
    for n in names:
        if n == "link":
            want.append((n, sha(files["d/f0001.bin"]), str(tmp_path / "d/f0001.bin")))
        elif n == "/proc/self/mem":
            want.append((n, "io.read-failed", "sha256"))  # a read error names the algorithm
        elif n == "gone.bin":
            want.append((n, "io.not-found", None))
        else:
            want.append((n, sha(files[n]), None))
    assert got == want


def test_one_file_starts_no_thread_and_two_do(tmp_path):
    (tmp_path / "a").write_bytes(b"a")
    (tmp_path / "b").write_bytes(b"b")
    (tmp_path / "one.sums").write_text(f"{sha(b'a')}  a\n")

    def clones(*args):
        log = tmp_path / "trace"
        p = subprocess.run(["strace", "-f", "-qq", "-e", "trace=clone,clone3", "-o", str(log),
                            tack.bin_path("digest"), *args], capture_output=True, cwd=tmp_path,
                           timeout=30)
        assert p.returncode == 0, p
        return [ln for ln in log.read_text().splitlines() if "clone" in ln]

    assert clones("a") == []
    assert clones("--check", "one.sums") == []
    assert clones("a", "b") != []


# --- --check -------------------------------------------------------------------------------

def test_check_many_entries_with_mixed_verdicts_in_list_order(tmp_path):
    rnd = random.Random(11)
    root = tmp_path / "root"
    files = build(root, rnd, 600)
    bad = failing(root)
    lines, want = [], []
    passed = mismatched = unreadable = malformed = 0
    files_ok = nbytes = 0
    failed = []

    def entry(hexd, name, verdict, rule=None, size=None):
        nonlocal passed, mismatched, unreadable, files_ok, nbytes
        lines.append(f"{hexd}  {name}\n")
        want.append(("check", len(lines), name, verdict))
        if verdict == "ok":
            passed += 1
        else:
            failed.append(name)
            want.append(("error", rule, len(lines)))
            mismatched += verdict == "mismatch"
            unreadable += verdict == "error"
        if verdict != "error":
            files_ok += 1
            nbytes += size

    for name in interleave(rnd, list(files), ["MISMATCH", "BAD", "FAIL", "COMMENT"] +
                           list(bad) + ["../outside.bin"], copies=5):
        if name == "MISMATCH":
            n = rnd.choice(list(files))
            entry("0" * 64, n, "mismatch", "precondition.hash-failed", len(files[n]))
        elif name == "BAD":
            lines.append("not a checksum line\n")
            want.append(("error", "parse.checksum-line", len(lines)))
            malformed += 1
        elif name == "COMMENT":
            lines.append(rnd.choice(["# a comment\n", "\n"]))
        elif name == "FAIL":
            lines.append(f"{'a' * 40}  short-hash\n")  # a hash of no algorithm's length
            want.append(("error", "parse.checksum-line", len(lines)))
            malformed += 1
        elif name in bad:
            entry("1" * 64, name, "error", bad[name])
        elif name == "../outside.bin":
            entry("1" * 64, name, "error", "path.dotdot")
        else:
            entry(sha(files[name]), name, "ok", size=len(files[name]))
    (root / "LIST").write_text("".join(lines))
    r = run("digest", *WHOLE, "--root", root, "--check", "LIST", wrap=tack.NO_DAC, timeout=120)
    got = []
    for rec in r.json[:-1]:
        if rec["type"] == "check":
            got.append(("check", rec["line"], tack.tob(rec["path"]).decode(), rec["verdict"]))
            if rec["verdict"] == "ok":
                assert rec["actual"] == rec["expected"]
        else:
            got.append(("error", rec["error"]["rule"], rec["error"]["detail"]["line"]))
    assert got == want
    e = r.json[-1]
    assert (e["entries"], e["passed"], e["mismatched"], e["unreadable"], e["malformed"]) == \
        (passed + mismatched + unreadable, passed, mismatched, unreadable, malformed)
    assert (e["files"], e["bytes"]) == (files_ok, nbytes)
    assert e["errors"] == mismatched + unreadable + malformed
    assert e["failed"] == failed[:100]
    again = run("digest", *WHOLE, "--root", root, "--check", "LIST", wrap=tack.NO_DAC, timeout=120)
    assert again.out == r.out


def test_check_reader_gone_mid_stream_ends_with_exit_1(tmp_path):
    lines = []
    for i in range(3000):
        (tmp_path / f"f{i}").write_bytes(b"x" * i)
        lines.append(f"{sha(b'x' * i)}  f{i}\n")
    (tmp_path / "LIST").write_text("".join(lines))
    p = subprocess.Popen([tack.bin_path("digest"), "--root", str(tmp_path), "--check", "LIST"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.read(100)
    p.stdout.close()
    assert p.wait(timeout=20) == 1
    assert p.stderr.read().startswith(b"digest: io.write-failed: ")
