"""write — create or replace a whole file, gate by gate.

The diff (applied, it gives the new bytes back; its counts are GNU diff --minimal's), M5
against cp (same bytes, same mode), M3 every declared rule reached and every retry cleared,
and the hostile cases: links of every shape (file, directory, dangling, swapped during 1000
calls), a hard link to a file outside the root, a full disk, a read-only directory (kill -9
at every step of a write is in test_m7_mutation.py). Every invocation goes
through tack.run, which validates the output against schemas/write.v1.json (M1).
"""

import base64
import fcntl
import os
import random
import re
import stat
import subprocess

import pytest

import tack
from mutation import FLIPPER, MiB, W, litter, read, sha, snapshot
from tack import SECRET, run

MARK = b"\xef\xbb\xbf"  # a UTF-8 BOM


def raw_lines(content: bytes) -> list:
    """(text, has_newline) per line, '\\r' kept."""
    out, i = [], 0
    while i < len(content):
        j = content.find(b"\n", i)
        if j < 0:
            out.append((content[i:], False))
            break
        out.append((content[i:j], True))
        i = j + 1
    return out


def apply_diff(old: bytes, diff: dict) -> bytes:
    """The new bytes from the old ones and the JSON diff, under the eol and BOM policy it
    names (line 1 of a side with a BOM is shown without it)."""
    def raw(line, crlf, bom):
        t = (MARK if bom else b"") + tack.tob(line["text"])
        if line.get("no_newline"):
            return t
        return t + (b"\r\n" if crlf else b"\n")

    old_crlf, new_crlf = diff["old_eol"] == "crlf", diff["new_eol"] == "crlf"
    old_bom, new_bom = diff["old_bom"], diff["new_bom"]
    a = raw_lines(old)
    out, i = [], 0
    for h in diff["hunks"]:
        start = h["old_start"] - 1 if h["old_lines"] else h["old_start"]
        assert start >= i, h
        while i < start:
            out.append(a[i][0] + (b"\n" if a[i][1] else b""))
            i += 1
        n_old = n_new = 0
        for line in h["lines"]:
            new_first = new_bom and not out  # the line would be line 1 of the new file
            if line["op"] == "+":
                out.append(raw(line, new_crlf, new_first))
                n_new += 1
                continue
            have = a[i][0] + (b"\n" if a[i][1] else b"")
            if line["op"] == "-":
                assert raw(line, old_crlf, old_bom and i == 0) == have, (line, have)
            else:
                assert raw(line, new_crlf, new_first) == have, (line, have)
                out.append(have)
                n_new += 1
            n_old += 1
            i += 1
        assert (n_old, n_new) == (h["old_lines"], h["new_lines"]), h
    while i < len(a):
        out.append(a[i][0] + (b"\n" if a[i][1] else b""))
        i += 1
    return b"".join(out)


def gnu_counts(tmp_path, old: bytes, new: bytes) -> tuple:
    """(added, removed) as GNU diff --minimal counts them."""
    (tmp_path / "gnu_old").write_bytes(old)
    (tmp_path / "gnu_new").write_bytes(new)
    p = subprocess.run(["diff", "-a", "-d", "-u", "gnu_old", "gnu_new"], cwd=tmp_path,
                       capture_output=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"})
    assert p.returncode in (0, 1), p.stderr
    added = removed = 0
    for line in p.stdout.split(b"\n")[2:]:
        if line.startswith(b"+"):
            added += 1
        elif line.startswith(b"-"):
            removed += 1
    return added, removed


CONTENTS = {
    "plain": tack.PLAIN, "crlf": tack.CRLF, "mixed": tack.MIXED, "nofinal": tack.NOFINAL,
    "nul": tack.NUL, "latin1": tack.LATIN1, "bom": tack.BOM, "empty": b"",
    "crlf-cr-tail": b"a\r\nb\r\nc\r", "tabs": b"\tx\n\t\ty \n",
}


# --- the basic contract ---------------------------------------------------------------------

def test_create_then_apply_twice_is_unchanged(tree):
    r = W(tree, "--create", "--stdin", "new.txt", stdin=b"one\ntwo\n")
    assert r.exit == 0
    d = r.data
    assert (d["changed"], d["created"], d["bytes"]) == (True, True, 8)
    assert d["before_sha256"] is None and d["after_sha256"] == sha(b"one\ntwo\n")
    assert d["diff"]["added"] == 2 and d["diff"]["removed"] == 0
    assert read(tree.p("new.txt")) == b"one\ntwo\n"
    again = W(tree, "--create", "--stdin", "new.txt", stdin=b"one\ntwo\n")
    assert again.exit == 0 and again.data["changed"] is False
    assert again.data["diff"]["hunks"] == [] and again.data["before_sha256"] == sha(b"one\ntwo\n")
    assert litter(tree.root) == []


def test_replace_with_if_sha256_and_the_retry_that_already_landed(tree):
    old = tack.PLAIN
    new = old.replace(b"beta", b"BETA")
    r = W(tree, "--if-sha256", sha(old), "--stdin", "plain.txt", stdin=new)
    assert r.exit == 0 and r.data["changed"] and not r.data["created"]
    assert r.data["before_sha256"] == sha(old) and r.data["after_sha256"] == sha(new)
    hunk = r.data["diff"]["hunks"][0]
    assert [(l["op"], l["text"]) for l in hunk["lines"]][:3] == [
        (" ", "alpha"), ("-", "beta"), ("+", "BETA")]
    assert read(tree.p("plain.txt")) == new
    # The same call again: the file already holds the new bytes.
    again = W(tree, "--if-sha256", sha(old), "--stdin", "plain.txt", stdin=new)
    assert again.exit == 0 and again.data["changed"] is False
    # Same content as the current one: nothing to do.
    same = W(tree, "--if-sha256", sha(new), "--stdin", "plain.txt", stdin=new)
    assert same.exit == 0 and same.data["changed"] is False


def test_uppercase_hex_is_accepted(tree):
    r = W(tree, "--if-sha256", sha(tack.PLAIN).upper(), "--content-sha256", sha(b"x").upper(),
          "--stdin", "plain.txt", stdin=b"x")
    assert r.exit == 0 and read(tree.p("plain.txt")) == b"x"


@pytest.mark.parametrize("old_name", list(CONTENTS))
def test_diff_applies_exactly_and_counts_like_gnu_diff(tree, tmp_path, old_name):
    for new_name, new in CONTENTS.items():
        old = CONTENTS[old_name]
        tree.write("f.bin", old)
        r = W(tree, "--if-sha256", sha(old), "--eol", "raw", "--bom", "raw", "--stdin", "f.bin",
              stdin=new)
        assert r.exit == 0, r
        assert read(tree.p("f.bin")) == new  # stored byte for byte
        diff = r.data["diff"]
        assert apply_diff(old, diff) == new, (old_name, new_name)
        assert (diff["added"], diff["removed"]) == gnu_counts(tmp_path, old, new), (old_name, new_name)
        assert r.data["diff_truncated"] is False


def test_random_edits_apply_and_match_gnu_counts(tree, tmp_path):
    rng = random.Random(7)
    words = [b"a", b"b", b"c", b"d\r", b"", b"\xff", b"\t e"]
    content = b"".join(rng.choice(words) + b"\n" for _ in range(60))
    tree.write("r.txt", content)
    for _ in range(40):
        lines = content.split(b"\n")
        for _ in range(rng.randint(0, 6)):
            k = rng.randrange(len(lines) + 1)
            op = rng.randrange(3)
            if op == 0:
                lines.insert(k, rng.choice(words))
            elif op == 1 and k < len(lines):
                del lines[k]
            elif k < len(lines):
                lines[k] = rng.choice(words)
        new = b"\n".join(lines)
        r = W(tree, "--if-sha256", sha(content), "--stdin", "r.txt", stdin=new)
        assert r.exit == 0
        assert apply_diff(content, r.data["diff"]) == new
        assert (r.data["diff"]["added"], r.data["diff"]["removed"]) == gnu_counts(tmp_path, content, new)
        content = new


def test_crlf_is_shown_under_the_policy_and_bom_kept(tree):
    r = W(tree, "--if-sha256", sha(tack.CRLF), "--stdin", "crlf.txt", stdin=b"one\r\n2\r\nthree\r\n")
    diff = r.data["diff"]
    assert diff["old_eol"] == diff["new_eol"] == "crlf"
    assert [l["text"] for l in diff["hunks"][0]["lines"]] == ["one", "two", "2", "three"]
    r = W(tree, "--if-sha256", sha(tack.BOM), "--stdin", "bom.txt", stdin=tack.BOM + b"third\n")
    assert read(tree.p("bom.txt")) == tack.BOM + b"third\n"
    # The BOM is named, not shown as part of line 1 (peek shows line 1 so).
    diff = r.data["diff"]
    assert diff["old_bom"] is diff["new_bom"] is True
    assert diff["hunks"][0]["lines"][0] == {"op": " ", "text": "with bom"}


# --- line endings and BOM: the file's are kept ---------------------------------------------

def eol_of(b: bytes) -> str:
    """TOOLS.md's policy, written out again here."""
    n = b.count(b"\n")
    crlf = b.count(b"\r\n")
    return "none" if n == 0 else "crlf" if crlf == n else "lf" if crlf == 0 else "mixed"


def kept(old: bytes, new: bytes) -> bytes:
    """What --eol keep --bom keep writes over `old`: its BOM put back when the content has
    none, then, over a CRLF file, a '\r' before every '\n' without one; binary content (a NUL
    in its first 8 KiB) as given."""
    if b"\0" in new[:8192]:
        return new
    if old.startswith(MARK) and not new.startswith(MARK):
        new = MARK + new
    if eol_of(old) == "crlf":
        new = re.sub(rb"(?<!\r)\n", b"\r\n", new)
    return new


def crlf31() -> bytes:
    return b"".join(b"key%d = value%d\r\n" % (i, i) for i in range(31))


@pytest.mark.parametrize("old_name", list(CONTENTS))
def test_keep_writes_what_the_model_says_and_the_second_call_is_unchanged(tree, tmp_path, old_name):
    old = CONTENTS[old_name]
    for new_name, new in CONTENTS.items():
        want = kept(old, new)
        tree.write("f.bin", old)
        r = W(tree, "--if-sha256", sha(old), "--stdin", "f.bin", stdin=new)
        assert r.exit == 0, r
        assert read(tree.p("f.bin")) == want, (old_name, new_name)
        d = r.data
        assert (d["bytes"], d["after_sha256"]) == (len(want), sha(want))
        assert (d["eol"], d["bom"]) == (eol_of(want), want.startswith(MARK))
        assert apply_diff(old, d["diff"]) == want, (old_name, new_name)
        assert (d["diff"]["added"], d["diff"]["removed"]) == gnu_counts(tmp_path, old, want)
        assert (d["diff"]["old_bom"], d["diff"]["new_bom"]) == (old.startswith(MARK), want.startswith(MARK))
        again = W(tree, "--if-sha256", sha(old), "--stdin", "f.bin", stdin=new)
        assert again.exit == 0 and again.data["changed"] is False, (old_name, new_name)
        assert read(tree.p("f.bin")) == want


def test_lf_content_over_a_crlf_file_is_one_line_changed(tree):
    old = crlf31()
    tree.write("conf.ini", old)
    new = old.replace(b"\r\n", b"\n").replace(b"value17", b"changed")  # what peek showed, edited
    want = old.replace(b"value17", b"changed")
    dry = W(tree, "--if-sha256", sha(old), "--dry-run", "--stdin", "conf.ini", stdin=new)
    assert dry.exit == 9 and read(tree.p("conf.ini")) == old
    step = dry.doc["planned_actions"][-1]
    assert (step["op"], step["after_sha256"], step["bytes"]) == ("replace", sha(want), len(want))
    assert (dry.data["eol"], dry.data["diff"]["added"], dry.data["diff"]["removed"]) == ("crlf", 1, 1)
    r = W(tree, "--if-sha256", sha(old), "--stdin", "conf.ini", stdin=new)
    assert r.exit == 0 and read(tree.p("conf.ini")) == want
    d = r.data
    assert (d["eol"], d["bom"], d["after_sha256"], d["bytes"]) == ("crlf", False, sha(want), len(want))
    diff = d["diff"]
    assert (diff["added"], diff["removed"], diff["old_eol"], diff["new_eol"]) == (1, 1, "crlf", "crlf")
    changed = [(l["op"], l["text"]) for h in diff["hunks"] for l in h["lines"] if l["op"] != " "]
    assert changed == [("-", "key17 = value17"), ("+", "key17 = changed")]
    # The retry of the call that landed, and the dry run of it: nothing to do.
    again = W(tree, "--if-sha256", sha(old), "--stdin", "conf.ini", stdin=new)
    assert again.exit == 0 and again.data["changed"] is False and again.data["eol"] == "crlf"
    dry2 = W(tree, "--if-sha256", sha(want), "--dry-run", "--stdin", "conf.ini", stdin=new)
    assert dry2.exit == 9 and dry2.doc["planned_actions"] == [] and dry2.data["changed"] is False


def test_eol_keep_over_lf_mixed_and_new_files_writes_as_given(tree):
    # CRLF content over an LF file: as given (keep follows only a CRLF file).
    r = W(tree, "--if-sha256", sha(tack.PLAIN), "--stdin", "plain.txt", stdin=b"a\r\nb\r\n")
    assert read(tree.p("plain.txt")) == b"a\r\nb\r\n" and r.data["eol"] == "crlf"
    # LF content over a mixed file: as given.
    r = W(tree, "--if-sha256", sha(tack.MIXED), "--stdin", "mixed.txt", stdin=b"x\ny\n")
    assert read(tree.p("mixed.txt")) == b"x\ny\n" and r.data["eol"] == "lf"
    # A new file has no line endings to keep; --eol crlf converts it.
    r = W(tree, "--create", "--stdin", "n1.txt", stdin=b"p\nq\r\n")
    assert read(tree.p("n1.txt")) == b"p\nq\r\n" and r.data["eol"] == "mixed"
    r = W(tree, "--create", "--eol", "crlf", "--stdin", "n2.txt", stdin=b"p\nq\r\n")
    assert read(tree.p("n2.txt")) == b"p\r\nq\r\n" and r.data["eol"] == "crlf"
    assert r.data["diff"]["new_eol"] == "crlf" and [l["text"] for l in r.data["diff"]["hunks"][0]["lines"]] == ["p", "q"]
    again = W(tree, "--create", "--eol", "crlf", "--stdin", "n2.txt", stdin=b"p\nq\r\n")
    assert again.exit == 0 and again.data["changed"] is False
    r = W(tree, "--create", "--bom", "add", "--stdin", "n3.txt", stdin=b"z\n")
    assert read(tree.p("n3.txt")) == MARK + b"z\n" and r.data["bom"] is True
    # --create has no old file to follow: a CRLF file found there is not the landed retry of
    # its LF spelling.
    c = W(tree, "--create", "--stdin", "crlf.txt", stdin=tack.CRLF.replace(b"\r\n", b"\n"))
    assert c.rules == ["conflict.exists"] and read(tree.p("crlf.txt")) == tack.CRLF
    c = W(tree, "--create", "--stdin", "bom.txt", stdin=tack.BOM[3:])
    assert c.rules == ["conflict.exists"] and read(tree.p("bom.txt")) == tack.BOM


def test_mixed_content_over_a_crlf_file_converts_only_the_bare_newlines(tree):
    r = W(tree, "--if-sha256", sha(tack.CRLF), "--stdin", "crlf.txt", stdin=b"a\r\nb\nc\r\n\nd")
    assert read(tree.p("crlf.txt")) == b"a\r\nb\r\nc\r\n\r\nd" and r.data["eol"] == "crlf"


def test_eol_keep_follows_the_whole_old_file_not_its_first_bytes(tree):
    # write guesses the old file's line endings and BOM from its first bytes, to start its
    # fsync before the file is read whole; the whole file decides. Each case below misleads
    # the first 4 KiB, or comes close.
    cases = [
        # CRLF all through the head, a bare '\n' past it: mixed, so the content goes as given
        (b"a\r\n" * 2000 + b"b\n", b"x\ny\n", b"x\ny\n", "lf"),
        # no newline in the head, CRLF after it: CRLF, so the content is converted
        (b"x" * 5000 + b"\r\n", b"p\nq\n", b"p\r\nq\r\n", "crlf"),
        # a '\r' at the end of the head, its '\n' just past it
        (b"y" * 4095 + b"\r\n" + b"z\r\n", b"p\n", b"p\r\n", "crlf"),
        # a BOM and a bare '\n' in the head: the BOM is put back
        (MARK + b"one\n" * 3000, b"two\n", MARK + b"two\n", "lf"),
        # a file shorter than a BOM
        (b"\n", b"p\r\n", b"p\r\n", "crlf"),
    ]
    for i, (old, content, want, eol) in enumerate(cases):
        name = f"guess{i}.txt"
        tree.write(name, old)
        r = W(tree, "--if-sha256", sha(old), "--stdin", name, stdin=content)
        assert r.exit == 0 and read(tree.p(name)) == want, (i, r.out)
        assert (r.data["eol"], r.data["after_sha256"]) == (eol, sha(want)), i
        assert litter(tree.root) == [], i


def test_eol_lf_and_crlf_say_otherwise(tree):
    r = W(tree, "--if-sha256", sha(tack.CRLF), "--eol", "lf", "--stdin", "crlf.txt",
          stdin=b"one\r\ntwo\nthree\r\n")
    assert read(tree.p("crlf.txt")) == b"one\ntwo\nthree\n"
    d = r.data
    assert d["eol"] == "lf" and (d["diff"]["old_eol"], d["diff"]["new_eol"]) == ("crlf", "lf")
    assert (d["diff"]["added"], d["diff"]["removed"]) == (3, 3)  # every line's ending changed
    again = W(tree, "--if-sha256", sha(tack.CRLF), "--eol", "lf", "--stdin", "crlf.txt",
              stdin=b"one\r\ntwo\nthree\r\n")
    assert again.data["changed"] is False
    # --eol crlf over an LF file.
    r = W(tree, "--if-sha256", sha(tack.PLAIN), "--eol", "crlf", "--stdin", "plain.txt", stdin=b"u\nv\n")
    assert read(tree.p("plain.txt")) == b"u\r\nv\r\n"
    # raw: byte for byte over a CRLF file.
    tree.write("c2.txt", tack.CRLF)
    r = W(tree, "--if-sha256", sha(tack.CRLF), "--eol", "raw", "--stdin", "c2.txt", stdin=b"u\nv\n")
    assert read(tree.p("c2.txt")) == b"u\nv\n" and r.data["eol"] == "lf"


def test_bom_is_kept_not_doubled_and_removed_on_request(tree):
    # Content without a BOM over a BOM file (as peek shows it): the BOM is put back.
    new = b"with BOM\nsecond\n"
    r = W(tree, "--if-sha256", sha(tack.BOM), "--stdin", "bom.txt", stdin=new)
    assert read(tree.p("bom.txt")) == MARK + new
    d = r.data
    assert d["bom"] is True and (d["diff"]["old_bom"], d["diff"]["new_bom"]) == (True, True)
    assert [(l["op"], l["text"]) for l in d["diff"]["hunks"][0]["lines"]] == [
        ("-", "with bom"), ("+", "with BOM"), (" ", "second")]
    assert W(tree, "--if-sha256", sha(tack.BOM), "--stdin", "bom.txt", stdin=new).data["changed"] is False
    # Content with its own BOM: not doubled.
    cur = MARK + new
    r = W(tree, "--if-sha256", sha(cur), "--stdin", "bom.txt", stdin=MARK + b"x\n")
    assert read(tree.p("bom.txt")) == MARK + b"x\n"
    # --bom remove: line 1 changed, its text the same, the fields say why.
    cur = MARK + b"x\n"
    r = W(tree, "--if-sha256", sha(cur), "--bom", "remove", "--stdin", "bom.txt", stdin=MARK + b"x\n")
    assert read(tree.p("bom.txt")) == b"x\n" and r.data["bom"] is False
    d = r.data["diff"]
    assert (d["old_bom"], d["new_bom"], d["added"], d["removed"]) == (True, False, 1, 1)
    assert [(l["op"], l["text"]) for l in d["hunks"][0]["lines"]] == [("-", "x"), ("+", "x")]
    # --bom raw: as given, even over a BOM file.
    tree.write("b2.txt", tack.BOM)
    W(tree, "--if-sha256", sha(tack.BOM), "--bom", "raw", "--stdin", "b2.txt", stdin=b"y\n")
    assert read(tree.p("b2.txt")) == b"y\n"


def test_bom_and_crlf_file_with_empty_content_and_a_lone_cr(tree):
    old = MARK + b"a\r\nb\r\n"
    tree.write("bc.txt", old)
    # Empty content: the BOM is kept (an empty text that keeps its encoding mark).
    r = W(tree, "--if-sha256", sha(old), "--stdin", "bc.txt", stdin=b"")
    assert read(tree.p("bc.txt")) == MARK
    assert (r.data["eol"], r.data["bom"], r.data["bytes"]) == ("none", True, 3)
    assert r.data["diff"]["hunks"][0]["lines"] == [
        {"op": "-", "text": "a"}, {"op": "-", "text": "b"}, {"op": "+", "text": "", "no_newline": True}]
    # --bom remove makes it truly empty.
    r = W(tree, "--if-sha256", sha(MARK), "--bom", "remove", "--stdin", "bc.txt", stdin=b"")
    assert read(tree.p("bc.txt")) == b"" and r.data["bytes"] == 0
    # A lone '\r' is a byte, never a line ending: nothing is added to it.
    tree.write("cr.txt", tack.CRLF)
    W(tree, "--if-sha256", sha(tack.CRLF), "--stdin", "cr.txt", stdin=b"a\rb\r\nc\r")
    assert read(tree.p("cr.txt")) == b"a\rb\r\nc\r"


def test_non_utf8_and_binary_content(tree):
    # Latin-1 over CRLF: converted like any text, shown as b64 lines.
    new = "caf\u00e9\nna\u00efve\n".encode("latin-1")
    r = W(tree, "--if-sha256", sha(tack.CRLF), "--stdin", "crlf.txt", stdin=new)
    assert read(tree.p("crlf.txt")) == new.replace(b"\n", b"\r\n")
    assert {"b64": base64.b64encode(b"caf\xe9").decode()} in [
        l["text"] for l in r.data["diff"]["hunks"][0]["lines"]]
    # Binary content (a NUL in its first 8 KiB) is not rewritten by keep; --eol crlf does.
    cur = new.replace(b"\n", b"\r\n")
    r = W(tree, "--if-sha256", sha(cur), "--stdin", "crlf.txt", stdin=tack.NUL)
    assert read(tree.p("crlf.txt")) == tack.NUL
    tree.write("c2.txt", tack.CRLF)
    W(tree, "--if-sha256", sha(tack.CRLF), "--eol", "crlf", "--stdin", "c2.txt", stdin=tack.NUL)
    assert read(tree.p("c2.txt")) == tack.NUL.replace(b"\n", b"\r\n")


def test_content_sha256_is_of_the_content_as_given(tree):
    new = b"one\nTWO\nthree\n"
    r = W(tree, "--if-sha256", sha(tack.CRLF), "--content-sha256", sha(new), "--stdin", "crlf.txt",
          stdin=new)
    assert r.exit == 0 and r.data["after_sha256"] == sha(new.replace(b"\n", b"\r\n"))
    tree.write("c2.txt", tack.CRLF)
    bad = W(tree, "--if-sha256", sha(tack.CRLF), "--content-sha256", sha(new.replace(b"\n", b"\r\n")),
            "--stdin", "c2.txt", stdin=new)
    assert bad.rules == ["precondition.content-mismatch"] and read(tree.p("c2.txt")) == tack.CRLF


def test_content_at_the_cap_may_grow_twice_and_a_bom(tree):
    """--max-bytes caps the content as given; the rewrite of N newlines over a CRLF file with a
    BOM is 2N + 3 bytes, written whole."""
    n = 4096
    old = MARK + b"x\r\n"
    tree.write("cap.txt", old)
    new = b"\n" * n
    r = W(tree, "--if-sha256", sha(old), "--max-bytes", str(n), "--stdin", "cap.txt", stdin=new)
    want = MARK + b"\r\n" * n
    assert r.exit == 0 and read(tree.p("cap.txt")) == want
    assert (r.data["bytes"], r.data["after_sha256"]) == (2 * n + 3, sha(want))
    # One byte more is refused, with the retry that clears it (the harness runs it).
    tree.write("cap2.txt", old)
    big = W(tree, "--if-sha256", sha(old), "--max-bytes", str(n), "--stdin", "cap2.txt", stdin=new + b"\n")
    assert big.rules == ["limit.input-too-large"] and big.errors[0]["detail"]["bytes"] == n + 1
    # An old file larger than the cap is not held, yet its line endings and BOM are known.
    large = MARK + b"line\r\n" * 2000
    tree.write("large.txt", large)
    r = W(tree, "--if-sha256", sha(large), "--max-bytes", "100", "--stdin", "large.txt", stdin=b"a\nb\n")
    assert read(tree.p("large.txt")) == MARK + b"a\r\nb\r\n" and r.data["diff"] is None


def test_text_mode_names_eol_and_bom(tree):
    t = W(tree, "--if-sha256", sha(tack.BOM), "--stdin", "bom.txt", "--format", "text", stdin=b"z\n")
    assert t.out.startswith(b"bom.txt: replaced, 5 bytes, lf, bom, sha256 ")


def test_missing_final_newline_is_marked(tree):
    r = W(tree, "--if-sha256", sha(tack.NOFINAL), "--stdin", "nofinal.txt",
          stdin=tack.NOFINAL + b"\n")
    lines = r.data["diff"]["hunks"][0]["lines"]
    assert lines[-2] == {"op": "-", "text": "last-without-newline", "no_newline": True}
    assert lines[-1] == {"op": "+", "text": "last-without-newline"}
    t = W(tree, "--if-sha256", sha(tack.NOFINAL + b"\n"), "--stdin", "nofinal.txt",
          "--format", "text", stdin=tack.NOFINAL)
    assert b"+last-without-newline\n\\ No newline at end of file\n" in t.out


def test_binary_lines_are_b64_never_replaced(tree):
    r = W(tree, "--if-sha256", sha(tack.LATIN1), "--stdin", "latin1.txt", stdin=b"caf\xe9!\n")
    texts = [l["text"] for l in r.data["diff"]["hunks"][0]["lines"]]
    assert {"b64": base64.b64encode(b"caf\xe9!").decode()} in texts


def test_max_diff_lines_truncates_listing_not_counts(tree):
    old = b"".join(b"o%d\n" % i for i in range(50))
    new = b"".join(b"n%d\n" % i for i in range(50))
    tree.write("big.txt", old)
    r = W(tree, "--if-sha256", sha(old), "--max-diff-lines", "7", "--stdin", "big.txt", stdin=new)
    d = r.data
    assert d["diff_truncated"] is True
    assert (d["diff"]["added"], d["diff"]["removed"]) == (50, 50)
    listed = sum(len(h["lines"]) for h in d["diff"]["hunks"])
    assert listed == 7
    assert read(tree.p("big.txt")) == new  # the cap is on the answer, never on the write
    z = W(tree, "--if-sha256", sha(new), "--max-diff-lines", "0", "--stdin", "big.txt", stdin=old)
    assert z.data["diff"]["hunks"] == [] and z.data["diff_truncated"] is True


def test_local_change_in_a_large_file_has_its_line_numbers_and_context(tree, tmp_path):
    """Only the changed lines and their context are split (the equal head and tail are cut as
    bytes), yet the hunk counts lines from the top and shows three lines around the change,
    as diff -u does."""
    old = b"".join(b"line %d\n" % i for i in range(1, 50001))
    new = old.replace(b"line 25000\n", b"changed\nadded\n")
    tree.write("big.txt", old)
    r = W(tree, "--if-sha256", sha(old), "--stdin", "big.txt", stdin=new)
    assert r.exit == 0
    hunks = r.data["diff"]["hunks"]
    assert len(hunks) == 1
    h = hunks[0]
    assert (h["old_start"], h["old_lines"], h["new_start"], h["new_lines"]) == (24997, 7, 24997, 8)
    assert [l["op"] for l in h["lines"]] == [" ", " ", " ", "-", "+", "+", " ", " ", " "]
    assert h["lines"][0]["text"] == "line 24997" and h["lines"][-1]["text"] == "line 25003"
    assert apply_diff(old, r.data["diff"]) == new
    assert (r.data["diff"]["added"], r.data["diff"]["removed"]) == gnu_counts(tmp_path, old, new)


def test_create_of_a_large_file_lists_up_to_the_cap_and_counts_every_line(tree):
    new = b"".join(b"row %d\n" % i for i in range(30000)) + b"last"
    r = W(tree, "--create", "--max-diff-lines", "10", "--stdin", "made.txt", stdin=new)
    assert r.exit == 0 and r.data["created"] is True
    d = r.data["diff"]
    assert (d["added"], d["removed"]) == (30001, 0) and r.data["diff_truncated"] is True
    assert len(d["hunks"]) == 1 and len(d["hunks"][0]["lines"]) == 10
    assert (d["hunks"][0]["old_start"], d["hunks"][0]["new_start"]) == (0, 1)
    assert read(tree.p("made.txt")) == new


def test_old_file_larger_than_max_bytes_is_hashed_not_diffed(tree):
    big = b"x\n" * 5000
    tree.write("big.txt", big)
    r = W(tree, "--if-sha256", sha(big), "--max-bytes", "100", "--stdin", "big.txt", stdin=b"small\n")
    assert r.exit == 0 and r.data["diff"] is None and r.data["diff_truncated"] is True
    assert read(tree.p("big.txt")) == b"small\n"


def test_content_file_and_content_sha256(tree):
    tree.write("src.txt", b"from a file\n")
    r = W(tree, "--create", "--content-file", "src.txt", "--content-sha256", sha(b"from a file\n"),
          "copy.txt")
    assert r.exit == 0 and read(tree.p("copy.txt")) == b"from a file\n"
    bad = W(tree, "--create", "--stdin", "--content-sha256", sha(b"other"), "c2.txt", stdin=b"x")
    assert bad.rules == ["precondition.content-mismatch"]
    assert bad.errors[0]["detail"]["actual_sha256"] == sha(b"x")
    assert bad.errors[0]["repair"]["kind"] == "none"
    assert not os.path.exists(tree.p("c2.txt"))
    # The content file is confined like any path: a link to outside is refused.
    lnk = W(tree, "--create", "--content-file", "link_out_file", "c3.txt")
    assert lnk.rules == ["path.symlink"] and not os.path.exists(tree.p("c3.txt"))


def test_large_content_file_and_old_file_hashed_beside_the_diff(tree, tmp_path):
    """Content and old file of 256 KiB and more are hashed on second threads while the diff is
    made: every answer still names the bytes in the file, a wrong --if-sha256 still writes
    nothing, --content-sha256 still checks the content as given, and a CRLF file's policy
    still rewrites an LF content (its hash is of the bytes written, not of those given)."""
    old = b"".join(b"old line %d of the file\n" % i for i in range(40000))  # ~1 MiB
    new = old.replace(b"line 20000 ", b"LINE 20000 ").replace(b"line 39999 ", b"last ")
    assert len(old) > 256 * 1024
    tree.write("src.txt", new)
    tree.write("big.txt", old)
    # A wrong precondition: nothing written, the actual hash named, nothing left behind.
    bad = W(tree, "--if-sha256", sha(b"other"), "--content-file", "src.txt", "big.txt")
    assert bad.rules == ["precondition.hash-mismatch"]
    assert bad.errors[0]["detail"]["actual_sha256"] == sha(old)
    assert read(tree.p("big.txt")) == old and litter(tree.root) == []
    wrong = W(tree, "--if-sha256", sha(old), "--content-sha256", sha(old), "--content-file",
              "src.txt", "big.txt")
    assert wrong.rules == ["precondition.content-mismatch"]
    assert wrong.errors[0]["detail"]["actual_sha256"] == sha(new)
    assert read(tree.p("big.txt")) == old
    r = W(tree, "--if-sha256", sha(old), "--content-sha256", sha(new), "--content-file",
          "src.txt", "big.txt")
    assert r.exit == 0 and read(tree.p("big.txt")) == new
    assert (r.data["before_sha256"], r.data["after_sha256"]) == (sha(old), sha(new))
    assert apply_diff(old, r.data["diff"]) == new
    assert (r.data["diff"]["added"], r.data["diff"]["removed"]) == gnu_counts(tmp_path, old, new)
    # The same call again: already applied, changed false, the same hashes.
    again = W(tree, "--if-sha256", sha(old), "--content-file", "src.txt", "big.txt")
    assert again.exit == 0 and again.data["changed"] is False
    assert again.data["diff"]["hunks"] == [] and again.data["before_sha256"] == sha(new)
    # Over a CRLF file the LF content is written CRLF: after_sha256 is of those bytes.
    crlf = old.replace(b"\n", b"\r\n")
    tree.write("crlf.txt", crlf)
    c = W(tree, "--if-sha256", sha(crlf), "--content-file", "src.txt", "crlf.txt")
    stored = read(tree.p("crlf.txt"))
    assert c.exit == 0 and stored == new.replace(b"\n", b"\r\n")
    assert (c.data["before_sha256"], c.data["after_sha256"]) == (sha(crlf), sha(stored))
    assert c.data["diff"]["added"] == 2 and c.data["diff"]["removed"] == 2


def test_parents_are_made_listed_and_dry_run_makes_none(tree):
    dry = W(tree, "--create", "--parents", "--dry-run", "--stdin", "a/b/c.txt", stdin=b"deep\n")
    assert dry.exit == 9 and dry.doc["dry_run"] is True
    assert dry.data["parents_created"] == ["a", "a/b"]
    assert [a["op"] for a in dry.doc["planned_actions"]] == ["mkdir", "mkdir", "create"]
    assert not os.path.exists(tree.p("a"))
    r = W(tree, "--create", "--parents", "--stdin", "a/b/c.txt", stdin=b"deep\n")
    assert r.exit == 0 and r.data["parents_created"] == ["a", "a/b"]
    assert read(tree.p("a/b/c.txt")) == b"deep\n"
    again = W(tree, "--create", "--parents", "--stdin", "a/b/c.txt", stdin=b"deep\n")
    assert again.data["changed"] is False and "parents_created" not in again.data
    # Without --parents a missing directory is not made.
    no = W(tree, "--create", "--stdin", "x/y.txt", stdin=b"y")
    assert no.rules == ["io.not-found"] and not os.path.exists(tree.p("x"))
    # --if-sha256 names a file that exists, so --parents makes nothing for it.
    h = W(tree, "--if-sha256", sha(b""), "--parents", "--stdin", "q/r.txt", stdin=b"y")
    assert h.rules == ["io.not-found"] and not os.path.exists(tree.p("q"))


def test_mode_is_kept_and_new_files_follow_the_umask(tree):
    os.chmod(tree.p("plain.txt"), 0o751)
    W(tree, "--if-sha256", sha(tack.PLAIN), "--stdin", "plain.txt", stdin=b"new\n")
    assert stat.S_IMODE(os.stat(tree.p("plain.txt")).st_mode) == 0o751
    old = os.umask(0o027)
    try:
        W(tree, "--create", "--stdin", "fresh.txt", stdin=b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tree.p("fresh.txt")).st_mode) == 0o640


def test_text_mode_is_a_unified_diff(tree):
    t = W(tree, "--if-sha256", sha(tack.CRLF), "--stdin", "crlf.txt", "--format", "text",
          stdin=b"one\r\nTWO\r\nthree\r\n")
    assert t.exit == 0
    assert t.out.startswith(b"crlf.txt: replaced, 17 bytes, crlf, sha256 ")
    assert b"@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n" in t.out


# --- M5: against cp ---------------------------------------------------------------------------

RANDOM_BYTES = random.Random(5).randbytes(70000)


@pytest.mark.parametrize("content", [b"", b"x", tack.PLAIN, tack.NUL, tack.CRLF, RANDOM_BYTES],
                         ids=["empty", "x", "plain", "nul", "crlf", "random"])
@pytest.mark.parametrize("mode", [0o644, 0o600, 0o755, 0o440])
def test_same_bytes_and_mode_as_cp(tree, tmp_path, content, mode):
    src = tmp_path / "src.bin"
    src.write_bytes(content)
    # Replace an existing file: cp writes into it, write renames over it; both keep its mode.
    for name in ("by_cp", "by_write"):
        tree.write(name, b"previous\n")
        os.chmod(tree.p(name), mode)
    subprocess.run(["cp", str(src), tree.p("by_cp")], check=True)
    r = run("write", "--root", tmp_path, "--if-sha256", sha(b"previous\n"), "--content-file",
            "src.bin", "root/by_write")
    assert r.exit == 0
    for name in ("by_cp", "by_write"):
        assert read(tree.p(name)) == content
    assert os.stat(tree.p("by_cp")).st_mode == os.stat(tree.p("by_write")).st_mode
    # A new file: cp gives the source's mode less the umask; write gives 0644 less the umask.
    os.chmod(src, 0o644)
    subprocess.run(["cp", str(src), tree.p("new_cp")], check=True)
    run("write", "--root", tmp_path, "--create", "--content-file", "src.bin", "root/new_write")
    assert read(tree.p("new_write")) == read(tree.p("new_cp"))
    assert os.stat(tree.p("new_cp")).st_mode == os.stat(tree.p("new_write")).st_mode


# --- M3: every declared rule reached, every retry cleared -------------------------------------

R = "{root}"
H_PLAIN = sha(tack.PLAIN)
STRACE_QUIET = ["strace", "-f", "-qq", "-o", "/dev/null"]
NO_NOREPLACE = STRACE_QUIET + ["-e", "trace=renameat2", "-e", "inject=renameat2:error=EINVAL"]

FIXTURES = [
    ("args.unknown-flag", [R, "--creat", "--stdin", "u.txt"], {}),
    ("args.missing-value", [R, "--create", "--stdin", "m.txt", "--max-bytes"], {}),
    ("args.bad-value", [R, "--if-sha256", "xyz", "--stdin", "plain.txt"], {}),
    ("args.bad-value", [R, "--create", "--max-diff-lines", "-1", "--stdin", "b.txt"], {}),
    ("args.unexpected-value", [R, "--create=yes", "--stdin", "u.txt"], {}),
    ("args.duplicate-flag", [R, "--create", "--create", "--stdin", "d.txt"], {}),
    ("args.conflict", [R, "--create", "--if-sha256", H_PLAIN, "--stdin", "plain.txt"], {}),
    ("args.conflict", [R, "--create", "--stdin", "--content-file", "plain.txt", "c.txt"], {}),
    ("args.missing-operand", [R, "--create", "--stdin"], {}),
    ("args.required-flag", [R, "--create", "n.txt"], {}),
    ("args.too-many-operands", [R, "--create", "--stdin", "a.txt", "b.txt"], {}),
    ("path.empty", [R, "--create", "--stdin", ""], {}),
    ("path.dotdot", [R, "--create", "--stdin", "dir/../dd.txt"], {}),
    ("path.dotdot", [R, "--create", "--stdin", "../outside/x.txt"], {}),
    ("path.absolute", [R, "--create", "--stdin", R + "/abs.txt"], {}),
    ("path.outside-root", [R, "--create", "--stdin", "/etc/tack-never.txt"], {}),
    ("path.too-long", [R, "--create", "--stdin", "a" * 4097], {}),
    ("path.symlink", [R, "--if-sha256", sha(SECRET + b"\n"), "--stdin", "link_out_file"], {}),
    ("path.symlink", [R, "--create", "--stdin", "link_out_dir/new.txt"], {}),
    ("io.not-found", [R, "--if-sha256", H_PLAIN, "--stdin", "missing.txt"], {}),
    ("io.not-found", [R, "--create", "--content-file", "missing.txt", "nf.txt"], {}),
    ("io.not-a-directory", [R, "--create", "--stdin", "plain.txt/x"], {}),
    ("io.is-a-directory", [R, "--create", "--stdin", "dir"], {}),
    ("io.is-a-directory", [R, "--create", "--stdin", "."], {}),
    ("io.special-file", [R, "--create", "--stdin", "fifo"], {}),
    ("io.permission-denied", [R, "--create", "--stdin", "ro/new.txt"], {"wrap": tack.NO_DAC}),
    ("io.read-failed", ["--create", "--content-file", "/proc/self/mem", R + "/rf.txt"], {}),
    ("io.rename-unsupported", [R, "--create", "--stdin", "ru.txt"], {"wrap": NO_NOREPLACE}),
    ("limit.input-too-large", [R, "--create", "--max-bytes", "3", "--stdin", "big.txt"], {}),
    ("precondition.required", [R, "--stdin", "plain.txt"], {}),
    ("precondition.hash-mismatch", [R, "--if-sha256", "0" * 64, "--stdin", "plain.txt"], {}),
    ("precondition.content-mismatch",
     [R, "--create", "--content-sha256", "0" * 64, "--stdin", "cm.txt"], {}),
    ("conflict.exists", [R, "--create", "--stdin", "plain.txt"], {}),
    ("conflict.locked", [R, "--create", "--stdin", "locked.txt"], {"lock": True}),
]


def _prepare(tree):
    if not os.path.lexists(tree.p("fifo")):
        tree.fifo("fifo")
    if not os.path.exists(tree.p("ro")):
        os.mkdir(tree.p("ro"))
        os.chmod(tree.p("ro"), 0o555)


def _wfix(tree, args, opts, extra=()):
    _prepare(tree)
    a = []
    for x in args:
        if x == R:
            a += ["--root", str(tree.root)]
        else:
            a.append(x.replace(R, str(tree.root)))
    holder = None
    if opts.get("lock"):
        holder = os.open(tree.root, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        return run("write", *extra, *a, stdin=b"content 10", wrap=opts.get("wrap"),
                   cwd=tree.root.parent, timeout=30)
    finally:
        if holder is not None:
            os.close(holder)


@pytest.mark.parametrize("fx", FIXTURES, ids=[f"{f[0]}-{i}" for i, f in enumerate(FIXTURES)])
def test_fixture_reaches_its_rule(tree, fx):
    rule, args, opts = fx
    before = snapshot(tree.root.parent / "outside")
    r = _wfix(tree, args, opts)
    assert r.rules and r.rules[0] == rule, r
    assert r.exit == tack.CATALOGUE[rule]
    assert snapshot(tree.root.parent / "outside") == before
    assert litter(tree.root) == []
    t = _wfix(tree, args, opts, extra=("--format", "text"))
    assert t.exit == tack.CATALOGUE[rule] and t.err.startswith(f"write: {rule}: ".encode()), t


def test_reached_rules_equal_declared_rules(tree, small_fs):
    reached = set()
    for rule, args, opts in FIXTURES:
        reached.update(_wfix(tree, args, opts).rules)
    full = W(tree, "--create", "--stdin", "small/full.bin", stdin=b"z" * (600 * 1024))
    reached.update(full.rules)
    declared = set(tack.declared_rules("write"))
    assert reached == declared, (declared - reached, reached - declared)


def test_retry_repairs_were_executed_and_cleared(tree):
    before = len(tack.RETRIES)
    r = W(tree, "--create", "--stdn", "u.txt", stdin=b"u\n")
    assert r.retried and r.retried[0].exit == 0 and read(tree.p("u.txt")) == b"u\n"
    # A typo of --create is named, never retried: a repair does not add a flag that widens.
    r = W(tree, "--creat", "--stdin", "u2.txt", stdin=b"u\n")
    e = r.errors[0]
    assert e["rule"] == "args.unknown-flag" and e["repair"] is None and not r.retried
    assert e["detail"]["nearest"] == "--create" and not os.path.exists(tree.p("u2.txt"))
    r = W(tree, "--create", "--stdin", "dir/./sub/../../dd.txt", stdin=b"d\n")
    assert r.retried[0].exit == 0 and r.retried[0].data["path"] == "dd.txt"
    r = W(tree, "--create", "--stdin", f"{tree.root}/dir/abs.txt", stdin=b"a\n")
    assert r.retried[0].exit == 0 and read(tree.p("dir/abs.txt")) == b"a\n"
    r = W(tree, "--create", "--max-bytes", "3", "--stdin", "big.txt", stdin=b"0123456789")
    e = r.errors[0]
    assert e["detail"]["bytes"] == 10 and e["detail"]["exact"] is True
    assert r.retried[0].exit == 0 and read(tree.p("big.txt")) == b"0123456789"
    r = W(tree, "--create", "--max-bytes", "3", "--content-file", "plain.txt", "big2.txt")
    assert r.retried[0].exit == 0 and read(tree.p("big2.txt")) == tack.PLAIN
    rules = {x["rule"] for x in tack.RETRIES[before:] if x["tool"] == "write"}
    assert rules == {"args.unknown-flag", "path.dotdot", "path.absolute", "limit.input-too-large"}
    # No repair ever widens authority: none adds --create, drops --dry-run, or touches --root.
    for x in tack.RETRIES[before:]:
        assert b"--create" in x["argv"] or x["rule"] == "args.unknown-flag"


def test_conflicts_name_the_actual_hash_and_repair_none(tree):
    r = W(tree, "--create", "--stdin", "plain.txt", stdin=b"x")
    e = r.errors[0]
    assert e["detail"]["actual_sha256"] == H_PLAIN and e["repair"]["kind"] == "none"
    r = W(tree, "--if-sha256", "1" * 64, "--stdin", "plain.txt", stdin=b"x")
    e = r.errors[0]
    assert e["detail"]["actual_sha256"] == H_PLAIN and e["detail"]["expected"] == "1" * 64
    assert e["repair"]["kind"] == "none"
    assert read(tree.p("plain.txt")) == tack.PLAIN


def test_argument_errors_read_nothing(tree, tmp_path):
    """precondition.required and the other argument errors: stdin is never read."""
    r, w = os.pipe()
    os.write(w, b"never read")
    p = subprocess.run([tack.bin_path("write"), "--root", str(tree.root), "--stdin", "plain.txt"],
                       stdin=r, capture_output=True, timeout=10)
    os.close(w)
    left = os.read(r, 100)
    os.close(r)
    assert p.returncode == 2 and b"precondition.required" in p.stdout
    assert left == b"never read"


def test_stdin_larger_than_the_ceiling_has_no_retry(tree):
    big = 256 * MiB + 1
    p = subprocess.Popen([tack.bin_path("write"), "--root", str(tree.root), "--create",
                          "--stdin", "huge.bin"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    chunk = b"\0" * MiB
    try:
        for _ in range(big // MiB + 1):
            p.stdin.write(chunk)
    except BrokenPipeError:
        pass
    p.stdin.close()
    out = p.stdout.read()
    p.wait(60)
    doc = tack.check_output("write", [b"--create", b"--stdin", b"huge.bin"], p.returncode, out,
                            p.stderr.read())
    e = doc["errors"][0]
    assert e["rule"] == "limit.input-too-large" and e["repair"]["kind"] == "none"
    assert e["detail"]["exact"] is False
    assert not os.path.exists(tree.p("huge.bin"))


# --- hostile cases ----------------------------------------------------------------------------

def test_symlinked_file_is_refused_and_its_target_unchanged(tree):
    outside = snapshot(tree.outside)
    for args in (["--if-sha256", sha(SECRET + b"\n")], ["--create"]):
        r = W(tree, *args, "--stdin", "link_out_file", stdin=b"pwned\n")
        assert r.rules == ["path.symlink"]
        assert r.errors[0]["detail"]["kind"] == "symlink"
    # Without --root a writer still never follows a link in the file's own name.
    r = run("write", "--create", "--stdin", tree.p("link_out_file"), stdin=b"pwned\n")
    assert r.rules == ["path.symlink"]
    tree.chain()
    r = W(tree, "--if-sha256", H_PLAIN, "--stdin", "chain1", stdin=b"pwned\n")
    assert r.rules == ["path.symlink"] and read(tree.p("plain.txt")) == tack.PLAIN
    assert snapshot(tree.outside) == outside
    assert os.path.islink(tree.p("link_out_file"))


def test_symlinked_directory_in_the_path_is_refused(tree):
    outside = snapshot(tree.outside)
    r = W(tree, "--if-sha256", sha(SECRET + b" in dir\n"), "--stdin", "link_out_dir/secret.txt",
          stdin=b"pwned\n")
    assert r.rules == ["path.symlink"]
    for path in ("link_out_dir/new.txt", "link_out_dir/a/b/new.txt"):
        r = W(tree, "--create", "--parents", "--stdin", path, stdin=b"pwned\n")
        assert r.rules == ["path.symlink"], r
    tree.mid_link("dirlink")
    r = W(tree, "--create", "--parents", "--stdin", "dirlink/sub/new/x.txt", stdin=b"x")
    assert r.rules == ["path.symlink"] and not os.path.exists(tree.p("dir/sub/new"))
    assert snapshot(tree.outside) == outside


def test_dangling_symlink_target_creates_nothing_outside(tree):
    tree.link("dangle_out", tree.outside / "created-through-link.txt")
    tree.dangling("dangle_in")
    for name in ("dangle_out", "dangle_in"):
        r = W(tree, "--create", "--stdin", name, stdin=b"x")
        assert r.rules == ["path.symlink"]
        assert os.path.islink(tree.p(name))
    r = run("write", "--create", "--stdin", tree.p("dangle_out"), stdin=b"x")
    assert r.rules == ["path.symlink"]
    assert not os.path.exists(tree.outside / "created-through-link.txt")
    assert not os.path.exists(tree.p("no-such-target"))


def test_hard_link_to_an_outside_file_never_changes_it(tree):
    secret = tree.outside / "secret.txt"
    os.link(secret, tree.p("hard"))
    r = W(tree, "--if-sha256", sha(SECRET + b"\n"), "--stdin", "hard", stdin=b"replaced\n")
    assert r.exit == 0
    assert read(tree.p("hard")) == b"replaced\n"
    # The rename replaced the directory entry; the outside inode keeps its content.
    assert read(secret) == SECRET + b"\n"
    assert os.stat(secret).st_nlink == 1


def test_special_files_are_refused_without_blocking(tree):
    tree.fifo("fifo")
    tree.socket("sock")
    for name in ("fifo", "sock"):
        r = W(tree, "--create", "--stdin", name, stdin=b"x", timeout=10)
        assert r.rules == ["io.special-file"]
        r = W(tree, "--if-sha256", H_PLAIN, "--stdin", name, stdin=b"x", timeout=10)
        assert r.rules == ["io.special-file"]
    r = W(tree, "--create", "--content-file", "fifo", "x.txt", timeout=10)
    assert r.rules == ["io.special-file"]


def test_directory_swapped_for_a_link_during_1000_writes(tree):
    a, b = SECRET + b" in dir\n", b"B-content\n"
    os.mkdir(tree.p("swap_real"))
    tree.write("swap_real/secret.txt", a)  # the same bytes as outside/dir/secret.txt
    tree.link("swap_link", tree.outside / "dir")
    outside = snapshot(tree.outside)
    flipper = subprocess.Popen(["/usr/bin/python3", "-c", FLIPPER, str(tree.root)])
    seen = {}
    try:
        for i in range(1000):
            if i % 4 == 3:
                r = W(tree, "--create", "--parents", "--stdin", f"swap/n{i}/f.txt", stdin=b"n")
            else:
                cur, new = (a, b) if i % 2 == 0 else (b, a)
                r = W(tree, "--if-sha256", sha(cur), "--stdin", "swap/secret.txt", stdin=new)
            key = r.rules[0] if r.rules else "ok"
            seen[key] = seen.get(key, 0) + 1
            assert key in ("ok", "path.symlink", "io.not-found", "precondition.hash-mismatch"), r
    finally:
        open(tree.p("stop"), "w").close()
        flipper.wait(30)
    assert snapshot(tree.outside) == outside, "something outside the root changed"
    assert seen.get("path.symlink", 0) > 0 and seen.get("ok", 0) > 0, seen
    for d in (tree.root, tree.p("swap_real"), tree.outside / "dir"):
        assert litter(os.fsdecode(d)) == []


@pytest.fixture
def small_fs(tree):
    """A 512 KiB tmpfs at ROOT/small (root only; skipped where mount is not allowed)."""
    path = tree.p("small")
    os.mkdir(path)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", path],
                       capture_output=True)
    if p.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {p.stderr.decode(errors='replace')}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", path], capture_output=True)


def test_full_disk_is_write_failed_and_the_target_unchanged(tree, small_fs):
    tree.write("small/f.txt", b"before\n")
    tree.write("src.bin", b"y" * (600 * 1024))
    r = W(tree, "--if-sha256", sha(b"before\n"), "--content-file", "src.bin", "small/f.txt")
    assert r.rules == ["io.write-failed"]
    d = r.errors[0]["detail"]
    assert d["errno"] == "ENOSPC" and d["stage"] == "write" and d["path"] == "small/f.txt"
    assert read(tree.p("small/f.txt")) == b"before\n"
    assert litter(small_fs.decode()) == []
    assert sorted(os.listdir(os.fsdecode(small_fs))) == ["f.txt"]
    # After the failure there is room again: the same tmpfs takes a small write.
    ok = W(tree, "--if-sha256", sha(b"before\n"), "--stdin", "small/f.txt", stdin=b"after\n")
    assert ok.exit == 0 and read(tree.p("small/f.txt")) == b"after\n"


# The directories a failed --parents write made are taken back (the sandbox grants writers
# LANDLOCK_ACCESS_FS_REMOVE_DIR beneath the root for exactly this).
def test_full_disk_with_parents_undoes_the_directories_it_made(tree, small_fs):
    tree.write("src.bin", b"y" * (600 * 1024))
    r = W(tree, "--create", "--parents", "--content-file", "src.bin", "small/a/b/c.bin")
    assert r.rules == ["io.write-failed"]
    assert os.listdir(os.fsdecode(small_fs)) == []


def test_read_only_directory_is_permission_denied_and_clean(tree):
    _prepare(tree)
    tree_ro = tree.p("ro")
    os.chmod(tree_ro, 0o755)
    tree.write("ro/f.txt", b"ro\n")
    os.chmod(tree_ro, 0o555)
    r = W(tree, "--if-sha256", sha(b"ro\n"), "--stdin", "ro/f.txt", stdin=b"x", wrap=tack.NO_DAC)
    assert r.rules == ["io.permission-denied"]
    assert r.errors[0]["detail"]["stage"] == "create-temporary"
    assert read(tree.p("ro/f.txt")) == b"ro\n" and litter(tree_ro.decode()) == []


def test_dry_runs_are_deterministic_and_change_nothing(tree):
    before = snapshot(tree.root)
    outs = set()
    for _ in range(3):
        r = W(tree, "--if-sha256", H_PLAIN, "--dry-run", "--stdin", "plain.txt", stdin=b"z\n")
        assert r.exit == 9 and r.doc["planned_actions"][0]["op"] == "replace"
        outs.add(r.out)
        r = W(tree, "--create", "--parents", "--dry-run", "--stdin", "n/e/w.txt", stdin=b"z\n")
        assert r.exit == 9
        outs.add(r.out)
    assert len(outs) == 2
    assert snapshot(tree.root) == before


# --- without --root, ownership, environment ---------------------------------------------------

def test_without_root_paths_are_as_given_but_the_name_is_never_followed(tree):
    r = run("write", "--create", "--stdin", "dir/rel.txt", stdin=b"rel\n", cwd=tree.root)
    assert r.exit == 0 and read(tree.p("dir/rel.txt")) == b"rel\n"
    r = run("write", "--if-sha256", sha(b"rel\n"), "--stdin", tree.p("dir/rel.txt"), stdin=b"abs\n")
    assert r.exit == 0 and read(tree.p("dir/rel.txt")) == b"abs\n"
    # A link in the directory part is the operator's spelling and is followed; in the name, never.
    r = run("write", "--if-sha256", sha(SECRET + b" in dir\n"), "--stdin", "link_out_dir/secret.txt",
            stdin=b"through the operator's link\n", cwd=tree.root)
    assert r.exit == 0
    r = run("write", "--create", "--stdin", "link_out_file", stdin=b"x", cwd=tree.root)
    assert r.rules == ["path.symlink"] and read(tree.outside / "secret.txt") == SECRET + b"\n"


def test_owner_and_group_are_kept_where_the_os_allows(tree):
    os.chown(tree.p("plain.txt"), 1234, 5678)
    r = W(tree, "--if-sha256", H_PLAIN, "--stdin", "plain.txt", stdin=b"owned\n")
    assert r.exit == 0
    st = os.stat(tree.p("plain.txt"))
    assert (st.st_uid, st.st_gid) == (1234, 5678)


ENVS = [
    {"PATH": "/usr/bin:/bin"},
    {"PATH": "/usr/bin:/bin", "LC_ALL": "tr_TR.UTF-8", "LANG": "tr_TR.UTF-8", "TZ": "Asia/Kolkata"},
    {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TERM": "xterm-256color", "OPENSSL_CONF": "/nonexistent",
     "TACK_ROOT": "/", "PWD": "/elsewhere", "COLUMNS": "7"},
]


@pytest.mark.parametrize("sink", tack.SINKS)
def test_dry_runs_are_the_same_bytes_in_any_environment_and_sink(tree, sink):
    tree.write("dir/stale/f.txt", b"old\n")
    outs = set()
    for env in ENVS:
        for cwd in (tree.root.parent, "/"):
            argv = [tack.bin_path("write"), "--root", str(tree.root), "--dry-run", "--if-sha256",
                    H_PLAIN, "--content-file", "crlf.txt", "plain.txt"]
            code, out, err = tack.run_sink(argv, sink, env=env, cwd=cwd)
            assert code == 9 and err == b""
            outs.add(out.replace(b"\r\n", b"\n") if sink == "pty" else out)
            argv = [tack.bin_path("move"), "--root", str(tree.root), "--dry-run", "--parents",
                    "plain.txt", "n/e/w.txt"]
            code, out, err = tack.run_sink(argv, sink, env=env, cwd=cwd)
            assert code == 9 and err == b""
            outs.add(out.replace(b"\r\n", b"\n") if sink == "pty" else out)
    assert len(outs) == 2, outs
