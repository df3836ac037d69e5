"""M2 — same bytes in, same bytes out: across locales, time zones, terminals, working
directories, a junk-filled environment, and whether stdout is a pipe, a file or a tty."""

import os

import pytest

import tack

BASE_ENV = {"PATH": "/usr/bin:/bin"}


def _junk_env():
    env = dict(BASE_ENV)
    for i in range(300):
        env[f"JUNK_{i:03d}"] = "x" * (i % 37) + "\u00e9\u4e2d" + str(i)
    env.update({
        "LANG": "tr_TR.UTF-8", "LC_ALL": "tr_TR.UTF-8", "LANGUAGE": "tr", "LC_NUMERIC": "de_DE",
        "TZ": "America/St_Johns", "HOME": "/nonexistent", "TMPDIR": "/nonexistent",
        "POSIXLY_CORRECT": "1", "COLUMNS": "7", "LINES": "3", "NO_COLOR": "1",
        "CLICOLOR_FORCE": "1", "FORCE_COLOR": "3", "TACK_ROOT": "/", "TACK_FORMAT": "text",
        "PEEK_OPTIONS": "--lines 1:1", "MALLOC_PERTURB_": "165", "SOURCE_DATE_EPOCH": "1",
        "PWD": "/elsewhere",
    })
    return env


# name -> (env, cwd): cwd None means the test's tmp_path; "/" is a different working
# directory with the same absolute --root.
ENVIRONMENTS = {
    "base": (BASE_ENV, None),
    "lc-c": ({**BASE_ENV, "LC_ALL": "C", "LANG": "C"}, None),
    "lc-c-utf8": ({**BASE_ENV, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}, None),
    "tz-kolkata": ({**BASE_ENV, "TZ": "Asia/Kolkata"}, None),
    "term-dumb": ({**BASE_ENV, "TERM": "dumb"}, None),
    "term-xterm": ({**BASE_ENV, "TERM": "xterm-256color", "COLORTERM": "truecolor"}, None),
    "other-cwd": (BASE_ENV, "/"),
    "other-cwd-2": (BASE_ENV, "dir/sub"),
    "junk": (_junk_env(), None),
}

# (id, args, json mode?) — every one with the root given absolutely ("{root}").
INVOCATIONS = [
    ("default", ["{root}", "plain.txt"], True),
    ("witness-count", ["{root}", "--witness", "--count-lines", "plain.txt"], True),
    ("latin1-b64", ["{root}", "latin1.txt"], True),
    ("crlf-tail", ["{root}", "--lines", "-2:", "crlf.txt"], True),
    ("bytes-negative", ["{root}", "--bytes", "-10:", "nofinal.txt"], True),
    ("truncated", ["{root}", "--max-bytes", "12", "plain.txt"], True),
    ("nul-bom-mixed", ["{root}", "--lines", "1:", "mixed.txt"], True),
    ("too-long", ["{root}", "--max-line-bytes", "100", "long.txt"], True),
    ("not-found", ["{root}", "missing.txt"], True),
    ("dotdot-repair", ["{root}", "dir/../plain.txt"], True),
    ("outside-root", ["{root}", "/etc/passwd"], True),
    ("absolute-repair", ["{root}", "{root_path}/plain.txt"], True),
    ("symlink", ["{root}", "link_out_file"], True),
    ("unknown-flag", ["{root}", "--line", "3", "plain.txt"], True),
    ("text", ["{root}", "--format", "text", "--witness", "plain.txt"], False),
    ("text-error", ["{root}", "--format", "text", "missing.txt"], False),
    ("help", ["--help"], False),
    ("version", ["--version"], False),
    ("introspect", ["introspect"], True),
    ("skill", ["skill"], False),
]


def _argv(tree, args):
    out = [tack.bin_path("peek")]
    for a in args:
        if a == "{root}":
            out += ["--root", str(tree.root)]
        else:
            out.append(a.replace("{root_path}", str(tree.root)))
    return out


def test_pty_sink_is_a_terminal_and_pipe_is_not(tmp_path):
    """Positive control: the pty sink really gives the child a terminal."""
    assert tack.run_sink(["test", "-t", "1"], "pty", env=BASE_ENV)[0] == 0
    assert tack.run_sink(["test", "-t", "1"], "pipe", env=BASE_ENV)[0] == 1
    assert tack.run_sink(["test", "-t", "1"], "file", env=BASE_ENV)[0] == 1
    # and a raw pty changes no byte (no \n -> \r\n)
    code, out, _ = tack.run_sink(["printf", "a\\nb\\r\\n"], "pty", env=BASE_ENV)
    assert (code, out) == (0, b"a\nb\r\n")


def test_environment_really_reaches_the_child(tmp_path):
    """Positive control: the environments differ where the child can see them."""
    outs = {tack.run_sink(["sh", "-c", "echo $TZ $LC_ALL $TERM; pwd"], "pipe", env=env,
                          cwd=cwd if cwd != "dir/sub" else "/")[1]
            for env, cwd in ENVIRONMENTS.values()}
    assert len(outs) >= 6


@pytest.mark.parametrize("inv", INVOCATIONS, ids=[i[0] for i in INVOCATIONS])
def test_same_bytes_everywhere(tree, inv):
    name, args, json_mode = inv
    argv = _argv(tree, args)
    seen = {}
    for env_name, (env, cwd) in ENVIRONMENTS.items():
        where = str(tree.root.parent) if cwd is None else (
            str(tree.root / cwd) if not cwd.startswith("/") else cwd)
        for sink in tack.SINKS:
            code, out, err = tack.run_sink(argv, sink, env=env, cwd=where)
            assert code >= 0, f"{name}: killed by a signal under {env_name}/{sink}"
            if json_mode:
                assert err == b"", f"{name}: stderr under {env_name}/{sink}: {err!r}"
            seen[(env_name, sink)] = (code, out, err)
    baseline = seen[("base", "pipe")]
    assert baseline[1] or baseline[2], f"{name}: no output at all"
    # The baseline itself obeys the contract (schema, exits) — checked once via tack.
    if args not in (["--help"], ["--version"], ["skill"]):
        tack.check_output("peek", [tack.to_bytes(a) for a in argv[1:]], *baseline)
    diffs = [k for k, v in seen.items() if v != baseline]
    assert not diffs, f"{name}: output differs from base/pipe under {diffs}: " \
                      f"{seen[diffs[0]][1][:300]!r} vs {baseline[1][:300]!r}"


def test_relative_and_absolute_root_give_the_same_answer(tree):
    """The same tree through --root spelled relatively (from its parent) and absolutely."""
    a = tack.run("peek", "--root", "root", "--witness", "plain.txt", cwd=tree.root.parent)
    b = tack.run("peek", "--root", tree.root, "--witness", "plain.txt", cwd="/")
    assert a.out == b.out and a.exit == 0


def test_no_clock_no_host_in_output(tree):
    r = tack.run("peek", "--root", tree.root, "plain.txt")
    host = os.uname().nodename.encode()
    assert host not in r.out
    assert b"time" not in r.out and b"duration" not in r.out


# run, with programs whose output is deterministic: the answer is the same bytes everywhere
# (the program's environment is run's fixed one, never the caller's).
RUN_INVOCATIONS = [
    ("echo", ["--root", "{root}", "--", "echo", "hello", "w\u00f6rld"]),
    ("args-bytes", ["--", "args", "a b", "", "*"]),
    ("pwd", ["--root", "{root}", "--cwd", "dir/sub", "--", "pwd"]),
    ("binary", ["--", "binary"]),
    ("exit", ["--", "exit", "7"]),
    # (an output cap is not here: how much a killed program wrote before it died is timing)
    ("timeout", ["--timeout-ms", "50", "--", "hang"]),
    ("no-env-leak", ["--", "script", "$HOME"]),
    ("not-found", ["--", "missing"]),
    ("bad-name", ["--", "../x"]),
    ("list", ["--list"]),
    ("introspect", ["introspect"]),
]


@pytest.mark.parametrize("inv", RUN_INVOCATIONS, ids=[i[0] for i in RUN_INVOCATIONS])
def test_run_same_bytes_everywhere(tree, inv):
    name, args = inv
    argv = [tack.bin_path("run")] + [a.replace("{root}", str(tree.root)) for a in args]
    seen = {}
    for env_name, (env, cwd) in ENVIRONMENTS.items():
        where = str(tree.root.parent) if cwd is None else (
            str(tree.root / cwd) if not cwd.startswith("/") else cwd)
        for sink in tack.SINKS:
            seen[(env_name, sink)] = tack.run_sink(argv, sink, env=env, cwd=where)
    baseline = seen[("base", "pipe")]
    assert baseline[1] and baseline[2] == b""
    tack.check_output("run", [tack.to_bytes(a) for a in argv[1:]], *baseline)
    diffs = [k for k, v in seen.items() if v != baseline]
    assert not diffs, f"{name}: differs under {diffs}: {seen[diffs[0]][1][:300]!r} vs {baseline[1][:300]!r}"
    assert tack.run_survivors() == [], "a program run started is still running"
