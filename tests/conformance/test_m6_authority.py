"""M6 — authority (CONTRACT.md §9): the effects each tool declares are what the kernel lets it do.

Every built tool runs a small table of typical invocations (success and error paths) under
`strace -f`, through tack.run (so every output is still held to the contract). From each log:

(a) the system calls made after the profile is installed (the seccomp filter load that
    succeeded) never fall in the tool's refused set, derived from its `introspect` effects the
    way src/os/sandbox.cpp builds the filter. The observed set per tool is written to
    observed_syscalls.json in that test's tmp dir and printed (`pytest -s` shows it).
(b) the profile is installed before any operand path is opened (the root's O_PATH open and a
    writer's target-directory O_PATH opens may come first; operands may not).
(c) a refused operation surfaces as a tagged error with the catalogue's exit code, never a
    signal: EPERM injected on every open after the install, and a real Landlock refusal (the
    test build of write creating a file outside its root past its own checks).
(d) `introspect` carries the authority row with its mechanisms.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess

import pytest

import tack

STRACE = shutil.which("strace")
needs_strace = pytest.mark.skipif(STRACE is None, reason="strace is not installed")

# --- the refused sets, as src/os/sandbox.cpp builds the filter -----------------------------

NETWORK = {"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
           # not in the filter (they fail without a socket anyway) but no tool has a reason
           "sendto", "sendmsg", "sendmmsg", "recvfrom", "recvmsg", "recvmmsg", "getsockopt",
           "setsockopt", "shutdown", "getsockname", "getpeername"}
ALWAYS = {"ptrace", "mount", "umount2", "pivot_root", "bpf", "keyctl", "add_key", "request_key",
          "io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd",
          "perf_event_open", "unshare", "setns", "process_vm_writev", "kexec_load"}
PROGRAMS = {"execve", "execveat", "fork", "vfork"}  # + clone/clone3 without CLONE_THREAD
MUTATING = {"rename", "renameat", "renameat2", "unlink", "unlinkat", "rmdir", "mkdir", "mkdirat",
            "truncate", "ftruncate", "chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown",
            "fchownat", "link", "linkat", "symlink", "symlinkat", "mknod", "mknodat", "creat",
            "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
            "utimensat", "utimes", "utime", "futimesat"}
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")
# A reader (neither writes nor starts programs) is refused the opens whose flags a filter
# cannot read: its filter alone holds truncation, which its Landlock ruleset leaves to it.
UNREAD_FLAGS = {"openat2", "open_by_handle_at"}


def refused(effects: dict) -> set[str]:
    s = NETWORK | ALWAYS
    if not effects["starts_programs"]:
        s |= PROGRAMS
    if not effects["writes_files"]:
        s |= MUTATING
        if not effects["starts_programs"]:
            s |= UNREAD_FLAGS
    return s


# --- reading a strace log -------------------------------------------------------------------

LINE = re.compile(rb"^(\d+)\s+(?:<\.\.\. (\w+) resumed>|(\w+)\()")


def calls(log: bytes) -> list[tuple[str, bytes]]:
    """(name, line) for each system call in the log, in order; a resumed call counts once."""
    out = []
    for line in log.splitlines():
        m = LINE.match(line)
        if not m or m.group(2):  # "<... x resumed>" continues a call already listed
            continue
        out.append((m.group(3).decode(), line))
    return out


def install_index(cs: list[tuple[str, bytes]]) -> int | None:
    """Index of the successful seccomp filter load (the last step of apply_sandbox)."""
    for i, (name, line) in enumerate(cs):
        if name == "seccomp" and b"SECCOMP_SET_MODE_FILTER" in line and b"{len=" in line \
                and re.search(rb"= 0\s*$", line):
            return i
    return None


def landlock_index(cs: list[tuple[str, bytes]]) -> int | None:
    for i, (name, line) in enumerate(cs):
        if name == "landlock_restrict_self" and re.search(rb"= 0\s*$", line):
            return i
    return None


def violations(cs: list[tuple[str, bytes]], effects: dict) -> list[str]:
    bad = []
    ref = refused(effects)
    for name, line in cs:
        if name in ref:
            bad.append(line.decode(errors="replace"))
        elif name in ("clone", "clone3") and not effects["starts_programs"] \
                and b"CLONE_THREAD" not in line:
            bad.append(line.decode(errors="replace"))
        elif name in ("open", "openat", "openat2") and not effects["writes_files"]:
            flags = line.split(b"resolve=")[0]
            if any(f.encode() in flags for f in WRITE_FLAGS):
                bad.append(line.decode(errors="replace"))
    return bad


# --- the invocations ------------------------------------------------------------------------

JSON_DOC = b'{"a": {"b": [1, 2, 3]}, "name": "tack", "n": null}\n'
TSV = b"x\t1\ny\t2\nx\t3\n"
SKILL = b"---\nname: demo\ndescription: A demo skill for the authority test.\n---\nBody.\n"
R_TXT = b"hello world\nsecond line\n"


def fixture(tmp_path, name: str = "root"):
    tree = tack.make_tree(tmp_path / name)
    root = tree.root
    (root / "data.json").write_bytes(JSON_DOC)
    (root / "t.tsv").write_bytes(TSV)
    (root / "skills" / "demo").mkdir(parents=True)
    (root / "skills" / "demo" / "SKILL.md").write_bytes(SKILL)
    (root / "r.txt").write_bytes(R_TXT)
    (root / "m.txt").write_bytes(b"to move\n")
    (root / "e.txt").write_bytes(b"one\ntwo\nthree\n")
    return tree


def witness_of(root, name: str, line: int) -> str | None:
    p = subprocess.run([tack.bin_path("peek"), "--root", ".", "--witness", name],
                       cwd=root, capture_output=True)
    try:
        return json.loads(p.stdout)["data"]["lines"][line - 1]["witness"]
    except Exception:
        return None


def invocations(tool: str, root) -> list[tuple[list[str], bytes | None, list[str]]]:
    """(argv, stdin, operands) — typical calls, success and error paths; cwd is the root."""
    R = ["--root", "."]
    if tool == "peek":
        return [(R + ["plain.txt"], None, ["plain.txt"]),
                (R + ["--lines", "2:3", "--witness", "crlf.txt"], None, ["crlf.txt"]),
                (R + ["--bytes", "0:10", "nul.bin"], None, ["nul.bin"]),
                (R + ["nope.txt"], None, ["nope.txt"]),
                (R + ["dir"], None, ["dir"]),
                (R + ["link_out_file"], None, ["link_out_file"]),
                (["--format", "text", "plain.txt"], None, ["plain.txt"])]
    if tool == "seek":
        return [(R + ["alpha", "plain.txt"], None, ["plain.txt"]),
                (R + ["-i", "--regex", "SEC.ND", "."], None, []),
                (R + ["deep", "dir"], None, ["dir"]),
                (R + ["x", "nope"], None, ["nope"]),
                (["alpha", "plain.txt"], None, ["plain.txt"])]
    if tool == "list":
        return [(R + ["."], None, []),
                (R + ["--depth", "3", "--long", "dir"], None, ["dir"]),
                (R + ["nope"], None, ["nope"]),
                (R + ["plain.txt"], None, ["plain.txt"]),
                (["dir"], None, ["dir"])]
    if tool == "digest":
        (root / "sums.txt").write_bytes(hashlib.sha256(TSV).hexdigest().encode() + b"  t.tsv\n"
                                        + b"0" * 64 + b"  nope.txt\nbad line\n")
        return [(R + ["plain.txt", "crlf.txt"], None, ["plain.txt", "crlf.txt"]),
                (R + ["--check", "sums.txt"], None, ["sums.txt", "t.tsv", "nope.txt"]),
                (R + ["nope.txt"], None, ["nope.txt"]),
                (R + ["dir"], None, ["dir"]),
                (["empty.txt"], None, ["empty.txt"])]
    if tool == "jsonq":
        return [(R + ["--pointer", "/a/b/1", "data.json"], None, ["data.json"]),
                (R + ["--keys", "data.json"], None, ["data.json"]),
                (R + ["--pointer", "/zz", "data.json"], None, ["data.json"]),
                (R + ["plain.txt"], None, ["plain.txt"]),
                (R + ["nope.json"], None, ["nope.json"]),
                (R + ["--pointer", "/a"], JSON_DOC, [])]
    if tool == "tally":
        return [(R + ["t.tsv"], None, ["t.tsv"]),
                (R + ["--field", "2", "t.tsv"], None, ["t.tsv"]),
                (R + ["--regex", "-i", "--match", "^X", "t.tsv"], None, ["t.tsv"]),
                (R + ["nope.tsv"], None, ["nope.tsv"]),
                (R, TSV, [])]
    if tool == "skills":
        return [(R + ["skills"], None, ["skills"]),
                (R + ["--show", "demo", "skills"], None, ["skills"]),
                (R + ["nope"], None, ["nope"]),
                (R, None, [])]
    if tool == "write":
        return [(R + ["--create", "--stdin", "new.txt"], b"new\n", ["new.txt"]),
                (R + ["--create", "--parents", "--stdin", "d1/d2/n.txt"], b"n\n", ["d1/d2/n.txt"]),
                (R + ["--create", "--stdin", "plain.txt"], b"x\n", ["plain.txt"]),
                (R + ["--dry-run", "--create", "--stdin", "dry.txt"], b"x\n", ["dry.txt"]),
                (R + ["--if-sha256", "0" * 64, "--stdin", "r.txt"], b"x\n", ["r.txt"])]
    if tool == "replace":
        return [(R + ["--old", "hello", "--new", "bye", "r.txt"], None, ["r.txt"]),
                (R + ["--old", "zzz", "--new", "y", "r.txt"], None, ["r.txt"]),
                (R + ["--dry-run", "--old", "second", "--new", "2nd", "r.txt"], None, ["r.txt"]),
                (R + ["--old", "a", "--new", "b", "nope.txt"], None, ["nope.txt"])]
    if tool == "edit":
        w = witness_of(root, "e.txt", 2) or "h000000"
        edits = json.dumps([{"witness": w, "lines": ["TWO"]}]).encode()
        return [(R + ["--stdin", "e.txt"], edits, ["e.txt"]),
                (R + ["--stdin", "e.txt"], b'[{"witness": "h000000", "lines": []}]', ["e.txt"]),
                (R + ["--stdin", "e.txt"], b"not json", ["e.txt"]),
                (R + ["--stdin", "nope.txt"], edits, ["nope.txt"])]
    if tool == "move":
        return [(R + ["m.txt", "moved.txt"], None, ["m.txt", "moved.txt"]),
                (R + ["--parents", "moved.txt", "nd/x/m.txt"], None, ["moved.txt", "nd/x/m.txt"]),
                (R + ["nope.txt", "x.txt"], None, ["nope.txt", "x.txt"]),
                (R + ["--dry-run", "r.txt", "r2.txt"], None, ["r.txt", "r2.txt"])]
    if tool == "run":
        return [(R + ["--", "true"], None, [])]
    if tool == "undo":
        # an entry to take back: replace's, made before the traced calls
        subprocess.run([tack.bin_path("replace"), "--root", str(root), "--old", "hello", "--new",
                        "bye", "r.txt"], check=True, capture_output=True)
        return [(R + ["--list", "r.txt"], None, []),
                (R + ["--dry-run", "1"], None, []),
                (R + ["1"], None, []),
                (R + ["--last"], None, []),
                (R + ["9"], None, [])]
    raise AssertionError(f"no invocation table for {tool}")


def traced(tool: str, argv, stdin, cwd, log) -> tuple[tack.Result, list[tuple[str, bytes]]]:
    wrap = [STRACE, "-f", "-qq", "-e", "trace=all", "-o", str(log)]
    r = tack.run(tool, *argv, stdin=stdin, cwd=cwd, wrap=wrap, retries=False, timeout=60)
    return r, calls(log.read_bytes())


@needs_strace
@pytest.mark.parametrize("tool", tack.expected_tools())
def test_syscalls_after_install_lie_inside_the_profile(tool, tmp_path):
    if not os.path.exists(tack.bin_path(tool)):
        pytest.fail(f"{tool} is expected (tools/{tool}.cpp exists) but not built")
    effects = tack.introspect(tool)["effects"]
    tree = fixture(tmp_path)
    seen: set[str] = set()
    problems = []
    for i, (argv, stdin, operands) in enumerate(invocations(tool, tree.root)):
        log = tmp_path / f"strace{i}.log"
        r, cs = traced(tool, argv, stdin, tree.root, log)
        at = install_index(cs)
        if at is None:
            problems.append(f"{argv}: no successful seccomp filter install in the log")
            continue
        after = cs[at + 1:]
        seen |= {name for name, _ in after}
        bad = violations(after, effects)
        if bad:
            problems.append(f"{argv} (exit {r.exit}): refused calls made:\n  " + "\n  ".join(bad[:10]))
        # (b) nothing an operand names is opened before the profile holds
        ll = landlock_index(cs)
        if ll is not None and ll > at:
            problems.append(f"{argv}: Landlock restricted after the seccomp install")
        for name, line in cs[:at + 1]:
            if name not in ("open", "openat", "openat2", "stat", "newfstatat", "statx", "access",
                            "faccessat", "faccessat2", "readlink", "readlinkat"):
                continue
            if any(f'"{op}"'.encode() in line for op in operands):
                problems.append(f"{argv}: operand opened before the profile: {line.decode(errors='replace')}")
    # The observed set, written where `pytest -s` shows it (a record, not a check: the checks
    # are the problems above).
    out = tmp_path / "observed_syscalls.json"
    out.write_text(json.dumps({tool: sorted(seen)}, indent=1) + "\n")
    print(f"\n{tool}: {len(seen)} system calls observed after the sandbox install ({out}): "
          f"{' '.join(sorted(seen))}")
    assert not problems, f"{tool}:\n" + "\n".join(problems)
    if tool == "run":
        assert tack.run_survivors() == [], "a program run started is still running"


# --- (c) a refused operation is a tagged error ------------------------------------------------

def _opens_before_install(cs) -> tuple[int, int]:
    at = install_index(cs)
    assert at is not None
    pre = cs[:at + 1]
    return (sum(1 for n, _ in pre if n == "openat"), sum(1 for n, _ in pre if n == "openat2"))


@needs_strace
@pytest.mark.parametrize("tool,argv", [
    ("peek", ["--root", ".", "plain.txt"]),
    ("digest", ["--root", ".", "plain.txt"]),
    ("list", ["--root", ".", "dir"]),
    ("write", ["--root", ".", "--create", "--stdin", "new.txt"]),
])
def test_eperm_after_install_is_a_tagged_error(tool, argv, tmp_path):
    """EPERM (what the filter answers) on every open after the install: exit from the catalogue
    and a JSON error naming the rule, never a signal."""
    if tool not in tack.expected_tools():
        pytest.skip(f"{tool} is not built")
    probe = fixture(tmp_path / "probe")  # a tree of its own: a writer's probe run writes
    stdin = b"x\n" if tool == "write" else None
    _, cs = traced(tool, argv, stdin, probe.root, tmp_path / "probe.log")
    tree = fixture(tmp_path)
    n_openat, n_openat2 = _opens_before_install(cs)
    wrap = [STRACE, "-f", "-qq", "-o", str(tmp_path / "inject.log"),
            "-e", f"inject=openat2:error=EPERM:when={n_openat2 + 1}+",
            "-e", f"inject=openat:error=EPERM:when={n_openat + 1}+"]
    r = tack.run(tool, *argv, stdin=stdin, cwd=tree.root, wrap=wrap, retries=False)
    assert b"INJECTED" in (tmp_path / "inject.log").read_bytes(), "nothing was injected"
    assert r.exit == 4, f"exit {r.exit}: {r.out[:400]!r}"
    assert r.rules and r.rules[0] == "io.permission-denied", r.out[:400]
    assert not (tree.root / "new.txt").exists()


def test_landlock_refusal_is_a_tagged_error(tmp_path):
    """A real refusal by the kernel: write with --root holds write rights beneath the root
    only. The test build of write (build/fixture/write, TACK_TEST_WRITE_PAST_CHECKS) creates a
    path as it stands after the profile is installed, past every check of the tool's own, so
    only Landlock stands between it and a file outside the root: EACCES, answered as the tagged
    io.permission-denied (exit 4), and nothing is created. The control: the same hook naming a
    path beneath the root creates it, so the refusal is the ruleset's, not the permissions'."""
    if not tack.introspect("write")["authority"]["mechanisms"]["landlock_abi"]:
        pytest.skip("no Landlock here")
    hooked = tack.BIN.parent / "fixture" / "write"
    assert hooked.exists(), f"the test build of write is not built at {hooked}"
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    argv = [str(hooked), "--root", str(root), "--create", "--stdin", "f.txt"]

    def hook(path):
        env = dict(os.environ, TACK_TEST_WRITE_PAST_CHECKS=str(path))
        p = subprocess.run(argv, input=b"hi\n", capture_output=True, env=env, timeout=30)
        tack.check_output("write", [a.encode() for a in argv[1:]], p.returncode, p.stdout, p.stderr)
        return p.returncode, json.loads(p.stdout)

    code, doc = hook(outside / "escaped.txt")
    assert code == 4 and doc["error"]["rule"] == "io.permission-denied", doc
    assert doc["error"]["detail"]["errno"] == "EACCES" and doc["error"]["detail"]["stage"] == "create"
    assert not (outside / "escaped.txt").exists() and not (root / "f.txt").exists()
    code, doc = hook(root / "inside.txt")
    assert code == 0 and doc["ok"], doc
    assert (root / "inside.txt").exists() and (root / "f.txt").read_bytes() == b"hi\n"


def test_write_parents_without_root_is_not_refused_by_its_own_sandbox(tmp_path):
    """BUG (src/runner/main.cpp:196-202 with src/os/sandbox.cpp landlock()): without --root the
    write rule goes on the target's parent directory, opened when the profile is installed; with
    --parents that directory does not exist yet, the open fails and the rule is skipped, so the
    documented `write --create --parents new/sub/f.txt` fails with io.permission-denied
    (mkdir 'new': EACCES) although the same call with --root . succeeds. Expected: the rule goes
    on the nearest existing ancestor, and the file is created."""
    if "write" not in tack.expected_tools() or not tack.introspect("write")["authority"]["mechanisms"]["landlock_abi"]:
        pytest.skip("write not built or no Landlock here")
    work = tmp_path / "w"
    work.mkdir()
    with_root = tack.run("write", "--root", ".", "--create", "--parents", "--stdin", "a/b/f.txt",
                         stdin=b"hi\n", cwd=work)
    assert with_root.exit == 0, with_root.out[:400]
    r = tack.run("write", "--create", "--parents", "--stdin", "new/sub/f.txt", stdin=b"hi\n", cwd=work)
    assert r.exit == 0 and (work / "new" / "sub" / "f.txt").read_bytes() == b"hi\n", \
        f"exit {r.exit}: {r.out[:300]!r}"


# --- (d) introspect states the authority ------------------------------------------------------

@pytest.mark.parametrize("tool", tack.expected_tools())
def test_introspect_has_the_authority_row(tool):
    if not os.path.exists(tack.bin_path(tool)):
        pytest.fail(f"{tool} is expected (tools/{tool}.cpp exists) but not built")
    d = tack.introspect(tool)
    assert "authority" in d, f"{tool} introspect has no authority member"
    a = d["authority"]
    mech = a["mechanisms"]
    assert "landlock_abi" in mech and (mech["landlock_abi"] is None or
                                       (isinstance(mech["landlock_abi"], int) and mech["landlock_abi"] > 0))
    assert isinstance(mech["seccomp"], bool)
    for k in ("files", "programs", "network"):
        assert isinstance(a.get(k), str) and a[k], f"{tool}: authority.{k}"
    assert a["files"].startswith("read and write") == d["effects"]["writes_files"], a["files"]
