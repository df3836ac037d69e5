"""seek on lines too long to hold: a literal is still found in them, streaming, and the error
says where (the file offset of each occurrence, the first 100 listed, all counted) with a
repair that reads the bytes around the first one. Past the --max-line-bytes ceiling that
repair is peek --bytes, the tool beside seek; tack.run executes it and requires it to succeed.

Hostile cases first: an occurrence at the very end of a 256 MiB line, occurrences across
every read boundary, many, none, CRLF, a binary file; then memory (M9: peak RSS flat at 1, 64
and 256 MiB single-line files).
"""

import os
import subprocess

import pytest

import tack
from tack import tob

MIB = 1024 * 1024
CEILING = 16 * MIB
CHUNK = 256 * 1024  # the Scanner's read size at the default cap


def S(*args, **kw):
    return tack.run("seek", *args, **kw)


def the_error(r):
    (e,) = r.errors
    assert e["rule"] == "limit.line-too-long" and r.exit == 8
    return e


def offsets_of(body: bytes, needle: bytes, start: int = 0) -> list[int]:
    """Non-overlapping occurrences, leftmost first, as seek's spans count them."""
    out, at = [], body.find(needle)
    while at >= 0:
        out.append(start + at)
        at = body.find(needle, at + len(needle))
    return out


def write_line(path, size: int, fill: bytes = b"x", end: bytes = b"") -> None:
    """One line of `size` bytes of `fill`, then `end`, written in pieces."""
    block = fill * (4 * MIB // len(fill))
    with open(path, "wb") as f:
        left = size
        while left > 0:
            piece = block[:left]
            f.write(piece)
            left -= len(piece)
        f.write(end)


def peek_window(e):
    argv = [tob(a) for a in e["repair"]["argv"]]
    assert os.path.basename(argv[0]) == b"peek"
    return argv


# --- past the ceiling: offsets and a peek repair --------------------------------------------

@pytest.mark.slow
def test_occurrence_at_the_very_end_of_a_256_mib_line(tmp_path):
    size = 256 * MIB
    write_line(tmp_path / "one.json", size - len(b"NEEDLE"), end=b"NEEDLE")
    r = S("--root", tmp_path, "NEEDLE", "one.json")
    e = the_error(r)
    d = e["detail"]
    assert d["lines"] == [1] and d["longest"] == size and d["searched"] is True
    assert d["offsets"] == [size - 6] and d["occurrences"] == 1
    assert d["window"] == {"from": size - 6 - 256, "to": size}
    argv = peek_window(e)
    assert argv[1:] == [b"--root", os.fsencode(tmp_path), b"--bytes=%d:%d" % (size - 262, size),
                        b"--", b"one.json"]
    (peek,) = r.retried  # executed by tack.run: peek answered ok on that window
    assert peek.exit == 0 and tob(peek.data["text"]) == b"x" * 256 + b"NEEDLE"
    assert "first at byte %d" % (size - 6) in e["message"]


def test_a_json_line_past_the_ceiling_names_the_key_and_peek_shows_it(tmp_path):
    body = b'{' + b", ".join(b'"k%d": "%s"' % (i, b"v" * 40) for i in range(400_000))
    body += b', "wanted": "caf\xc3\xa9 here"}'
    assert len(body) > CEILING
    (tmp_path / "data.json").write_bytes(body)
    r = S("--root", tmp_path, "--max-line-bytes", str(CEILING), '"wanted"', "data.json")
    d = the_error(r)["detail"]
    at = body.index(b'"wanted"')
    assert d["offsets"] == [at] and d["occurrences"] == 1
    (peek,) = r.retried
    text = tob(peek.data["text"])
    assert b'"wanted": "caf\xc3\xa9 here"}' in text and peek.data["from"] == at - 256
    assert isinstance(peek.data["text"], str)  # whole characters: text, not base64


def test_the_window_never_cuts_a_character(tmp_path):
    # Three-byte characters all round the occurrence: each edge of the window would fall
    # inside one, and is moved to a character boundary instead.
    euro = "\u20ac".encode()
    body = euro * 6_000_000 + b"NEEDLE" + euro * 100
    (tmp_path / "e.txt").write_bytes(body)
    r = S("--root", tmp_path, "NEEDLE", "e.txt")
    d = the_error(r)["detail"]
    at = len(euro) * 6_000_000
    w = d["window"]
    assert at - 256 <= w["from"] <= at - 254 and (at - w["from"]) % 3 == 0
    assert (w["to"] - at - 6) % 3 == 0 and w["to"] <= at + 6 + 256
    (peek,) = r.retried
    assert isinstance(peek.data["text"], str)


def test_text_mode_error_names_the_first_offset(tmp_path):
    write_line(tmp_path / "t.txt", CEILING + 100, end=b"tail-mark\n")
    r = S("--root", tmp_path, "--format", "text", "tail-mark", "t.txt")
    assert r.exit == 8 and r.err.startswith(b"seek: limit.line-too-long: ")
    assert r.out == b""  # nothing matched in a line that could be shown
    assert b"first at byte %d" % (CEILING + 100) in r.err


# --- streaming: read boundaries, many, none, CRLF, binary --------------------------------

@pytest.mark.parametrize("split", [1, 3, 5, 8])
def test_occurrences_across_every_read_boundary(tmp_path, split):
    """The line is read CHUNK bytes at a time: a needle straddles each boundary, `split`
    bytes of it before the boundary, and every one is found."""
    needle = b"SPANNING"
    body = bytearray(b"-" * (3 * MIB + 77))
    want = []
    for k in range(1, len(body) // CHUNK):
        at = k * CHUNK - split
        body[at:at + len(needle)] = needle
        want.append(at)
    (tmp_path / "s.txt").write_bytes(bytes(body) + b"\n")
    d = the_error(S("--root", tmp_path, "SPANNING", "s.txt"))["detail"]
    assert d["offsets"] == want and d["occurrences"] == len(want)


def test_occurrences_across_small_read_boundaries(tmp_path):
    # At --max-line-bytes 1024 the reads are 1 KiB: every split of the needle over a boundary.
    needle = b"0123456789"
    body = bytearray(b"." * 40_000)
    want = []
    for k, split in enumerate(range(1, len(needle)), start=1):
        at = 3 * k * 1024 - split
        body[at:at + len(needle)] = needle
        want.append(at)
    (tmp_path / "s.txt").write_bytes(b"short\n" + bytes(body) + b"\n")
    d = the_error(S("--root", tmp_path, "--max-line-bytes", "1024", needle, "s.txt"))["detail"]
    assert d["offsets"] == [6 + w for w in want]


def test_many_occurrences_list_the_first_100_and_count_all(tmp_path):
    body = b"ab" * (2 * MIB)  # "abab…": 2 Mi occurrences of "ab", and of "ba" one fewer
    (tmp_path / "m.txt").write_bytes(body + b"\n")
    d = the_error(S("--root", tmp_path, "ab", "m.txt"))["detail"]
    assert d["offsets"] == list(range(0, 200, 2)) and d["occurrences"] == 2 * MIB
    # A needle that overlaps itself is counted without overlap, as spans are.
    (tmp_path / "a.txt").write_bytes(b"a" * (2 * MIB + 1) + b"\n")
    d = the_error(S("--root", tmp_path, "aaa", "a.txt"))["detail"]
    assert d["occurrences"] == (2 * MIB + 1) // 3 and d["offsets"][:3] == [0, 3, 6]


def test_occurrences_over_several_long_lines_are_in_file_order(tmp_path):
    l1 = b"." * 5000 + b"key" + b"." * 10
    l2 = b"key" + b"." * 3000 + b"key"
    body = l1 + b"\nkey short\n" + l2 + b"\n"
    (tmp_path / "f.txt").write_bytes(body)
    r = S("--root", tmp_path, "--max-line-bytes", "1024", "key", "f.txt")
    d = the_error(r)["detail"]
    o2 = len(l1) + len(b"\nkey short\n")
    assert d["lines"] == [1, 3] and d["offsets"] == [5000, o2, o2 + 3003]
    assert d["occurrences"] == 3
    assert [m["line"] for m in r.json if m["type"] == "match"] == [2]


def test_no_occurrence_in_a_long_line_is_no_error(tmp_path):
    write_line(tmp_path / "n.txt", CEILING + 10, end=b"\n")
    r = S("--root", tmp_path, "absent", "n.txt")
    assert r.exit == 0 and r.errors == [] and r.json[-1]["complete"] is True


def test_crlf_line_end_is_not_part_of_the_line(tmp_path):
    body = b"first\r\n" + b"y" * 3000 + b"end\r\nlast\r\n"
    (tmp_path / "c.txt").write_bytes(body)
    cap = ["--max-line-bytes", "1024"]
    d = the_error(S("--root", tmp_path, *cap, "end", "c.txt"))["detail"]
    assert d["offsets"] == [7 + 3000]
    assert d["window"] == {"from": 7 + 3000 - 256, "to": 7 + 3003}  # stops before the '\r'
    # The '\r' of a CRLF file is not shown, so nothing ends with it.
    r = S("--root", tmp_path, *cap, "end\r", "c.txt")
    assert r.exit == 0 and r.errors == []


def test_word_and_ignore_case_in_a_long_line(tmp_path):
    body = b"xKEYx " + b"key " + b"." * 3000 + b" Key_ KeY\n"
    (tmp_path / "w.txt").write_bytes(body)
    cap = ["--max-line-bytes", "1024"]
    d = the_error(S("--root", tmp_path, *cap, "-i", "-w", "key", "w.txt"))["detail"]
    assert d["offsets"] == [6, len(body) - 4]
    d = the_error(S("--root", tmp_path, *cap, "-i", "key", "w.txt"))["detail"]
    assert d["occurrences"] == 4


def test_a_named_binary_file_is_searched_and_peek_shows_base64(tmp_path):
    body = b"\x00\xff" * 2000 + b"MAGIC" + b"\x01" * 100
    (tmp_path / "b.bin").write_bytes(body)
    r = S("--root", tmp_path, "--max-line-bytes", "1024", "MAGIC", "b.bin")
    d = the_error(r)["detail"]
    assert d["offsets"] == [4000]
    # walked, a binary file is skipped and counted, not searched
    w = S("--root", tmp_path, "--max-line-bytes", "1024", "MAGIC")
    assert w.errors == [] and w.json[-1]["skipped"]["binary"] == 1


def test_past_the_ceiling_the_peek_window_is_the_repair(tmp_path):
    write_line(tmp_path / "p.txt", CEILING + 1, end=b"x-needle-x\n")
    r = S("--root", tmp_path, "needle", "p.txt")
    e = the_error(r)
    assert e["repair"]["kind"] == "retry"
    (peek,) = r.retried
    assert b"needle" in tob(peek.data["text"])
    # Below the ceiling the repair stays the search itself with a larger cap; the window is
    # still given.
    (tmp_path / "q.txt").write_bytes(b"z" * 5000 + b"needle\n")
    e = the_error(S("--root", tmp_path, "--max-line-bytes", "1024", "needle", "q.txt"))
    assert os.path.basename(tob(e["repair"]["argv"][0])) == b"seek"
    assert e["detail"]["window"] == {"from": 5000 - 256, "to": 5006}


def test_without_a_root_the_peek_repair_has_none(tmp_path):
    write_line(tmp_path / "p.txt", CEILING + 1, end=b"needle\n")
    r = S("needle", "p.txt", cwd=tmp_path)
    argv = peek_window(the_error(r))
    assert b"--root" not in argv and argv[-2:] == [b"--", b"p.txt"]
    assert r.retried[0].exit == 0


def test_regex_says_why_it_has_no_offsets(tmp_path):
    (tmp_path / "r.txt").write_bytes(b"x" * 3000 + b"needle\n")
    e = the_error(S("--root", tmp_path, "--regex", "--max-line-bytes", "1024", "^.", "r.txt"))
    d = e["detail"]
    assert d["searched"] is False and d["offsets"] is None and "candidates" not in d
    assert "RE2" in d["offsets_unknown"]
    assert e["repair"]["kind"] == "retry"  # below the ceiling: the search with a larger cap


def test_regex_names_the_places_a_match_can_be(tmp_path):
    # Every match of the pattern contains "key_": a long line without it cannot match; in one
    # with it, the places it occurs are candidates (not matches: "key_-" is not one).
    line = b'{"a": 1, "key_-": 2, ' + b'"pad": "' + b"p" * (CEILING) + b'", "key_b": 3}'
    (tmp_path / "j.json").write_bytes(b"x" * 5000 + b"\n" + line + b"\n")
    r = S("--root", tmp_path, "--regex", "--max-line-bytes", "1024", r'"key_\w+": \d', "j.json")
    e = the_error(r)
    d = e["detail"]
    o = 5001
    assert d["lines"] == [2] and d["searched"] is False and d["offsets"] is None
    # (which literal RE2's analysis picks is its own: here it lies within '"key_')
    keys = [o + line.index(b'"key_-"'), o + line.index(b'"key_b"')]
    assert d["candidate_count"] == 2
    assert [c - k for c, k in zip(d["candidates"], keys)] in ([0, 0], [1, 1])
    # past the ceiling: peek around the first candidate, executed by tack.run
    assert os.path.basename(tob(e["repair"]["argv"][0])) == b"peek"
    (peek,) = r.retried
    assert b'"key_-": 2' in tob(peek.data["text"])
    # no candidate in any long line: nothing can match there, no error
    r = S("--root", tmp_path, "--regex", "--max-line-bytes", "1024", r'"nokey_\w+"', "j.json")
    assert r.exit == 0 and r.errors == []


# --- the harness accepts a sibling tool only --------------------------------------------------

def test_sibling_tool_repairs_are_recognised_narrowly():
    seek = tack.bin_path("seek")
    assert tack._sibling_tool(os.fsencode(tack.bin_path("peek")), seek) == "peek"
    assert tack._sibling_tool(b"/usr/bin/peek", seek) is None
    assert tack._sibling_tool(b"peek", seek) is None
    assert tack._sibling_tool(os.fsencode(os.path.dirname(seek)) + b"/rm", seek) is None
    # and a sibling with more effects than the tool that failed is refused as a repair:
    # run() checks this before it executes one
    assert "writes_files" in tack.widened_effects("seek", "write")
    assert tack.widened_effects("seek", "peek") == []


# --- M9: memory is flat in the line's length ------------------------------------------------

def peak_kib(*argv):
    maxrss = tack.BIN.parent / "support" / "maxrss"
    p = subprocess.run([str(maxrss), tack.bin_path("seek"), *map(str, argv)], capture_output=True,
                       timeout=300)
    assert p.returncode in (0, 8), p.stderr
    return int(p.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["one-at-the-end", "many"])
def test_memory_is_flat_in_the_line_length(tmp_path, case):
    # A cap below 1 MiB makes every size a line too long to hold (at the default cap the
    # 1 MiB line would be held and shown: the cap's memory, not the line's).
    peaks = []
    for size in (1 * MIB, 64 * MIB, 256 * MIB):
        path = tmp_path / f"{case}-{size}"
        if case == "many":
            write_line(path, size, fill=b"key-")  # an occurrence every 4 bytes
            args = ["key"]
        else:
            write_line(path, size - 6, end=b"NEEDLE")
            args = ["NEEDLE"]
        peaks.append(peak_kib("--root", tmp_path, "--max-line-bytes", 65536, *args, path.name))
        os.unlink(path)
    assert max(peaks) <= 1.5 * min(peaks), peaks


@pytest.mark.slow
def test_memory_at_the_cap_ceiling_is_flat(tmp_path):
    """At --max-line-bytes 16 MiB a line is held up to 16 MiB before it is known to be too
    long: that is the cap's memory, the same for a 64 and a 256 MiB line."""
    peaks = []
    for size in (64 * MIB, 256 * MIB):
        path = tmp_path / f"c-{size}"
        write_line(path, size - 6, end=b"NEEDLE")
        peaks.append(peak_kib("--root", tmp_path, "--max-line-bytes", CEILING, "NEEDLE",
                              path.name))
        os.unlink(path)
    assert max(peaks) <= 1.5 * min(peaks), peaks
