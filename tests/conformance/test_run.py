"""run — one program from the programs directory, confined, with a deadline and an output cap.

The suite drives the test build (build/fixture/run), whose programs directory holds the
fixture programs of tests/support/run_program.cpp. Every test that starts programs gives them
a marker argument, and every test ends with a scan of /proc for it: nothing may survive.
Every invocation goes through tack.run (schema, exit codes, retries executed).
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time
import uuid

import pytest

import tack
from tack import run

MiB = 1024 * 1024
SESSION = f"tackmark{uuid.uuid4().hex[:10]}"
R = "{root}"


def survivors(marker: str = SESSION) -> list[str]:
    """Processes of these tests still running: the fixture program or the test build of run
    under any name, or anything whose command line holds the marker."""
    return tack.run_survivors(marker)


@pytest.fixture(autouse=True)
def nothing_left_running():
    yield
    left = survivors()
    assert not left, f"processes survived the test: {left}"


def mark(tag: str) -> str:
    return f"{SESSION}-{tag}"


def tmp_dirs(*pids) -> set[str]:
    """run's private TMPDIRs in /tmp: all, or those of the runs with these process ids (another
    test run sharing /tmp has its own)."""
    prefixes = tuple(f"tack-run.{p}." for p in pids) or ("tack-run.",)
    return {n for n in os.listdir("/tmp") if n.startswith(prefixes)}


def out_text(r, stream="stdout") -> bytes:
    return tack.tob(r.data[stream]["text"])


# --- the answer -------------------------------------------------------------------------

def test_echo_exact_argv_no_shell(tree):
    args = ["a b", "", "$HOME", "*", "'q'", "-n", "\xe9", "--"]
    r = run("run", "--root", tree.root, "--", "args", *args)
    assert r.exit == 0 and r.doc["ok"] is True
    assert out_text(r) == b"".join(b"[" + a.encode() + b"]\n" for a in ["args"] + args)
    d = r.data
    assert d["exit_code"] == 0 and d["signal"] is None and d["killed"] is False
    assert d["kill_reason"] is None and d["processes_killed"] == 0
    assert d["stderr"] == {"text": "", "bytes": 0, "truncated": False}


def test_non_utf8_argument_and_output(tree):
    r = run("run", "--", "args", b"\xff\xfe")
    assert out_text(r) == b"[args]\n[\xff\xfe]\n"
    assert isinstance(r.data["stdout"]["text"], dict)
    r = run("run", "--", "binary")
    assert out_text(r) == b"\xff\xfe\x00\x80 not utf-8 \xc0\x80\n"
    assert out_text(r, "stderr") == out_text(r)


def test_exit_code_and_signal_are_answers_not_errors():
    r = run("run", "--", "exit", "42")
    assert r.exit == 0 and r.data["exit_code"] == 42 and r.data["signal"] is None
    r = run("run", "--", "segv")
    assert r.exit == 0 and r.data["exit_code"] is None and r.data["signal"] == "SIGSEGV"
    assert r.data["killed"] is False


def test_fixed_environment_nothing_of_the_callers(tree):
    env = {"PATH": "/usr/bin:/bin", "SECRET_TOKEN": "leak-me", "LD_PRELOAD": "/nonexistent.so",
           "TMPDIR": "/nonexistent", "HOME": "/root", "LANG": "tr_TR.UTF-8"}
    r = run("run", "--root", tree.root, "--", "env", env=env)
    lines = out_text(r).decode().splitlines()
    names = [l.split("=", 1)[0] for l in lines]
    assert names == ["PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", "PWD"]
    vals = dict(l.split("=", 1) for l in lines)
    assert vals["PWD"] == str(tree.root) and vals["TZ"] == "UTC" and vals["LC_ALL"] == "C.UTF-8"
    assert vals["TMPDIR"].startswith("/tmp/tack-run.") and vals["HOME"] == vals["TMPDIR"]
    assert b"leak-me" not in r.out
    assert not os.path.exists(vals["TMPDIR"]), "the private TMPDIR is removed afterwards"


def test_working_directory_is_the_root_or_cwd(tree):
    assert out_text(run("run", "--root", tree.root, "--", "pwd")) == str(tree.root).encode() + b"\n"
    assert out_text(run("run", "--", "pwd", cwd=tree.root / "dir")) == str(tree.root / "dir").encode() + b"\n"
    r = run("run", "--root", tree.root, "--cwd", "dir/sub", "--", "pwd")
    assert out_text(r) == str(tree.root / "dir" / "sub").encode() + b"\n"


def test_list_and_bare_run_name_the_programs():
    a = run("run")
    b = run("run", "--list")
    assert a.out == b.out and a.exit == 0
    names = [tack.tob(n) for n in a.data["programs"]]
    assert names == sorted(names)
    assert {b"echo", b"true", b"script", b"cat"} <= set(names)
    # not programs: no execute bit, dangling link, a directory, a hidden name
    assert not {b"notexec", b"dangling", b"subdir", b".hidden"} & set(names)
    t = run("run", "--list", "--format", "text")
    assert t.out == b"".join(n + b"\n" for n in names)


def test_a_script_with_a_shebang_runs():
    assert out_text(run("run", "--", "script", "hi")) == b"script says hi\n"


def test_text_mode_passes_the_streams_through():
    p = subprocess.run([tack.bin_path("run"), "--format", "text", "--", "both"], capture_output=True)
    assert (p.returncode, p.stdout, p.stderr) == (0, b"to stdout\n", b"to stderr\n")
    p = subprocess.run([tack.bin_path("run"), "--format", "text", "--max-output", "10", "--",
                        "flood", "100000"], capture_output=True)
    assert p.returncode == 8 and p.stdout == b"x" * 10
    assert p.stderr.startswith(b"run: limit.output-too-large: ")


# --- output caps --------------------------------------------------------------------------

@pytest.mark.parametrize("prog,streams", [("flood", ["stdout"]), ("flood-err", ["stderr"]),
                                          ("flood-both", ["stdout", "stderr"])])
def test_flood_is_cut_at_the_cap_and_killed(prog, streams):
    r = run("run", "--max-output", "100000", "--", prog, "inf", timeout=30)
    assert r.rules == ["limit.output-too-large"] and r.exit == 8
    d = r.data
    assert d["killed"] is True and d["kill_reason"] == "output"
    first = r.doc["error"]["detail"]["stream"]  # with both flooding, either may cross first
    assert first in streams
    assert d[first]["truncated"] is True and d[first]["bytes"] > 100000
    assert len(out_text(r, first)) == 100000
    for s in set(streams) - {first}:  # the other stream was flooding too, up to the kill
        assert d[s]["bytes"] > 0 and len(out_text(r, s)) == min(d[s]["bytes"], 100000)
    assert d["signal"] in ("SIGTERM", "SIGKILL") and d["processes_killed"] >= 1


def test_exactly_the_cap_is_not_cut():
    r = run("run", "--max-output", "5000", "--", "flood", "5000")
    assert r.exit == 0 and r.data["stdout"]["bytes"] == 5000 and not r.data["stdout"]["truncated"]
    r = run("run", "--max-output", "0", "--", "true")
    assert r.exit == 0
    r = run("run", "--max-output", "0", "--", "echo", "x")
    assert r.rules == ["limit.output-too-large"] and out_text(r) == b""


def test_a_single_100_mib_line():
    r = run("run", "--max-output", str(64 * MiB), "--", "longline", str(100 * MiB), timeout=60)
    assert r.rules == ["limit.output-too-large"]
    assert r.data["stdout"]["bytes"] > 64 * MiB and len(out_text(r)) == 64 * MiB
    assert set(out_text(r)) == {ord("x")}


def test_large_output_within_the_cap_is_whole():
    r = run("run", "--max-output", str(8 * MiB), "--", "flood", str(8 * MiB), timeout=60)
    assert r.exit == 0 and out_text(r) == (b"x" * 4095 + b"\n") * (8 * MiB // 4096)


def test_program_that_closes_stdout_early():
    r = run("run", "--", "closeout")
    assert r.exit == 0 and out_text(r) == b"" and out_text(r, "stderr") == b"stdout closed\n"


# --- standard input ----------------------------------------------------------------------

def test_stdin_is_nothing_without_the_flag():
    r = run("run", "--", "readall", stdin=b"ignored input")
    assert out_text(r) == b"0\n" and r.data["stdin_bytes"] == 0


def test_stdin_passed_with_the_flag():
    data = bytes(range(256)) * 4096
    r = run("run", "--stdin", "--max-output", str(2 * MiB), "--", "cat", stdin=data)
    assert r.exit == 0 and out_text(r) == data and r.data["stdin_bytes"] == len(data)


def test_more_stdin_than_the_cap_is_refused_with_a_retry():
    data = b"y" * (300 * 1024)
    r = run("run", "--stdin", "--max-stdin", "1000", "--", "readall", stdin=data)
    assert r.rules == ["limit.input-too-large"] and r.exit == 8
    assert r.data["kill_reason"] == "stdin"
    e = r.doc["error"]
    assert e["detail"]["bytes"] == len(data) and e["detail"]["complete"] is True
    assert e["repair"]["kind"] == "retry"
    again = r.retried[0]  # executed by tack.run with the same stdin
    assert again.exit == 0 and out_text(again) == b"%d\n" % len(data)


def test_stdin_that_never_ends_meets_the_deadline():
    p = subprocess.Popen([tack.bin_path("run"), "--stdin", "--timeout-ms", "300", "--", "readall",
                          mark("stdin")], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    p.stdin.write(b"some input, and then nothing more, never closed")
    p.stdin.flush()
    out = p.stdout.read()
    p.wait(timeout=10)
    p.stdin.close()
    doc = json.loads(out)
    assert p.returncode == 8 and doc["error"]["rule"] == "limit.timeout"
    assert doc["data"]["stdin_bytes"] == 47


def test_a_program_that_stops_reading_early():
    r = run("run", "--stdin", "--", "true", stdin=b"z" * (512 * 1024))
    assert r.exit == 0


# --- nothing survives ----------------------------------------------------------------------

def test_orphan_in_its_own_session_is_killed():
    m = mark("orphan")
    r = run("run", "--", "orphan", m)
    assert r.exit == 0 and r.data["processes_killed"] == 1
    assert survivors(m) == []


@pytest.mark.parametrize("prog", ["hang", "deaf", "stopper"])
def test_timeout_kills_the_tree(prog):
    m = mark(prog)
    t = time.monotonic()
    r = run("run", "--timeout-ms", "300", "--", prog, m)
    assert time.monotonic() - t < 5
    assert r.rules == ["limit.timeout"] and r.exit == 8
    d = r.data
    assert d["killed"] is True and d["kill_reason"] == "timeout" and d["exit_code"] is None
    assert d["signal"] == ("SIGKILL" if prog == "deaf" else "SIGTERM")
    assert d["processes_killed"] == (2 if prog == "stopper" else 1)
    assert r.doc["error"]["detail"] == {"timeout_ms": 300}
    assert survivors(m) == []


def test_fork_bomb_is_kept_in_check():
    m = mark("bomb")
    r = run("run", "--timeout-ms", "20000", "--", "forkbomb", m, timeout=60)
    assert r.exit == 0, r
    c = r.data["confinement"]
    assert c["pids_max"] == 1024, "this machine lets run make a pids cgroup"
    made = int(out_text(r).split()[1])
    assert made < 1024 and b"refused 50" in out_text(r)
    assert r.data["processes_killed"] == made
    assert survivors(m) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_stopping_run_ends_the_tree(sig):
    m = mark(f"sig{int(sig)}")
    first = subprocess.Popen([tack.bin_path("run"), "--", "orphan", m], stdout=subprocess.PIPE)
    first.wait(timeout=10)  # the orphan is left behind by then... and killed as run answers
    m2 = mark(f"sigb{int(sig)}")
    p = subprocess.Popen([tack.bin_path("run"), "--", "stopper", m2], stdout=subprocess.PIPE)
    # run, the program, its stopped child, and the first process of the program's PID
    # namespace (a fork of run, under run's command line) where one is made
    tree = 4 if pid_namespace() else 3
    for _ in range(200):
        if len(survivors(m2)) >= tree:
            break
        time.sleep(0.01)
    assert len(survivors(m2)) == tree
    p.send_signal(sig)
    p.wait(timeout=10)
    assert p.returncode == -sig, "run dies by the signal it was sent, after ending its tree"
    assert p.stdout.read() == b""
    assert survivors(m2) == [] and survivors(m) == []
    assert tmp_dirs(first.pid, p.pid) == set(), "the private TMPDIR is removed"


def test_caller_closing_the_pipe_ends_the_tree():
    m = mark("epipe")
    r, w = os.pipe()
    p = subprocess.Popen([tack.bin_path("run"), "--", "hang", m], stdout=w, stderr=subprocess.PIPE)
    os.close(w)
    for _ in range(200):
        if survivors(m):
            break
        time.sleep(0.01)
    assert survivors(m)
    os.close(r)
    p.wait(timeout=10)
    assert p.returncode == 1 and p.stderr.read().startswith(b"run: io.write-failed: ")
    assert survivors(m) == []


def test_a_detached_writer_is_ended_with_the_program():
    r = run("run", "--", "setsid-child")
    assert r.exit == 0 and r.data["processes_killed"] == 1 and out_text(r) == b""


# --- confinement ---------------------------------------------------------------------------

def test_writes_beneath_the_root_and_tmpdir_only(tree):
    r = run("run", "--root", tree.root, "--", "write", "made.txt")
    assert r.exit == 0 and r.data["exit_code"] == 0
    assert (tree.root / "made.txt").read_bytes() == b"written by run_program\n"
    target = tree.outside / "escaped.txt"
    r = run("run", "--root", tree.root, "--", "write", str(target))
    assert r.data["exit_code"] == 3 and b"Permission denied" in out_text(r, "stderr")
    assert not target.exists()
    r = run("run", "--root", tree.root, "--", "write", "/etc/tack-run-escape")
    assert r.data["exit_code"] == 3 and not os.path.exists("/etc/tack-run-escape")
    assert r.data["confinement"]["files"] is True
    r = run("run", "--root", tree.root, "--", "tmpwrite")
    assert r.data["exit_code"] == 0 and not os.path.exists(out_text(r).strip())


def test_read_only_narrows_to_tmpdir(tree):
    r = run("run", "--root", tree.root, "--read-only", "--", "write", "ro.txt")
    assert r.data["exit_code"] == 3 and not (tree.root / "ro.txt").exists()
    assert r.data["confinement"]["read_only"] is True
    r = run("run", "--root", tree.root, "--read-only", "--", "tmpwrite")
    assert r.data["exit_code"] == 0


@pytest.mark.parametrize("prog", ["inet", "inet6"])
def test_internet_sockets_are_refused(prog):
    r = run("run", "--", prog)
    assert r.data["exit_code"] == 3
    assert out_text(r, "stderr").endswith(b"Operation not permitted\n")


def test_local_tcp_listener_is_unreachable():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    s.settimeout(0.5)
    try:
        r = run("run", "--", "connect", str(s.getsockname()[1]))
        assert r.data["exit_code"] == 3 and b"not permitted" in out_text(r, "stderr")
        with pytest.raises(socket.timeout):
            s.accept()
    finally:
        s.close()


def test_unix_sockets_stay():
    r = run("run", "--", "unix")
    assert r.data["exit_code"] == 0 and out_text(r) == b"socketpair AF_UNIX: ok\n"


def test_signals_do_not_leave_the_programs_domain():
    victim = subprocess.Popen(["sleep", "30"])
    try:
        r = run("run", "--", "signal", str(victim.pid))
        assert r.data["exit_code"] == 3 and r.data["confinement"]["scoped"] is True
        assert victim.poll() is None
    finally:
        victim.kill()
        victim.wait()


def test_confinement_is_stated():
    c = run("run", "--", "true").data["confinement"]
    abi = tack.introspect("run")["authority"]["mechanisms"]["landlock_abi"]
    assert c["landlock_abi"] == abi and c["files"] is bool(abi) and c["seccomp"] is True
    assert c["tcp"] is (abi is not None and abi >= 4)


# --- names and the programs directory ----------------------------------------------------

@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "/bin/sh", "./echo", "x" * 256])
def test_program_is_one_plain_name(name):
    r = run("run", "--", name)
    assert r.rules == ["run.program-name"] and r.exit == 2


@pytest.mark.parametrize("name,rule", [
    ("missing", "run.program-not-found"), ("dangling", "run.program-not-found"),
    ("subdir", "run.program-not-found"), (".hidden", "run.program-not-found"),
    ("notexec", "io.permission-denied"), ("garbage", "run.spawn-failed")])
def test_entries_that_are_not_programs(name, rule):
    r = run("run", "--", name)
    assert r.rules == [rule] and r.exit == tack.CATALOGUE[rule]
    assert "data" not in r.doc


def test_shipped_binary_looks_beneath_its_own_prefix(tmp_path):
    """The shipped build fixes no directory: it looks in PREFIX/libexec/tack/programs beneath
    the prefix its binary stands in (a build tree's bin/ counts as PREFIX/bin). Copied into a
    prefix of this test's own, it names that prefix's directory and runs only what is there;
    no variable and no flag points it elsewhere. (tests/dist checks the package's and
    `make install PREFIX=...`'s.)"""
    shipped = tack.BIN / "run"
    info = json.loads(subprocess.run([str(shipped), "introspect"], capture_output=True).stdout)
    assert "programs" not in {f["name"] for f in info["flags"]}
    assert info["output_schema"] == tack.introspect("run")["output_schema"]
    build_dir = shipped.resolve().parent.parent / "libexec" / "tack" / "programs"
    assert info["authority"]["programs"].startswith(f"only those in {build_dir} (beneath the prefix")
    prefix = tmp_path / "prefix"
    bindir = prefix / "lib" / "tack" / "bin"
    bindir.mkdir(parents=True)
    shutil.copy2(shipped, bindir / "run")
    programs = prefix / "libexec" / "tack" / "programs"
    programs.mkdir(parents=True)
    os.symlink(tack.RUN_FIXTURE.parent / "programs" / "echo", programs / "echo")
    fixture = str(tack.RUN_FIXTURE.parent / "programs")
    env = {"PATH": "/usr/bin:/bin", "TACK_PROGRAMS_DIR": fixture, "PROGRAMS_DIR": fixture}
    p = subprocess.run([str(bindir / "run"), "--list"], capture_output=True, env=env)
    assert json.loads(p.stdout)["data"] == {"directory": str(programs), "programs": ["echo"]}
    p = subprocess.run([str(bindir / "run"), "--", "echo", "x"], capture_output=True, env=env,
                       cwd=tmp_path)
    assert p.returncode == 0 and json.loads(p.stdout)["data"]["stdout"]["text"] == "x\n", p.stdout
    # A fixture program not in that directory is not found, whatever the environment says.
    p = subprocess.run([str(bindir / "run"), "--", "args", "x"], capture_output=True, env=env)
    assert json.loads(p.stdout)["error"]["rule"] == "run.program-not-found"


# --- M3: every declared rule reached --------------------------------------------------------

FIXTURES = [
    ("args.unknown-flag", ["--timeout", "5", "--", "true"]),
    ("args.missing-value", ["--timeout-ms"]),
    ("args.bad-value", ["--timeout-ms", "0", "--", "true"]),
    ("args.unexpected-value", ["--stdin=yes", "--", "true"]),
    ("args.duplicate-flag", ["--stdin", "--stdin", "--", "true"]),
    ("args.conflict", ["--list", "--stdin"]),
    ("args.missing-operand", ["--timeout-ms", "5"]),
    ("path.empty", ["--root", "", "--", "true"]),
    ("path.dotdot", ["--root", R, "--cwd", "dir/../dir", "--", "true"]),
    ("path.absolute", ["--root", R, "--cwd", R + "/dir", "--", "true"]),
    ("path.outside-root", ["--root", R, "--cwd", "/etc", "--", "true"]),
    ("path.too-long", ["--root", R, "--cwd", "a" * 4097, "--", "true"]),
    ("path.symlink", ["--root", R, "--cwd", "link_out_dir", "--", "true"]),
    ("io.not-found", ["--root", R, "--cwd", "nope", "--", "true"]),
    ("io.not-a-directory", ["--root", R, "--cwd", "plain.txt", "--", "true"]),
    ("io.special-file", ["--root", R, "--cwd", "fifo", "--", "true"]),
    ("io.permission-denied", ["--", "notexec"]),
    ("run.program-name", ["--", "a/b"]),
    ("run.program-not-found", ["--", "missing"]),
    ("run.spawn-failed", ["--", "garbage"]),
    ("limit.timeout", ["--timeout-ms", "50", "--", "hang", SESSION]),
    ("limit.output-too-large", ["--max-output", "3", "--", "echo", "four"]),
    ("limit.input-too-large", ["--stdin", "--max-stdin", "2", "--", "cat"]),
]


# Standard input that cannot be read: each fixture's (rule, args, how fd 0 is opened).
STDIN_FIXTURES = [
    ("io.is-a-directory", ["--stdin", "--", "cat"], lambda root: os.open(root, os.O_RDONLY)),
    ("io.read-failed", ["--stdin", "--", "cat"],
     lambda root: os.open(os.path.join(root, "plain.txt"), os.O_WRONLY)),
]


def _stdin_fixture_run(tree, fx):
    fd = fx[2](str(tree.root))
    try:
        return run("run", *fx[1], stdin=fd, cwd=tree.root)
    finally:
        os.close(fd)


@pytest.mark.parametrize("fx", STDIN_FIXTURES, ids=[f[0] for f in STDIN_FIXTURES])
def test_standard_input_that_cannot_be_read_is_refused_before_the_start(tree, fx):
    r = _stdin_fixture_run(tree, fx)
    assert r.rules == [fx[0]] and r.exit == tack.CATALOGUE[fx[0]], r
    assert "data" not in r.doc  # nothing was started
    assert r.doc["error"]["detail"]["path"] == "-"


def test_a_read_of_standard_input_that_fails_part_way_is_an_error_with_the_run():
    # A TCP connection reset by its peer after three bytes: the read after them fails.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    ours = socket.create_connection(listener.getsockname())
    peer, _ = listener.accept()

    def reset_later():
        time.sleep(0.3)
        peer.sendall(b"abc")
        time.sleep(0.3)
        peer.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        peer.close()

    threading.Thread(target=reset_later).start()
    try:
        r = run("run", "--stdin", "--", "cat", stdin=ours.fileno())
    finally:
        ours.close()
        listener.close()
    assert r.rules == ["io.read-failed"] and r.exit == 1
    assert r.doc["error"]["detail"] == {"path": "-", "errno": "ECONNRESET", "bytes": 3}
    assert r.data["exit_code"] == 0 and out_text(r) == b"abc" and r.data["stdin_bytes"] == 3


def _fixture_args(tree, fx):
    args = fx[1] + (fx[2] if len(fx) > 2 else [])
    return [a.replace(R, str(tree.root)) for a in args]


@pytest.mark.parametrize("fx", FIXTURES, ids=[f[0] for f in FIXTURES])
def test_fixture_reaches_its_rule(tree, fx):
    tree.fifo("fifo")
    r = run("run", *_fixture_args(tree, fx), stdin=b"abc", cwd=tree.root)
    assert r.rules and r.rules[0] == fx[0], r
    assert r.exit == tack.CATALOGUE[fx[0]]


def test_reached_rules_equal_declared_rules(tree):
    tree.fifo("fifo")
    reached = set()
    for fx in FIXTURES:
        reached.update(run("run", *_fixture_args(tree, fx), stdin=b"abc", cwd=tree.root).rules)
    for fx in STDIN_FIXTURES:
        reached.update(_stdin_fixture_run(tree, fx).rules)
    declared = set(tack.declared_rules("run"))
    assert reached == declared, (sorted(declared - reached), sorted(reached - declared))


def test_declared_rules_are_the_pages_and_more():
    page = {"args.unknown-flag", "args.missing-value", "args.bad-value", "args.unexpected-value",
            "args.duplicate-flag", "args.missing-operand", "path.empty", "path.dotdot",
            "path.absolute", "path.outside-root", "path.too-long", "path.symlink",
            "io.not-found", "io.not-a-directory", "io.permission-denied",
            "limit.input-too-large", "run.program-name", "run.program-not-found",
            "run.spawn-failed", "limit.timeout", "limit.output-too-large"}
    assert page <= set(tack.declared_rules("run"))


def _made_and_started(tmp_path, *args):
    """(exit, what one run of run made and started): under strace, each mkdir and each new
    process (clone, fork, exec past its own)."""
    out = tmp_path / f"made-{time.monotonic_ns()}.txt"
    p = subprocess.run(["strace", "-f", "-qq", "-o", str(out), "-e",
                        "trace=mkdir,mkdirat,clone,clone3,fork,vfork,execve",
                        tack.bin_path("run"), *args], capture_output=True, timeout=60)
    calls = [ln for ln in out.read_text(errors="replace").splitlines() if "(" in ln]
    out.unlink()
    return p.returncode, [c for c in calls[1:] if "resumed>" not in c]  # past run's own execve


def test_argument_errors_start_nothing(tree, tmp_path):
    m = mark("args")
    r = run("run", "--timeout-ms", "0", "--", "hang", m)
    assert r.rules == ["args.bad-value"] and survivors(m) == []
    code, made = _made_and_started(tmp_path, "--timeout-ms", "0", "--", "true")
    assert code == 2 and made == [], made
    # The control: the same call with a good value makes its private TMPDIR and starts it.
    code, made = _made_and_started(tmp_path, "--timeout-ms", "5000", "--", "true")
    assert code == 0
    assert any("mkdir" in c and "/tack-run." in c for c in made), made
    assert any(c.split("(")[0].split()[-1] in ("clone", "clone3", "fork", "vfork") for c in made)


# --- the deployer's policy (PROGRAMS_DIR/.policy) ------------------------------------------

EXTRA = tack.RUN_FIXTURE.parent / "extra"


def test_policy_grants_the_network_to_one_program_only():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    s.settimeout(5)
    try:
        port = str(s.getsockname()[1])
        r = run("run", "--", "netok", port)
        assert r.data["exit_code"] == 0 and out_text(r) == b"connect: ok\n"
        conn, _ = s.accept()
        conn.close()
        c = r.data["confinement"]
        assert c["network"] is True and c["tcp"] is False and c["seccomp"] is False
        r = run("run", "--", "connect", port)  # the same program under a name without the grant
        assert r.data["exit_code"] == 3 and r.data["confinement"]["network"] is False
    finally:
        s.close()


def test_policy_grants_a_writable_directory_to_one_program_only(tree):
    target = EXTRA / f"{SESSION}.txt"
    try:
        r = run("run", "--root", tree.root, "--", "scribe", str(target))
        assert r.data["exit_code"] == 0 and target.exists()
        assert r.data["confinement"]["writable"] == [str(EXTRA)]
        target.unlink()
        r = run("run", "--root", tree.root, "--", "write", str(target))
        assert r.data["exit_code"] == 3 and not target.exists()
        r = run("run", "--root", tree.root, "--read-only", "--", "scribe", str(target))  # the caller can only narrow
        assert r.data["exit_code"] == 3 and not target.exists()
        assert r.data["confinement"]["writable"] == []
    finally:
        if target.exists():
            target.unlink()


def test_a_malformed_policy_line_grants_nothing():
    """`scribe network please` is not a grant: scribe has no network."""
    r = run("run", "--", "scribe", "/dev/null")
    assert r.data["confinement"]["network"] is False


def test_the_policy_is_not_a_program():
    r = run("run", "--", ".policy")
    assert r.rules == ["run.program-not-found"]
    assert b".policy" not in run("run", "--list").out


def test_the_survivor_scan_sees_a_fixture_program():
    """Control: the scan every test ends with finds a fixture program by its executable, even
    without a marker, and run's test build by its own."""
    p = subprocess.Popen([str(tack.RUN_FIXTURE.parent / "programs" / "hang")])
    q = subprocess.Popen([str(tack.RUN_FIXTURE), "--", "hang"], stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if len(tack.run_survivors()) >= 3:
                break
            time.sleep(0.01)
        found = tack.run_survivors()
        assert any(f.startswith(f"{p.pid} ") for f in found) and any(f.startswith(f"{q.pid} ") for f in found)
    finally:
        p.kill()
        p.wait()
        q.terminate()
        q.wait()


def test_a_large_answer_escapes_every_byte():
    """Past 64 KiB a stream is escaped in pieces by run's own escaper: every ASCII byte
    (controls, quote, backslash) and multibyte characters, split wherever the pieces fall."""
    data = (bytes(range(128)) + "\u00e9\u20ac\U0001f600".encode()) * 2000
    r = run("run", "--stdin", "--max-output", str(MiB), "--", "cat", stdin=data)
    assert r.exit == 0 and isinstance(r.data["stdout"]["text"], str)
    assert out_text(r) == data
    # The same escaping as the serializer's: a short answer of the same bytes is its prefix.
    short = run("run", "--stdin", "--", "cat", stdin=data[:1000])
    head = short.out.split(b'"stdout":{"text":"', 1)[1].split(b'","bytes"', 1)[0]
    assert r.out.split(b'"stdout":{"text":"', 1)[1].startswith(head)


def test_stdin_closed_altogether_is_an_empty_input():
    p = subprocess.run([tack.bin_path("run"), "--stdin", "--timeout-ms", "5000", "--", "readall"],
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=10,
                       preexec_fn=lambda: os.close(0))
    doc = json.loads(p.stdout)
    assert p.returncode == 0 and doc["data"]["stdout"]["text"] == "0\n", doc


def pid_namespace(prefix: list[str] | None = None) -> bool:
    """Whether run (started through `prefix`, e.g. as another user) starts its programs in a
    PID namespace of their own on this machine, as its introspect measures it."""
    p = subprocess.run((prefix or []) + [tack.bin_path("run"), "introspect"],
                       capture_output=True, check=True, cwd="/tmp")
    return json.loads(p.stdout)["authority"]["mechanisms"]["pid_namespace"]


def scan_once(marker: str) -> list[str]:
    """One pass over /proc: the living processes whose command line holds `marker`."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if marker.encode() in cmd:
            out.append(f"{pid}: {cmd.replace(bytes(1), b' ')[:100]!r}")
    return out


NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.mark.parametrize("who", ["caller", "nobody"])
def test_a_sigkilled_run_leaves_nothing_running(who):
    """SIGKILL cannot be answered, but the program's PID namespace ends with run: its first
    process dies with run (PR_SET_PDEATHSIG), and the kernel then kills everything in it. A
    child in its own session, the grandchild of a double fork and a child deaf to SIGTERM are
    all gone within a second, as root and as a user without privileges (in a user namespace)."""
    prefix = []
    if who == "nobody":
        if os.geteuid() != 0:
            pytest.skip("dropping to another user needs root; the caller case is this user")
        prefix = NOBODY
    if not pid_namespace(prefix):
        pytest.skip("no PID namespace can be made here (test_what_a_killed_run_left_... covers it)")
    m = mark(f"kill-{who}")
    before = tmp_dirs()
    p = subprocess.Popen(prefix + [tack.bin_path("run"), "--format", "text", "--", "brood", m],
                         stdout=subprocess.PIPE, cwd="/tmp")
    assert p.stdout.readline() == b"ready\n"
    # Control: the scan sees the whole tree first: run, the namespace's init (a fork of run),
    # the program and its three.
    assert len(scan_once(m)) == 6, scan_once(m)
    p.kill()
    p.wait()
    t = time.monotonic()
    left = scan_once(m)
    while left and time.monotonic() - t < 1.0:
        time.sleep(0.01)
        left = scan_once(m)
    assert left == [], f"alive {time.monotonic() - t:.3f} s after run was killed: {left}"
    # What the killed run could not remove: its private TMPDIR (and cgroup, where it made one).
    stale = [d for d in tmp_dirs() - before if d.startswith(f"tack-run.{p.pid}.")]
    assert len(stale) == 1
    if who == "caller" and tack.introspect("run")["authority"]["mechanisms"]["cgroup"]:
        r = run("run", "--", "true")  # the next run finds the cgroup's owner gone: removes both
        assert r.exit == 0 and not [d for d in tmp_dirs() if d.startswith(f"tack-run.{p.pid}.")]
    else:
        subprocess.run(["rm", "-rf", "--", f"/tmp/{stale[0]}"], check=True)


def test_what_a_killed_run_left_is_ended_by_the_next():
    """Without a PID namespace (here: none may be made in a user namespace whose
    max_pid_namespaces is 0), SIGKILL leaves a child the program made running, reparented away.
    It is still in run's pids cgroup, so the next run, finding the cgroup's owner gone, ends it
    and removes the cgroup and the private TMPDIR left."""
    if not tack.introspect("run")["authority"]["mechanisms"]["cgroup"]:
        pytest.skip("no cgroup can be made here")
    if os.geteuid() != 0:
        pytest.skip("the fallback is forced in a user namespace mapping root")
    no_ns = ["unshare", "--user", "--map-root-user", "--", "sh", "-c",
             'echo 0 > /proc/sys/user/max_pid_namespaces && exec "$@"', "sh"]
    if subprocess.run(no_ns + ["true"], capture_output=True).returncode != 0:
        pytest.skip("no user namespace can be made here (a chroot, or a container forbidding it)")
    assert pid_namespace(no_ns) is False
    m = mark("sigkill")
    p = subprocess.Popen(no_ns + [tack.bin_path("run"), "--", "stopper", m], stdout=subprocess.DEVNULL)
    for _ in range(200):
        if len(survivors(m)) >= 3:
            break
        time.sleep(0.01)
    assert len(survivors(m)) == 3
    p.kill()
    p.wait()
    for _ in range(100):
        left = [s for s in survivors(m) if "stopper" in s]
        if len(left) == 1:
            break
        time.sleep(0.01)
    assert len(left) == 1, f"the stopped grandchild outlives a SIGKILLed run: {left}"
    assert [d for d in os.listdir("/tmp") if d.startswith(f"tack-run.{p.pid}.")]
    r = run("run", "--", "true")
    assert r.exit == 0
    assert survivors(m) == []
    assert not [d for d in os.listdir("/tmp") if d.startswith(f"tack-run.{p.pid}.")]
    for hierarchy in ("/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"):
        if os.path.isdir(hierarchy):
            assert f"tack-run.{p.pid}" not in os.listdir(hierarchy)
