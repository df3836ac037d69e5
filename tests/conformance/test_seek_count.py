"""seek's counting modes and several patterns: --count (-c), --files-with-matches (-l),
--max-count 0 (totals only) and -e PATTERN (repeatable). Every output is validated by tack.run
(M1) and every retry executed (M3); the counts are held to GNU grep -rcF / -rlF (M5).
"""

import os
import random
import subprocess

import pytest

import tack
from tack import run, tob

ENV = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "")}


def S(*args, **kw):
    return run("seek", *args, **kw)


def recs(r, kind):
    return [x for x in r.json if x["type"] == kind]


def end(r):
    return r.json[-1]


def counts(r):
    return {tob(f["path"]): f["matches"] for f in recs(r, "file")}


def write_counts_tree(tree):
    tree.write("c/a.txt", b"foo\nbar\nfoo bar\nnone\n")
    tree.write("c/b.txt", b"nothing here\n")
    tree.write("c/sub/c.txt", b"bar\nbar\nbar\n")
    tree.write("c/sub/d.txt", b"xfoox\n")


# --- --count --------------------------------------------------------------------------------

def test_count_gives_exact_counts_per_file_and_in_all(tree):
    write_counts_tree(tree)
    r = S("--root", tree.root, "--count", "bar", "c")
    assert r.exit == 0 and recs(r, "match") == [] and recs(r, "context") == []
    assert recs(r, "file") == [
        {"type": "file", "path": "c/a.txt", "matches": 2, "bytes": 21, "binary": False},
        {"type": "file", "path": "c/sub/c.txt", "matches": 3, "bytes": 12, "binary": False}]
    e = end(r)
    assert (e["files"], e["matches"], e["truncated"], e["next"], e["complete"]) == (4, 5, False, None, True)
    assert "pattern_counts" not in e
    short = S("--root", tree.root, "-c", "bar", "c")
    assert short.out == r.out


def test_count_of_no_match_is_no_record_and_zero(tree):
    write_counts_tree(tree)
    r = S("--root", tree.root, "-c", "zzz", "c")
    assert recs(r, "file") == [] and end(r)["matches"] == 0 and r.exit == 0
    req = S("--root", tree.root, "-c", "--require-match", "zzz", "c")
    assert req.rules == ["precondition.no-match"] and req.exit == 8


def test_count_reads_every_line_so_a_long_one_is_reported(tree):
    # The same file under -l stops at its first match and never meets the long line.
    tree.write("lg.txt", b"hit\n" + b"y" * 3000 + b" hit\nhit\n")
    c = S("--root", tree.root, "-c", "--max-line-bytes", "1024", "hit", "lg.txt")
    assert c.rules == ["limit.line-too-long"] and counts(c) == {b"lg.txt": 2}
    # the retry (executed by tack.run) raises the cap on that one file, and keeps --count
    (again,) = c.retried
    assert b"--count" in again.argv and counts(again) == {b"lg.txt": 3}
    l = S("--root", tree.root, "-l", "--max-line-bytes", "1024", "hit", "lg.txt")
    assert l.exit == 0 and l.errors == [] and [tob(f["path"]) for f in recs(l, "file")] == [b"lg.txt"]


def test_count_pages_by_files_exactly(tree):
    for i in range(9):
        tree.write(f"p/f{i}.txt", b"hit\n" * (i + 1) + b"miss\n")
    tree.write("p/none.txt", b"miss\n")
    full = S("--root", tree.root, "-c", "hit", "p")
    want = [(tob(f["path"]), f["matches"]) for f in recs(full, "file")]
    assert len(want) == 9 and end(full)["matches"] == 45
    got, skip, total = [], 0, 0
    while True:
        r = S("--root", tree.root, "-c", "-m", "4", "--skip", str(skip), "hit", "p")
        page = [(tob(f["path"]), f["matches"]) for f in recs(r, "file")]
        assert len(page) <= 4
        assert end(r)["matches"] == sum(n for _, n in page)  # exact over what the page holds
        got += page
        total += end(r)["matches"]
        if not end(r)["truncated"]:
            assert end(r)["next"] is None
            break
        assert end(r)["next"] == {"skip": skip + 4} and end(r)["complete"] is False
        skip = end(r)["next"]["skip"]
    assert got == want and total == 45


def test_page_is_truncated_only_when_another_file_matches(tree):
    for i in range(3):
        tree.write(f"q/f{i}.txt", b"hit\n")
    tree.write("q/z.txt", b"miss\n")
    for flag in ("-c", "-l"):
        r = S("--root", tree.root, flag, "-m", "3", "hit", "q")
        assert len(recs(r, "file")) == 3 and end(r)["truncated"] is False
        r = S("--root", tree.root, flag, "-m", "2", "hit", "q")
        assert len(recs(r, "file")) == 2 and end(r)["truncated"] is True
        assert end(r)["next"] == {"skip": 2}


# --- --files-with-matches -------------------------------------------------------------------

def test_files_with_matches_names_each_file_once_without_a_count(tree):
    write_counts_tree(tree)
    r = S("--root", tree.root, "--files-with-matches", "foo", "c")
    assert recs(r, "file") == [
        {"type": "file", "path": "c/a.txt", "matches": None, "bytes": 21, "binary": False},
        {"type": "file", "path": "c/sub/d.txt", "matches": None, "bytes": 6, "binary": False}]
    assert recs(r, "match") == [] and end(r)["matches"] is None and end(r)["files"] == 4
    assert S("--root", tree.root, "-l", "foo", "c").out == r.out


def test_files_with_matches_pages(tree):
    for i in range(7):
        tree.write(f"l/f{i}.txt", b"x\nhit\n")
    got, skip = [], 0
    while True:
        r = S("--root", tree.root, "-l", "-m", "3", "--skip", str(skip), "hit", "l")
        got += [tob(f["path"]) for f in recs(r, "file")]
        if not end(r)["truncated"]:
            break
        skip = end(r)["next"]["skip"]
    assert got == [b"l/f%d.txt" % i for i in range(7)]


# --- --max-count 0 --------------------------------------------------------------------------

def test_max_count_zero_gives_exact_totals_only(tree):
    write_counts_tree(tree)
    r = S("--root", tree.root, "--max-count", "0", "bar", "c")
    assert [x["type"] for x in r.json] == ["end"]
    e = end(r)
    assert (e["matches"], e["files"], e["truncated"], e["next"], e["complete"]) == (5, 4, False, None, True)
    # a total past any page size: never truncated, never a cursor
    tree.write("c/many.txt", b"bar\n" * 5000)
    e = end(S("--root", tree.root, "-m", "0", "bar", "c"))
    assert e["matches"] == 5005 and e["truncated"] is False
    assert end(S("--root", tree.root, "-c", "-m", "0", "bar", "c"))["matches"] == 5005


def test_max_count_zero_with_skip_is_a_conflict_whose_retry_drops_skip(tree):
    write_counts_tree(tree)
    r = S("--root", tree.root, "-m", "0", "--skip", "3", "bar", "c")
    (err,) = r.errors
    assert err["rule"] == "args.conflict" and r.exit == 2 and err["repair"]["kind"] == "retry"
    (again,) = r.retried
    assert b"--skip" not in again.argv and end(again)["matches"] == 5


def test_count_and_files_with_matches_conflict(tree):
    r = S("--root", tree.root, "-c", "-l", "alpha")
    assert r.rules == ["args.conflict"] and r.exit == 2


@pytest.mark.parametrize("mode", [["-c"], ["-l"], ["-m", "0"]])
def test_without_lines_context_and_witness_change_nothing(tree, mode):
    # there is no line for them to go with, so an argv that has them still answers
    write_counts_tree(tree)
    base = S("--root", tree.root, *mode, "bar", "c")
    for extra in (["-C", "2"], ["--witness"]):
        assert S("--root", tree.root, *mode, *extra, "bar", "c").out == base.out


# --- -e PATTERN -----------------------------------------------------------------------------

def test_several_patterns_say_which_matched_and_spans_cover_all(tree):
    tree.write("e.txt", b"foo bar\nabcd\nnone\nbar\n")
    r = S("--root", tree.root, "-e", "foo", "-e", "bar", "--pattern", "bcd", "--pattern=abc", "e.txt")
    assert [(m["line"], m["spans"], m["patterns"]) for m in recs(r, "match")] == [
        (1, [[0, 3], [4, 7]], [0, 1]),
        (2, [[0, 4]], [2, 3]),  # "abc" and "bcd" overlap: one span covering both
        (4, [[0, 3]], [1])]
    assert end(r)["matches"] == 3


def test_with_e_every_operand_is_a_path(tree):
    tree.write("x1.txt", b"alpha\n")
    tree.write("x2.txt", b"beta alpha\n")
    r = S("--root", tree.root, "-e", "alpha", "x1.txt", "x2.txt")
    assert [tob(m["path"]) for m in recs(r, "match")] == [b"x1.txt", b"x2.txt"]
    # no PATH: the root, as without -e
    r = S("--root", tree.root, "-e", "beta alpha")
    assert [tob(m["path"]) for m in recs(r, "match")] == [b"x2.txt"]
    # a path operand under -e is checked like any PATH
    bad = S("--root", tree.root, "-e", "alpha", "../x1.txt")
    assert bad.rules == ["path.dotdot"]


def test_a_pattern_given_as_an_operand_beside_e_gets_a_hint(tree):
    r = S("--root", tree.root, "-e", "alpha", "beta", "plain.txt")
    (e,) = r.errors
    assert e["rule"] == "io.not-found" and e["detail"]["path"] == "beta"
    assert "-e" in e["hint"]
    assert [m["line"] for m in recs(r, "match")] == [1]  # plain.txt is still searched


def test_no_pattern_at_all_is_a_missing_operand(tree):
    r = S("--root", tree.root)
    assert r.rules == ["args.missing-operand"]
    assert r.errors[0]["detail"]["operand"] == "PATTERN"


def test_empty_and_duplicate_patterns(tree):
    tree.write("d.txt", b"ab\n\nab ab\n")
    r = S("--root", tree.root, "-e", "", "-e", "b", "d.txt")
    # the empty pattern matches every line; its empty span shows only where nothing else does
    assert [(m["line"], m["spans"], m["patterns"]) for m in recs(r, "match")] == [
        (1, [[1, 2]], [0, 1]), (2, [[0, 0]], [0]), (3, [[1, 2], [4, 5]], [0, 1])]
    dup = S("--root", tree.root, "-c", "-e", "ab", "-e", "ab", "d.txt")
    assert recs(dup, "file")[0]["matches"] == 2 and recs(dup, "file")[0]["pattern_counts"] == [2, 2]
    m = recs(S("--root", tree.root, "-e", "ab", "-e", "ab", "d.txt"), "match")
    assert [(x["spans"], x["patterns"]) for x in m] == [([[0, 2]], [0, 1]), ([[0, 2], [3, 5]], [0, 1])]


def test_pattern_that_starts_with_a_dash(tree):
    tree.write("dash.txt", b"a -v b\n--lines\n")
    for argv in (["-e", "-v"], ["--pattern", "-v"], ["--pattern=-v"], ["-e-v"]):
        r = S("--root", tree.root, *argv, "dash.txt")
        assert [(m["line"], m["spans"]) for m in recs(r, "match")] == [(1, [[2, 4]])], argv
    r = S("--root", tree.root, "-e", "--lines", "dash.txt")
    assert [m["line"] for m in recs(r, "match")] == [2]


def test_patterns_with_regex_ignore_case_and_word(tree):
    tree.write("r.txt", b"Foo foobar\nBAR\nbaz_bar\n")
    r = S("--root", tree.root, "-i", "-w", "-e", "foo", "-e", "bar", "r.txt")
    assert [(m["line"], m["spans"], m["patterns"]) for m in recs(r, "match")] == [
        (1, [[0, 3]], [0]), (2, [[0, 3]], [1])]
    r = S("--root", tree.root, "--regex", "-e", "^ba.", "-e", "o+b", "r.txt")
    assert [(m["line"], m["spans"], m["patterns"]) for m in recs(r, "match")] == [
        (1, [[5, 8]], [1]), (3, [[0, 3]], [0])]


def test_bad_patterns_among_several_are_each_named(tree):
    r = S("--root", tree.root, "--regex", "-e", "ok", "-e", "a(b", "-e", "[z", "plain.txt")
    assert r.rules == ["query.bad-pattern", "query.bad-pattern"] and r.exit == 2
    assert [e["detail"]["index"] for e in r.errors] == [1, 2]
    assert [e["detail"]["pattern"] for e in r.errors] == ["a(b", "[z"]
    nl = S("--root", tree.root, "-e", "fine", "-e", "a\nb", "plain.txt")
    assert nl.rules == ["query.bad-pattern"]
    assert nl.errors[0]["detail"] == {"reason": "newline", "pattern": "a\nb", "index": 1}


def test_count_with_patterns_gives_each_patterns_count(tree):
    write_counts_tree(tree)
    r = S("--root", tree.root, "-c", "-e", "foo", "-e", "bar", "-e", "zzz", "c")
    assert [(tob(f["path"]), f["matches"], f["pattern_counts"]) for f in recs(r, "file")] == [
        (b"c/a.txt", 3, [2, 2, 0]), (b"c/sub/c.txt", 3, [0, 3, 0]), (b"c/sub/d.txt", 1, [1, 0, 0])]
    assert end(r)["matches"] == 7 and end(r)["pattern_counts"] == [3, 5, 0]
    z = S("--root", tree.root, "-m", "0", "-e", "foo", "-e", "bar", "c")
    assert end(z)["matches"] == 7 and end(z)["pattern_counts"] == [3, 5]
    # -l reads a file only to its first match: no count of any kind
    l = S("--root", tree.root, "-l", "-e", "foo", "-e", "bar", "c")
    assert all("pattern_counts" not in f for f in recs(l, "file")) and "pattern_counts" not in end(l)


def test_long_line_retry_keeps_the_patterns(tree):
    tree.write("lp.txt", b"q" * 2000 + b"\nq\n")
    r = S("--root", tree.root, "--max-line-bytes", "1024", "-e", "q", "-e", "-x", "lp.txt")
    (e,) = r.errors
    argv = [tob(a) for a in e["repair"]["argv"]]
    assert b"--pattern=q" in argv and b"--pattern=-x" in argv and argv[-2:] == [b"--", b"lp.txt"]
    (again,) = r.retried
    assert [m["line"] for m in recs(again, "match")] == [1, 2]


# --- binary files ---------------------------------------------------------------------------

def test_binary_files_in_counting_modes(tree):
    tree.write("bin/x.bin", b"hit\x00hit\nhit\n")
    tree.write("bin/t.txt", b"hit\n")
    r = S("--root", tree.root, "-c", "hit", "bin")
    assert counts(r) == {b"bin/t.txt": 1} and end(r)["skipped"]["binary"] == 1
    named = S("--root", tree.root, "-c", "hit", "bin/x.bin")
    assert recs(named, "file") == [{"type": "file", "path": "bin/x.bin", "matches": 2, "bytes": 12,
                                    "binary": True}]


# --- text format ----------------------------------------------------------------------------

def test_text_format_is_one_line_per_item(tree):
    write_counts_tree(tree)
    c = S("--root", tree.root, "--format", "text", "-c", "bar", "c")
    assert c.out == b"c/a.txt:2\nc/sub/c.txt:3\n"
    l = S("--root", tree.root, "--format", "text", "-l", "foo", "c")
    assert l.out == b"c/a.txt\nc/sub/d.txt\n"
    z = S("--root", tree.root, "--format", "text", "-m", "0", "bar", "c")
    assert z.out == b"[5 matching lines in 4 files searched]\n"
    t = S("--root", tree.root, "--format", "text", "-c", "-m", "1", "bar", "c")
    assert t.out.startswith(b"c/a.txt:2\n") and b'next: {"skip":1}' in t.out


# --- M5: differential against GNU grep -rcF / -rlF ------------------------------------------

def random_tree(tree, rng):
    words = [b"alpha", b"beta", b"Gamma", b"al", b"pha", b"-x", b"a b", b"\xc3\xa9", b"\r"]
    for d in range(3):
        for f in range(rng.randrange(2, 7)):
            lines = [b" ".join(rng.choice(words) for _ in range(rng.randrange(0, 5)))
                     for _ in range(rng.randrange(0, 30))]
            tree.write(f"g/d{d}/f{f}.txt", b"\n".join(lines) + (b"\n" if rng.random() < 0.8 else b""))


def grep_r(flags, patterns, root):
    argv = ["grep", "-r", "-F", *flags]
    for p in patterns:
        argv += ["-e", p]
    p = subprocess.run(argv + ["g"], capture_output=True, env=ENV, cwd=root)
    assert p.returncode in (0, 1), p.stderr
    return p.stdout.split(b"\n")[:-1]


@pytest.mark.parametrize("seed", range(6))
def test_counts_and_files_agree_with_grep(tree, seed):
    rng = random.Random(seed)
    random_tree(tree, rng)
    for patterns in ([b"alpha"], [b"al", b"pha"], [b"a b", b"-x", b"beta"], [b"gamma"], [b"\xc3\xa9"]):
        for fold in ([], ["-i"]):
            eargs = [x for p in patterns for x in (b"-e", p)]
            want_c = {}
            for line in grep_r(["-c", *fold], patterns, tree.root):
                path, n = line.rsplit(b":", 1)
                if int(n):
                    want_c[path] = int(n)
            r = S("--root", tree.root, "-c", *fold, *eargs, "g")
            assert counts(r) == want_c, (patterns, fold)
            assert end(r)["matches"] == sum(want_c.values())
            want_l = sorted(grep_r(["-l", *fold], patterns, tree.root))
            l = S("--root", tree.root, "-l", *fold, *eargs, "g")
            assert [tob(f["path"]) for f in recs(l, "file")] == want_l
            # each pattern's count is grep -c of that pattern alone
            for i, p in enumerate(patterns):
                alone = {}
                for line in grep_r(["-c", *fold], [p], tree.root):
                    path, n = line.rsplit(b":", 1)
                    alone[path] = int(n)
                for f in recs(r, "file"):
                    assert f["pattern_counts"][i] == alone[tob(f["path"])]


def test_patterns_survive_witness_batches_and_context(tree):
    tree.write("w.txt", b"".join(b"row %d\n" % i for i in range(30)) + b"alpha beta\n")
    r = S("--root", tree.root, "--witness", "-C", "1", "-e", "beta", "-e", "row 1", "w.txt")
    ms = recs(r, "match")
    assert [(m["line"], m["patterns"]) for m in ms] == [(2, [1])] + [(i, [1]) for i in range(11, 21)] + [
        (31, [0])]
    assert all("witness" in m for m in ms)
    assert all("patterns" not in c for c in recs(r, "context"))


def test_require_match_names_every_pattern(tree):
    r = S("--root", tree.root, "--require-match", "-c", "-e", "zz1", "-e", "zz2")
    (e,) = r.errors
    assert e["rule"] == "precondition.no-match" and e["detail"]["patterns"] == ["zz1", "zz2"]


def test_lines_of_several_patterns_page_exactly(tree):
    for i in range(5):
        tree.write(f"m/f{i}.txt", b"".join(b"a%d\nb%d\nc\n" % (j, j) for j in range(i + 2)))
    argv = ["--root", tree.root, "-e", "a", "-e", "b", "m"]
    full = [(tob(m["path"]), m["line"], m["patterns"]) for m in recs(S(*argv), "match")]
    assert len(full) == 2 * sum(i + 2 for i in range(5))
    got, skip = [], 0
    while True:
        r = S("-m", "3", "--skip", str(skip), *argv)
        got += [(tob(m["path"]), m["line"], m["patterns"]) for m in recs(r, "match")]
        if not end(r)["truncated"]:
            break
        skip = end(r)["next"]["skip"]
    assert got == full


def test_counting_answers_are_the_same_bytes_every_run(tree):
    for d in range(4):
        for f in range(60):
            tree.write(f"t/d{d}/f{f:02d}.txt", b"x\n" * f + b"needle\n" * (f % 7))
    for flags in (["-c"], ["-l"], ["-m", "0"], ["-c", "-e", "needle", "-e", "x"]):
        argv = ["--root", tree.root, *(["-m", "100000"] if "-m" not in flags else []), *flags]
        if "-e" not in flags:
            argv.append("needle")
        r = S(*argv, "t")
        assert r.exit == 0 and end(r)["complete"] is True, flags
        first = r.out
        for _ in range(3):
            assert S(*argv, "t").out == first, flags


def test_files_with_matches_and_max_count_zero(tree):
    write_counts_tree(tree)
    r = S("--root", tree.root, "-l", "-m", "0", "foo", "c")
    assert [x["type"] for x in r.json] == ["end"] and end(r)["matches"] is None
    t = S("--root", tree.root, "--format", "text", "-l", "-m", "0", "foo", "c")
    assert t.out == b"[4 files searched]\n"
