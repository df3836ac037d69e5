"""seek — behaviour on hostile inputs, M1 (every output validated by tack.run), M2 (same bytes
every run, parallel or not, in any locale and sink), M3 (every declared rule reached here,
every retry executed and clearing its error).

The walk's ignore rules and the differentials live in test_seek_walk.py and
test_seek_grep.py; confinement and memory in test_seek_confine.py.
"""

import os
import subprocess

import pytest

import tack
from tack import run, tob

REACHED = set()


def S(*args, **kw):
    r = run("seek", *args, **kw)
    REACHED.update(r.rules)
    return r


def recs(r, kind):
    return [x for x in r.json if x["type"] == kind]


def end(r):
    return r.json[-1]


def matches(r):
    return [(tob(m["path"]), m["line"], m["offset"], tob(m["text"])) for m in recs(r, "match")]


# --- records --------------------------------------------------------------------------------

def test_match_records_have_lines_offsets_spans(tree):
    r = S("--root", tree.root, "eta", "plain.txt")
    assert r.exit == 0
    ms = recs(r, "match")
    # "beta", "zeta", "eta", "theta" (line 3 has "δelta": no "eta")
    assert [m["line"] for m in ms] == [2, 6, 7, 8]
    lines = tack.split_lines(tack.PLAIN)
    offsets = [sum(len(l) + 1 for l in lines[: m["line"] - 1]) for m in ms]
    assert [m["offset"] for m in ms] == offsets
    for m in ms:
        t = tob(m["text"])
        assert t == lines[m["line"] - 1]
        for s, e in m["spans"]:
            assert t[s:e] == b"eta"
    f = recs(r, "file")
    assert f == [{"type": "file", "path": "plain.txt", "matches": 4, "bytes": len(tack.PLAIN),
                  "binary": False}]
    e = end(r)
    assert (e["files"], e["matches"], e["errors"], e["truncated"], e["next"]) == (1, 4, 0, False, None)
    assert e["complete"] is True


def test_all_spans_in_a_line_leftmost_first_non_overlapping(tree):
    tree.write("rep.txt", b"aaaaa\nxaaax\n")
    r = S("--root", tree.root, "aa", "rep.txt")
    assert [m["spans"] for m in recs(r, "match")] == [[[0, 2], [2, 4]], [[1, 3]]]


def test_crlf_file_is_matched_and_shown_without_cr(tree):
    r = S("--root", tree.root, "o", "crlf.txt")
    assert [(m["line"], m["offset"], m["text"]) for m in recs(r, "match")] == [
        (1, 0, "one"), (2, 5, "two")]
    # a '\r' is not part of a CRLF line, so a pattern cannot reach into it
    r = S("--root", tree.root, "--regex", "o$", "crlf.txt")
    assert [m["line"] for m in recs(r, "match")] == [2]


def test_a_stray_cr_ending_the_last_line_of_a_crlf_file_is_the_lines_own(tree):
    # Only a '\r' before '\n' is a line ending: seek shows and matches "b\r" as peek shows it.
    tree.write("cr.txt", b"a\r\nb\r")
    r = S("--root", tree.root, "b", "cr.txt")
    assert [(m["line"], m["text"]) for m in recs(r, "match")] == [(2, "b\r")]
    r = S("--root", tree.root, "--regex", "\r", "cr.txt")
    assert [(m["line"], m["spans"]) for m in recs(r, "match")] == [(2, [[1, 2]])]
    r = S("--root", tree.root, "-C", "1", "a", "cr.txt")
    assert [x["text"] for x in recs(r, "context")] == ["b\r"]
    p = run("peek", "--root", tree.root, "cr.txt")
    assert [x["text"] for x in p.data["lines"]] == ["a", "b\r"]


def test_mixed_endings_are_taken_raw(tree):
    r = S("--root", tree.root, "--regex", "e\r$", "mixed.txt")
    assert [(m["line"], m["text"]) for m in recs(r, "match")] == [(1, "one\r"), (3, "three\r")]


def test_bom_is_not_part_of_line_one(tree):
    r = S("--root", tree.root, "--regex", "^with", "bom.txt")
    assert [(m["line"], m["offset"], m["text"], m["spans"]) for m in recs(r, "match")] == [
        (1, 3, "with bom", [[0, 4]])]


def test_last_line_without_newline(tree):
    r = S("--root", tree.root, "newline", "nofinal.txt")
    assert [(m["line"], m["offset"], m["text"]) for m in recs(r, "match")] == [
        (3, 13, "last-without-newline")]


def test_latin1_text_is_base64_never_replacement(tree):
    r = S("--root", tree.root, "caf", "latin1.txt")
    (m,) = recs(r, "match")
    assert m["text"] == {"b64": "Y2Fm6Q=="} and tob(m["text"]) == b"caf\xe9"


def test_binary_named_is_searched_and_flagged(tree):
    r = S("--root", tree.root, "def", "nul.bin")
    (m,) = recs(r, "match")
    assert tob(m["text"]) == b"abc\x00def" and m["spans"] == [[4, 7]]
    assert recs(r, "file")[0]["binary"] is True


def test_binary_in_a_walk_is_skipped_and_counted(tree):
    r = S("--root", tree.root, "def")
    assert matches(r) == []
    assert end(r)["skipped"]["binary"] == 1


def test_errors_in_input_order_and_the_rest_still_searched(tree):
    r = S("--root", tree.root, "e", "plain.txt", "nope", "crlf.txt")
    kinds = [x["type"] for x in r.json]
    first_err = kinds.index("error")
    assert all(tob(x["path"]) == b"plain.txt" for x in r.json[:first_err])
    assert r.json[first_err]["error"]["rule"] == "io.not-found"
    assert any(tob(x.get("path", "")) == b"crlf.txt" for x in r.json[first_err:-1])
    assert r.exit == 3 and end(r)["complete"] is False and end(r)["errors"] == 1


def test_default_path_is_the_root(tree):
    a = S("--root", tree.root, "deep")
    assert matches(a) == [(b"dir/sub/deep.txt", 1, 0, b"deep inside")]
    b = S("deep", cwd=tree.root)
    assert matches(b) == matches(a)


def test_empty_pattern_matches_every_line(tree):
    r = S("--root", tree.root, "", "crlf.txt")
    assert [(m["line"], m["spans"]) for m in recs(r, "match")] == [(1, [[0, 0]]), (2, [[0, 0]]), (3, [[0, 0]])]


def test_case_folding_literal_is_ascii_regex_is_unicode(tree):
    tree.write("case.txt", "ÉCOLE école\nSTRAẞE\n".encode())
    lit = S("--root", tree.root, "-i", "école", "case.txt")
    assert [m["spans"] for m in recs(lit, "match")] == [[[7, 13]]]  # É is not folded
    rx = S("--root", tree.root, "-i", "--regex", "école", "case.txt")
    assert [m["spans"] for m in recs(rx, "match")] == [[[0, 6], [7, 13]]]


def test_word(tree):
    tree.write("w.txt", b"foo foobar barfoo (foo) _foo foo_\n")
    r = S("--root", tree.root, "--word", "foo", "w.txt")
    assert recs(r, "match")[0]["spans"] == [[0, 3], [19, 22]]
    r = S("--root", tree.root, "--word", "--regex", "fo+", "w.txt")
    assert recs(r, "match")[0]["spans"] == [[0, 3], [19, 22]]


def test_text_format_is_grep_like(tree):
    r = S("--root", tree.root, "--format", "text", "-C", "1", "two", "crlf.txt")
    assert r.out == b"crlf.txt-1-one\ncrlf.txt:2:two\ncrlf.txt-3-three\n"


# --- context --------------------------------------------------------------------------------

def test_context_records_around_matches(tree):
    r = S("--root", tree.root, "-C", "1", "zeta", "plain.txt")
    assert [(x["type"], x["line"], tob(x["text"])) for x in r.json[:-2]] == [
        ("context", 5, b"epsilon"), ("match", 6, b"zeta"), ("context", 7, b"eta")]


def test_context_line_longer_than_the_cap_has_no_text(tree):
    r = S("--root", tree.root, "-C", "1", "--max-line-bytes", "1024", "short 2", "long.txt")
    ctx = recs(r, "context")
    assert ctx[-1] == {"type": "context", "path": "long.txt", "line": 3, "offset": 16, "text": None,
                       "length": len(tack.LONG_LINE)}


# --- paging ---------------------------------------------------------------------------------

def make_many(tree, n_files=12, per_file=7):
    for i in range(n_files):
        body = b"".join(b"hit %d.%d\nmiss\n" % (i, j) for j in range(per_file))
        tree.write(f"many/f{i:02d}.txt", body)


def test_max_count_and_skip_page_through_exactly(tree):
    make_many(tree)
    full = S("--root", tree.root, "-m", "1000", "hit", "many")
    want = matches(full)
    assert len(want) == 84 and end(full)["truncated"] is False
    got, skip = [], 0
    while True:
        r = S("--root", tree.root, "-m", "10", "--skip", str(skip), "hit", "many")
        got += matches(r)
        e = end(r)
        if not e["truncated"]:
            assert e["next"] is None
            break
        assert e["complete"] is False and e["next"] == {"skip": skip + 10}
        skip = e["next"]["skip"]
    assert got == want


def test_truncated_only_when_another_match_exists(tree):
    make_many(tree, n_files=2, per_file=5)
    r = S("--root", tree.root, "-m", "10", "hit", "many")
    assert len(matches(r)) == 10 and end(r)["truncated"] is False and end(r)["complete"] is True
    r = S("--root", tree.root, "-m", "9", "hit", "many")
    assert len(matches(r)) == 9 and end(r)["truncated"] is True
    assert r.exit == 0


def test_paging_keeps_context_of_the_first_match_shown(tree):
    # Three overlapping windows: line 4 is before-context of the match on line 6 even
    # though two skipped matches sit between.
    tree.write("ctx.txt", b"".join(b"%s\n" % w for w in
                                   [b"a", b"b", b"c", b"d", b"X1", b"e", b"X2", b"f", b"X3", b"g", b"h", b"i"]))
    full = S("--root", tree.root, "-C", "3", "X", "ctx.txt")
    lines_full = [(x["type"], x["line"]) for x in full.json if x["type"] in ("match", "context")]
    r = S("--root", tree.root, "-C", "3", "--skip", "2", "X", "ctx.txt")
    got = [(x["type"], x["line"]) for x in r.json if x["type"] in ("match", "context")]
    assert got == [("context", 6), ("context", 8), ("match", 9), ("context", 10), ("context", 11),
                   ("context", 12)]
    # the same lines the full answer shows around line 9, less the matches already paged past
    assert [x for x in lines_full if x[1] >= 6 and x[0] == "context"] == [x for x in got if x[0] == "context"]


def test_paging_with_context_matches_a_reference(tree):
    import random
    rng = random.Random(11)
    words = [b"x", b"y", b"HIT", b"z"]
    body = b"".join(b" ".join(rng.choice(words) for _ in range(3)) + b"\n" for _ in range(300))
    tree.write("r.txt", body)
    lines = tack.split_lines(body)
    hit = [i for i, l in enumerate(lines) if b"HIT" in l]
    for n, skip, count in [(2, 5, 7), (1, 0, 3), (4, 30, 20), (3, 11, 1)]:
        shown = hit[skip: skip + count]
        want = []
        for i in range(len(lines)):
            if i in shown:
                want.append(("match", i + 1))
            elif i not in hit and any(abs(i - h) <= n for h in shown):
                # a context line: not past the match that ends the page
                if i < (hit[skip + count] if skip + count < len(hit) else len(lines)):
                    want.append(("context", i + 1))
        r = S("--root", tree.root, "-C", str(n), "--skip", str(skip), "-m", str(count), "HIT", "r.txt")
        got = [(x["type"], x["line"]) for x in r.json if x["type"] in ("match", "context")]
        assert got == want, (n, skip, count)


# --- long lines -----------------------------------------------------------------------------

def test_long_matching_line_is_one_error_with_a_repair_that_shows_it(tree):
    tree.write("two-long.txt", b"x" * 3000 + b"\n" + b"x" * 5000 + b"\nx\n")
    r = S("--root", tree.root, "--max-line-bytes", "1024", "x", "two-long.txt")
    (e,) = r.errors
    assert e["rule"] == "limit.line-too-long" and r.exit == 8
    assert e["detail"]["lines"] == [1, 2] and e["detail"]["longest"] == 5000
    assert e["repair"]["kind"] == "retry" and b"--max-line-bytes=5000" in [tob(a) for a in e["repair"]["argv"]]
    assert [m["line"] for m in recs(r, "match")] == [3]
    (again,) = r.retried
    # 8,000 one-byte spans pass the 64 KiB budget: line 3 is on the next page
    assert [m["line"] for m in recs(again, "match")] == [1, 2]
    assert (end(again)["cut"], end(again)["next"]) == ("max-bytes", {"skip": 2})


def test_long_line_that_does_not_match_is_no_error(tree):
    r = S("--root", tree.root, "--max-line-bytes", "1024", "short", "long.txt")
    assert r.exit == 0 and [m["line"] for m in recs(r, "match")] == [1, 2, 4, 5]


def test_regex_cannot_search_a_long_line_and_says_so(tree):
    r = S("--root", tree.root, "--regex", "--max-line-bytes", "1024", "^.", "long.txt")
    (e,) = r.errors
    assert e["rule"] == "limit.line-too-long" and e["detail"]["searched"] is False
    assert e["detail"]["lines"] == [3]
    # A literal every match contains ("short") is looked for instead: the long line has none,
    # so it cannot match and is no error.
    r = S("--root", tree.root, "--regex", "--max-line-bytes", "1024", "^short", "long.txt")
    assert r.errors == [] and [m["line"] for m in recs(r, "match")] == [1, 2, 4, 5]


def test_each_long_line_error_has_a_repair_for_its_own_file(tree):
    tree.write("l1.txt", b"q" * 2000 + b"\n")
    tree.write("l2.txt", b"q" * 1500 + b"\n")
    tree.write("l3.txt", b"q" * 4000 + b"\n")
    r = S("--root", tree.root, "--max-line-bytes", "1024", "--skip", "1", "q", "l1.txt", "l2.txt",
          "l3.txt")
    argvs = [[tob(a) for a in e["repair"]["argv"]] for e in r.errors]
    for argv, (name, size) in zip(argvs, [(b"l1.txt", 2000), (b"l2.txt", 1500), (b"l3.txt", 4000)]):
        assert argv[1:3] == [b"--root", os.fsencode(tree.root)]
        assert argv[-3:] == [b"--", b"q", name] and b"--max-line-bytes=%d" % size in argv
        assert b"--skip" not in argv
    # each retry was executed by tack.run and cleared its error; it shows the long line
    assert [[tob(m["text"]) for m in recs(x, "match")] for x in r.retried] == [
        [b"q" * 2000], [b"q" * 1500], [b"q" * 4000]]


def test_line_past_the_ceiling_has_no_seek_retry(tree):
    # A literal is found in it: the repair reads bytes around it with peek (test_seek_long.py);
    # a regex cannot search it, and nothing mechanical can.
    size = 16 * 1024 * 1024 + 10
    with open(tree.p("huge-line.txt"), "wb") as f:
        f.write(b"a" * size + b"\n")
    r = S("--root", tree.root, "a", "huge-line.txt")
    (e,) = r.errors
    assert e["rule"] == "limit.line-too-long" and e["repair"]["kind"] == "retry"
    assert os.path.basename(tob(e["repair"]["argv"][0])) == b"peek"
    assert e["detail"]["longest"] == size and e["detail"]["occurrences"] == size
    r = S("--root", tree.root, "--regex", "a+", "huge-line.txt")
    (e,) = r.errors
    assert e["rule"] == "limit.line-too-long" and e["repair"]["kind"] == "none"


# --- witness --------------------------------------------------------------------------------

def test_witness_is_the_one_peek_gives(tree):
    body = b"".join(b"line %d\n" % (i % 7) for i in range(60)) + b"needle\n" + b"tail\n" * 3
    tree.write("w.txt", body)
    r = S("--root", tree.root, "--witness", "line 3", "w.txt")
    ms = recs(r, "match")
    assert len(ms) == 9
    for m in ms:
        p = run("peek", "--root", tree.root, "--witness", "--lines", str(m["line"]), "w.txt")
        assert p.lines[0]["witness"] == m["witness"]
    bom = S("--root", tree.root, "--witness", "with", "bom.txt")
    p = run("peek", "--root", tree.root, "--witness", "--lines", "1", "bom.txt")
    assert recs(bom, "match")[0]["witness"] == p.lines[0]["witness"]


# --- require-match --------------------------------------------------------------------------

def test_require_match(tree):
    r = S("--root", tree.root, "--require-match", "no-such-text-anywhere")
    (e,) = r.errors
    assert e["rule"] == "precondition.no-match" and r.exit == 8
    assert e["detail"]["files"] == end(r)["files"]
    ok = S("--root", tree.root, "--require-match", "alpha")
    assert ok.exit == 0 and not ok.errors
    # matches passed over by --skip still count as found
    past = S("--root", tree.root, "--require-match", "--skip", "5", "alpha")
    assert past.exit == 0 and matches(past) == []


# --- M2: determinism ------------------------------------------------------------------------

def big_tree(tree):
    for d in range(6):
        for f in range(40):
            body = b"".join(b"row %d needle %d\n" % (k, (d * f + k) % 13) if k % 5 == 0 else b"row\n"
                            for k in range(50))
            tree.write(f"t/d{d}/f{f:03d}.txt", body)
    tree.write("t/d3/zz.bin", b"needle\0")
    os.symlink("/etc", tree.p("t/d2/ln"))


def test_same_bytes_every_run_though_parallel(tree):
    big_tree(tree)
    argv = ["--root", tree.root, "-m", "100000", "-C", "1", "needle 1", "t"]
    first = S(*argv)
    assert len(recs(first, "match")) > 100
    for _ in range(5):
        assert S(*argv).out == first.out
    paths = [tob(f["path"]) for f in recs(first, "file")]
    assert paths == sorted(paths)  # bytewise walk order, whatever finished first


@pytest.mark.parametrize("sink", tack.SINKS)
def test_same_bytes_in_every_sink_locale_and_zone(tree, sink):
    big_tree(tree)
    argv = [tack.bin_path("seek"), "--root", tree.root, "-m", "500", "needle", "t"]
    base = subprocess.run(argv, capture_output=True).stdout
    env = {"LC_ALL": "tr_TR.UTF-8", "LANG": "de_DE.UTF-8", "TZ": "Asia/Kathmandu", "TERM": "xterm-256color",
           "PATH": os.environ.get("PATH", "")}
    code, out, err = tack.run_sink(argv, sink, env=env)
    assert (code, out, err) == (0, base, b"")


# --- M3: every declared rule is reached -----------------------------------------------------

def reach_all(tree, tmp_path):
    """One invocation per rule; returns {rule: Result}."""
    t = tree.root
    deep = tmp_path / "deepdirs"
    d = deep
    for i in range(40):
        d = d / f"d{i}"
    d.mkdir(parents=True)
    (d / "f.txt").write_bytes(b"needle\n")
    tree.fifo("fifo")
    tree.no_access("noaccess.txt")
    big_ignore = tmp_path / "bigignore"
    big_ignore.mkdir()
    with open(big_ignore / ".gitignore", "wb") as f:
        f.truncate(17 * 1024 * 1024)
    (big_ignore / "a.txt").write_bytes(b"needle\n")
    return {
        "args.unknown-flag": lambda: S("--root", t, "--regx", "alpha"),
        "args.missing-value": lambda: S("--root", t, "alpha", "--max-count"),
        "args.bad-value": lambda: S("--root", t, "--max-count", "lots", "alpha"),
        "args.unexpected-value": lambda: S("--root", t, "--hidden=yes", "alpha"),
        "args.duplicate-flag": lambda: S("--root", t, "--skip", "1", "--skip", "2", "alpha"),
        "args.conflict": lambda: S("--root", t, "--count", "--files-with-matches", "alpha"),
        "args.missing-operand": lambda: S("--root", t),
        "args.required-flag": lambda: S("--root", t, "--before", "3", "alpha"),
        "path.empty": lambda: S("--root", t, "alpha", ""),
        "path.dotdot": lambda: S("--root", t, "alpha", "dir/../plain.txt"),
        "path.absolute": lambda: S("--root", t, "alpha", os.path.join(t, "plain.txt")),
        "path.outside-root": lambda: S("--root", t, "alpha", "/etc/hostname"),
        "path.too-long": lambda: S("--root", t, "alpha", "x" * 5000),
        "path.symlink": lambda: S("--root", t, "SECRET", "link_out_file"),
        "io.not-found": lambda: S("--root", t, "alpha", "nope.txt"),
        "io.not-a-directory": lambda: S("--root", t, "alpha", "plain.txt/x"),
        "io.special-file": lambda: S("--root", t, "alpha", "fifo"),
        "io.permission-denied": lambda: S("--root", t, "guarded", wrap=tack.NO_DAC),
        "io.read-failed": lambda: S("--root", deep, "needle", wrap=["prlimit", "--nofile=24"]),
        "limit.line-too-long": lambda: S("--root", t, "--max-line-bytes", "1024", "L", "long.txt"),
        "limit.input-too-large": lambda: S("--root", big_ignore, "needle"),
        "precondition.no-match": lambda: S("--root", t, "--require-match", "zzz-nothing"),
        "query.bad-pattern": lambda: S("--root", t, "--regex", "a(b", "plain.txt"),
    }


def test_every_declared_rule_is_reached(tree, tmp_path):
    fixtures = reach_all(tree, tmp_path)
    declared = set(tack.declared_rules("seek"))
    assert set(fixtures) == declared
    for rule, call in sorted(fixtures.items()):
        r = call()
        assert rule in r.rules, (rule, r.out[-600:])


def test_walk_errors_are_records_in_order_and_the_walk_goes_on(tree, tmp_path):
    fixtures = reach_all(tree, tmp_path)
    r = fixtures["io.read-failed"]()
    (e,) = [e for e in r.errors if e["rule"] == "io.read-failed"]
    assert e["detail"]["errno"] == "EMFILE"
    perm = fixtures["io.permission-denied"]()
    assert [e["detail"]["path"] for e in perm.errors] == ["noaccess.txt"]
    assert matches(perm) == []
    assert end(perm)["files"] >= 8  # everything else was searched
    big = fixtures["limit.input-too-large"]()
    assert big.errors[0]["detail"]["path"] == ".gitignore"
    assert matches(big) == [(b"a.txt", 1, 0, b"needle")]


def test_bad_pattern_reads_nothing_and_says_why(tree):
    r = S("--root", tree.root, "--regex", "a(b", "nope.txt")
    assert r.rules == ["query.bad-pattern"] and r.exit == 2  # nothing was opened
    assert "missing )" in r.errors[0]["detail"]["error"]
    nl = S("--root", tree.root, "a\nb")
    assert nl.rules == ["query.bad-pattern"] and nl.errors[0]["detail"]["reason"] == "newline"


def test_unknown_flag_retry_is_executed(tree):
    r = S("--root", tree.root, "--regx", "alp.a", "plain.txt")
    assert r.retried and r.retried[0].exit == 0
    assert [m["line"] for m in recs(r.retried[0], "match")] == [1]
