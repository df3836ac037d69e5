"""tally — count distinct lines or fields, gate by gate.

M5 differential against `LC_ALL=C sort | uniq -c | sort -rn` (and `cut -d` for fields) on
random inputs with CRLF, NUL, Latin-1, empty lines and no final newline, compared as multisets
of (count, key) with the tie order checked against tally's own rule (count descending, then key
bytewise); a Python model of the CRLF/BOM/field policy as a second oracle, through files and
through a pipe; M3 every declared rule reached, the line-cap retry executed; M9 peak memory
flat at 1, 64 and 256 MiB with a bounded number of keys; and the hostile cases.
"""

import collections
import os
import random
import subprocess

import pytest

import tack
from tack import run

MiB = 1024 * 1024
BOM = b"\xef\xbb\xbf"
ALL = "100000"  # --top large enough for every key in these tests
WHOLE = ["--max-bytes", "16777216"]  # and a byte budget that does not cut them


def pairs(r):
    return [(tack.tob(t["key"]), t["count"]) for t in r.data["top"]]


def model(inputs, field=None, delim=b"\t", max_line=1 << 20):
    """The policy written out plainly: per input, CRLF when every '\\n' follows '\\r' (then
    every line loses a trailing '\\r'), a BOM off the first line, lines past the cap and lines
    with fewer than `field` fields skipped."""
    counts = collections.Counter()
    skipped = 0
    for data in inputs:
        parts = data.split(b"\n")
        last = parts.pop()
        lines = [(p, True) for p in parts] + ([(last, False)] if last else [])
        crlf = bool(parts) and all(p.endswith(b"\r") for p in parts)
        for i, (line, _) in enumerate(lines):
            if len(line) > max_line:
                skipped += 1
                continue
            if crlf and line.endswith(b"\r"):
                line = line[:-1]
            if i == 0 and line.startswith(BOM):
                line = line[3:]
            if field:
                fields = line.split(delim)
                if len(fields) < field:
                    skipped += 1
                    continue
                line = fields[field - 1]
            counts[line] += 1
    return counts, skipped


def ordered(counts):
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def gnu_counts(data, cmd="sort | uniq -c"):
    """uniq -c's groups as a Counter (its '%7d key' lines parsed back)."""
    p = subprocess.run(["sh", "-c", cmd], input=data, capture_output=True,
                       env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}, check=True)
    out = collections.Counter()
    for line in p.stdout.split(b"\n")[:-1]:
        count, key = line.lstrip(b" ").split(b" ", 1)
        assert key not in out
        out[key] = int(count)
    return out


def random_input(rnd, crlf=False, final_newline=True):
    alphabet = [b"alpha", b"beta", b"", b"caf\xe9", b"na\xefve", b"\x00", b"a\x00b", b" x ",
                b"\xce\xb4elta", b"\xff\xfe", b"tab\there", b"a,b,c", b",", b"Alpha", b"alpha ",
                b"\r", b"mid\rcr"]
    lines = [rnd.choice(alphabet) + (rnd.choice(alphabet) if rnd.random() < 0.3 else b"")
             for _ in range(rnd.randrange(0, 400))]
    eol = b"\r\n" if crlf else b"\n"
    data = eol.join(lines)
    if lines and final_newline:
        data += eol
    return data


# --- M5: differential against GNU ---------------------------------------------------------

@pytest.mark.parametrize("seed", range(12))
def test_lines_match_sort_uniq_c(tmp_path, seed):
    rnd = random.Random(seed)
    data = random_input(rnd, crlf=False, final_newline=seed % 3 != 0)
    if b"\n" in data and all(l.endswith(b"\r") for l in data.split(b"\n")[:-1]):
        data += b"bare\n"  # keep this input raw: every line but one ends in \r by chance
    (tmp_path / "in.txt").write_bytes(data)
    r = run("tally", "--root", tmp_path, "--top", ALL, *WHOLE, "in.txt")
    assert r.exit == 0
    want = gnu_counts(data)
    assert collections.Counter(dict(pairs(r))) == want  # the multiset of (key, count)
    assert pairs(r) == ordered(want)                     # tally's own tie rule
    assert r.data["total"] == sum(want.values()) and r.data["distinct"] == len(want)
    assert r.data["skipped"] == 0 and r.data["truncated"] is False
    # sort -rn orders ties by the whole line, reversed: same multiset, different order
    p = subprocess.run(["sh", "-c", "sort | uniq -c | sort -rn"], input=data, capture_output=True,
                       env={"LC_ALL": "C"}, check=True)
    assert sorted(p.stdout.split(b"\n")[:-1]) == sorted(
        b"%7d %s" % (c, k) for k, c in want.items())


@pytest.mark.parametrize("seed", range(6))
def test_text_mode_is_uniq_c_layout_with_bytewise_ties(tmp_path, seed):
    rnd = random.Random(100 + seed)
    data = random_input(rnd, final_newline=True).replace(b"\r", b"")
    (tmp_path / "in.txt").write_bytes(data)
    t = run("tally", "--root", tmp_path, "--top", ALL, *WHOLE, "--format", "text", "in.txt")
    p = subprocess.run(["sh", "-c", "sort | uniq -c | sort -s -k1,1nr"], input=data,
                       capture_output=True, env={"LC_ALL": "C"}, check=True)
    assert t.exit == 0 and t.out == p.stdout


@pytest.mark.parametrize("seed", range(8))
def test_crlf_file_counts_lines_without_their_cr(tmp_path, seed):
    """A CRLF file (every \\n after a \\r) is counted as GNU counts the same file in LF."""
    rnd = random.Random(200 + seed)
    data = random_input(rnd, crlf=True, final_newline=seed % 2 == 0)
    if not data:
        data = b"x\r\n"
    (tmp_path / "in.txt").write_bytes(data)
    r = run("tally", "--root", tmp_path, "--top", ALL, *WHOLE, "in.txt")
    lf = data.replace(b"\r\n", b"\n")
    if lf.endswith(b"\r"):
        lf = lf[:-1]  # a CRLF file's last line loses its \r too (the policy, as peek shows it)
    want = gnu_counts(lf)
    assert pairs(r) == ordered(want)
    assert (collections.Counter(dict(pairs(r))), r.data["skipped"]) == model([data])


@pytest.mark.parametrize("seed", range(8))
def test_fields_match_cut(tmp_path, seed):
    rnd = random.Random(300 + seed)
    n = rnd.choice([1, 2, 3])
    lines = [b",".join(rnd.choice([b"a", b"b", b"", b"\xe9", b"x y", b"\x00"])
                       for _ in range(rnd.randrange(n, n + 3))) for _ in range(300)]
    data = b"\n".join(lines) + b"\n"
    (tmp_path / "in.csv").write_bytes(data)
    r = run("tally", "--root", tmp_path, "--top", ALL, *WHOLE, "--field", str(n), "--delim", ",", "in.csv")
    want = gnu_counts(data, f"cut -d, -f{n} | sort | uniq -c")
    assert pairs(r) == ordered(want) and r.data["skipped"] == 0


@pytest.mark.parametrize("seed", range(10))
def test_policy_model_on_files_and_pipes(tmp_path, seed):
    """Several inputs of every line-ending kind, fields or lines, BOMs: the model, through
    files and through a pipe (which cannot be read twice: the CRLF verdict is made on the go)."""
    rnd = random.Random(400 + seed)
    inputs = []
    for i in range(rnd.randrange(1, 5)):
        kind = rnd.choice(["lf", "crlf", "crlf-then-lf", "none", "empty", "mixed"])
        data = random_input(rnd, crlf=kind.startswith("crlf"), final_newline=rnd.random() < 0.7)
        if kind == "crlf-then-lf":
            data = b"k\r\n" * rnd.randrange(1, 50) + data + b"late bare\n" + b"k\r\n"
        elif kind == "none":
            data = data.replace(b"\n", b"")[:50] or b"solo\r"
        elif kind == "empty":
            data = b""
        elif kind == "mixed":
            data = b"a\r\nb\n" + data
        if rnd.random() < 0.3:
            data = BOM + data
        inputs.append(data)
        (tmp_path / f"f{i}").write_bytes(data)
    names = [f"f{i}" for i in range(len(inputs))]
    opts = []
    field = None
    if seed % 2:
        field = rnd.choice([1, 2])
        opts = ["--field", str(field), "--delim", ","]
    want, skipped = model(inputs, field, b",")
    r = run("tally", "--root", tmp_path, "--top", ALL, *WHOLE, *opts, *names)
    assert pairs(r) == ordered(want)
    assert r.data["skipped"] == skipped and r.data["total"] == sum(want.values())
    # one input through a pipe gives what the model gives for that input alone
    for data in inputs:
        p = run("tally", "--top", ALL, *WHOLE, *opts, stdin=data)
        w, s = model([data], field, b",")
        assert pairs(p) == ordered(w) and p.data["skipped"] == s


@pytest.mark.parametrize("kind", ["lf", "crlf", "crlf-then-lf"])
def test_megabytes_through_a_pipe_and_a_file_match_the_model(tmp_path, kind):
    """Lines of every length up to 20 KiB, so many straddle the read chunks and the pipe's
    partial reads; keys repeat so counts are more than 1."""
    rnd = random.Random(len(kind))
    pool = [rnd.randbytes(rnd.choice([0, 1, 5, 100, 4000, 20000])).replace(b"\n", b"")
            for _ in range(300)]
    eol = b"\n" if kind == "lf" else b"\r\n"
    body = b"".join(rnd.choice(pool) + eol for _ in range(2500))
    if kind == "crlf-then-lf":
        body += b"bare\n" + body[:100000].rpartition(b"\n")[0] + b"\n"
    want, skipped = model([body], max_line=16000)
    (tmp_path / "f").write_bytes(body)
    for r in (run("tally", "--top", ALL, *WHOLE, "--max-line-bytes", "16000", stdin=body),
              run("tally", "--root", tmp_path, "--top", ALL, *WHOLE, "--max-line-bytes", "16000", "f")):
        assert pairs(r) == ordered(want) and r.data["skipped"] == skipped


def test_crlf_verdict_made_late_moves_counts_back(tmp_path):
    """1000 CRLF lines then one bare LF: the file is raw after all, every key keeps its \\r."""
    data = b"".join(b"k%d\r\n" % (i % 7) for i in range(1000)) + b"bare\n"
    for via_pipe in (False, True):
        if via_pipe:
            r = run("tally", "--top", ALL, *WHOLE, stdin=data)
        else:
            (tmp_path / "f").write_bytes(data)
            r = run("tally", "--root", tmp_path, "--top", ALL, *WHOLE, "f")
        assert dict(pairs(r)) == {**{b"k%d\r" % i: len(range(i, 1000, 7)) for i in range(7)},
                                  b"bare": 1}
        assert r.data["distinct"] == 8 and r.data["total"] == 1001


def test_crlf_policy_is_per_file(tmp_path):
    (tmp_path / "crlf").write_bytes(b"x\r\ny\r\n")
    (tmp_path / "lf").write_bytes(b"x\r\nx\n")
    r = run("tally", "--root", tmp_path, "crlf", "lf")
    # crlf is CRLF (x, y); lf is mixed, so raw (x\r, x)
    assert pairs(r) == [(b"x", 2), (b"x\r", 1), (b"y", 1)]


def test_crlf_with_fields_only_the_last_field_loses_the_cr(tmp_path):
    (tmp_path / "f").write_bytes(b"a,1\r\nb,2\r\nc\r\n")
    r = run("tally", "--root", tmp_path, "--field", "2", "--delim", ",", "f")
    assert dict(pairs(r)) == {b"1": 1, b"2": 1} and r.data["skipped"] == 1
    r = run("tally", "--root", tmp_path, "--field", "1", "--delim", ",", "f")
    assert dict(pairs(r)) == {b"a": 1, b"b": 1, b"c": 1}


def test_bom_only_off_the_first_line_of_each_file(tmp_path):
    (tmp_path / "a").write_bytes(BOM + b"x\n" + BOM + b"x\n")
    (tmp_path / "b").write_bytes(BOM + b"x\n")
    r = run("tally", "--root", tmp_path, "a", "b")
    assert dict(pairs(r)) == {b"x": 2, BOM + b"x": 1}


# --- the answer's shape -------------------------------------------------------------------

def test_top_truncates_and_orders_ties_bytewise(tmp_path):
    data = b"b\na\nc\nb\na\nd\n\xff\n"
    (tmp_path / "f").write_bytes(data)
    r = run("tally", "--root", tmp_path, "--top", "3", "f")
    assert pairs(r) == [(b"a", 2), (b"b", 2), (b"c", 1)]
    assert r.data["truncated"] is True and r.data["distinct"] == 5 and r.data["total"] == 7
    assert r.data["top"][0]["key"] == "a"
    r = run("tally", "--root", tmp_path, "--top", "5", "f")
    assert r.data["truncated"] is False and r.data["top"][-1]["key"] == {"b64": "/w=="}
    r = run("tally", "--root", tmp_path, "--top", "0", "f")
    assert r.data["top"] == [] and r.data["truncated"] is True
    t = run("tally", "--root", tmp_path, "--top", "2", "--format", "text", "f")
    assert t.out == b"      2 a\n      2 b\n[truncated by top: 3 more distinct keys; next: {\"skip\":2}]\n"


def test_default_top_is_20(tmp_path):
    (tmp_path / "f").write_bytes(b"".join(b"k%03d\n" % i for i in range(50)))
    r = run("tally", "--root", tmp_path, "f")
    assert len(r.data["top"]) == 20 and r.data["truncated"] is True
    assert r.data["top"][0]["key"] == "k000"


def test_empty_inputs(tmp_path):
    (tmp_path / "e").write_bytes(b"")
    for r in (run("tally", "--root", tmp_path, "e"), run("tally", stdin=b""), run("tally")):
        assert r.exit == 0
        assert r.data == {"total": 0, "distinct": 0, "skipped": 0, "top": [], "truncated": False,
                          "next": None, "cut": None}


def test_empty_lines_and_no_final_newline(tmp_path):
    r = run("tally", stdin=b"\n\n\nx\n\nx")
    assert pairs(r) == [(b"", 4), (b"x", 2)]


def test_stdin_dash_and_files_in_order(tree):
    r = run("tally", "--root", tree.root, "plain.txt", "-", "crlf.txt", stdin=b"alpha\nalpha\n")
    d = dict(pairs(r))
    assert d[b"alpha"] == 3 and d[b"one"] == 1 and r.data["total"] == 10 + 2 + 3


def test_missing_field_is_skipped_not_empty(tmp_path):
    r = run("tally", "--field", "3", "--delim", ":", stdin=b"a:b:c\na:b\na\na::\n:::\n")
    assert dict(pairs(r)) == {b"c": 1, b"": 2} and r.data["skipped"] == 2
    r = run("tally", "--field", "2", stdin=b"a\tb\nno tab\n")  # default delimiter: a tab
    assert dict(pairs(r)) == {b"b": 1} and r.data["skipped"] == 1


def test_nul_and_non_utf8_keys(tmp_path):
    r = run("tally", stdin=b"\x00\n\x00\nlat\xe9\n")
    assert pairs(r) == [(b"\x00", 2), (b"lat\xe9", 1)]
    assert r.data["top"][0]["key"] == "\u0000" and r.data["top"][1]["key"] == {"b64": "bGF06Q=="}


def test_binary_garbage_is_counted_as_the_model_says(tmp_path):
    data = random.Random(77).randbytes(3 * MiB)
    (tmp_path / "g").write_bytes(data)
    r = run("tally", "--root", tmp_path, "--top", "5", "g")
    want, skipped = model([data])
    assert pairs(r) == ordered(want)[:5]
    assert r.data["distinct"] == len(want) and r.data["skipped"] == skipped


# --- limits -------------------------------------------------------------------------------

def test_max_keys_stops_with_the_counts_so_far(tmp_path):
    data = b"a\nb\na\nc\nb\nd\na\n"
    (tmp_path / "f").write_bytes(data)
    r = run("tally", "--root", tmp_path, "--max-keys", "2", "f", "f")
    assert r.exit == 8 and r.rules == ["limit.too-many-keys"]
    assert r.doc["ok"] is False and pairs(r) == [(b"a", 2), (b"b", 1)]
    assert r.data["total"] == 3 and r.data["distinct"] == 2
    d = r.errors[0]["detail"]
    assert d == {"path": "f", "line": 4, "max_keys": 2, "ceiling": 10000000, "total": 3}
    assert r.errors[0]["repair"]["kind"] == "none"
    # exactly at the cap is fine
    r = run("tally", "--root", tmp_path, "--max-keys", "4", "f")
    assert r.exit == 0 and r.data["distinct"] == 4


def test_max_keys_over_many_batches_stops_at_the_exact_line(tmp_path):
    data = b"".join(b"%d\n" % (i % 100) for i in range(1000)) + b"".join(
        b"new%d\n" % i for i in range(100))
    r = run("tally", "--max-keys", "150", stdin=data)
    assert r.rules == ["limit.too-many-keys"]
    assert r.errors[0]["detail"]["line"] == 1051
    assert r.data["total"] == 1050 and r.data["distinct"] == 150


def test_line_too_long_skips_names_and_retries(tmp_path):
    data = b"short\n" + b"x" * 300 + b"\nshort\n" + b"y" * 500 + b"\r\n" + b"z" * 700
    (tmp_path / "f").write_bytes(data)
    r = run("tally", "--root", tmp_path, "--max-line-bytes", "100", "f")
    assert r.exit == 8 and r.rules == ["limit.line-too-long"]
    assert pairs(r) == [(b"short", 2)] and r.data["skipped"] == 3
    d = r.errors[0]["detail"]
    assert d["longest"] == 700 and d["count"] == 3 and d["max_line_bytes"] == 100
    assert d["lines"] == [{"path": "f", "line": 2, "length": 300},
                          {"path": "f", "line": 4, "length": 501},
                          {"path": "f", "line": 5, "length": 700}]
    again = r.retried[0]  # tack.run executed the retry; it must clear the rule
    assert again.exit == 0 and again.data["skipped"] == 0 and again.data["distinct"] == 4
    argv = [tack.tob(a) for a in r.errors[0]["repair"]["argv"]]
    assert b"--max-line-bytes=700" in argv and b"100" not in argv


def test_line_too_long_through_a_pipe_across_chunks(tmp_path):
    big = b"q" * (600 * 1024)
    r = run("tally", "--max-line-bytes", "1000", stdin=b"a\n" + big + b"\r\na\n" + big)
    assert r.rules == ["limit.line-too-long"] and pairs(r) == [(b"a", 2)]
    assert r.errors[0]["detail"]["longest"] == len(big) + 1
    assert r.retried[0].exit == 0
    # two keys of 600 KiB pass the 64 KiB budget: the second is on the next page
    again = r.retried[0].data
    assert dict(pairs(r.retried[0])) == {b"a": 2, big: 1} and again["distinct"] == 3
    assert (again["cut"], again["next"]) == ("max-bytes", {"skip": 2})


def test_line_too_long_error_sits_in_input_order(tmp_path):
    (tmp_path / "long").write_bytes(b"x" * 200 + b"\n")
    r = run("tally", "--root", tmp_path, "--max-line-bytes", "10", "long", "missing")
    assert r.rules == ["limit.line-too-long", "io.not-found"] and r.exit == 8
    r = run("tally", "--root", tmp_path, "--max-line-bytes", "10", "missing", "long")
    assert r.rules == ["io.not-found", "limit.line-too-long"] and r.exit == 3


def test_line_past_the_ceiling_has_no_retry(tmp_path):
    with open(tmp_path / "big", "wb") as f:
        f.write(b"x" * (16 * MiB + 1) + b"\nafter\n")
    r = run("tally", "--root", tmp_path, "big")
    assert r.rules == ["limit.line-too-long"]
    assert r.errors[0]["repair"]["kind"] == "none"
    assert pairs(r) == [(b"after", 1)]


def test_named_lines_are_bounded(tmp_path):
    r = run("tally", "--max-line-bytes", "1", stdin=b"xx\n" * 5000)
    d = r.errors[0]["detail"]
    assert d["count"] == 5000 and len(d["lines"]) == 100 and r.data["skipped"] == 5000


# --- M3: every declared rule reached ------------------------------------------------------

# --- --match: count only the lines that hold a pattern ------------------------------------

def grep_c(data, *flags, pattern):
    p = subprocess.run(["grep", "-c", *flags, "--", pattern], input=data, capture_output=True,
                       env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"})
    assert p.returncode in (0, 1), p.stderr
    return int(p.stdout)


def line_count(data):
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)


@pytest.mark.parametrize("seed", range(10))
def test_match_total_is_grep_c(tmp_path, seed):
    """Literal patterns over random lines (NUL, Latin-1, CR, empty lines, no final newline):
    the lines counted are grep -c's, with -i grep -ci's (ASCII folding in the C locale), and
    the counts of what matched are grep -F | sort | uniq -c's."""
    rnd = random.Random(900 + seed)
    data = random_input(rnd, crlf=False, final_newline=seed % 3 != 0)
    if b"\n" in data and all(l.endswith(b"\r") for l in data.split(b"\n")[:-1]):
        data += b"bare\n"  # a raw file: the keys keep their \r
    (tmp_path / "in.txt").write_bytes(data)
    for pattern in [b"a", b"alpha", b"ALPHA", b"\xe9", b"\xff", b" ", b"x ", b"nothing-here",
                    b""]:
        for icase in ([], ["-i"]):
            r = run("tally", "--root", tmp_path, "--top", ALL, *WHOLE, "--match", pattern, *icase,
                    "in.txt")
            assert r.exit == 0
            want = grep_c(data, "-F", "-a", *icase, pattern=pattern)
            assert r.data["total"] == want, (pattern, icase)
            assert r.data["unmatched"] == line_count(data) - want
            assert r.data["skipped"] == 0
            if not icase:
                kept = [l for l in data.split(b"\n")[:line_count(data)] if pattern in l]
                assert collections.Counter(dict(pairs(r))) == collections.Counter(kept)


@pytest.mark.parametrize("pattern,flags", [
    ("^a", []), ("a$", []), ("[0-9]+", []), ("al(pha|t)", []), ("^$", []), ("b.t", []),
    ("ALPHA", ["-i"]), ("^(x|y)+ ", []), ("zz+", []),
])
def test_regex_total_is_grep_c_e(tmp_path, pattern, flags):
    rnd = random.Random(sum(pattern.encode()))
    words = [b"alpha", b"beta", b"", b"bat", b"12", b"x y", b"alt", b"a", b"xx ", b"Alpha"]
    lines = [rnd.choice(words) + rnd.choice(words) for _ in range(500)]
    data = b"\n".join(lines) + b"\n"
    (tmp_path / "in.txt").write_bytes(data)
    r = run("tally", "--root", tmp_path, "--top", "0", "--regex", "--match", pattern, *flags,
            "in.txt")
    want = grep_c(data, "-E", *flags, pattern=pattern)
    assert (r.exit, r.data["total"], r.data["unmatched"]) == (0, want, len(lines) - want)


def test_match_with_field_tests_the_whole_line(tmp_path):
    data = b"GET,/a,200\nPOST,/b,500\nGET,/c,500\nGET\nPUT,/d,GET\n"
    (tmp_path / "log.csv").write_bytes(data)
    r = run("tally", "--root", tmp_path, "--field", "2", "--delim", ",", "--match", "GET",
            "log.csv")
    # GET,/a GET,/c and PUT,/d,GET hold GET (the whole line is tested); the bare GET has no
    # field 2: it matched, so it is skipped, not unmatched
    assert pairs(r) == [(b"/a", 1), (b"/c", 1), (b"/d", 1)]
    assert (r.data["total"], r.data["skipped"], r.data["unmatched"]) == (3, 1, 1)
    assert r.data["total"] + r.data["skipped"] == grep_c(data, "-F", pattern=b"GET")


def test_match_never_matching_and_empty_pattern(tmp_path):
    (tmp_path / "in.txt").write_bytes(b"a\nb\n\nc")
    r = run("tally", "--root", tmp_path, "--match", "zzz", "in.txt")
    assert r.exit == 0 and r.errors == []
    assert (r.data["total"], r.data["distinct"], r.data["unmatched"], r.data["top"]) == \
        (0, 0, 4, [])
    r = run("tally", "--root", tmp_path, "--match", "", "in.txt")
    assert (r.data["total"], r.data["unmatched"]) == (4, 0)  # grep -c '' counts every line
    assert r.data["total"] == grep_c(b"a\nb\n\nc", pattern=b"")
    r = run("tally", "--root", tmp_path, "--regex", "--match", "", "in.txt")
    assert (r.data["total"], r.data["unmatched"]) == (4, 0)
    # without --match there is no unmatched count
    assert "unmatched" not in run("tally", "--root", tmp_path, "in.txt").data


def test_match_sees_the_line_without_its_final_cr_or_bom(tmp_path):
    (tmp_path / "crlf.txt").write_bytes(b"\xef\xbb\xbfstart x\r\nmid x\r\nend y\r\n")
    (tmp_path / "raw.txt").write_bytes(b"one x\r\ntwo x\n")
    for f in ("crlf.txt", "raw.txt"):
        r = run("tally", "--root", tmp_path, "--regex", "--match", "x$", f)
        assert r.data["total"] == 2, f
    r = run("tally", "--root", tmp_path, "--regex", "--match", "^start", "crlf.txt")
    assert r.data["total"] == 1
    # the raw file's key keeps its \r: only the match ignores it
    r = run("tally", "--root", tmp_path, "--match", "x", "raw.txt")
    assert pairs(r) == [(b"one x\r", 1), (b"two x", 1)]


def test_match_non_utf8_lines_and_pattern(tmp_path):
    data = b"caf\xe9 1\ncaf\xc3\xa9 2\n\xff\xfe\n\x00nul\n"
    (tmp_path / "in.txt").write_bytes(data)
    r = run("tally", "--root", tmp_path, "--match", b"caf\xe9", "in.txt")
    assert pairs(r) == [(b"caf\xe9 1", 1)] and r.data["unmatched"] == 3
    r = run("tally", "--root", tmp_path, "--match", "nul", "in.txt")
    assert pairs(r) == [(b"\x00nul", 1)]
    r = run("tally", "--root", tmp_path, "--regex", "--match", "caf.", "in.txt")
    assert pairs(r) == [(b"caf\xc3\xa9 2", 1)]  # `.` is one UTF-8 character
    r = run("tally", "--root", tmp_path, "--regex", "-i", "--match", "CAFÉ", "in.txt")
    assert pairs(r) == [(b"caf\xc3\xa9 2", 1)]  # Unicode folding with --regex


def test_match_counts_stay_exact_when_the_key_cap_stops(tmp_path):
    lines = [b"k%d %s" % (i, b"hit" if i % 3 else b"miss") for i in range(200)]
    (tmp_path / "in.txt").write_bytes(b"\n".join(lines) + b"\n")
    r = run("tally", "--root", tmp_path, "--max-keys", "50", "--match", "hit", "in.txt")
    assert r.rules == ["limit.too-many-keys"]
    stop = r.errors[0]["detail"]["line"]  # the line whose key did not fit
    assert lines[stop - 1].endswith(b"hit")
    before = lines[:stop - 1]
    assert r.data["total"] == sum(l.endswith(b"hit") for l in before) == 50
    assert r.data["unmatched"] == sum(l.endswith(b"miss") for l in before)


def test_match_long_lines_are_skipped_untested(tmp_path):
    (tmp_path / "in.txt").write_bytes(b"hit\n" + b"hit" * 100 + b"\nmiss\n")
    r = run("tally", "--root", tmp_path, "--max-line-bytes", "10", "--match", "hit", "in.txt")
    assert r.rules == ["limit.line-too-long"]
    assert (r.data["total"], r.data["skipped"], r.data["unmatched"]) == (1, 1, 1)
    assert r.retried[0].data["total"] == 2


def test_match_text_mode(tmp_path):
    (tmp_path / "in.txt").write_bytes(b"a x\na x\nb x\nc\n")
    t = run("tally", "--root", tmp_path, "--format", "text", "--match", "x", "in.txt")
    assert t.out == b"      2 a x\n      1 b x\n[3 counted, 0 skipped, 1 did not match]\n"
    t = run("tally", "--root", tmp_path, "--format", "text", "--top", "0", "--match", "q",
            "in.txt")
    assert t.out == b"[0 counted, 0 skipped, 4 did not match]\n"


@pytest.mark.parametrize("args,rule,reason", [
    (["--regex", "--match", "a("], "query.bad-pattern", "syntax"),
    (["--regex", "--match", "a{1001}"], "query.bad-pattern", "syntax"),
    (["--regex", "-i", "--match", "\\p{Nope}"], "query.bad-pattern", "syntax"),
    (["--match", "a\nb"], "query.bad-pattern", "newline"),
    (["--regex", "--match", "a\nb"], "query.bad-pattern", "newline"),
    (["--regex"], "args.required-flag", None),
    (["-i"], "args.required-flag", None),
], ids=["paren", "repeat", "bad-class", "newline", "regex-newline", "regex-alone", "i-alone"])
def test_bad_patterns_are_refused_before_reading(args, rule, reason):
    """Not even standard input (a pipe that never ends) is read."""
    p = subprocess.Popen([tack.bin_path("tally"), *args], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate(timeout=5)
    doc = tack.check_output("tally", [tack.to_bytes(a) for a in args], p.returncode, out, err)
    assert [e["rule"] for e in doc["errors"]] == [rule] and p.returncode == 2
    if reason:
        assert doc["error"]["detail"]["reason"] == reason
        assert tack.tob(doc["error"]["detail"]["pattern"]) == args[-1].encode()
    assert "data" not in doc


R = "{root}"
FIXTURES = [
    ("args.unknown-flag", [R, "--fields", "2", "plain.txt"], {}),
    ("args.missing-value", [R, "plain.txt", "--top"], {}),
    ("args.bad-value", [R, "--top", "100001", "plain.txt"], {}),
    ("args.bad-value", [R, "--field", "0", "plain.txt"], {}),
    ("args.bad-value", [R, "--field", "2", "--delim", "::", "plain.txt"], {}),
    ("args.bad-value", [R, "--field", "2", "--delim", "\n", "plain.txt"], {}),
    ("args.bad-value", [R, "--max-keys", "10000001", "plain.txt"], {}),
    ("args.unexpected-value", [R, "--version=2", "plain.txt"], {}),
    ("args.duplicate-flag", [R, "--top", "1", "-n", "2", "plain.txt"], {}),
    ("args.required-flag", [R, "--delim", ",", "plain.txt"], {}),
    ("path.empty", [R, ""], {}),
    ("path.dotdot", [R, "dir/../plain.txt"], {}),
    ("path.absolute", [R, R + "/plain.txt"], {}),
    ("path.outside-root", [R, "/etc/passwd"], {}),
    ("path.too-long", [R, "a" * 4097], {}),
    ("path.symlink", [R, "link_out_file"], {}),
    ("io.not-found", [R, "missing.txt"], {}),
    ("io.not-a-directory", [R, "plain.txt/x"], {}),
    ("io.is-a-directory", [R, "dir"], {}),
    ("io.is-a-directory", [], {"stdin_dir": True}),
    ("io.special-file", [R, "fifo"], {}),
    ("io.special-file", ["/dev/zero"], {}),
    ("io.permission-denied", [R, "noaccess.txt"], {"wrap": tack.NO_DAC}),
    ("io.read-failed", ["/proc/self/mem"], {}),
    ("limit.line-too-long", [R, "--max-line-bytes", "100", "long.txt"], {}),
    ("limit.too-many-keys", [R, "--max-keys", "3", "plain.txt"], {}),
    ("args.required-flag", [R, "--regex", "plain.txt"], {}),
    ("args.required-flag", [R, "-i", "plain.txt"], {}),
    ("query.bad-pattern", [R, "--regex", "--match", "a(", "plain.txt"], {}),
    ("query.bad-pattern", [R, "--match", "a\nb", "plain.txt"], {}),
    ("limit.too-many-keys", [R, "--max-keys", "1", "--match", "e", "plain.txt"], {}),
]


def _fixture(tree, args, opts, extra=()):
    if not os.path.exists(tree.p("fifo")):
        tree.fifo("fifo")
        tree.no_access("noaccess.txt")
    a = []
    for x in args:
        if x == R:
            a += ["--root", str(tree.root)]
        else:
            a.append(x.replace(R, str(tree.root)))
    if opts.get("stdin_dir"):
        # stdin is a directory: the read fails with EISDIR
        fd = os.open(tree.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            p = subprocess.run([tack.bin_path("tally"), *extra, *a], stdin=fd, capture_output=True,
                               timeout=10)
        finally:
            os.close(fd)
        parsed = tack.check_output("tally", [tack.to_bytes(x) for x in [*extra, *a]],
                                   p.returncode, p.stdout, p.stderr)
        return tack.Result("tally", [], p.returncode, p.stdout, p.stderr, parsed)
    return run("tally", *extra, *a, wrap=opts.get("wrap"), cwd=tree.root.parent, timeout=10)


@pytest.mark.parametrize("fx", FIXTURES, ids=[f"{f[0]}-{i}" for i, f in enumerate(FIXTURES)])
def test_fixture_reaches_its_rule(tree, fx):
    rule, args, opts = fx
    r = _fixture(tree, args, opts)
    assert r.rules and r.rules[0] == rule, r
    assert r.exit == tack.CATALOGUE[rule] and r.doc["ok"] is False
    if rule.startswith(("args.", "path.", "query.")) and rule != "path.symlink":
        assert "data" not in r.doc  # refused before anything was opened
    else:
        assert "data" in r.doc      # what was counted is still the answer
    t = _fixture(tree, args, opts, extra=("--format", "text"))
    assert t.exit == tack.CATALOGUE[rule] and t.err.startswith(f"tally: {rule}: ".encode())


def test_reached_rules_equal_declared_rules(tree):
    reached = set()
    for rule, args, opts in FIXTURES:
        reached.update(_fixture(tree, args, opts).rules)
    declared = set(tack.declared_rules("tally"))
    assert reached == declared, (declared - reached, reached - declared)


def test_retry_repairs_were_executed_and_cleared(tree):
    before = len(tack.RETRIES)
    assert run("tally", "--root", tree.root, "--tpo", "3", "plain.txt").retried[0].exit == 0
    assert run("tally", "--root", tree.root, "dir/../plain.txt").retried[0].exit == 0
    assert run("tally", "--root", tree.root, f"{tree.root}/plain.txt").retried[0].exit == 0
    r = run("tally", "--root", tree.root, "--max-line-bytes", "100", "long.txt")
    assert r.retried[0].exit == 0 and r.retried[0].data["skipped"] == 0
    rules = {x["rule"] for x in tack.RETRIES[before:] if x["tool"] == "tally"}
    assert rules == {"args.unknown-flag", "path.dotdot", "path.absolute", "limit.line-too-long"}


def test_argument_errors_read_nothing(tree):
    """With a bad flag, not even standard input is read (a pipe that never ends)."""
    p = subprocess.Popen([tack.bin_path("tally"), "--top", "x"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, _ = p.communicate(timeout=5)
    assert p.returncode == 2 and b"args.bad-value" in out


def test_several_errors_all_reported_and_counting_goes_on(tree):
    tree.fifo("fifo")
    r = run("tally", "--root", tree.root, "plain.txt", "missing.txt", "fifo", "dir",
            "link_out_file", "crlf.txt", timeout=10)
    assert r.rules == ["io.not-found", "io.special-file", "io.is-a-directory", "path.symlink"]
    assert r.exit == 3 and r.data["total"] == 13


# --- hostile sinks ------------------------------------------------------------------------

def test_closed_stdout_is_a_write_failure(tree):
    p = subprocess.run(f'"{tack.bin_path("tally")}" --root "{tree.root}" plain.txt >&-',
                       shell=True, capture_output=True, timeout=10)
    assert p.returncode == 1 and p.stderr.startswith(b"tally: io.write-failed: ")


def test_full_disk_is_a_write_failure(tree):
    with open("/dev/full", "wb") as full:
        p = subprocess.run([tack.bin_path("tally"), "--root", str(tree.root), "plain.txt"],
                           stdout=full, stderr=subprocess.PIPE, timeout=10)
    assert p.returncode == 1 and p.stderr.startswith(b"tally: io.write-failed: ")


def test_nonblocking_stdin_pipe_is_waited_for():
    """A pipe handed over in O_NONBLOCK mode with the writer still slow: no EAGAIN error."""
    script = (
        "import os, subprocess, sys, time, fcntl\n"
        "r, w = os.pipe()\n"
        "fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_NONBLOCK)\n"
        "p = subprocess.Popen([sys.argv[1]], stdin=r, stdout=subprocess.PIPE)\n"
        "os.close(r)\n"
        "time.sleep(0.3); os.write(w, b'a\\nb\\n'); time.sleep(0.3); os.write(w, b'a\\n')\n"
        "os.close(w)\n"
        "sys.stdout.buffer.write(p.communicate()[0]); sys.exit(p.returncode)\n")
    p = subprocess.run(["/usr/bin/python3", "-c", script, tack.bin_path("tally")],
                       capture_output=True, timeout=20)
    doc = tack.check_output("tally", [], p.returncode, p.stdout, b"")
    assert doc["data"]["top"] == [{"key": "a", "count": 2}, {"key": "b", "count": 1}]


# --- M9: memory flat ----------------------------------------------------------------------

def peak_rss_kib(argv, stdin=None):
    launcher = tack.BIN.parent / "support" / "maxrss"
    if launcher.exists():
        p = subprocess.run([str(launcher), *map(str, argv)], capture_output=True, stdin=stdin,
                           timeout=300)
        return int(p.stdout.split()[-1])
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *map(str, argv)], stdin=stdin,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    return int(p.stderr.split()[-1])


def _block():
    """1 MiB of CSV lines over 5000 distinct keys (field 2), some CRLF-free long-ish lines."""
    rnd = random.Random(11)
    out = bytearray()
    while len(out) < MiB - 100:
        out += b"%d,key%04d,%s\n" % (rnd.randrange(10 ** 6), rnd.randrange(5000),
                                     b"v" * rnd.randrange(60))
    out += b"z" * (MiB - len(out) - 1) + b"\n"
    return bytes(out)


@pytest.fixture(scope="module")
def big_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("tally-m9")
    block = _block()
    for n in (1, 64, 256):
        with open(d / f"f{n}.csv", "wb") as f:
            for _ in range(n):
                f.write(block)
    return d


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["field", "lines", "stdin"])
def test_peak_rss_is_flat(big_files, mode):
    rss = {}
    for n in (1, 64, 256):
        if mode == "stdin":
            with open(big_files / f"f{n}.csv", "rb") as f:
                rss[n] = peak_rss_kib([tack.bin_path("tally"), "-f", "2", "-d", ","], stdin=f)
        else:
            opts = ["-f", "2", "-d", ","] if mode == "field" else []
            rss[n] = peak_rss_kib([tack.bin_path("tally"), "--root", big_files, *opts,
                                   f"f{n}.csv"])
    # in lines mode nearly every line of the block is a distinct key: the keys held are the
    # block's, and the 64 and 256 MiB files (the same block repeated) must hold no more
    assert max(rss.values()) / min(rss.values()) <= 1.5, rss


@pytest.mark.slow
def test_big_file_counts_are_right(big_files):
    r = run("tally", "--root", big_files, "-f", "2", "-d", ",", "--top", "3", "f256.csv")
    block = _block()
    want, skipped = model([block], 2, b",")
    assert r.data["total"] == 256 * sum(want.values())
    assert r.data["skipped"] == 256 * skipped and r.data["distinct"] == len(want)
    assert pairs(r) == [(k, 256 * c) for k, c in ordered(want)[:3]]


# --- M1: the schema can say no ------------------------------------------------------------

@pytest.mark.parametrize("mutate", [
    lambda d: d["data"]["top"][0].update(count=0),
    lambda d: d["data"]["top"][0].update(key=["x"]),
    lambda d: d["data"].pop("skipped"),
    lambda d: d["data"].update(total=1.5),
    lambda d: d["data"].update(extra=True),
], ids=["count-0", "key-list", "missing", "float", "extra"])
def test_schema_rejects_broken_documents(tree, mutate):
    import copy
    doc = copy.deepcopy(run("tally", "--root", tree.root, "plain.txt").doc)
    tack.validate("tally", doc)
    mutate(doc)
    with pytest.raises(tack.ContractViolation):
        tack.validate("tally", doc)


def test_a_file_named_dash_is_dot_slash_dash(tmp_path):
    (tmp_path / "-").write_bytes(b"from the file\n")
    r = run("tally", "--root", tmp_path, "./-", stdin=b"from stdin\n")
    assert pairs(r) == [(b"from the file", 1)]


# --- M2: same bytes whatever the sink, locale, zone or terminal ---------------------------

def test_same_bytes_in_every_sink_and_environment(tree):
    envs = [{"PATH": "/usr/bin"},
            {"PATH": "/usr/bin", "LC_ALL": "tr_TR.UTF-8", "TZ": "Asia/Kolkata", "TERM": "xterm"},
            {"PATH": "/usr/bin", "LANG": "de_DE.UTF-8", "COLUMNS": "7", "TERM": "dumb"}]
    for args in (["--top", "5", "plain.txt", "crlf.txt", "latin1.txt", "nul.bin", "bom.txt"],
                 ["--format", "text", "--field", "1", "--delim", " ", "plain.txt"],
                 ["--max-line-bytes", "10", "long.txt"]):
        argv = [tack.bin_path("tally"), "--root", str(tree.root), *args]
        seen = {tack.run_sink(argv, sink, env=env, cwd="/") for sink in tack.SINKS for env in envs}
        assert len(seen) == 1, seen
        code, out, err = seen.pop()
        assert out
        tack.check_output("tally", [tack.to_bytes(a) for a in argv[1:]], code, out, err)
