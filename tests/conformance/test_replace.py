"""replace — exact text, the expected number of times (TOOLS.md). Hostile cases first: links,
line endings, BOM, bytes that are not UTF-8, overlapping needles, all-or-nothing batches, then
rules declared == rules reached."""

import fcntl
import json
import os
import stat

import pytest

import tack
from tack import run

T = "replace"


def rep(tree, *args, **kw):
    return run(T, "--root", tree.root, *args, **kw)


def read(tree, name):
    with open(tree.p(name), "rb") as f:
        return f.read()


def sha(b):
    import hashlib
    return hashlib.sha256(b).hexdigest()


# --- links and confinement -------------------------------------------------------------------

@pytest.mark.parametrize("name", ["link_out_file", "dangling", "link_out_dir/secret.txt"])
def test_links_refused_and_nothing_outside_changes(tree, name):
    tree.dangling()
    before = {p: open(p, "rb").read() for p in [tree.outside / "secret.txt", tree.outside / "dir" / "secret.txt"]}
    r = rep(tree, "--old", "OUTSIDE", "--new", "PWNED", name)
    assert r.rules[0] == "path.symlink" and r.exit == 4
    for p, content in before.items():
        assert open(p, "rb").read() == content
    assert os.readlink(tree.p("link_out_file")) == os.fsencode(tree.outside / "secret.txt")


def test_symlink_without_root_is_refused(tree):
    r = run(T, "--old", "OUTSIDE", "--new", "X", "link_out_file", cwd=tree.root)
    assert r.rules == ["path.symlink"]
    assert (tree.outside / "secret.txt").read_bytes() == tack.SECRET + b"\n"


# --- bytes kept -------------------------------------------------------------------------------

def test_crlf_round_trip_keeps_every_crlf(tree):
    r = rep(tree, "--old", "two\nthree", "--new", "2\n3\nmore", "crlf.txt")
    assert r.exit == 0 and r.data["changed"]
    assert read(tree, "crlf.txt") == b"one\r\n2\r\n3\r\nmore\r\n"


def test_crlf_old_given_with_crlf_matches_too(tree):
    r = rep(tree, "--old", "one\r\ntwo", "--new", "uno", "crlf.txt")
    assert r.exit == 0
    assert read(tree, "crlf.txt") == b"uno\r\nthree\r\n"


def test_mixed_file_is_raw(tree):
    r = rep(tree, "--old", "two\nthree\r\n", "--new", "X\n", "mixed.txt")
    assert r.exit == 0
    assert read(tree, "mixed.txt") == b"one\r\nX\nfour\n"


def test_bom_preserved(tree):
    r = rep(tree, "--old", "with", "--new", "WITH", "bom.txt")
    assert r.exit == 0
    assert read(tree, "bom.txt") == b"\xef\xbb\xbfWITH bom\nsecond\n"


def test_no_final_newline_preserved(tree):
    rep(tree, "--old", "last", "--new", "LAST", "nofinal.txt")
    assert read(tree, "nofinal.txt") == b"first\nsecond\nLAST-without-newline"


def test_latin1_bytes_untouched(tree):
    r = rep(tree, "--old", "plain", "--new", "PLAIN", "latin1.txt")
    assert r.exit == 0
    assert read(tree, "latin1.txt") == tack.LATIN1.replace(b"plain", b"PLAIN")
    assert any("b64" in l["text"] for h in r.data["diff"]["hunks"] for l in h["lines"]
               if isinstance(l["text"], dict))


def test_mode_preserved_and_no_litter(tree):
    os.chmod(tree.p("plain.txt"), 0o640)
    rep(tree, "--old", "alpha", "--new", "ALPHA", "plain.txt")
    assert stat.S_IMODE(os.stat(tree.p("plain.txt")).st_mode) == 0o640
    assert not [n for n in os.listdir(tree.root) if "tack-tmp" in n]


def test_answer_fields(tree):
    old = read(tree, "plain.txt")
    r = rep(tree, "--old", "beta", "--new", "BETA", "plain.txt")
    d = r.data
    assert d["before_sha256"] == sha(old) and d["after_sha256"] == sha(read(tree, "plain.txt"))
    assert d["replacements"] == 1 and d["already_applied"] is False
    assert d["diff"]["added"] == 1 and d["diff"]["removed"] == 1


# --- counting ---------------------------------------------------------------------------------

def test_empty_old_refused(tree):
    r = rep(tree, "--old", "", "--new", "x", "plain.txt")
    assert r.rules == ["args.bad-value"] and r.exit == 2


def test_old_equal_new_refused(tree):
    r = rep(tree, "--old", "a", "--new", "a", "plain.txt")
    assert r.rules == ["args.bad-value"]


def test_overlapping_needle_cannot_pass_for_unique(tree):
    tree.write("aaa.txt", b"xaaay\n")
    r = rep(tree, "--old", "aa", "--new", "b", "aaa.txt")
    assert r.rules == ["precondition.count-mismatch"] and r.exit == 5
    det = r.errors[0]["detail"]
    assert det["found"] == 2 and det["expected"] == 1 and det["overlapping"] is True
    assert det["lines"] == [1, 1]
    r = rep(tree, "--old", "aa", "--new", "b", "--expect", "2", "aaa.txt")
    assert r.rules == ["precondition.count-mismatch"]
    assert read(tree, "aaa.txt") == b"xaaay\n"


def test_count_mismatch_detail_lines(tree):
    tree.write("dup.txt", b"x = 1\ny = 2\nx = 3\n")
    r = rep(tree, "--old", "x =", "--new", "z =", "dup.txt")
    det = r.errors[0]["detail"]
    assert (det["expected"], det["found"], det["lines"]) == (1, 2, [1, 3])
    assert read(tree, "dup.txt") == b"x = 1\ny = 2\nx = 3\n"
    r = rep(tree, "--old", "x =", "--new", "z =", "--expect", "2", "dup.txt")
    assert r.exit == 0 and r.data["replacements"] == 2
    assert read(tree, "dup.txt") == b"z = 1\ny = 2\nz = 3\n"


def test_all(tree):
    tree.write("dup.txt", b"x x x\n")
    r = rep(tree, "--old", "x", "--new", "y", "--all", "dup.txt")
    assert r.data["replacements"] == 3 and read(tree, "dup.txt") == b"y y y\n"
    r = rep(tree, "--old", "q", "--new", "w", "--all", "dup.txt")
    assert r.rules == ["precondition.count-mismatch"]
    assert r.errors[0]["detail"]["all"] is True


def test_near_miss_whitespace(tree):
    tree.write("code.py", b"def f():\n    return  1\n")
    r = rep(tree, "--old", "return 1", "--new", "return 2", "code.py")
    det = r.errors[0]["detail"]
    assert det["found"] == 0
    assert det["near"] == [{"line": 2, "text": "    return  1", "why": "whitespace"}]


def test_near_miss_literal_backslash_n(tree):
    r = rep(tree, "--old", "alpha\\nbeta", "--new", "x", "plain.txt")
    near = r.errors[0]["detail"]["near"]
    assert {"line": 1, "text": "alpha\nbeta", "why": "escaped-newline"} in near


def test_no_near_misses_when_nothing_is_close(tree):
    r = rep(tree, "--old", "zzzz", "--new", "x", "plain.txt")
    assert r.errors[0]["detail"]["near"] == []


# --- idempotence, batches, preconditions --------------------------------------------------

def test_already_applied_twice(tree):
    r1 = rep(tree, "--old", "beta", "--new", "beta2", "plain.txt")
    after = read(tree, "plain.txt")
    r2 = rep(tree, "--old", "beta", "--new", "beta2", "plain.txt")
    assert r1.data["changed"] and not r1.data["already_applied"]
    assert r2.exit == 0 and r2.data["changed"] is False and r2.data["already_applied"] is True
    assert read(tree, "plain.txt") == after


def test_already_applied_with_stale_if_sha256(tree):
    h = sha(read(tree, "plain.txt"))
    rep(tree, "--old", "beta", "--new", "BETA", "--if-sha256", h, "plain.txt")
    r = rep(tree, "--old", "beta", "--new", "BETA", "--if-sha256", h, "plain.txt")
    assert r.exit == 0 and r.data["already_applied"] is True


def test_hash_mismatch(tree):
    r = rep(tree, "--old", "beta", "--new", "BETA", "--if-sha256", "0" * 64, "plain.txt")
    assert r.rules == ["precondition.hash-mismatch"]
    e = r.errors[0]
    assert e["repair"]["kind"] == "none"
    assert e["detail"]["actual_sha256"] == sha(tack.PLAIN)
    assert read(tree, "plain.txt") == tack.PLAIN
    ok = rep(tree, "--old", "beta", "--new", "BETA", "--if-sha256", e["detail"]["actual_sha256"],
             "plain.txt")
    assert ok.exit == 0


def test_bad_if_sha256(tree):
    assert rep(tree, "--old", "a", "--new", "b", "--if-sha256", "xyz", "plain.txt").rules == ["args.bad-value"]


def test_edits_file_applies_in_order(tree):
    tree.write("e.json", json.dumps([{"old": "alpha", "new": "ALPHA"},
                                     {"old": "ALPHA\nbeta", "new": "AB"},
                                     {"old": "a", "new": "4", "all": True}]).encode())
    r = rep(tree, "--edits-file", "e.json", "plain.txt")
    assert r.exit == 0, r
    assert read(tree, "plain.txt").startswith(b"AB\ng4mm4 ")
    again = rep(tree, "--edits-file", "e.json", "plain.txt")
    assert again.rules == ["precondition.count-mismatch"] or again.data["changed"] is False


def test_edits_file_all_or_nothing(tree):
    tree.write("e.json", json.dumps([{"old": "alpha", "new": "ALPHA"},
                                     {"old": "nowhere", "new": "x"}]).encode())
    r = rep(tree, "--edits-file", "e.json", "plain.txt")
    assert r.rules == ["precondition.count-mismatch"]
    assert r.errors[0]["detail"]["index"] == 1
    assert read(tree, "plain.txt") == tack.PLAIN


def test_edits_file_idempotent(tree):
    tree.write("e.json", json.dumps([{"old": "alpha", "new": "alpha-1"},
                                     {"old": "iota", "new": "IOTA", "expect": 1}]).encode())
    assert rep(tree, "--edits-file", "e.json", "plain.txt").data["changed"] is True
    r = rep(tree, "--edits-file", "e.json", "plain.txt")
    assert r.data["changed"] is False and r.data["already_applied"] is True


def test_edits_file_b64_for_latin1(tree):
    import base64
    old = base64.b64encode("caf\u00e9".encode("latin-1")).decode()
    tree.write("e.json", json.dumps([{"old": {"b64": old}, "new": "cafe"}]).encode())
    assert rep(tree, "--edits-file", "e.json", "latin1.txt").exit == 0
    assert read(tree, "latin1.txt").startswith(b"cafe\n")


@pytest.mark.parametrize("body,rule", [
    (b"[{\"old\": \"a\", ", "parse.json"),
    (b"{\"old\": \"a\"}", "args.bad-value"),
    (b"[{\"old\": \"\", \"new\": \"x\"}]", "args.bad-value"),
    (b"[{\"old\": \"a\", \"new\": \"b\", \"expct\": 2}]", "args.bad-value"),
    (b"[{\"old\": \"a\", \"new\": \"b\", \"expect\": 0}]", "args.bad-value"),
])
def test_edits_file_bad(tree, body, rule):
    tree.write("e.json", body)
    r = rep(tree, "--edits-file", "e.json", "plain.txt")
    assert r.rules == [rule]
    assert read(tree, "plain.txt") == tack.PLAIN


def test_dry_run(tree):
    r = rep(tree, "--old", "beta", "--new", "BETA", "--dry-run", "plain.txt")
    assert r.exit == 9 and r.doc["dry_run"] is True
    assert r.doc["planned_actions"][0]["op"] == "replace"
    assert r.data["diff"]["added"] == 1
    assert read(tree, "plain.txt") == tack.PLAIN


def test_text_format(tree):
    r = rep(tree, "--old", "beta", "--new", "BETA", "--format", "text", "plain.txt")
    assert r.exit == 0 and b"1 replacement" in r.out and b"+BETA" in r.out


def test_locked_directory(tree):
    fd = os.open(tree.root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        r = rep(tree, "--old", "beta", "--new", "BETA", "plain.txt")
    finally:
        os.close(fd)
    assert r.rules == ["conflict.locked"]
    assert read(tree, "plain.txt") == tack.PLAIN


# --- every rule -----------------------------------------------------------------------------

R = "{root}"
XFSZ = ["sh", "-c", 'trap "" XFSZ; ulimit -f 0; exec "$0" "$@"']
FIXTURES = [
    ("args.unknown-flag", ["--root", R, "--od", "a", "--new", "b", "plain.txt"], {}),
    ("args.missing-value", ["--root", R, "--new", "b", "plain.txt", "--old"], {}),
    ("args.bad-value", ["--root", R, "--old", "a", "--new", "b", "--expect", "x", "plain.txt"], {}),
    ("args.unexpected-value", ["--root", R, "--old", "a", "--new", "b", "--all=yes", "plain.txt"], {}),
    ("args.duplicate-flag", ["--root", R, "--old", "a", "--old", "b", "--new", "c", "plain.txt"], {}),
    ("args.conflict", ["--root", R, "--old", "a", "--new", "b", "--all", "--expect", "2", "plain.txt"], {}),
    ("args.missing-operand", ["--root", R, "--old", "a", "--new", "b"], {}),
    ("args.required-flag", ["--root", R, "--old", "a", "plain.txt"], {}),
    ("args.too-many-operands", ["--root", R, "--old", "a", "--new", "b", "plain.txt", "x"], {}),
    ("path.empty", ["--root", R, "--old", "a", "--new", "b", ""], {}),
    ("path.dotdot", ["--root", R, "--old", "zzz", "--new", "QQQ", "dir/../plain.txt"], {}),
    ("path.absolute", ["--root", R, "--old", "zzz", "--new", "QQQ", R + "/plain.txt"], {}),
    ("path.outside-root", ["--root", R, "--old", "a", "--new", "b", "/etc/passwd"], {}),
    ("path.too-long", ["--root", R, "--old", "a", "--new", "b", "a" * 4097], {}),
    ("path.symlink", ["--root", R, "--old", "a", "--new", "b", "link_out_file"], {}),
    ("io.not-found", ["--root", R, "--old", "a", "--new", "b", "missing.txt"], {}),
    ("io.not-a-directory", ["--root", R, "--old", "a", "--new", "b", "plain.txt/x"], {}),
    ("io.is-a-directory", ["--root", R, "--old", "a", "--new", "b", "dir"], {}),
    ("io.special-file", ["--root", R, "--old", "a", "--new", "b", "fifo"], {}),
    ("io.permission-denied", ["--root", R, "--old", "a", "--new", "b", "noaccess.txt"],
     {"wrap": tack.NO_DAC}),
    ("io.read-failed", ["--root", R, "--edits-file", "mem", "plain.txt"], {"mem": True}),
    ("io.write-failed", ["--root", R, "--old", "alpha", "--new", "b", "plain.txt"], {"wrap": XFSZ}),
    ("limit.input-too-large", ["--root", R, "--old", "zzz", "--new", "QQQ", "--max-bytes", "10",
                               "plain.txt"], {}),
    ("parse.json", ["--root", R, "--edits-file", "bad.json", "plain.txt"], {}),
    ("precondition.hash-mismatch", ["--root", R, "--old", "alpha", "--new", "b", "--if-sha256",
                                    "a" * 64, "plain.txt"], {}),
    ("precondition.count-mismatch", ["--root", R, "--old", "a", "--new", "b", "plain.txt"], {}),
]


def prepare(tree):
    tree.fifo("fifo")
    tree.no_access("noaccess.txt")
    tree.write("bad.json", b"[")


def run_fixture(tree, fx):
    rule, args, opts = fx
    if opts.get("mem"):
        # /proc/self/mem opens but every read of it fails (EIO): the edits file's read error.
        return run(T, "--edits-file", "/proc/self/mem", "plain.txt", cwd=tree.root)
    a = [x.replace(R, str(tree.root)) for x in args]
    return run(T, *a, cwd=tree.root.parent, wrap=opts.get("wrap"), timeout=20)


@pytest.mark.parametrize("fx", FIXTURES, ids=[f[0] for f in FIXTURES])
def test_fixture_reaches_its_rule(tree, fx):
    prepare(tree)
    r = run_fixture(tree, fx)
    assert r.rules and r.rules[0] == fx[0], r
    for again in r.retried:  # the retry ran as it stands and met the next question
        assert again.rules == ["precondition.count-mismatch"]
    assert read(tree, "plain.txt") == tack.PLAIN
    assert not [n for n in os.listdir(tree.root) if b"tack-tmp" in os.fsencode(n)]


def test_rules_declared_equal_reached(tree):
    prepare(tree)
    reached = set()
    for fx in FIXTURES:
        reached.update(run_fixture(tree, fx).rules)
    fd = os.open(tree.root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        reached.update(rep(tree, "--old", "beta", "--new", "BETA", "plain.txt").rules)
    finally:
        os.close(fd)
    assert set(tack.declared_rules(T)) == reached
