"""The answer's byte budget (--max-bytes, default 64 KiB): whatever --max-count, --top or
--max-entries say, an answer stops once it holds the budget (the first item always goes in,
so it is at most the budget and one item), with truncated, cut:"max-bytes" and a cursor that
resumes exactly: the pages put end to end are the uncut answer.
"""

import json
import os

import pytest

from tack import introspect, run, tob

KIB64 = 64 * 1024
BIG = ["--max-bytes", "16777216"]


def end(r):
    return r.json[-1]


def body_bytes(r):
    """The bytes of the records before the end record."""
    return len(r.out) - len(r.out.rstrip(b"\n").rsplit(b"\n", 1)[-1]) - 1


def longest_record(r):
    return max(len(line) + 1 for line in r.out.split(b"\n")[:-2])


@pytest.fixture
def long_lines(tmp_path):
    p = tmp_path / "long.txt"
    p.write_bytes(b"".join(b"%05d match %s\n" % (i, b"y" * (300 + i % 50)) for i in range(3000)))
    return str(p)


def test_every_budgeted_tool_shares_one_row():
    for tool in ("seek", "list", "digest", "tally", "peek"):
        rows = [f for f in introspect(tool)["flags"] if f["name"] == "max-bytes"]
        assert len(rows) == 1, tool
        assert (rows[0]["default"], rows[0]["ceiling"]) == ("65536", 16777216), tool
        limits = [x for x in introspect(tool)["limits"] if x["flag"] == "max-bytes"]
        assert limits == [{"flag": "max-bytes", "default": "65536", "ceiling": 16777216}], tool


# --- seek --------------------------------------------------------------------------------------

def test_seek_max_count_cannot_flood(long_lines):
    r = run("seek", "--max-count", "100000", "match", long_lines)
    assert r.exit == 0
    e = end(r)
    assert (e["truncated"], e["cut"], e["complete"]) == (True, "max-bytes", False)
    ms = [x for x in r.json if x["type"] == "match"]
    records = [x for x in r.json if x["type"] in ("match", "context")]
    # at most the budget and one record, then the file record and the end record
    size = sum(len(json.dumps(x, separators=(",", ":"), ensure_ascii=False).encode()) + 1 for x in records)
    assert KIB64 <= size < KIB64 + longest_record(r)
    assert body_bytes(r) < KIB64 + 2 * longest_record(r)
    assert e["next"] == {"skip": len(ms)} and e["matches"] == len(ms)


def page_through(tool, args, cursor_flag="skip", key="skip"):
    pages, extra = [], []
    while True:
        r = run(tool, *args, *extra)
        assert r.exit == 0, r
        pages.append(r)
        nxt = end(r)["next"] if isinstance(r.json, list) else r.data["next"]
        if nxt is None:
            return pages
        extra = ["--" + cursor_flag, str(nxt[key])]


def test_seek_pages_end_to_end_are_the_uncut_answer(long_lines):
    whole = run("seek", "--max-count", "100000", *BIG, "match", long_lines)
    assert end(whole)["truncated"] is False and end(whole)["matches"] == 3000
    pages = page_through("seek", ["--max-count", "100000", "match", long_lines])
    assert len(pages) > 10
    got = [x for r in pages for x in r.json if x["type"] == "match"]
    assert got == [x for x in whole.json if x["type"] == "match"]
    for r in pages[:-1]:
        assert end(r)["cut"] == "max-bytes"


def test_seek_small_budget_and_max_count_say_which_cut(long_lines):
    r = run("seek", "--max-count", "3", "match", long_lines)
    assert (end(r)["cut"], end(r)["next"]) == ("max-count", {"skip": 3})
    r = run("seek", "--max-bytes", "1", "match", long_lines)
    assert len([x for x in r.json if x["type"] == "match"]) == 1  # the first always goes in
    assert (end(r)["cut"], end(r)["next"]) == ("max-bytes", {"skip": 1})
    r = run("seek", "--max-bytes", "16777217", "match", long_lines)
    assert r.exit == 2 and r.rules == ["args.bad-value"]


def test_seek_budget_with_context_pages_exactly(tmp_path):
    p = tmp_path / "ctx.txt"
    p.write_bytes(b"".join(b"%05d %s %s\n" % (i, b"hit" if i % 5 == 0 else b"---", b"z" * 200) for i in range(4000)))
    whole = run("seek", "-C", "2", "-m", "100000", *BIG, "hit", str(p))
    pages = page_through("seek", ["-C", "2", "-m", "100000", "hit", str(p)])
    assert len(pages) > 3
    got = [x for r in pages for x in r.json if x["type"] == "match"]
    assert got == [x for x in whole.json if x["type"] == "match"]


def test_seek_count_mode_is_budgeted_too(tmp_path):
    for i in range(1500):
        (tmp_path / ("f%04d-%s.txt" % (i, "n" * 40))).write_bytes(b"hit\n")
    r = run("seek", "--root", str(tmp_path), "-c", "-m", "100000", "hit")
    assert end(r)["cut"] == "max-bytes"
    pages = page_through("seek", ["--root", str(tmp_path), "-c", "-m", "100000", "hit"])
    files = [tob(x["path"]) for r in pages for x in r.json if x["type"] == "file"]
    assert len(files) == 1500 and files == sorted(files)


def test_seek_last_is_budgeted_and_pages_back(long_lines):
    r = run("seek", "--last", "100000", "match", long_lines)
    e = end(r)
    assert (e["truncated"], e["cut"]) == (True, "max-bytes")
    ms = [x for x in r.json if x["type"] == "match"]
    assert ms[-1]["line"] == 3000 and e["next"] == {"before": 3000 - len(ms)}
    assert body_bytes(r) < KIB64 + 2 * longest_record(r)
    pages = page_through("seek", ["--last", "100000", "match", long_lines], "before", "before")
    got = [x["line"] for r in reversed(pages) for x in r.json if x["type"] == "match"]
    assert got == list(range(1, 3001))


def test_seek_text_footer_names_the_cut(long_lines):
    r = run("seek", "--format", "text", "-m", "100000", "match", long_lines)
    last = r.out.rstrip(b"\n").rsplit(b"\n", 1)[-1]
    assert last.startswith(b'[truncated by max-bytes; next: {"skip":')


# --- tally ---------------------------------------------------------------------------------------

@pytest.fixture
def many_keys(tmp_path):
    p = tmp_path / "keys.txt"
    p.write_bytes(b"".join(b"key-%06d-%s\n" % (i, b"k" * 60) * (1 + i % 3) for i in range(20000)))
    return str(p)


def test_tally_top_cannot_flood_and_pages_exactly(many_keys):
    r = run("tally", "--top", "100000", many_keys)
    d = r.data
    assert (d["truncated"], d["cut"]) == (True, "max-bytes")
    assert len(r.out) < KIB64 + 1024
    assert d["next"] == {"skip": len(d["top"])}
    whole = run("tally", "--top", "100000", *BIG, many_keys).data
    assert whole["truncated"] is False and whole["cut"] is None and len(whole["top"]) == 20000
    pages = page_through("tally", ["--top", "100000", many_keys])
    assert [t for r in pages for t in r.data["top"]] == whole["top"]


def test_tally_top_cut_says_top(many_keys):
    d = run("tally", "--top", "5", many_keys).data
    assert (d["cut"], d["next"]) == ("top", {"skip": 5})
    d2 = run("tally", "--top", "5", "--skip", "5", many_keys).data
    assert d2["top"] == run("tally", "--top", "10", many_keys).data["top"][5:]
    d0 = run("tally", "--top", "0", many_keys).data
    assert (d0["truncated"], d0["next"], d0["cut"]) == (True, None, "top")
    past = run("tally", "--skip", "999999", many_keys).data
    assert (past["top"], past["truncated"], past["next"]) == ([], False, None)


# --- list ----------------------------------------------------------------------------------------

def test_list_max_entries_cannot_flood(tmp_path):
    for i in range(3000):
        (tmp_path / ("entry-%05d-%s" % (i, "p" * 30))).write_bytes(b"")
    r = run("list", "--root", str(tmp_path), "--max-entries", "100000")
    e = end(r)
    assert (e["truncated"], e["cut"]) == (True, "max-bytes")
    assert body_bytes(r) < KIB64 + longest_record(r)
    pages = page_through("list", ["--root", str(tmp_path), "--max-entries", "100000"])
    got = [tob(x["path"]) for r in pages for x in r.json if x["type"] == "entry"]
    assert got == sorted(os.fsencode(n) for n in os.listdir(tmp_path))
    r = run("list", "--root", str(tmp_path), "--max-entries", "10")
    assert (end(r)["cut"], end(r)["next"]) == ("max-entries", {"skip": 10})
    r = run("list", "--root", str(tmp_path), "--find", "entry", "--max-entries", "100000")
    assert end(r)["cut"] == "max-bytes"


# --- digest --------------------------------------------------------------------------------------

def test_digest_many_files_pages_exactly(tmp_path):
    names = []
    for i in range(900):
        n = "file-%04d-%s" % (i, "d" * 40)
        (tmp_path / n).write_bytes(b"%d\n" % i)
        names.append(n)
    r = run("digest", "--root", str(tmp_path), *names)
    e = end(r)
    assert (e["truncated"], e["cut"]) == (True, "max-bytes")
    assert body_bytes(r) < KIB64 + longest_record(r)
    pages = page_through("digest", ["--root", str(tmp_path), *names])
    got = [tob(x["path"]) for r in pages for x in r.json if x["type"] == "digest"]
    assert got == [n.encode() for n in names]
    sums = tmp_path / "SUMS"
    sums.write_bytes(b"".join(b"%s  %s\n" % (x["hex"].encode(), tob(x["path"]))
                              for r in pages for x in r.json if x["type"] == "digest"))
    pages = page_through("digest", ["--root", str(tmp_path), "--check", "SUMS"])
    assert len(pages) > 1
    verdicts = [x["verdict"] for r in pages for x in r.json if x["type"] == "check"]
    assert verdicts == ["ok"] * 900


# --- jsonq: a value is whole or left out -------------------------------------------------------

def test_jsonq_a_huge_value_is_left_out_and_measured(tmp_path):
    p = tmp_path / "doc.json"
    big = "v" * 100_000
    keys = {"k%05d" % i: i for i in range(20_000)}
    p.write_text(json.dumps({"small": [1, 2], "big": big, "keys": keys}))
    d = run("jsonq", "--pointer", "/small", str(p)).data
    assert d["value"] == [1, 2] and "truncated" not in d
    r = run("jsonq", "--pointer", "/big", str(p))
    d = r.data
    assert r.exit == 0 and "value" not in d
    assert (d["truncated"], d["cut"], d["value_bytes"], d["kind"]) == (True, "max-value-bytes", 100_002, "string")
    assert len(r.out) < 1024
    d = run("jsonq", "--pointer", "/big", "--max-value-bytes", "200000", str(p)).data
    assert d["value"] == big and "cut" not in d
    d = run("jsonq", "--pointer", "/keys", "--keys", str(p)).data
    assert (d["truncated"], d["cut"]) == (True, "max-value-bytes")
    assert d["keys"] == ["k%05d" % i for i in range(len(d["keys"]))]
    assert KIB64 <= sum(len(json.dumps(k)) + 1 for k in d["keys"]) < KIB64 + 16
    assert d["value_bytes"] == sum(len(json.dumps(k)) + 1 for k in keys)
    t = run("jsonq", "--pointer", "/big", "--format", "text", str(p))
    assert t.out == b"[truncated by max-value-bytes: 100002 bytes]\n"
    # --length and --type are never cut
    assert run("jsonq", "--pointer", "/keys", "--length", str(p)).data["length"] == 20_000


# --- writers: the diff in the answer is cut, the change never ----------------------------------

def test_write_diff_is_cut_by_bytes_and_the_file_is_whole(tmp_path):
    content = b"".join(b"line %05d %s\n" % (i, b"w" * 200) for i in range(3000))
    r = run("write", "--root", str(tmp_path), "--create", "--max-diff-lines", "100000",
            "--stdin", "new.txt", stdin=content)
    d = r.data
    assert r.exit == 0 and (tmp_path / "new.txt").read_bytes() == content
    assert (d["diff_truncated"], d["cut"]) == (True, "max-diff-bytes")
    listed = [l for h in d["diff"]["hunks"] for l in h["lines"]]
    assert 0 < len(listed) < 3000 and sum(len(l["text"]) for l in listed) <= KIB64
    assert d["diff"]["added"] == 3000  # the counts stay whole
    assert len(r.out) < KIB64 + 16 * 1024
    short = b"".join(b"line %05d\n" % i for i in range(3000))
    r = run("write", "--root", str(tmp_path), "--create", "--stdin", "new2.txt", stdin=short)
    assert (r.data["diff_truncated"], r.data["cut"]) == (True, "max-diff-lines")
    assert sum(len(h["lines"]) for h in r.data["diff"]["hunks"]) == 400
    r = run("write", "--root", str(tmp_path), "--create", "--stdin", "small.txt", stdin=b"a\n")
    assert (r.data["diff_truncated"], r.data["cut"]) == (False, None)
    r = run("write", "--root", str(tmp_path), "--create", "--max-diff-lines", "100000",
            "--max-diff-bytes", "16777216", "--stdin", "new3.txt", stdin=content)
    assert (r.data["diff_truncated"], r.data["cut"]) == (False, None)
    t = run("write", "--root", str(tmp_path), "--create", "--max-diff-lines", "100000",
            "--format", "text", "--stdin", "new4.txt", stdin=content)
    assert t.out.endswith(b"[diff truncated by max-diff-bytes; the change is whole: peek shows "
                          b"the rest]\n")


def test_replace_and_edit_cut_their_diffs_alike(tmp_path):
    content = b"".join(b"row %05d %s\n" % (i, b"r" * 200) for i in range(2000))
    (tmp_path / "f.txt").write_bytes(content)
    sha = __import__("hashlib").sha256(content).hexdigest()
    r = run("replace", "--root", str(tmp_path), "--old", "r" * 200, "--new", "R" * 200, "--all",
            "--if-sha256", sha, "--max-diff-lines", "100000", "f.txt")
    d = r.data
    assert r.exit == 0 and (d["diff_truncated"], d["cut"]) == (True, "max-diff-bytes")
    assert (tmp_path / "f.txt").read_bytes() == content.replace(b"r" * 200, b"R" * 200)
    assert d["replacements"] == 2000
