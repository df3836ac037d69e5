"""M3 — rule coverage and repair soundness for peek.

Every rule peek declares is reached by a fixture invocation here, and the set of rules reached
equals the set declared. Every `retry` repair seen (here and in every module: tack.run does it)
is executed as it stands and must clear its rule. Exit codes follow the first error's
catalogue row, in JSON and in text mode. Argument errors read nothing.
"""

import subprocess
import time

import pytest

import tack
from tack import run

R = "{root}"  # replaced by the fixture tree's root

# (id, expected first rule, args, options). Options: wrap (a command prefix), cwd ("root").
FIXTURES = [
    ("unknown-flag-near", "args.unknown-flag", ["--root", R, "--line", "3", "plain.txt"], {}),
    ("unknown-flag-far", "args.unknown-flag", ["--root", R, "--zzzzzzzz", "plain.txt"], {}),
    ("unknown-short", "args.unknown-flag", ["--root", R, "-q", "plain.txt"], {}),
    ("missing-value", "args.missing-value", ["--root", R, "plain.txt", "--max-bytes"], {}),
    ("bad-value-nat", "args.bad-value", ["--root", R, "--max-bytes", "abc", "plain.txt"], {}),
    ("bad-value-ceiling", "args.bad-value", ["--root", R, "--max-bytes", "16777217", "plain.txt"], {}),
    ("bad-value-zero", "args.bad-value", ["--root", R, "--max-bytes", "0", "plain.txt"], {}),
    ("bad-value-line-0", "args.bad-value", ["--root", R, "--lines", "0:3", "plain.txt"], {}),
    ("bad-value-backwards", "args.bad-value", ["--root", R, "--lines", "5:2", "plain.txt"], {}),
    ("bad-value-range", "args.bad-value", ["--root", R, "--lines", "a:b", "plain.txt"], {}),
    ("bad-value-format", "args.bad-value", ["--root", R, "--format", "xml", "plain.txt"], {}),
    ("unexpected-value", "args.unexpected-value", ["--root", R, "--count-lines=yes", "plain.txt"], {}),
    ("duplicate-flag", "args.duplicate-flag", ["--root", R, "--lines", "1", "-n", "2", "plain.txt"], {}),
    ("conflict", "args.conflict", ["--root", R, "--lines", "1", "--bytes", "0:1", "plain.txt"], {}),
    ("conflict-witness", "args.conflict", ["--root", R, "--witness", "--bytes", "0:1", "plain.txt"], {}),
    ("missing-operand", "args.missing-operand", [], {}),
    ("missing-operand-root", "args.missing-operand", ["--root", R], {}),
    # peek takes up to 64 paths
    ("too-many-operands", "args.too-many-operands", ["--root", R] + ["plain.txt"] * 65, {}),
    ("path-empty", "path.empty", ["--root", R, ""], {}),
    ("path-empty-noroot", "path.empty", [""], {}),
    ("root-empty", "path.empty", ["--root", "", "plain.txt"], {}),
    ("dotdot-inside", "path.dotdot", ["--root", R, "dir/../plain.txt"], {}),
    ("dotdot-escapes", "path.dotdot", ["--root", R, "../outside/secret.txt"], {}),
    ("absolute-inside", "path.absolute", ["--root", R, R + "/dir/sub/deep.txt"], {}),
    ("outside-root", "path.outside-root", ["--root", R, "/etc/passwd"], {}),
    ("too-long", "path.too-long", ["--root", R, "a" * 4097], {}),
    ("too-long-noroot", "path.too-long", ["a/" * 2049], {}),
    ("symlink", "path.symlink", ["--root", R, "link_out_file"], {}),
    ("not-found", "io.not-found", ["--root", R, "missing.txt"], {}),
    ("not-found-noroot", "io.not-found", ["missing.txt"], {"cwd": "root"}),
    ("root-not-found", "io.not-found", ["--root", R + "/nope", "plain.txt"], {}),
    ("not-a-directory", "io.not-a-directory", ["--root", R, "plain.txt/x"], {}),
    ("root-not-a-directory", "io.not-a-directory", ["--root", R + "/plain.txt", "x"], {}),
    ("is-a-directory", "io.is-a-directory", ["--root", R, "dir"], {}),
    ("is-a-directory-root", "io.is-a-directory", ["--root", R, "."], {}),
    ("special-fifo", "io.special-file", ["--root", R, "fifo"], {}),
    ("special-socket", "io.special-file", ["--root", R, "sock"], {}),
    ("special-dev-zero", "io.special-file", ["/dev/zero"], {}),
    ("special-dev-null", "io.special-file", ["/dev/null"], {}),
    ("permission-denied", "io.permission-denied", ["--root", R, "noaccess.txt"],
     {"wrap": tack.NO_DAC}),
    ("read-failed", "io.read-failed", ["/proc/self/mem"], {}),
    ("line-too-long", "limit.line-too-long", ["--root", R, "--max-line-bytes", "100", "long.txt"], {}),
]


def _prepare(tree):
    tree.fifo("fifo")
    tree.socket("sock")
    tree.no_access("noaccess.txt")


def _run_fixture(tree, args, opts, extra=()):
    a = [x.replace(R, str(tree.root)) if isinstance(x, str) else x for x in args]
    cwd = tree.root if opts.get("cwd") == "root" else tree.root.parent
    return run("peek", *extra, *a, cwd=cwd, wrap=opts.get("wrap"), timeout=10)


@pytest.mark.parametrize("fx", FIXTURES, ids=[f[0] for f in FIXTURES])
def test_fixture_reaches_its_rule(tree, fx):
    name, rule, args, opts = fx
    _prepare(tree)
    r = _run_fixture(tree, args, opts)
    assert r.rules, f"{name}: no error at all: {r.out[:300]!r}"
    assert r.rules[0] == rule, f"{name}: reached {r.rules}, wanted {rule}"
    assert r.exit == tack.CATALOGUE[rule]
    assert r.doc["ok"] is False and r.doc["error"] == r.doc["errors"][0]


TEXT_FIXTURES = [f for f in FIXTURES if "--format" not in f[2]]


@pytest.mark.parametrize("fx", TEXT_FIXTURES, ids=[f[0] for f in TEXT_FIXTURES])
def test_fixture_in_text_mode(tree, fx):
    """The same invocation with --format text: same exit, `peek: RULE: message` on stderr."""
    name, rule, args, opts = fx
    _prepare(tree)
    r = _run_fixture(tree, args, opts, extra=("--format", "text"))
    assert r.exit == tack.CATALOGUE[rule]
    assert r.err.startswith(f"peek: {rule}: ".encode()), r.err
    if rule.startswith(("args.", "path.")) or rule in ("io.not-found", "io.special-file"):
        assert r.out == b"", "nothing on stdout when nothing was read"


def test_reached_rules_equal_declared_rules(tree):
    _prepare(tree)
    reached = set()
    for name, rule, args, opts in FIXTURES:
        reached.update(_run_fixture(tree, args, opts).rules)
    declared = set(tack.declared_rules("peek"))
    assert reached - declared == set(), "errors with rules peek does not declare"
    assert declared - reached == set(), "declared rules no fixture reaches (holes)"


def test_every_declared_rule_has_a_fixture():
    declared = set(tack.declared_rules("peek"))
    assert declared <= {f[1] for f in FIXTURES}


def test_declared_rules_match_the_spec():
    """TOOLS.md/reference page: peek's rules (the page's 20 plus io.special-file, §5)."""
    assert set(tack.declared_rules("peek")) == {
        "args.unknown-flag", "args.missing-value", "args.bad-value", "args.unexpected-value",
        "args.duplicate-flag", "args.conflict", "args.missing-operand",
        "args.too-many-operands", "path.empty", "path.dotdot", "path.absolute",
        "path.outside-root", "path.too-long", "path.symlink", "io.not-found",
        "io.not-a-directory", "io.is-a-directory", "io.special-file", "io.permission-denied",
        "io.read-failed", "limit.line-too-long"}


def test_permission_denied_is_really_the_os_refusing(tree):
    """Control: the same file is readable with the capabilities back (so EACCES came from the
    mode), and the wrapper alone does not make readable files fail."""
    name = tree.no_access()
    assert run("peek", "--root", tree.root, name).exit == 0  # root with CAP_DAC_OVERRIDE
    r = run("peek", "--root", tree.root, name, wrap=tack.NO_DAC)
    assert r.rules == ["io.permission-denied"] and r.doc["error"]["detail"]["errno"] == "EACCES"
    assert run("peek", "--root", tree.root, "plain.txt", wrap=tack.NO_DAC).exit == 0


def test_read_failed_is_a_failed_read():
    r = run("peek", "/proc/self/mem")
    assert r.rules == ["io.read-failed"]
    assert r.doc["error"]["detail"]["errno"] == "EIO"


# --- repairs ------------------------------------------------------------------------------

def _retry(r):
    rep = r.doc["error"]["repair"]
    assert rep is not None and rep["kind"] == "retry", rep
    return [tack.tob(a) for a in rep["argv"]]


def test_unknown_flag_retry_is_the_nearest_flag(tree):
    before = len(tack.RETRIES)
    r = run("peek", "--root", tree.root, "--line", "3", "plain.txt")
    assert _retry(r) == [tack.bin_path("peek").encode(), b"--root", bytes(tree.root),
                         b"--lines", b"3", b"plain.txt"]
    assert r.doc["error"]["detail"]["nearest"] == "--lines"
    assert len(tack.RETRIES) == before + 1
    assert r.retried[0].exit == 0 and r.retried[0].texts() == [b"gamma \xce\xb4elta"]


def test_unknown_flag_retry_keeps_an_inline_value(tree):
    r = run("peek", "--root", tree.root, "--max-byte=5", "plain.txt")
    assert b"--max-bytes=5" in _retry(r)
    assert r.retried[0].exit == 0


def test_unknown_flag_far_from_everything_has_no_retry(tree):
    r = run("peek", "--root", tree.root, "--zzzzzzzz", "plain.txt")
    assert r.doc["error"]["repair"] is None or r.doc["error"]["repair"]["kind"] != "retry"


def test_dotdot_retry_is_the_normal_form(tree):
    r = run("peek", "--root", tree.root, "dir/./sub/../../plain.txt")
    assert _retry(r)[-1] == b"plain.txt"
    assert r.doc["error"]["detail"]["suggested"] == "plain.txt"
    assert r.retried[0].exit == 0


@pytest.mark.parametrize("path", ["../outside/secret.txt", "dir/../../outside/secret.txt", ".."])
def test_dotdot_escaping_has_no_retry(tree, path):
    r = run("peek", "--root", tree.root, path)
    assert r.rules == ["path.dotdot"]
    rep = r.doc["error"]["repair"]
    assert rep is None or rep["kind"] == "none"


def test_absolute_retry_is_the_relative_spelling(tree):
    r = run("peek", "--root", tree.root, f"{tree.root}//dir/./sub/deep.txt")
    assert _retry(r)[-1] == b"dir/sub/deep.txt"
    assert r.retried[0].exit == 0 and r.retried[0].texts() == [b"deep inside"]


def test_line_too_long_retry_raises_the_cap_to_exactly_the_line(tree):
    r = run("peek", "--root", tree.root, "--max-line-bytes", "100", "long.txt")
    argv = _retry(r)
    assert b"--max-line-bytes=5006" in argv or argv[argv.index(b"--max-line-bytes") + 1] == b"5006"
    assert b"100" not in argv and argv.count(b"long.txt") == 1
    d = r.doc["error"]["detail"]
    assert d["longest"] == 5006 and d["lines"] == [3]
    again = r.retried[0]
    assert again.exit == 0 and again.texts()[2] == tack.LONG_LINE


def test_line_too_long_past_the_ceiling_has_no_retry(tmp_path):
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.write(b"x" * (16 * 1024 * 1024 + 1) + b"\nafter\n")
    r = run("peek", "--root", tmp_path, "big.txt")
    assert r.rules == ["limit.line-too-long"]
    rep = r.doc["error"]["repair"]
    assert rep is not None and rep["kind"] == "none", "a repair never raises a cap past its ceiling"
    assert r.lines[0] == {"n": 1, "offset": 0, "text": None, "length": 16 * 1024 * 1024 + 1}
    assert r.lines[1]["text"] == "after"


def test_every_retry_seen_so_far_was_executed():
    """tack.run executes every retry; in this module at least these rules had one."""
    rules = {x["rule"] for x in tack.RETRIES if x["tool"] == "peek"}
    assert {"args.unknown-flag", "path.dotdot", "path.absolute", "limit.line-too-long"} <= rules


# --- argument errors read nothing ---------------------------------------------------------

def test_bad_flag_with_fifo_returns_at_once(tree):
    tree.fifo("fifo")
    t = time.monotonic()
    r = run("peek", "--root", tree.root, "--bogus", "fifo", timeout=5)
    assert time.monotonic() - t < 5
    assert r.rules == ["args.unknown-flag"]


def test_bad_flag_with_missing_file_reports_only_the_argument(tree):
    r = run("peek", "--root", tree.root, "--max-bytes", "x", "missing.txt")
    assert r.rules == ["args.bad-value"]


def test_argument_errors_open_nothing(tree, tmp_path):
    """strace: with an argument error no path is opened; positive control without it."""
    def opened(*args):
        log = tmp_path / "trace"
        subprocess.run(["strace", "-qq", "-e", "trace=open,openat,openat2,read,pread64",
                        "-o", str(log), tack.bin_path("peek"), *args],
                       capture_output=True, timeout=30)
        # every open and read the tool made (none are traced before main's own)
        return [l for l in log.read_text().splitlines() if not l.startswith("+++")]
    good = opened("--root", str(tree.root), "plain.txt")
    # (a reader resolves a root's path by the O_NOFOLLOW walk: its filter refuses openat2)
    assert any(l.startswith(("openat(", "openat2(")) and "plain.txt" in l for l in good), good
    assert any(l.startswith(("read(", "pread64(")) for l in good), good
    for bad in (["--root", str(tree.root), "--bogus", "plain.txt"],
                ["--root", str(tree.root), "--lines", "0", "plain.txt"],
                ["--root", str(tree.root), "--lines", "1", "--bytes", "0:1", "plain.txt"],
                ["--root", str(tree.root), "dir/../plain.txt"],
                ["--root", str(tree.root)] + ["plain.txt"] * 65):
        assert opened(*bad) == [], bad


def test_all_argument_errors_are_collected(tree):
    """CONTRACT §3: all independent argument errors are reported before anything is read."""
    r = run("peek", "--root", tree.root, "--max-bytes", "x", *["plain.txt"] * 65)
    assert sorted(r.rules) == ["args.bad-value", "args.too-many-operands"]


def test_argument_and_lexical_path_errors_are_collected_together(tree):
    r = run("peek", "--root", tree.root, "--max-bytes", "x", "dir/../plain.txt")
    assert sorted(r.rules) == ["args.bad-value", "path.dotdot"]


def test_first_error_decides_the_exit(tree):
    # path.outside-root (4) before an args error (2) in argument order? Argument errors are
    # found first by the parser; whatever comes first in `errors` decides the exit.
    r = run("peek", "--root", tree.root, "--lines", "0", "/etc/passwd")
    assert r.exit == tack.CATALOGUE[r.rules[0]]
    assert len(r.rules) == 2


def test_unknown_flag_repair_never_adds_root(tree):
    """CONTRACT §3: a repair never adds or changes --root. `--rot DIR` is close to `--root`,
    but the repair must not turn an unconfined call into one with a root it chose."""
    p = tack.subprocess.run([tack.bin_path("peek"), "--rot", str(tree.root), "plain.txt"],
                            capture_output=True, cwd=tree.root)
    doc = tack.loads(p.stdout)
    assert doc["error"]["rule"] == "args.unknown-flag"
    rep = doc["error"]["repair"]
    if rep and rep["kind"] == "retry":
        assert b"--root" not in [tack.tob(a) for a in rep["argv"]], rep
    # with a root already given, the same typo has no retry that changes it
    r = run("peek", "--root", tree.root, "--rot", "/etc", "plain.txt")
    rep = r.doc["error"]["repair"]
    assert rep is None or rep["kind"] != "retry" or tack._root_of(
        [tack.tob(a) for a in rep["argv"]]) == [bytes(tree.root)]


# Rules every tool can reach through the flags and operands the contract gives it (--help and
# --version take no value, --format takes one, --root is a path...): each must be declared,
# or the schema refuses the tool's own answer.
@pytest.mark.parametrize("tool", tack.expected_tools())
def test_contract_reachable_rules_are_declared(tool):
    d = tack.introspect(tool)
    declared = {r["rule"] for r in d["rules"]}
    need = {"args.unknown-flag", "args.missing-value", "args.bad-value",
            "args.unexpected-value", "args.duplicate-flag"}
    if any(f["name"] == "root" for f in d["flags"]):
        need |= {"path.empty", "path.dotdot", "path.absolute", "path.outside-root"}
    if any(o["min"] > 0 for o in d["operands"]):
        need.add("args.missing-operand")
    if not d["operands"] or all(o["max"] is not None for o in d["operands"]):
        need.add("args.too-many-operands")
    assert need <= declared, f"{tool} can reach but does not declare {sorted(need - declared)}"
