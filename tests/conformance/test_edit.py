"""edit — lines named by witnesses (TOOLS.md). Hostile first: links, line endings, BOM, bytes
that are not UTF-8, stale and duplicate witnesses, all-or-nothing, then rules declared ==
rules reached. Witnesses come from `peek --witness`, the way an agent gets them."""

import fcntl
import json
import os
import stat

import pytest

import tack
from tack import run

T = "edit"


def witnesses(tree, name):
    r = run("peek", "--root", tree.root, "--witness", "--lines", "1:", name)
    return [l["witness"] for l in r.lines]


def ed(tree, name, edits, *extra, **kw):
    body = edits if isinstance(edits, bytes) else json.dumps(edits).encode()
    return run(T, "--root", tree.root, "--stdin", *extra, name, stdin=body, **kw)


def read(tree, name):
    with open(tree.p(name), "rb") as f:
        return f.read()


def test_peek_witness_resolves_replace_delete_insert(tree):
    w = witnesses(tree, "plain.txt")
    r = ed(tree, "plain.txt", [{"witness": w[0], "lines": ["ALPHA"]},
                               {"witness": w[1], "lines": []},
                               {"witness": w[9], "lines": ["k1", "k2"]}])
    assert r.exit == 0, r
    assert r.data["changed"] is True and r.data["edits"] == 3
    assert read(tree, "plain.txt") == tack.PLAIN.replace(b"alpha\nbeta\n", b"ALPHA\n").replace(
        b"kappa\n", b"k1\nk2\n")


def test_links_refused(tree):
    tree.dangling()
    for name in ["link_out_file", "dangling", "link_out_dir/secret.txt"]:
        r = ed(tree, name, [{"witness": "h000000", "lines": []}])
        assert r.rules == ["path.symlink"]
    assert (tree.outside / "secret.txt").read_bytes() == tack.SECRET + b"\n"
    assert (tree.outside / "dir" / "secret.txt").read_bytes() == tack.SECRET + b" in dir\n"


def test_crlf_round_trip(tree):
    w = witnesses(tree, "crlf.txt")
    r = ed(tree, "crlf.txt", [{"witness": w[1], "lines": ["2", "2b"]}])
    assert r.exit == 0
    assert read(tree, "crlf.txt") == b"one\r\n2\r\n2b\r\nthree\r\n"


def test_bom_preserved_and_not_part_of_line_1(tree):
    w = witnesses(tree, "bom.txt")
    ed(tree, "bom.txt", [{"witness": w[0], "lines": ["first"]}])
    assert read(tree, "bom.txt") == b"\xef\xbb\xbffirst\nsecond\n"


def test_no_final_newline_preserved(tree):
    w = witnesses(tree, "nofinal.txt")
    ed(tree, "nofinal.txt", [{"witness": w[2], "lines": ["a", "b"]}])
    assert read(tree, "nofinal.txt") == b"first\nsecond\na\nb"


def test_latin1_untouched_and_b64_lines(tree):
    import base64
    w = witnesses(tree, "latin1.txt")
    line = base64.b64encode("na\u00eff".encode("latin-1")).decode()
    r = ed(tree, "latin1.txt", [{"witness": w[1], "lines": [{"b64": line}]}])
    assert r.exit == 0
    assert read(tree, "latin1.txt") == "caf\u00e9\nna\u00eff\nplain\n".encode("latin-1")


def test_mode_preserved(tree):
    os.chmod(tree.p("plain.txt"), 0o600)
    w = witnesses(tree, "plain.txt")
    ed(tree, "plain.txt", [{"witness": w[0], "lines": ["x"]}])
    assert stat.S_IMODE(os.stat(tree.p("plain.txt")).st_mode) == 0o600
    assert not [n for n in os.listdir(tree.root) if "tack-tmp" in n]


def test_stale_witness_after_nearby_change(tree):
    w = witnesses(tree, "plain.txt")
    ed(tree, "plain.txt", [{"witness": w[3], "lines": ["changed"]}])
    after = read(tree, "plain.txt")
    r = ed(tree, "plain.txt", [{"witness": w[9], "lines": ["far"]},
                               {"witness": w[4], "lines": ["x"]}])
    assert r.rules == ["precondition.stale-witness"] and r.exit == 5
    det = r.errors[0]["detail"]
    assert det["index"] == 1 and det["reason"] == "no-match" and det["matches"] == []
    fresh = witnesses(tree, "plain.txt")
    assert det["around"] and all(a["witness"] == fresh[a["n"] - 1] for a in det["around"])
    assert read(tree, "plain.txt") == after  # the resolvable edit 0 was not applied either


def test_duplicate_witness_in_a_batch(tree):
    w = witnesses(tree, "plain.txt")
    r = ed(tree, "plain.txt", [{"witness": w[2], "lines": ["a"]}, {"witness": w[2], "lines": ["b"]}])
    assert r.rules == ["precondition.stale-witness"]
    det = r.errors[0]["detail"]
    assert det["reason"] == "named-twice" and det["index"] == 1 and det["matches"] == [3]
    assert {a["n"] for a in det["around"]} == set(range(1, 9))
    assert read(tree, "plain.txt") == tack.PLAIN


def test_every_failure_reported(tree):
    r = ed(tree, "plain.txt", [{"witness": "h000000", "lines": []}, {"witness": "h000001", "lines": []}])
    assert r.rules == ["precondition.stale-witness"] * 2


def test_newline_inside_a_line_refused(tree):
    w = witnesses(tree, "plain.txt")
    r = ed(tree, "plain.txt", [{"witness": w[0], "lines": ["a\nb"]}])
    assert r.rules == ["args.bad-value"]
    assert read(tree, "plain.txt") == tack.PLAIN


def test_if_sha256(tree):
    import hashlib
    w = witnesses(tree, "plain.txt")
    r = ed(tree, "plain.txt", [{"witness": w[0], "lines": ["x"]}], "--if-sha256", "1" * 64)
    assert r.rules == ["precondition.hash-mismatch"]
    assert r.errors[0]["repair"]["kind"] == "none"
    assert r.errors[0]["detail"]["actual_sha256"] == hashlib.sha256(tack.PLAIN).hexdigest()
    r = ed(tree, "plain.txt", [{"witness": w[0], "lines": ["x"]}], "--if-sha256",
           hashlib.sha256(tack.PLAIN).hexdigest())
    assert r.exit == 0


def test_same_content_is_unchanged(tree):
    w = witnesses(tree, "plain.txt")
    r = ed(tree, "plain.txt", [{"witness": w[0], "lines": ["alpha"]}])
    assert r.exit == 0 and r.data["changed"] is False
    r = ed(tree, "plain.txt", [{"witness": w[0], "lines": ["alpha"]}])
    assert r.exit == 0 and r.data["changed"] is False


def test_dry_run(tree):
    w = witnesses(tree, "plain.txt")
    r = ed(tree, "plain.txt", [{"witness": w[0], "lines": ["x"]}], "--dry-run")
    assert r.exit == 9 and r.doc["planned_actions"][0]["op"] == "replace"
    assert r.data["diff"]["added"] == 1
    assert read(tree, "plain.txt") == tack.PLAIN


def test_edits_cap_retry_clears_both_caps(tree):
    tree.write("big.json", b" " * 200 + b'[{"witness":"h000000","lines":[]}]')
    tree.write("big.txt", b"x\n" * 500)
    r = run(T, "--root", tree.root, "--edits-file", "big.json", "--max-bytes", "100", "big.txt")
    assert r.rules == ["limit.input-too-large"]
    assert r.errors[0]["repair"]["argv"][1] == "--max-bytes=1000"
    assert r.retried[0].rules == ["precondition.stale-witness"]


def test_edits_file_and_text_format(tree):
    w = witnesses(tree, "plain.txt")
    tree.write("e.json", json.dumps([{"witness": w[0], "lines": ["x"]}]).encode())
    r = run(T, "--root", tree.root, "--edits-file", "e.json", "--format", "text", "plain.txt")
    assert r.exit == 0 and b"+x" in r.out
    assert read(tree, "plain.txt").startswith(b"x\nbeta\n")


# --- every rule -----------------------------------------------------------------------------

R = "{root}"
XFSZ = ["sh", "-c", 'trap "" XFSZ; ulimit -f 0; exec "$0" "$@"']
GOOD = "{good}"  # the edits file holding one valid edit of plain.txt
FIXTURES = [
    ("args.unknown-flag", ["--root", R, "--stdn", "plain.txt"], {}),
    ("args.missing-value", ["--root", R, "plain.txt", "--edits-file"], {}),
    ("args.bad-value", ["--root", R, "--edits-file", "e.json", "--if-sha256", "zz", "plain.txt"], {}),
    ("args.unexpected-value", ["--root", R, "--stdin=1", "plain.txt"], {}),
    ("args.duplicate-flag", ["--root", R, "--stdin", "--stdin", "plain.txt"], {}),
    ("args.conflict", ["--root", R, "--stdin", "--edits-file", "e.json", "plain.txt"], {}),
    ("args.missing-operand", ["--root", R, "--stdin"], {}),
    ("args.required-flag", ["--root", R, "plain.txt"], {}),
    ("args.too-many-operands", ["--root", R, "--stdin", "plain.txt", "x"], {}),
    ("path.empty", ["--root", R, "--stdin", ""], {}),
    ("path.dotdot", ["--root", R, "--edits-file", "stale.json", "dir/../plain.txt"], {}),
    ("path.absolute", ["--root", R, "--edits-file", "stale.json", R + "/plain.txt"], {}),
    ("path.outside-root", ["--root", R, "--stdin", "/etc/passwd"], {}),
    ("path.too-long", ["--root", R, "--stdin", "a" * 4097], {}),
    ("path.symlink", ["--root", R, "--edits-file", "e.json", "link_out_file"], {}),
    ("io.not-found", ["--root", R, "--edits-file", "e.json", "missing.txt"], {}),
    ("io.not-a-directory", ["--root", R, "--edits-file", "e.json", "plain.txt/x"], {}),
    ("io.is-a-directory", ["--root", R, "--edits-file", "e.json", "dir"], {}),
    ("io.special-file", ["--root", R, "--edits-file", "e.json", "fifo"], {}),
    ("io.permission-denied", ["--root", R, "--edits-file", "e.json", "noaccess.txt"],
     {"wrap": tack.NO_DAC}),
    ("io.read-failed", ["--edits-file", "/proc/self/mem", "plain.txt"], {"cwd": "root"}),
    ("io.write-failed", ["--root", R, "--edits-file", "e.json", "plain.txt"], {"wrap": XFSZ}),
    ("limit.input-too-large", ["--root", R, "--edits-file", "stale.json", "--max-bytes", "10",
                               "plain.txt"], {}),
    ("parse.json", ["--root", R, "--edits-file", "bad.json", "plain.txt"], {}),
    ("precondition.hash-mismatch", ["--root", R, "--edits-file", "e.json", "--if-sha256",
                                    "a" * 64, "plain.txt"], {}),
    ("precondition.stale-witness", ["--root", R, "--edits-file", "stale.json", "plain.txt"], {}),
]


def prepare(tree):
    tree.fifo("fifo")
    tree.no_access("noaccess.txt")
    tree.write("bad.json", b"[{")
    tree.write("stale.json", b'[{"witness":"h000000","lines":[]}]')
    w = witnesses(tree, "plain.txt")
    tree.write("e.json", json.dumps([{"witness": w[0], "lines": ["x"]}]).encode())


def run_fixture(tree, fx):
    rule, args, opts = fx
    a = [x.replace(R, str(tree.root)) for x in args]
    cwd = tree.root if opts.get("cwd") == "root" else tree.root.parent
    return run(T, *a, cwd=cwd, wrap=opts.get("wrap"), stdin=b"", timeout=20)


@pytest.mark.parametrize("fx", FIXTURES, ids=[f[0] for f in FIXTURES])
def test_fixture_reaches_its_rule(tree, fx):
    prepare(tree)
    r = run_fixture(tree, fx)
    assert r.rules and r.rules[0] == fx[0], r
    for again in r.retried:  # the retry ran as it stands and met the next question
        assert again.rules in (["precondition.stale-witness"], ["parse.json"])
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
        reached.update(run(T, "--root", tree.root, "--edits-file", "e.json", "plain.txt").rules)
    finally:
        os.close(fd)
    assert set(tack.declared_rules(T)) == reached
