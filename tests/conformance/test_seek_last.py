"""seek --last N: the last N matching lines in answer order, against an independent oracle
(`grep -n PATTERN | tail -N`, and `grep -n -C` for context), on a 300,000-line file, CRLF, no
final newline, a tree; the cursor next:{"before":K} followed back to the first match; memory
that does not grow with the file; and the flags --last refuses to be combined with.
"""

import os
import resource
import subprocess

import pytest

from tack import run, tob

ENV = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "")}
BIG = ["--max-bytes", "16777216"]


def S(*args, **kw):
    return run("seek", *args, **kw)


def grep_n(args, path):
    """grep -n's lines as (kind, line, text): ':' after the number is a match, '-' context."""
    p = subprocess.run(["grep", "-a", "-n", *args, "--", path], capture_output=True, env=ENV)
    assert p.returncode in (0, 1), p.stderr
    out = []
    for raw in p.stdout.split(b"\n")[:-1]:
        if raw == b"--":
            continue
        i = 0
        while raw[i:i + 1].isdigit():
            i += 1
        kind = "match" if raw[i:i + 1] == b":" else "context"
        out.append((kind, int(raw[:i]), raw[i + 1:]))
    return out


def shown(r):
    return [(x["type"], x["line"], tob(x["text"])) for x in r.json
            if x["type"] in ("match", "context")]


def end(r):
    return r.json[-1]


def tail_of_grep(rows, n, context):
    """The last n matches of grep -n [-C] output, with the before-context of the first of them
    (the lines just before it, within `context`, that grep printed) and everything after."""
    idx = [i for i, row in enumerate(rows) if row[0] == "match"]
    if not idx:
        return []
    first = idx[max(0, len(idx) - n)]
    start = first
    line = rows[first][1]
    while (start > 0 and rows[start - 1][0] == "context" and rows[start - 1][1] == line - 1
           and rows[first][1] - rows[start - 1][1] <= context):
        start -= 1
        line -= 1
    return rows[start:]


def strip_cr(rows):
    return [(k, n, t[:-1] if t.endswith(b"\r") else t) for k, n, t in rows]


@pytest.fixture(scope="module")
def big_log(tmp_path_factory):
    d = tmp_path_factory.mktemp("last")
    path = d / "app.log"
    with open(path, "wb") as f:
        for i in range(1, 300_001):
            level = "ERROR" if i % 997 == 0 else "INFO"
            f.write(f"{i:06d} {level} request {i * 7 % 1000} handled\n".encode())
    return d, str(path)


# --- against grep | tail -N ---------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 5, 300, 301, 10_000])
def test_last_n_of_a_300000_line_file_is_grep_tail(big_log, n):
    d, path = big_log
    r = S("--last", str(n), "ERROR", path)
    assert r.exit == 0
    want = [x for x in grep_n(["ERROR"], path)][-n:]
    assert shown(r) == want
    e = end(r)
    total = len(grep_n(["ERROR"], path))  # 300
    assert e["matches"] == min(n, total)
    more = n < total
    assert e["truncated"] is more and e["complete"] is (not more)
    assert e["cut"] == ("last" if more else None)
    assert e["next"] == ({"before": total - n} if more else None)
    files = [x for x in r.json if x["type"] == "file"]
    assert files == [{"type": "file", "path": path, "matches": min(n, total),
                      "bytes": os.path.getsize(path), "binary": False}]


@pytest.mark.parametrize("context", [1, 3])
def test_context_is_greps_around_the_last_matches(big_log, context):
    d, path = big_log
    for n in (1, 4):
        r = S("--last", str(n), "-C", str(context), "request 7", path)
        assert r.exit == 0
        rows = grep_n(["-C", str(context), "request 7"], path)
        assert shown(r) == tail_of_grep(rows, n, context)


def test_context_of_adjacent_matches_is_not_repeated(tmp_path):
    body = b"".join(b"x%d%s\n" % (i, b" hit" if i in (5, 6, 8, 20) else b"") for i in range(1, 30))
    p = tmp_path / "f"
    p.write_bytes(body)
    for n in (1, 2, 3, 4, 9):
        for c in (0, 1, 2, 5):
            r = S("--last", str(n), "-C", str(c), "hit", str(p))
            assert shown(r) == tail_of_grep(grep_n(["-C", str(c), "hit"], str(p)), n, c), (n, c)


def test_crlf_and_no_final_newline(tmp_path):
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(b"".join(b"row %d %s\r\n" % (i, b"key" if i % 3 == 0 else b"") for i in range(1, 50)))
    r = S("--last", "4", "-C", "1", "key", str(crlf))
    assert shown(r) == strip_cr(tail_of_grep(grep_n(["-C", "1", "key"], str(crlf)), 4, 1))
    nofinal = tmp_path / "nofinal.txt"
    nofinal.write_bytes(b"key one\nother\nkey two\nlast key without newline")
    r = S("--last", "2", "key", str(nofinal))
    assert shown(r) == grep_n(["key"], str(nofinal))[-2:]
    assert shown(r)[-1] == ("match", 4, b"last key without newline")


def test_n_larger_than_the_matches_is_all_of_them_not_truncated(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"a\nb hit\nc\nhit d\n")
    r = S("--last", "1000", "hit", str(p))
    assert shown(r) == grep_n(["hit"], str(p))
    assert (end(r)["truncated"], end(r)["next"], end(r)["cut"]) == (False, None, None)
    r = S("--last", "3", "absent", str(p))
    assert r.exit == 0 and shown(r) == [] and end(r)["matches"] == 0
    assert end(r)["truncated"] is False


def test_zero_is_refused_before_anything_is_read(tmp_path):
    r = S("--last", "0", "hit", str(tmp_path / "missing"))
    assert r.exit == 2 and r.rules == ["args.bad-value"]


@pytest.mark.parametrize("other", [["-c"], ["-l"], ["--max-count", "5"], ["--skip", "2"]])
def test_last_refuses_what_pages_or_counts_otherwise(tmp_path, other):
    r = S("--last", "3", *other, "hit", str(tmp_path / "missing"))
    assert r.exit == 2 and r.rules == ["args.conflict"]


def test_before_needs_last(tmp_path):
    r = S("--before", "3", "hit", str(tmp_path / "missing"))
    assert r.exit == 2 and r.rules == ["args.required-flag"]


# --- the cursor back --------------------------------------------------------------------------

def follow_back(args, n):
    """Pages back from the end with next.before until none is left; returns the pages."""
    pages = []
    extra = []
    while True:
        r = S("--last", str(n), *extra, *args)
        assert r.exit == 0
        pages.append(r)
        nxt = end(r)["next"]
        if nxt is None:
            return pages
        assert set(nxt) == {"before"} and end(r)["truncated"] is True
        extra = ["--before", str(nxt["before"])]


def test_the_cursor_pages_back_to_the_first_match(big_log):
    d, path = big_log
    pages = follow_back(["ERROR", path], 64)
    assert len(pages) == 5  # 300 matches: 64 * 4 + 44
    got = [row for r in reversed(pages) for row in shown(r)]
    assert got == grep_n(["ERROR"], path)
    assert end(pages[-1])["matches"] == 300 - 64 * 4


def test_the_cursor_over_a_tree_is_the_answers_order(tmp_path):
    root = tmp_path / "t"
    for d in ("a", "b/c", "b/d", "e"):
        os.makedirs(root / d, exist_ok=True)
    names = ["a/1.txt", "a/2.txt", "b/c/x.txt", "b/d/y.txt", "b/z.txt", "e/only.txt", "top.txt"]
    for k, name in enumerate(names):
        (root / name).write_bytes(b"".join(b"%s line %d %s\n" % (name.encode(), i, b"hit" if (i + k) % 4 == 0 else b"")
                                           for i in range(1, 40)))
    full = S("--root", str(root), "-m", "100000", *BIG, "hit")
    want = [(tob(x["path"]), x["line"]) for x in full.json if x["type"] == "match"]
    assert len(want) > 60
    for n in (1, 7, 13, len(want), len(want) + 5):
        r = S("--root", str(root), "--last", str(n), "hit")
        assert [(tob(x["path"]), x["line"]) for x in r.json if x["type"] == "match"] == want[-n:]
        # each file's record follows its matches and counts those shown
        recs = [x for x in r.json if x["type"] in ("match", "file")]
        count = 0
        for i, x in enumerate(recs):
            if x["type"] == "match":
                count += 1
                continue
            assert x["matches"] == count and tob(recs[i - 1]["path"]) == tob(x["path"])
            count = 0
    pages = follow_back(["--root", str(root), "hit"], 9)
    got = [(tob(x["path"]), x["line"]) for r in reversed(pages) for x in r.json if x["type"] == "match"]
    assert got == want
    # the same answer whatever the threads
    one = S("--root", str(root), "--last", "11", "-j", "1", "hit")
    many = S("--root", str(root), "--last", "11", "-j", "4", "hit")
    assert one.out == many.out


def test_text_footer_says_what_cut_it(big_log):
    d, path = big_log
    r = S("--last", "2", "--format", "text", "ERROR", path)
    lines = r.out.split(b"\n")
    assert lines[-1] == b""
    assert lines[-2] == b'[truncated by last; next: {"before":298}]'
    assert lines[0].endswith(b":" + grep_n(["ERROR"], path)[-2][2])


# --- memory: a ring of N, never the file ----------------------------------------------------

def peak_rss_kib(argv):
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], capture_output=True, env=ENV)
    assert p.returncode == 0, p.stderr
    return int(p.stderr.strip().split(b"\n")[-1])


@pytest.mark.skipif(not os.path.exists("/usr/bin/time"), reason="GNU time is not installed")
def test_memory_does_not_grow_with_the_file(tmp_path):
    from tack import bin_path
    small, large = tmp_path / "small", tmp_path / "large"
    line = b"every line matches: " + b"x" * 100 + b"\n"
    small.write_bytes(line * 20_000)
    with open(large, "wb") as f:
        for _ in range(20):
            f.write(line * 20_000)  # 400,000 lines, 48 MB
    argv = [bin_path("seek"), "--last", "50", "-C", "2", "matches"]
    a = peak_rss_kib(argv + [str(small)])
    b = peak_rss_kib(argv + [str(large)])
    assert b < a * 1.5 + 2048, (a, b)


def test_a_page_back_keeps_its_last_lines_after_context(tmp_path):
    # --before K pages back to the match before the K-th; the lines after it, up to --context,
    # are shown as the page to the end shows the last match's
    p = tmp_path / "log.txt"
    p.write_bytes(b"".join(b"line %d%s\n" % (i, b" hit" if i % 10 == 0 else b"")
                           for i in range(1, 41)))
    r = S("--last", "1", "--before", "2", "--context", "2", "hit", str(p))
    assert [(x["type"], x["line"]) for x in r.json if x["type"] in ("match", "context")] == [
        ("context", 18), ("context", 19), ("match", 20), ("context", 21), ("context", 22)]
    assert end(r)["next"] == {"before": 1}


def test_errors_keep_their_place_in_the_walk(tmp_path):
    # As without --last: an error record between the files around it, every one written
    # whether the matches near it are shown or not.
    (tmp_path / "a").write_bytes(b"hit\n")
    (tmp_path / "c").write_bytes(b"hit\nhit\n")
    args = ["hit", "a", "missing", "c", "gone"]
    plain = S(*args, cwd=tmp_path)
    last = S("--last", "5", *args, cwd=tmp_path)
    assert last.out == plain.out
    kinds = [(x["type"], x.get("path") or x.get("error", {}).get("detail", {}).get("path"))
             for x in last.json[:-1]]
    assert kinds == [("match", "a"), ("file", "a"), ("error", "missing"), ("match", "c"),
                     ("match", "c"), ("file", "c"), ("error", "gone")]
    one = S("--last", "1", *args, cwd=tmp_path)
    kinds = [(x["type"], x.get("path") or x.get("error", {}).get("detail", {}).get("path"))
             for x in one.json[:-1]]
    assert kinds == [("error", "missing"), ("match", "c"), ("file", "c"), ("error", "gone")]
