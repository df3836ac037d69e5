"""peek's behaviour from its spec (TOOLS.md, seeds/peek-reference-page.txt, CONTRACT.md)."""

import os
import random
import re
import subprocess

import pytest

import tack
from tack import run, split_lines, tob

MAXB = "16777216"


def peek(tree, *args, **kw):
    return run("peek", "--root", tree.root, *args, **kw)


def numbered(n, width=0):
    return b"".join(b"line %d%s\n" % (i, b"." * width) for i in range(1, n + 1))


# --- ranges -------------------------------------------------------------------------------

def test_default_range_is_1_to_100(tree):
    tree.write("150.txt", numbered(150))
    d = peek(tree, "150.txt").data
    assert [l["n"] for l in d["lines"]] == list(range(1, 101))
    assert (d["from"], d["to"], d["eof"], d["truncated"], d["next"]) == (1, 100, False, False, None)
    assert d["lines"][99]["text"] == "line 100"


def test_default_range_on_a_short_file_reaches_eof(tree):
    d = peek(tree, "plain.txt").data
    assert (d["from"], d["to"], d["eof"], d["truncated"]) == (1, 10, True, False)


def test_open_ended_range_runs_to_the_end(tree):
    tree.write("150.txt", numbered(150))
    d = peek(tree, "--lines", "95:", "150.txt").data
    assert [l["n"] for l in d["lines"]] == list(range(95, 151))
    assert (d["to"], d["eof"], d["truncated"], d["next"]) == (150, True, False, None)


def test_closed_range_ending_at_the_last_line_is_eof(tree):
    tree.write("10.txt", numbered(10))
    d = peek(tree, "--lines", "1:10", "10.txt").data
    assert d["eof"] is True and d["to"] == 10
    d = peek(tree, "--lines", "1:9", "10.txt").data
    assert d["eof"] is False and d["to"] == 9 and d["truncated"] is False


def test_single_line(tree):
    d = peek(tree, "--lines", "3", "plain.txt").data
    assert [(l["n"], l["text"]) for l in d["lines"]] == [(3, "gamma \u03b4elta")]
    assert peek(tree, "-n", "3", "plain.txt").out == peek(tree, "--lines=3", "plain.txt").out
    assert peek(tree, "-n3", "plain.txt").out == peek(tree, "--lines", "3:3", "plain.txt").out


def test_head_form(tree):
    d = peek(tree, "--lines", ":2", "plain.txt").data
    assert [l["n"] for l in d["lines"]] == [1, 2] and d["from"] == 1


@pytest.mark.parametrize("rng,expect", [
    ("-3:", [8, 9, 10]), ("-1:", [10]), ("-3:-2", [8, 9]), ("-10:", list(range(1, 11))),
    ("-1000:", list(range(1, 11))), ("2:-8", [2, 3]), ("-2", [9]),
])
def test_negative_ranges_count_from_the_end(tree, rng, expect):
    d = peek(tree, "--lines", rng, "plain.txt").data
    assert [l["n"] for l in d["lines"]] == expect
    real = split_lines(tack.PLAIN)
    assert [tob(l["text"]) for l in d["lines"]] == [real[n - 1] for n in expect]


def test_range_past_the_end_is_empty_and_eof(tree):
    d = peek(tree, "--lines", "50:60", "plain.txt").data
    assert d["lines"] == [] and d["eof"] is True and d["to"] is None and d["from"] == 50


def test_offsets_are_byte_offsets(tree):
    for name in ("plain.txt", "crlf.txt", "mixed.txt", "nofinal.txt", "nul.bin", "latin1.txt",
                 "long.txt"):
        content = (tree.root / name).read_bytes()
        d = peek(tree, "--lines", "1:", "--max-line-bytes", "10000", name).data
        raw = split_lines(content)
        pos = 0
        for l, r in zip(d["lines"], raw):
            assert l["offset"] == pos, (name, l)
            pos += len(r) + 1
        assert len(d["lines"]) == len(raw)


# --- budget and cursor --------------------------------------------------------------------

def test_first_line_is_whole_even_past_max_bytes(tree):
    d = peek(tree, "--max-bytes", "1", "plain.txt").data
    assert [l["text"] for l in d["lines"]] == ["alpha"]
    assert d["truncated"] is True and d["next"] == {"line": 2} and d["eof"] is False
    d = peek(tree, "--lines", "3:", "--max-bytes", "10", "long.txt").data
    assert tob(d["lines"][0]["text"]) == tack.LONG_LINE and len(d["lines"]) == 1
    assert d["next"] == {"line": 4}


def test_next_only_when_more_really_exists(tree):
    tree.write("three.txt", b"123456789\n123456789\n123456789\n")
    d = peek(tree, "--max-bytes", "30", "three.txt").data  # 3 x (9 bytes + one for the end): all fit
    assert (d["truncated"], d["next"], d["eof"], len(d["lines"])) == (False, None, True, 3)
    d = peek(tree, "--max-bytes", "29", "three.txt").data
    assert (d["truncated"], d["next"], len(d["lines"])) == (True, {"line": 3}, 2)
    d = peek(tree, "--lines", "1:2", "--max-bytes", "20", "three.txt").data
    assert (d["truncated"], d["next"], d["eof"]) == (False, None, False)


def test_empty_lines_count_against_the_budget(tree):
    # Each line costs one byte for its end at least, so a file of empty lines cannot turn the
    # default budget into an answer (and a memory peak) as long as the file.
    tree.write("empty-lines.txt", b"\n" * 200_000)
    d = peek(tree, "--lines", "1:", "empty-lines.txt").data
    assert len(d["lines"]) == 65536
    assert (d["truncated"], d["next"], d["eof"]) == (True, {"line": 65537}, False)
    d = peek(tree, "--lines", "1:", "--max-bytes", "3", "empty-lines.txt").data
    assert [l["n"] for l in d["lines"]] == [1, 2, 3] and d["next"] == {"line": 4}


def _follow(tree, name, first_args, budget, extra=()):
    """Follows `next` from --lines 1: until eof; returns (numbers, texts, pages)."""
    ns, texts, pages = [], [], 0
    start = first_args
    while True:
        d = peek(tree, "--lines", start, "--max-bytes", str(budget), *extra, name).data
        pages += 1
        ns += [l["n"] for l in d["lines"]]
        texts += [tob(l["text"]) for l in d["lines"]]
        if not d["truncated"]:
            assert d["next"] is None
            assert d["eof"] is True
            return ns, texts, pages
        assert d["eof"] is False
        assert d["next"]["line"] == d["to"] + 1
        start = f"{d['next']['line']}:"
        assert pages < 10000


def _shown(content: bytes) -> list[bytes]:
    lines = split_lines(content)
    if content.startswith(b"\xef\xbb\xbf"):
        lines[0] = lines[0][3:]
    terminated = content.split(b"\n")[:-1]
    if terminated and all(l.endswith(b"\r") for l in terminated):
        lines = [l[:-1] if l.endswith(b"\r") else l for l in lines]
    return lines


@pytest.mark.parametrize("name", ["plain.txt", "crlf.txt", "mixed.txt", "nofinal.txt",
                                  "nul.bin", "latin1.txt", "bom.txt", "long.txt", "big"])
@pytest.mark.parametrize("budget", [1, 7, 64])
def test_following_next_reassembles_the_file(tree, name, budget):
    if name == "big":
        rnd = random.Random(7)
        tree.write("big", b"".join(b"%d %s\n" % (i, b"z" * rnd.randrange(0, 40))
                                   for i in range(150)))
    content = (tree.root / name).read_bytes()
    ns, texts, pages = _follow(tree, name, "1:", budget)
    want = _shown(content)
    assert ns == list(range(1, len(want) + 1)), "each line exactly once, in order"
    assert texts == want
    if budget == 1:
        assert pages == max(1, len(want))


def test_resume_inside_a_closed_range(tree):
    tree.write("50.txt", numbered(50))
    d = peek(tree, "--lines", "10:20", "--max-bytes", "30", "50.txt").data
    assert d["truncated"] and d["next"]["line"] <= 20
    got = [l["n"] for l in d["lines"]]
    while d["truncated"]:
        d = peek(tree, "--lines", f"{d['next']['line']}:20", "--max-bytes", "30", "50.txt").data
        got += [l["n"] for l in d["lines"]]
    assert got == list(range(10, 21)) and d["to"] == 20 and d["eof"] is False


# --- line endings, BOM, bytes that are not UTF-8 ------------------------------------------

def test_crlf_lines_without_cr(tree):
    d = peek(tree, "crlf.txt").data
    assert d["eol"] == "crlf" and [l["text"] for l in d["lines"]] == ["one", "two", "three"]
    assert [l["offset"] for l in d["lines"]] == [0, 5, 10]


def test_mixed_is_raw(tree):
    d = peek(tree, "mixed.txt").data
    assert d["eol"] == "mixed"
    assert [l["text"] for l in d["lines"]] == ["one\r", "two", "three\r", "four"]


@pytest.mark.parametrize("content,eol", [
    (b"a\nb\n", "lf"), (b"a\r\nb\r\n", "crlf"), (b"a\r\nb\n", "mixed"), (b"abc", "none"),
    (b"", "none"), (b"a\r\nb", "crlf"), (b"a\nb", "lf"), (b"a\rb\n", "lf"), (b"\n", "lf"),
])
def test_eol_policy(tree, content, eol):
    tree.write("e.txt", content)
    assert peek(tree, "e.txt").data["eol"] == eol
    assert peek(tree, "--bytes", "0:1", "e.txt").data["eol"] == eol


def test_bom_reported_and_stripped_from_line_1(tree):
    d = peek(tree, "bom.txt").data
    assert d["bom"] is True
    assert d["lines"][0] == {"n": 1, "offset": 3, "text": "with bom"}
    assert d["lines"][1] == {"n": 2, "offset": 12, "text": "second"}
    assert peek(tree, "plain.txt").data["bom"] is False
    b = peek(tree, "--bytes", "0:3", "bom.txt").data
    assert b["bom"] is True and b["text"] == "\ufeff"


def test_latin1_is_b64_never_replacement(tree):
    r = peek(tree, "latin1.txt")
    assert b"\xef\xbf\xbd" not in r.out and b"\\ufffd" not in r.out.lower()
    lines = r.lines
    assert lines[0]["text"] == {"b64": "Y2Fm6Q=="}
    assert [tob(l["text"]) for l in lines] == split_lines(tack.LATIN1)
    assert lines[2]["text"] == "plain"
    assert r.data["binary"] is False


def test_nul_bytes(tree):
    d = peek(tree, "nul.bin").data
    assert d["binary"] is True
    assert [tob(l["text"]) for l in d["lines"]] == split_lines(tack.NUL)
    assert peek(tree, "plain.txt").data["binary"] is False


def test_control_characters_round_trip(tree):
    content = bytes(range(1, 10)) + bytes(range(11, 32)) + b"\x7f\"\\/\n"
    tree.write("ctl.txt", content)
    d = peek(tree, "ctl.txt").data
    assert tob(d["lines"][0]["text"]) == content[:-1]


def test_empty_file(tree):
    d = peek(tree, "--count-lines", "empty.txt").data
    assert d == {"path": "empty.txt", "size": 0, "binary": False, "eol": "none", "bom": False,
                 "mode": "lines", "from": 1, "to": None, "lines": [], "eof": True,
                 "truncated": False, "next": None, "cut": None, "total_lines": 0}


def test_no_final_newline(tree):
    d = peek(tree, "--count-lines", "nofinal.txt").data
    assert [l["text"] for l in d["lines"]] == ["first", "second", "last-without-newline"]
    assert d["eol"] == "lf" and d["total_lines"] == 3 and d["size"] == len(tack.NOFINAL)


def test_envelope_fields(tree):
    doc = peek(tree, "plain.txt").doc
    assert list(doc) == ["ok", "command", "schema", "data", "meta"]
    assert (doc["ok"], doc["command"], doc["schema"]) == (True, "peek", "peek.v1")
    d = doc["data"]
    assert d["path"] == "plain.txt" and d["size"] == len(tack.PLAIN) and d["mode"] == "lines"
    assert d["total_lines"] is None


# --- bytes mode ---------------------------------------------------------------------------

@pytest.mark.parametrize("rng,sl", [
    ("0:5", slice(0, 5)), ("5:", slice(5, None)), ("-5:", slice(-5, None)),
    ("-5:-2", slice(-5, -2)), (":5", slice(0, 5)), ("0:100000", slice(0, None)),
    ("3:3", slice(3, 3)), ("1000:", slice(1000, None)), ("-100000:", slice(0, None)),
])
def test_bytes_ranges(tree, rng, sl):
    content = tack.PLAIN
    d = peek(tree, "--bytes", rng, "plain.txt").data
    assert tob(d["text"]) == content[sl]
    start, stop, _ = sl.indices(len(content))
    assert d["from"] == start and d["to"] == max(start, stop)
    assert d["eof"] == (max(start, stop) >= len(content))
    assert d["mode"] == "bytes" and d["truncated"] is False and d["next"] is None


def test_bytes_short_flag(tree):
    assert peek(tree, "-c", "0:3", "plain.txt").data["text"] == "alp"
    assert peek(tree, "-c0:3", "plain.txt").data["text"] == "alp"


def test_bytes_cursor_reassembles_the_file(tree):
    for name in ("plain.txt", "latin1.txt", "nul.bin", "long.txt", "bom.txt"):
        content = (tree.root / name).read_bytes()
        got, start, pages = b"", 0, 0
        step = 7 if len(content) < 500 else 101
        while True:
            d = peek(tree, "--bytes", f"{start}:", "--max-bytes", str(step), name).data
            got += tob(d["text"])
            pages += 1
            if not d["truncated"]:
                assert d["eof"] is True and d["next"] is None
                break
            assert d["next"] == {"byte": d["to"]} and d["to"] - d["from"] == step
            start = d["next"]["byte"]
        assert got == content, name
        assert pages == max(1, -(-len(content) // step))


def test_bytes_mode_splits_utf8_into_b64(tree):
    d = peek(tree, "--bytes", "0:18", "plain.txt").data  # cuts "δ" in half
    assert tack.PLAIN[17:19] == "\u03b4".encode()
    assert d["text"] == {"b64": tack.base64.b64encode(tack.PLAIN[:18]).decode()}
    assert peek(tree, "--bytes", "0:19", "plain.txt").data["text"] == "alpha\nbeta\ngamma \u03b4"


# --- --count-lines ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["plain.txt", "crlf.txt", "mixed.txt", "nofinal.txt",
                                  "nul.bin", "latin1.txt", "empty.txt", "long.txt", "bom.txt"])
def test_count_lines(tree, name):
    content = (tree.root / name).read_bytes()
    want = len(split_lines(content))
    assert peek(tree, "--count-lines", "--lines", "1", name).data["total_lines"] == want
    assert peek(tree, "--count-lines", "--bytes", "0:1", name).data["total_lines"] == want
    assert peek(tree, "--lines", "1", name).data["total_lines"] is None


# --- witness ------------------------------------------------------------------------------

def test_witness_shape_and_stability(tree):
    tree.write("50.txt", numbered(50))
    full = peek(tree, "--witness", "--lines", "1:", "50.txt").lines
    for l in full:
        assert re.fullmatch(r"h[0-9a-f]{6}", l["witness"]), l
    assert len({l["witness"] for l in full}) == 50
    for rng in ("20:25", "-5:", "33"):
        part = peek(tree, "--witness", "--lines", rng, "50.txt").lines
        for l in part:
            assert l["witness"] == full[l["n"] - 1]["witness"], (rng, l)
    assert "witness" not in peek(tree, "50.txt").lines[0]


def test_witness_names_identical_lines_apart(tree):
    tree.write("same.txt", b"same\n" * 60)
    ws = [l["witness"] for l in peek(tree, "--witness", "--lines", "1:", "same.txt").lines]
    assert len(ws) == 60 and len(set(ws)) == 60


def test_witness_changes_when_a_nearby_line_changes(tree):
    tree.write("a.txt", numbered(30))
    before = peek(tree, "--witness", "--lines", "15", "a.txt").lines[0]["witness"]
    tree.write("a.txt", numbered(30).replace(b"line 16\n", b"line sixteen\n"))
    after = peek(tree, "--witness", "--lines", "15", "a.txt").lines[0]["witness"]
    assert before != after
    far = numbered(30).replace(b"line 29\n", b"line twenty-nine\n")
    tree.write("a.txt", far)
    # the window is at least +-5 lines; line 29 is 14 away and the file names 15 uniquely
    assert peek(tree, "--witness", "--lines", "15", "a.txt").lines[0]["witness"] == before


def test_witness_of_a_too_long_line(tree):
    r = peek(tree, "--witness", "--max-line-bytes", "100", "long.txt")
    assert r.rules == ["limit.line-too-long"]
    assert re.fullmatch(r"h[0-9a-f]{6}", r.lines[2]["witness"])
    whole = peek(tree, "--witness", "long.txt").lines
    assert [l["witness"] for l in r.lines] == [l["witness"] for l in whole]


# --- too-long lines -----------------------------------------------------------------------

def test_line_too_long(tree):
    r = peek(tree, "--max-line-bytes", "100", "long.txt")
    assert r.exit == 8 and r.doc["ok"] is False
    assert r.lines[2] == {"n": 3, "offset": 16, "text": None, "length": 5006}
    assert [l["text"] for i, l in enumerate(r.lines) if i != 2] == [
        "short 1", "short 2", "short 4", "short 5"]
    e = r.doc["error"]
    assert e["detail"]["longest"] == 5006 and e["detail"]["max_line_bytes"] == 100
    assert peek(tree, "--max-line-bytes", "5006", "long.txt").exit == 0
    assert peek(tree, "--max-line-bytes", "5005", "long.txt").exit == 8


def test_too_long_first_line_after_a_bom(tree):
    """The cap is on the stored line, BOM included: the retry raises it that far (a retry to
    the shown length alone would fail again)."""
    tree.write("bomlong.txt", b"\xef\xbb\xbf" + b"h" * 8 + b"\nsecond\n")
    r = peek(tree, "--max-line-bytes", "2", "bomlong.txt")
    assert r.lines[0] == {"n": 1, "offset": 3, "text": None, "length": 8}
    e = r.doc["error"]
    assert e["detail"]["longest"] == 11 and "--max-line-bytes=11" in e["repair"]["argv"]
    assert r.retried[0].texts() == [b"h" * 8, b"second"]
    assert peek(tree, "--max-line-bytes", "10", "bomlong.txt").exit == 8


def test_too_long_last_line_without_newline(tree):
    tree.write("t.txt", b"ok\n" + b"z" * 300)
    r = peek(tree, "--max-line-bytes", "10", "t.txt")
    assert r.lines[1] == {"n": 2, "offset": 3, "text": None, "length": 300}
    assert r.retried[0].texts() == [b"ok", b"z" * 300]


# --- text format --------------------------------------------------------------------------

def cat_n(path):
    # cat -n without its padding: peek numbers a line "N<TAB>", a model reading every byte
    out = subprocess.run(["cat", "-n", str(path)], capture_output=True).stdout
    return re.sub(rb"(?m)^ +", b"", out)


def test_text_format_is_cat_n(tree):
    tree.write("120.txt", numbered(120, 3))
    for name, extra in (("plain.txt", []), ("120.txt", ["--lines", "1:"]), ("nul.bin", [])):
        r = peek(tree, "--format", "text", *extra, name)
        cat = (b"[binary]\n" if name == "nul.bin" else b"") + cat_n(tree.root / name)
        assert r.out == cat and r.err == b"" and r.exit == 0, name


def test_text_format_crlf_and_latin1(tree):
    # a CRLF file says so in a one-line header; the lines are shown without their \r
    r = peek(tree, "--format", "text", "crlf.txt")
    assert r.out == b"[crlf]\n1\tone\n2\ttwo\n3\tthree\n"
    r = peek(tree, "--format", "text", "latin1.txt")
    assert r.out == cat_n(tree.root / "latin1.txt")


def test_text_format_truncated_and_too_long(tree):
    r = peek(tree, "--format", "text", "--max-bytes", "6", "plain.txt")
    assert r.out.startswith(b"[size ") and b"more: lines 2:]\n1\talpha\n" in r.out and r.exit == 0
    r = peek(tree, "--format", "text", "--max-line-bytes", "100", "long.txt")
    assert r.exit == 8
    assert b"\n3\t" in r.out and tack.LONG_LINE not in r.out and b"5006" in r.out
    assert r.err.startswith(b"peek: limit.line-too-long: ")


def test_text_format_bytes_is_the_bytes(tree):
    r = peek(tree, "--format", "text", "--bytes", "0:9", "latin1.txt")
    assert r.out == tack.LATIN1[:9]


# --- self-description ---------------------------------------------------------------------

def test_help(tree):
    r = run("peek", "--help")
    assert r.exit == 0 and r.err == b""
    text = r.out.decode()
    assert text.startswith("peek 0.1.0") and "usage: peek" in text
    for f in tack.introspect("peek")["flags"]:
        assert f"--{f['name']}" in text
    assert run("peek", "-h").out == r.out


def test_version(tree):
    r = run("peek", "--version")
    assert r.out == f"peek {tack.introspect('peek')['version']}\n".encode() and r.exit == 0
    assert r.out == b"peek 0.1.0\n"


def test_introspect(tree):
    info = tack.introspect("peek")
    flags = {f["name"]: f for f in info["flags"]}
    assert {"lines", "bytes", "max-bytes", "max-line-bytes", "count-lines", "witness", "root",
            "format"} <= set(flags)
    assert flags["lines"]["default"] == "1:100" and flags["lines"]["short"] == "n"
    assert flags["bytes"]["short"] == "c"
    assert {(l["flag"], int(l["default"]), l["ceiling"]) for l in info["limits"]} == {
        ("max-bytes", 65536, 16777216), ("max-line-bytes", 1048576, 16777216)}
    assert info["output"] == "document" and info["schema"] == "peek.v1"
    assert info["effects"]["writes_files"] is False and info["effects"]["reads_files"] is True
    assert [o["name"] for o in info["operands"]] == ["PATH"]


def test_skill(tree):
    r = run("peek", "skill")
    assert r.exit == 0 and r.out.startswith(b"---\nname: peek\ndescription: ")
    front = r.out.split(b"---\n")[1]
    assert front.count(b"\n") == 2
    for rule in tack.declared_rules("peek"):
        own = not rule.startswith(("args.", "path.", "io."))
        assert (f"`{rule}`".encode() in r.out) == own, rule


def test_subcommands_only_alone(tree):
    """`introspect` with anything after it is not the subcommand: two paths to read."""
    r = run("peek", "introspect", "x", cwd=tree.root)
    assert r.rules == ["io.not-found", "io.not-found"]
    assert [f["path"] for f in r.data["files"]] == ["introspect", "x"]


# --- output failures ----------------------------------------------------------------------

WRITE_FAILED = re.compile(rb"\Apeek: io\.write-failed: [^\n]+\n\Z")


@pytest.mark.parametrize("args", [["plain.txt"], ["--format", "text", "plain.txt"],
                                  ["missing.txt"], ["--bogus", "x"]])
def test_dev_full(tree, args):
    with open("/dev/full", "wb") as full:
        p = subprocess.run([tack.bin_path("peek"), "--root", str(tree.root), *args],
                           stdout=full, stderr=subprocess.PIPE, timeout=10)
    assert p.returncode == 1, p
    assert WRITE_FAILED.match(p.stderr), p.stderr


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["introspect"], ["skill"]])
def test_dev_full_self_description(args):
    with open("/dev/full", "wb") as full:
        p = subprocess.run([tack.bin_path("peek"), *args], stdout=full, stderr=subprocess.PIPE,
                           timeout=10)
    assert p.returncode == 1 and WRITE_FAILED.match(p.stderr), p


def test_pipe_closed_before_start(tree):
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run([tack.bin_path("peek"), "--root", str(tree.root), "plain.txt"],
                           stdout=w, stderr=subprocess.PIPE, timeout=10)
    finally:
        os.close(w)
    assert p.returncode == 1, "a closed pipe must not be a silent success (or a signal death)"
    assert WRITE_FAILED.match(p.stderr), p.stderr


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_reader_that_closes_at_once(tree, fmt):
    """A big answer (far past the pipe buffer) into a pipe whose reader reads nothing and
    closes: exit 1 with the io.write-failed line, never 0, never a signal."""
    tree.write("big.txt", numbered(400_000, 10))  # ~8 MiB
    p = subprocess.Popen([tack.bin_path("peek"), "--root", str(tree.root), "--lines", "1:",
                          "--max-bytes", "4194304", "--format", fmt, "big.txt"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()
    err = p.stderr.read()
    code = p.wait(timeout=60)
    assert code == 1, (code, err)
    assert WRITE_FAILED.match(err), err


# --- differential against GNU sed/head/tail/wc --------------------------------------------

def _random_file(rnd: random.Random) -> bytes:
    alphabet = [bytes([b]) for b in range(256) if b not in (0x0A, 0x0D)]
    lines = []
    for _ in range(rnd.randrange(0, 60)):
        kind = rnd.random()
        if kind < 0.1:
            lines.append(b"")
        elif kind < 0.7:
            lines.append(bytes(rnd.choice(b"abcdefghij klmnop\t") for _ in range(rnd.randrange(1, 30))))
        elif kind < 0.85:
            lines.append("\u00e9\u4e2d\U0001f600 ".encode() * rnd.randrange(1, 4))
        else:
            lines.append(b"".join(rnd.choice(alphabet) for _ in range(rnd.randrange(1, 20))))
    return b"".join(l + b"\n" for l in lines)


def _gnu(*cmd):
    return subprocess.run(cmd, capture_output=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"},
                          check=True).stdout


@pytest.mark.parametrize("seed", range(12))
def test_differential_against_sed_head_tail_wc(tree, seed):
    rnd = random.Random(seed)
    content = _random_file(rnd)
    path = tree.write("r.txt", content)
    n = content.count(b"\n")
    assert n == len(split_lines(content))
    for _ in range(6):
        a = rnd.randrange(1, n + 3)
        b = rnd.randrange(a, n + 5)
        want = split_lines(_gnu("sed", "-n", f"{a},{b}p", path))
        got = peek(tree, "--lines", f"{a}:{b}", "--max-bytes", MAXB, "r.txt").texts()
        assert got == want, (seed, a, b)
        want = split_lines(_gnu("sed", "-n", f"{a},$p", path))
        assert peek(tree, "--lines", f"{a}:", "--max-bytes", MAXB, "r.txt").texts() == want
        want = split_lines(_gnu("sed", "-n", f"{a}p", path))
        assert peek(tree, "--lines", f"{a}", "r.txt").texts() == want
        k = rnd.randrange(1, n + 3)
        want = split_lines(_gnu("tail", "-n", str(k), path))
        assert peek(tree, "--lines", f"-{k}:", "--max-bytes", MAXB, "r.txt").texts() == want
        want = split_lines(_gnu("head", "-n", str(k), path))
        assert peek(tree, "--lines", f":{k}", "--max-bytes", MAXB, "r.txt").texts() == want
        c = rnd.randrange(1, len(content) + 2)
        want = _gnu("head", "-c", str(c), path)
        assert tob(peek(tree, "--bytes", f":{c}", "r.txt").data["text"]) == want
        want = _gnu("tail", "-c", str(c), path)
        assert tob(peek(tree, "--bytes", f"-{c}:", "r.txt").data["text"]) == want
    wc = int(_gnu("wc", "-l", path).split()[0])
    assert peek(tree, "--count-lines", "r.txt").data["total_lines"] == wc


# --- edges found while writing this suite -------------------------------------------------

@pytest.mark.parametrize("content,rng", [
    (b"hi\n", "-2"),            # no second-to-last line in a one-line file
    (b"hi\n", "-3:-2"),
    (numbered(10), "-20:-15"),  # lines -20..-15 of a 10-line file do not exist
], ids=["one-line:-2", "one-line:-3:-2", "ten-lines:-20:-15"])
def test_negative_end_before_the_first_line_names_no_line(tree, content, rng):
    tree.write("n.txt", content)
    d = peek(tree, "--lines", rng, "n.txt").data
    assert d["lines"] == [], f"--lines {rng} returned {d['lines']}"


def test_bytes_of_a_file_whose_size_the_kernel_does_not_know():
    """/proc files report st_size 0 but have content; a range of bytes must not come back
    empty with eof:true (lines mode reads them fine)."""
    with open("/proc/version", "rb") as f:
        real = f.read()
    assert len(real) > 5
    r = run("peek", "--bytes", "0:5", "/proc/version")
    assert tob(r.data["text"]) == real[:5], r.data
    assert run("peek", "--lines", "1", "/proc/version").texts() == [real.rstrip(b"\n")]


def test_crlf_file_keeps_a_stray_cr_on_its_unterminated_last_line(tree):
    """Only a '\\r' before '\\n' is a line ending; `b\\r` at the end of a CRLF file ends with a
    stray '\\r' that showing `b` would hide (a writer could not put it back)."""
    tree.write("cr.txt", b"a\r\nb\r")
    d = peek(tree, "cr.txt").data
    assert d["eol"] == "crlf"
    assert [l["text"] for l in d["lines"]] == ["a", "b\r"]


# --- several files in one call ------------------------------------------------------------

def _alone(tree, name, *args):
    """The answer a one-file call gives for `name`, for comparing with a several-files entry."""
    return peek(tree, *args, name).data


def test_several_files_one_entry_each_in_order(tree):
    tree.write("150.txt", numbered(150))
    r = peek(tree, "plain.txt", "crlf.txt", "150.txt")
    assert r.exit == 0 and r.doc["ok"] is True and list(r.data) == ["files"]
    files = r.data["files"]
    assert [f["path"] for f in files] == ["plain.txt", "crlf.txt", "150.txt"]
    for f in files:
        assert f == _alone(tree, f["path"]), f["path"]


def test_one_path_answer_is_unchanged(tree):
    """One PATH: the one-file form, exactly (no files wrapper)."""
    d = peek(tree, "plain.txt").data
    assert "files" not in d and d["path"] == "plain.txt"


def test_several_files_one_missing_in_the_middle(tree):
    r = peek(tree, "plain.txt", "missing.txt", "crlf.txt")
    assert r.exit == 3 and r.rules == ["io.not-found"]
    files = r.data["files"]
    assert files[0] == _alone(tree, "plain.txt") and files[2] == _alone(tree, "crlf.txt")
    assert list(files[1]) == ["path", "error"] and files[1]["path"] == "missing.txt"
    assert files[1]["error"] == r.doc["errors"][0]
    assert r.doc["errors"][0]["detail"]["path"] == "missing.txt"


def test_several_files_with_a_directory_and_the_first_error_decides(tree):
    r = peek(tree, "plain.txt", "dir", "crlf.txt")
    assert r.exit == 2 and r.rules == ["io.is-a-directory"]
    assert r.data["files"][1]["error"]["rule"] == "io.is-a-directory"
    assert r.data["files"][2]["lines"][0]["text"] == "one"
    r = peek(tree, "dir", "missing.txt", "plain.txt")
    assert r.rules == ["io.is-a-directory", "io.not-found"] and r.exit == 2
    r = peek(tree, "missing.txt", "dir")
    assert r.rules == ["io.not-found", "io.is-a-directory"] and r.exit == 3
    assert [sorted(f) for f in r.data["files"]] == [["error", "path"]] * 2


def test_several_files_duplicates_answered_each_time(tree):
    r = peek(tree, "plain.txt", "plain.txt", "./plain.txt")
    files = r.data["files"]
    assert len(files) == 3 and files[0] == files[1] == files[2] == _alone(tree, "plain.txt")


def test_several_files_cap(tree):
    r = peek(tree, *["plain.txt"] * 65)
    assert r.exit == 2 and r.rules == ["args.too-many-operands"] and "data" not in r.doc
    assert r.doc["error"]["detail"]["max"] == 64
    r = peek(tree, *["plain.txt"] * 64)
    assert r.exit == 0 and len(r.data["files"]) == 64
    assert tack.introspect("peek")["operands"][0]["max"] == 64


def test_several_files_each_with_its_own_range_and_next(tree):
    tree.write("150.txt", numbered(150))
    tree.write("3.txt", numbered(3))
    args = ("--lines", "2:", "--max-bytes", "20", "--count-lines")
    files = peek(tree, *args, "150.txt", "3.txt", "empty.txt").data["files"]
    a, b, c = files
    assert (a["from"], a["to"], a["truncated"], a["next"], a["total_lines"]) == (2, 3, True, {"line": 4}, 150)
    assert (b["from"], b["to"], b["truncated"], b["next"], b["eof"]) == (2, 3, False, None, True)
    assert (c["to"], c["lines"], c["total_lines"]) == (None, [], 0)
    for f in files:
        assert f == _alone(tree, f["path"], *args)
    # a file's cursor resumes that file alone, as a one-file call would
    d = peek(tree, "--lines", f"{a['next']['line']}:", "--max-bytes", "20", "150.txt").data
    assert d["from"] == 4 and d["lines"][0]["text"] == "line 4"


def test_several_files_bytes_witness_and_count_apply_to_each(tree):
    for args in (("--bytes", "2:9", "--count-lines"), ("--witness", "--lines", "-2:")):
        files = peek(tree, *args, "plain.txt", "latin1.txt", "nul.bin").data["files"]
        for f in files:
            assert f == _alone(tree, f["path"], *args), (args, f["path"])


def test_several_files_line_too_long_in_the_second_with_its_retry(tree):
    tree.write("longer.txt", b"x\n" + b"Z" * 7000 + b"\n")
    r = peek(tree, "--max-line-bytes", "100", "plain.txt", "long.txt", "longer.txt")
    assert r.exit == 8 and r.rules == ["limit.line-too-long", "limit.line-too-long"]
    files = r.data["files"]
    assert files[1]["lines"][2] == {"n": 3, "offset": 16, "text": None, "length": 5006}
    assert files[2]["lines"][1]["length"] == 7000
    e2, e3 = r.doc["errors"]
    assert (e2["detail"]["path"], e2["detail"]["longest"]) == ("long.txt", 5006)
    assert (e3["detail"]["path"], e3["detail"]["longest"]) == ("longer.txt", 7000)
    # each retry names its own file alone (the harness ran it: it cleared the error)
    for e, name, cap in ((e2, "long.txt", "5006"), (e3, "longer.txt", "7000")):
        argv = [tob(x) for x in e["repair"]["argv"]]
        assert name.encode() in argv and f"--max-line-bytes={cap}".encode() in argv
        assert not {b"plain.txt", b"long.txt", b"longer.txt"} - {name.encode()} & set(argv)
        assert e["hint"] == f"retry this file alone with --max-line-bytes {cap}."
    assert [a.exit for a in r.retried] == [0, 0]
    assert r.retried[0].data["path"] == "long.txt" and r.retried[0].lines[2]["text"] == "L" * 5006
    assert r.retried[1].data["path"] == "longer.txt"


def test_several_files_retry_keeps_a_dash_name_after_double_dash(tree):
    tree.write("-x.txt", tack.LONG)
    r = peek(tree, "--max-line-bytes", "100", "--", "plain.txt", "-x.txt")
    argv = [tob(x) for x in r.doc["error"]["repair"]["argv"]]
    assert argv[-2:] == [b"--", b"-x.txt"] and b"plain.txt" not in argv
    assert r.retried[0].exit == 0 and r.retried[0].data["path"] == "-x.txt"


def test_several_files_total_is_bounded(tree):
    """--max-bytes holds for each file; together they stop at the ceiling (16 MiB), and a
    file past it gets its own cursor instead of its text."""
    nine = 9 * 1024 * 1024
    tree.write("a.bin", b"a" * nine)
    tree.write("b.bin", b"b" * nine)
    files = peek(tree, "--bytes", "0:", "--max-bytes", MAXB, "a.bin", "b.bin", "plain.txt").data["files"]
    a, b, c = files
    assert (a["to"], a["truncated"]) == (nine, False)
    assert (b["to"], b["truncated"], b["next"]) == (int(MAXB) - nine, True, {"byte": int(MAXB) - nine})
    assert (c["text"], c["truncated"], c["next"]) == ("", True, {"byte": 0})
    line = b"q" * 1023 + b"\n"
    tree.write("a.txt", line * (nine // 1024))
    files = peek(tree, "--lines", "1:", "--max-bytes", MAXB, "a.txt", "a.txt", "plain.txt").data["files"]
    a, b, c = files
    assert a["eof"] is True and len(a["lines"]) == nine // 1024
    assert b["truncated"] is True and len(b["lines"]) == (int(MAXB) - nine) // 1024
    assert (c["lines"], c["to"], c["truncated"], c["next"]) == ([], None, True, {"line": 1})


def test_several_files_text_format(tree):
    r = peek(tree, "--format", "text", "crlf.txt", "missing.txt", "nofinal.txt")
    assert r.exit == 3
    assert r.out == (b"==> crlf.txt <==\n[crlf]\n1\tone\n2\ttwo\n3\tthree\n"
                     b"==> nofinal.txt <==\n1\tfirst\n2\tsecond\n3\tlast-without-newline\n")
    assert r.err.startswith(b"peek: io.not-found: ")
    r = peek(tree, "--format", "text", "--bytes", "0:3", "plain.txt", "crlf.txt")
    assert r.out == b"==> plain.txt <==\nalp\n==> crlf.txt <==\n[crlf]\none\n"
    r = peek(tree, "--format", "text", "--max-bytes", "6", "plain.txt", "crlf.txt")
    assert b"==> plain.txt <==\n[size 59 bytes; cut by max-bytes; more: lines 2:]\n1\talpha\n" in r.out


# --- a path that ran through a symbolic link (no --root) ------------------------------------

def _real(tree, *parts):
    return os.path.realpath(os.path.join(tree.root, *parts))


def test_link_a_linked_directory(tree):
    r = run("peek", "link_out_dir/secret.txt", cwd=tree.root)
    assert r.data["link"] == {"target": os.path.realpath(tree.outside / "dir" / "secret.txt")}
    assert list(r.data)[:3] == ["path", "link", "size"] and r.texts() == [tack.SECRET + b" in dir"]
    tree.mid_link()
    r = run("peek", "dirlink/sub/deep.txt", cwd=tree.root)
    assert r.data["link"]["target"] == _real(tree, "dir/sub/deep.txt")


def test_link_a_linked_file_a_chain_and_a_relative_link(tree):
    r = run("peek", "link_out_file", cwd=tree.root)
    assert r.data["link"]["target"] == os.path.realpath(tree.outside / "secret.txt")
    tree.chain()
    r = run("peek", "chain1", cwd=tree.root)
    assert r.data["link"]["target"] == _real(tree, "plain.txt") and r.exit == 0
    tree.link("rel", "dir/sub")
    r = run("peek", "rel/deep.txt", cwd=tree.root)
    assert r.data["link"]["target"] == _real(tree, "dir/sub/deep.txt")
    # `..` after a linked directory climbs from where the link led
    r = run("peek", "link_out_dir/../secret.txt", cwd=tree.root)
    assert r.data["link"]["target"] == os.path.realpath(tree.outside / "secret.txt") and r.texts() == [tack.SECRET]
    # an absolute spelling through a link
    r = run("peek", str(tree.root / "link_out_file"))
    assert r.data["link"]["target"] == os.path.realpath(tree.outside / "secret.txt")


def test_link_no_link_no_field(tree):
    for spelled, cwd in (("plain.txt", tree.root), ("./dir//sub/../sub/deep.txt", tree.root),
                         (_real(tree, "plain.txt"), None), ("../outside/secret.txt", tree.root),
                         ("/proc/version", None)):
        r = run("peek", spelled, cwd=cwd)
        assert r.exit == 0 and "link" not in r.data, spelled
    d = run("peek", "plain.txt", cwd=tree.root).data
    assert d == peek(tree, "plain.txt").data  # the same bytes as with --root


def test_link_with_root_nothing_changes(tree):
    assert peek(tree, "link_out_file").rules == ["path.symlink"]
    assert "link" not in peek(tree, "plain.txt").data
    tree.chain()
    assert peek(tree, "chain1").rules == ["path.symlink"]


def test_link_target_that_is_not_utf8(tree):
    os.makedirs(tree.p(b"\xffdir"))
    tree.write(b"\xffdir/f.txt", b"hi\n")
    tree.link("l", b"\xffdir")
    r = run("peek", "l/f.txt", cwd=tree.root)
    target = r.data["link"]["target"]
    assert tob(target) == os.path.realpath(tree.p(b"\xffdir/f.txt")) and "b64" in target


def test_link_in_several_files_and_in_text(tree):
    tree.chain()
    r = run("peek", "plain.txt", "link_out_file", "chain1", "missing", cwd=tree.root)
    files = r.data["files"]
    assert "link" not in files[0]
    assert files[1]["link"]["target"] == os.path.realpath(tree.outside / "secret.txt")
    assert files[2]["link"]["target"] == _real(tree, "plain.txt")
    assert "link" not in files[3] and r.rules == ["io.not-found"]
    r = run("peek", "--format", "text", "link_out_file", cwd=tree.root)
    assert r.out == (f"[through a link to {os.path.realpath(tree.outside / 'secret.txt')}]\n".encode()
                     + b"1\t" + tack.SECRET + b"\n")
    r = run("peek", "--format", "text", "plain.txt", "link_out_file", cwd=tree.root)
    assert r.out.count(b"[through a link to ") == 1
    assert r.out.index(b"==> link_out_file <==\n[through") > 0
