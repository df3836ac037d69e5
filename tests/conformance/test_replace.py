"""replace — exact text, the expected number of times (TOOLS.md). Hostile cases first: links,
line endings, BOM, bytes that are not UTF-8, overlapping needles, all-or-nothing batches, then
rules declared == rules reached."""

import fcntl
import json
import os
import stat
import subprocess

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


@pytest.mark.parametrize("start, old, new, after", [
    (b"aab\n", "ab", "b", b"ab\n"),      # the new text ends a fresh occurrence of the old
    (b"aabb\n", "ab", "", b"ab\n"),      # a deletion joins one
    (b"xffoo()\n", "foo", "oo", b"xfoo()\n"),  # the old holds the new
])
def test_a_repeat_is_already_applied_even_where_the_text_was_made_anew(tree, start, old, new, after):
    # The file alone cannot tell the repeat of a call that landed from a first call; the
    # journal's newest entry can: the same call, and the file as it left it.
    tree.write("again.txt", start)
    r1 = rep(tree, "--old", old, "--new", new, "again.txt")
    assert r1.data["changed"] is True and read(tree, "again.txt") == after
    for _ in range(2):
        r2 = rep(tree, "--old", old, "--new", new, "again.txt")
        assert r2.exit == 0 and r2.data["changed"] is False and r2.data["already_applied"] is True
        assert read(tree, "again.txt") == after
    # A dry run of it says so too; another call (an --expect spelled out) is a new call.
    dry = rep(tree, "--old", old, "--new", new, "--dry-run", "again.txt")
    assert dry.data["already_applied"] is True and dry.data["changed"] is False
    other = rep(tree, "--old", old, "--new", new, "--expect", "1", "again.txt")
    assert other.data["changed"] is True
    # The deletion's entry (an empty argument) is one undo reads and takes back.
    if new == "":
        u = run("undo", "--root", tree.root, "--last", cwd=tree.root.parent)
        assert u.exit == 0 and read(tree, "again.txt") == after


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
    ("args.conflict", ["--root", R, "--old", "a", "--new", "b", "plain.txt", "./plain.txt"], {}),
    ("args.conflict", ["--root", R, "--old", "a", "--new", "b", "--if-sha256", "a" * 64,
                       "plain.txt", "crlf.txt"], {}),
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


# --- large files: one edit is streamed, never held whole ---------------------------------------

MiB = 1 << 20


def _filler(size: int, eol: bytes = b"\n") -> bytes:
    out = bytearray()
    i = 0
    while len(out) < size:
        out += b"filler line %08d, some words to fill it%s" % (i, eol)
        i += 1
    return bytes(out[:size])


@pytest.mark.parametrize("boundary", [1, 2, 3, 4])
def test_occurrences_across_read_boundaries(tree, boundary):
    """The file is read in windows of a few MiB: an occurrence cut by any MiB boundary is found
    once, at its line, and replaced in place; in a CRLF file a '\r' that ends a line is never
    part of a match, even when the '\n' after it is the first byte of the next window."""
    base = _filler(5 * MiB)
    for off in range(-9, 2):
        pos = boundary * MiB + off
        content = base[:pos] + b"NEE\nDLE" + base[pos:]
        tree.write("big.txt", content)
        line = content[:pos].count(b"\n") + 1
        r = rep(tree, "--max-bytes", str(64 * MiB), "--old", "NEE\nDLE", "--new", "X", "--expect", "2",
                "big.txt")
        assert r.rules == ["precondition.count-mismatch"] and r.errors[0]["detail"]["lines"] == [line]
        r = rep(tree, "--max-bytes", str(64 * MiB), "--old", "NEE\nDLE", "--new", "X", "big.txt")
        assert r.exit == 0 and r.data["diff"]["hunks"][0]["old_start"] == max(1, line - 3)
        assert read(tree, "big.txt") == base[:pos] + b"X" + base[pos:]
    crlf = _filler(5 * MiB, b"\r\n")
    for off in range(-4, 3):
        # "ab\r" at the end of a line (its \r the line ending's) and once inside a line.
        pos = crlf.index(b"\r\n", boundary * MiB + off - 40) + 2
        content = crlf[:pos] + b"x ab\r\n" + crlf[pos:pos + 100] + b"ab\rz" + crlf[pos + 100:]
        tree.write("crlf.txt", content)
        r = rep(tree, "--max-bytes", str(64 * MiB), "--old", "ab\r", "--new", "AB", "crlf.txt")
        assert r.exit == 0 and r.data["replacements"] == 1, (boundary, off)
        assert read(tree, "crlf.txt") == content.replace(b"ab\rz", b"ABz")


def _peak_rss_kib(argv) -> int:
    launcher = tack.BIN.parent / "support" / "maxrss"
    if launcher.exists():
        p = subprocess.run([str(launcher), *map(str, argv)], capture_output=True, timeout=300)
        return int(p.stdout.split()[-1])
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *map(str, argv)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    return int(p.stderr.split()[-1])


@pytest.fixture(scope="module")
def big_replace_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("replace-m9")
    files = {}
    for n in (1, 64):
        for eol in (b"\n", b"\r\n"):
            body = bytearray(_filler(n * MiB, eol))
            mid = len(body) // 2
            body[mid:mid + 13] = b"NEEDLE_UNIQUE"
            files[(n, eol)] = bytes(body)
    return d, files


# The bound. The streamed edit holds one read window (1 MiB, in a 2 MiB huge page), the list
# of occurrences, and the changed region (a few lines) with its diff tables, on top of the
# static binary's own few MiB: about 6 MiB whatever the file's size. Before, replace held the
# old content, a view, the new content and the whole-file diff: 4.7x the file (469 MiB peak at
# 100 MiB). 16 MiB, a quarter of the 64 MiB file, proves the file is not held, with room for
# the allocator; flat from 1 to 64 MiB within 1.5x, as the M9 gate of the readers.
REPLACE_RSS_BOUND_KIB = 16 * 1024


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["apply", "dry-run", "crlf"])
def test_peak_rss_of_one_edit_is_bounded_not_the_file(tree, big_replace_files, mode):
    d, files = big_replace_files
    eol = b"\r\n" if mode == "crlf" else b"\n"
    rss = {}
    for n in (1, 64):
        content = files[(n, eol)]
        path = d / f"f{n}.txt"
        path.write_bytes(content)
        argv = [tack.bin_path(T), "--root", d, "--max-bytes", str(256 * MiB), "--old",
                "NEEDLE_UNIQUE", "--new", "NEEDLE_CHANGED", path.name]
        if mode == "dry-run":
            argv.insert(3, "--dry-run")
        rss[n] = _peak_rss_kib(argv)
        want = content if mode == "dry-run" else content.replace(b"NEEDLE_UNIQUE", b"NEEDLE_CHANGED")
        assert path.read_bytes() == want
    assert rss[64] < REPLACE_RSS_BOUND_KIB, f"peak RSS KiB by MiB {rss}"
    assert rss[64] <= 1.5 * rss[1], f"peak RSS KiB by MiB {rss}"


@pytest.mark.slow
def test_a_writer_ignoring_the_lock_gets_a_refusal_or_a_consistent_file(tree):
    """The file is read twice (find, then rewrite) and the second read must hash as the first:
    a writer that takes no lock and changes the file in between makes replace refuse
    (io.read-failed), never splice at offsets found in other bytes. Either way: no litter, and
    a file that replace did write is the file it read with every occurrence replaced (checked
    away from the bytes the other writer keeps changing, in whichever file is at the name)."""
    content = _filler(32 * MiB).replace(b"some", b"ZZZZ", 2000)
    racy = [4096 * i + 7 for i in range(5000)]
    tree.write("race.txt", content)
    want = tack.masked(content.replace(b"Z", b"Y"), racy)
    rounds = tack.race_under(
        tree.p("race.txt"), racy,
        lambda: rep(tree, "--max-bytes", str(64 * MiB), "--all", "--old", "Z", "--new", "Y",
                    "race.txt"),
        reset=lambda: tree.write("race.txt", content))
    for r, after in rounds:
        assert r.rules in ([], ["io.read-failed"]), r
        if r.exit == 0:
            assert after == want
    assert not [n for n in os.listdir(tree.root) if b"tack-tmp" in os.fsencode(n)]


# --- the edits list on standard input ------------------------------------------------------------

def test_stdin_takes_the_edits_list(tree):
    edits = json.dumps([{"old": "alpha", "new": "ALPHA"}, {"old": "beta", "new": "BETA"}]).encode()
    r = rep(tree, "--stdin", "plain.txt", stdin=edits)
    assert r.exit == 0 and r.data["replacements"] == 2
    assert read(tree, "plain.txt").startswith(b"ALPHA\nBETA\n")
    again = rep(tree, "--stdin", "plain.txt", stdin=edits)
    assert again.exit == 0 and again.data["changed"] is False and again.data["already_applied"]


@pytest.mark.parametrize("body,rule", [
    (b"", "parse.json"),
    (b"not json", "parse.json"),
    (b"[{\"old\": \"a\", ", "parse.json"),
    (b"{\"old\": \"a\"}", "args.bad-value"),
    (b"[{\"old\": \"\", \"new\": \"x\"}]", "args.bad-value"),
])
def test_stdin_bad_lists_are_refused_and_change_nothing(tree, body, rule):
    r = rep(tree, "--stdin", "plain.txt", "crlf.txt", stdin=body)
    assert r.rules == [rule] and r.errors[0]["detail"]["source"] == "stdin"
    assert read(tree, "plain.txt") == tack.PLAIN and read(tree, "crlf.txt") == tack.CRLF


def test_stdin_over_the_cap_retries_with_the_cap_that_clears_it(tree):
    edits = json.dumps([{"old": "alpha", "new": "ALPHA"}]).encode() + b" " * 100
    r = rep(tree, "--max-bytes", "20", "--stdin", "plain.txt", stdin=edits)
    assert r.rules == ["limit.input-too-large"] and r.errors[0]["detail"]["bytes"] == len(edits)
    assert read(tree, "plain.txt") != tack.PLAIN  # the retry ran, with the same stdin, and wrote
    assert r.retried[0].exit == 0
    # The retry raises the cap for the files named as well (plain.txt is larger than the list).
    small = json.dumps([{"old": "gamma", "new": "G"}]).encode()
    size = len(read(tree, "plain.txt"))
    r = rep(tree, "--max-bytes", "20", "--stdin", "plain.txt", stdin=small)
    assert r.rules == ["limit.input-too-large"] and r.retried[0].exit == 0
    assert r.errors[0]["repair"]["argv"][1] == f"--max-bytes={size}"


def test_edits_file_dash_is_refused_with_the_retry_that_says_stdin(tree):
    edits = json.dumps([{"old": "alpha", "new": "ALPHA"}]).encode()
    r = rep(tree, "--edits-file", "-", "plain.txt", stdin=edits, retries=False)
    assert r.rules == ["args.bad-value"] and r.exit == 2
    assert r.errors[0]["repair"]["argv"][1:] == ["--root", str(tree.root), "--stdin", "plain.txt"]
    assert read(tree, "plain.txt") == tack.PLAIN  # nothing was read
    r = rep(tree, "--edits-file=-", "plain.txt", stdin=edits)
    assert r.rules == ["args.bad-value"] and r.retried[0].exit == 0
    assert read(tree, "plain.txt").startswith(b"ALPHA\n")
    # ./- is the file named "-".
    tree.write("-", json.dumps([{"old": "beta", "new": "BETA"}]).encode())
    r = rep(tree, "--edits-file", "./-", "plain.txt", stdin=edits)
    assert r.exit == 0 and read(tree, "plain.txt").startswith(b"ALPHA\nBETA\n")


def test_stdin_excludes_the_other_sources(tree):
    assert rep(tree, "--stdin", "--edits-file", "e.json", "plain.txt").rules == ["args.conflict"]
    assert rep(tree, "--stdin", "--old", "a", "--new", "b", "plain.txt").rules[0] == "args.conflict"


def test_stdin_is_declared_in_the_effects():
    assert tack.introspect(T)["effects"]["reads_stdin"] is True


# --- several files in one call ------------------------------------------------------------------

FILES = {"f1.txt": b"x = 1\nkeep\n", "dir/f2.txt": b"x = 2\nx = 22\n", "f3.txt": b"y\nx = 3\n"}


def _files(tree):
    for name, content in FILES.items():
        tree.write(name, content)
    return list(FILES)


def _hashes(tree):
    return {n: sha(read(tree, n)) for n in FILES}


def test_several_files_dry_run_then_apply_then_again(tree):
    names = _files(tree)
    before = _hashes(tree)
    dry = rep(tree, "--all", "--old", "x =", "--new", "z =", "--dry-run", *names)
    assert dry.exit == 9 and _hashes(tree) == before
    assert [a["path"] for a in dry.doc["planned_actions"]] == names
    assert [f["written"] for f in dry.data["files"]] == [False] * 3
    assert (dry.data["files_changed"], dry.data["files_written"], dry.data["replacements"]) == (3, 0, 4)
    r = rep(tree, "--all", "--old", "x =", "--new", "z =", *names)
    assert r.exit == 0 and (r.data["files_changed"], r.data["files_written"]) == (3, 3)
    for f, name in zip(r.data["files"], names):
        assert f["path"] == name and f["written"] is True and f["changed"] is True
        assert f["before_sha256"] == before[name] and f["after_sha256"] == sha(read(tree, name))
        assert read(tree, name) == FILES[name].replace(b"x =", b"z =")
    after = _hashes(tree)
    again = rep(tree, "--all", "--old", "x =", "--new", "z =", *names)
    assert again.exit == 0 and _hashes(tree) == after
    assert [(f["changed"], f["already_applied"], f["written"]) for f in again.data["files"]] == \
        [(False, True, False)] * 3
    dry = rep(tree, "--all", "--old", "x =", "--new", "z =", "--dry-run", *names)
    assert dry.exit == 9 and dry.doc["planned_actions"] == []
    t = rep(tree, "--all", "--old", "z =", "--new", "w =", "--format", "text", *names)
    assert t.exit == 0 and t.out.count(b"replacement(s)") == 3 and b"+w = 22" in t.out


def test_expect_is_per_file(tree):
    names = _files(tree)
    before = _hashes(tree)
    r = rep(tree, "--old", "x =", "--new", "z =", *names)  # f2 has two
    assert r.rules == ["precondition.count-mismatch"]
    det = r.errors[0]["detail"]
    assert (det["path"], det["expected"], det["found"], det["lines"]) == ("dir/f2.txt", 1, 2, [1, 2])
    assert _hashes(tree) == before
    # The other two passed their checks: listed, with what would change, none written.
    assert [(f["path"], f["changed"], f["written"]) for f in r.data["files"]] == \
        [("f1.txt", True, False), ("f3.txt", True, False)]
    r = rep(tree, "--old", "x = 22", "--new", "two", "--expect", "1", "f1.txt", "dir/f2.txt")
    assert r.rules == ["precondition.count-mismatch"] and r.errors[0]["detail"]["path"] == "f1.txt"
    assert _hashes(tree) == before


@pytest.mark.parametrize("spoil", ["missing", "count", "link", "mid-link", "directory", "fifo",
                                   "hash"])
def test_one_bad_file_among_three_writes_nothing(tree, spoil):
    names = _files(tree)
    extra = []
    if spoil == "missing":
        os.unlink(tree.p("dir/f2.txt"))
    elif spoil == "count":
        tree.write("dir/f2.txt", b"no such text\n")
    elif spoil == "link":
        names[1] = "link_out_file"
    elif spoil == "mid-link":
        tree.mid_link("dirlink")
        names[1] = "dirlink/f2.txt"
    elif spoil == "directory":
        names[1] = "dir/sub"
    elif spoil == "fifo":
        names[1] = tree.fifo("fifo").decode()
    else:
        hashes = _hashes(tree)
        hashes["dir/f2.txt"] = "0" * 64
        for n in FILES:
            extra += ["--if-sha256", hashes[n]]
    before, outside = tack_snapshot(tree.root), tack_snapshot(tree.outside)
    r = rep(tree, "--all", "--old", "x =", "--new", "z =", *extra, *names)
    want = {"missing": "io.not-found", "count": "precondition.count-mismatch",
            "link": "path.symlink", "mid-link": "path.symlink", "directory": "io.is-a-directory",
            "fifo": "io.special-file", "hash": "precondition.hash-mismatch"}[spoil]
    assert r.rules == [want], r
    assert tack_snapshot(tree.root) == before and tack_snapshot(tree.outside) == outside
    assert [f["path"] for f in r.data["files"]] == ["f1.txt", "f3.txt"]
    assert r.data["files_written"] == 0
    assert not [n for n in os.listdir(tree.root) if "tack-tmp" in n]


def tack_snapshot(directory):
    from mutation import snapshot
    return snapshot(directory)


def test_every_bad_file_is_reported_in_path_order(tree):
    names = _files(tree)
    os.unlink(tree.p("f3.txt"))
    tree.write("f1.txt", b"nothing\n")
    r = rep(tree, "--all", "--old", "x =", "--new", "z =", *names)
    assert r.rules == ["precondition.count-mismatch", "io.not-found"]
    assert [e["detail"]["path"] for e in r.errors] == ["f1.txt", "f3.txt"]
    assert read(tree, "dir/f2.txt") == FILES["dir/f2.txt"]


def test_if_sha256_is_one_per_path_in_order(tree):
    names = _files(tree)
    h = _hashes(tree)
    r = rep(tree, "--all", "--old", "x =", "--new", "z =", "--if-sha256", h["f1.txt"], *names)
    assert r.rules == ["args.conflict"] and r.errors[0]["detail"]["hashes"] == 1
    swapped = [h["dir/f2.txt"], h["f1.txt"], h["f3.txt"]]
    args = [x for hx in swapped for x in ("--if-sha256", hx)]
    r = rep(tree, "--all", "--old", "x =", "--new", "z =", *args, *names)
    assert r.rules == ["precondition.hash-mismatch"] * 2
    assert [e["detail"]["path"] for e in r.errors] == ["f1.txt", "dir/f2.txt"]
    assert _hashes(tree) == h
    args = [x for n in names for x in ("--if-sha256", h[n])]
    r = rep(tree, "--all", "--old", "x =", "--new", "z =", *args, *names)
    assert r.exit == 0 and r.data["files_written"] == 3
    # Repeated with the now stale hashes: already applied, as for one file.
    r = rep(tree, "--all", "--old", "x =", "--new", "z =", *args, *names)
    assert r.exit == 0 and r.data["files_written"] == 0


def test_a_file_named_twice_is_refused_and_the_retry_names_it_once(tree):
    names = _files(tree)
    before = _hashes(tree)
    r = rep(tree, "--all", "--old", "x =", "--new", "z =", *names, "./f1.txt", retries=False)
    assert r.rules == ["args.conflict"] and r.errors[0]["detail"]["path"] == "f1.txt"
    assert _hashes(tree) == before
    assert r.errors[0]["repair"]["argv"][-3:] == names
    r = rep(tree, "--all", "--old", "x =", "--new", "z =", "f1.txt", "--", "f1.txt", *names[1:])
    assert r.rules == ["args.conflict"] and r.retried[0].exit == 0
    assert r.retried[0].data["replacements"] == 4
    h = sha(FILES["f1.txt"])
    r = rep(tree, "--old", "a", "--new", "b", "--if-sha256", h, "--if-sha256", h, "f1.txt", "f1.txt")
    assert r.rules == ["args.conflict"] and r.errors[0]["repair"]["kind"] == "none"


def test_several_files_too_large_one_retry_clears_them_all(tree):
    names = _files(tree)
    tree.write("f3.txt", b"x = 3\n" + b"pad\n" * 40)
    r = rep(tree, "--all", "--max-bytes", "12", "--old", "x =", "--new", "z =", *names)
    assert r.rules == ["limit.input-too-large"] * 2
    assert {e["repair"]["argv"][1] for e in r.errors} == {f"--max-bytes={len(read(tree, 'f3.txt'))}"}
    assert r.retried[0].exit == 0 and r.retried[0].data["files_written"] == 3


def test_several_files_from_stdin(tree):
    names = _files(tree)
    edits = json.dumps([{"old": "x = ", "new": "v = ", "all": True},
                        {"old": "v = ", "new": "w = ", "all": True}]).encode()
    r = rep(tree, "--stdin", *names, stdin=edits)
    assert r.exit == 0 and r.data["files_written"] == 3
    assert read(tree, "dir/f2.txt") == b"w = 2\nw = 22\n"


def test_a_write_failing_midway_says_which_were_written(tree):
    names = _files(tree)
    wrap = ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=renameat",
            "-e", "inject=renameat:error=EIO:when=2"]
    # --no-journal: the renames counted are the files' own (the journal renames its blobs and
    # entries too; a journal that fails midway is test_undo's).
    r = rep(tree, "--no-journal", "--all", "--old", "x =", "--new", "z =", *names, wrap=wrap)
    assert r.rules == ["io.write-failed"] and r.errors[0]["detail"]["path"] == "dir/f2.txt"
    assert [f["written"] for f in r.data["files"]] == [True, False, False]
    assert r.data["files_written"] == 1
    assert read(tree, "f1.txt") == FILES["f1.txt"].replace(b"x =", b"z =")
    assert read(tree, "dir/f2.txt") == FILES["dir/f2.txt"]
    assert not [n for n in os.listdir(tree.p("dir")) if b"tack-tmp" in n]
    again = rep(tree, "--all", "--old", "x =", "--new", "z =", *names)
    assert again.exit == 0 and [f["written"] for f in again.data["files"]] == [False, True, True]


def test_several_files_dry_run_makes_no_mutating_call(tree, tmp_path):
    from test_m7_mutation import mutations, traced
    names = _files(tree)
    before = tack_snapshot(tree.root)
    code, calls = traced(T, ["--root", tree.root, "--dry-run", "--all", "--old", "x =", "--new",
                             "z =", *names], None, tmp_path)
    assert code == 9 and mutations(calls) == [] and tack_snapshot(tree.root) == before
    code, calls = traced(T, ["--root", tree.root, "--all", "--old", "x =", "--new", "z =", *names],
                         None, tmp_path)
    # the three files' own renames (the journal's blobs and entry are renamed into place too)
    assert code == 0 and sum(1 for n, l in calls if n == "renameat" and "tack-tmp" in l) == 3
    assert "flock" in [n for n, _ in calls] and "fsync" in [n for n, _ in calls]


def test_two_racing_writers_of_the_same_files_never_mix(tree):
    """Two batches over the same three files, each stating the same hashes: one wins all three
    files, the other writes none (refused, or locked out); never a mix of the two."""
    for i in range(30):
        names = _files(tree)
        h = _hashes(tree)
        hashes = [x for n in names for x in ("--if-sha256", h[n])]
        procs = [subprocess.Popen([tack.bin_path(T), "--root", str(tree.root), "--all", "--old",
                                   "x =", "--new", new, *hashes, *names],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for new in ("A =", "B =")]
        docs = []
        for p in procs:
            out, err = p.communicate(timeout=30)
            docs.append(tack.check_output(T, [b"--all"], p.returncode, out, err))
        won = [k for k, d in enumerate(docs) if d["ok"]]
        assert len(won) == 1, docs
        loser = docs[1 - won[0]]
        assert loser["errors"][0]["rule"] in ("precondition.count-mismatch",
                                              "precondition.hash-mismatch", "conflict.locked")
        assert loser.get("data") is None or loser["data"]["files_written"] == 0
        mark = b"AB"[won[0]:won[0] + 1] + b" ="
        for n in names:
            assert read(tree, n) == FILES[n].replace(b"x =", mark), (i, n)


@pytest.mark.slow
def test_peak_rss_of_several_files_is_that_of_one(tree, big_replace_files):
    """Several files are checked, then written, one at a time: the peak is one file's streamed
    edit (its window, occurrences and changed regions), not the sum of the files."""
    d, files = big_replace_files
    content = files[(64, b"\n")]
    names = [f"many{i}.txt" for i in range(3)]
    for n in names:
        (d / n).write_bytes(content)
    base = [tack.bin_path(T), "--root", d, "--max-bytes", str(256 * MiB), "--old",
            "NEEDLE_UNIQUE", "--new", "NEEDLE_CHANGED"]
    one = _peak_rss_kib(base + [names[0]])
    (d / names[0]).write_bytes(content)
    many = _peak_rss_kib(base + names)
    for n in names:
        assert (d / n).read_bytes() == content.replace(b"NEEDLE_UNIQUE", b"NEEDLE_CHANGED")
    assert many < REPLACE_RSS_BOUND_KIB and many <= 1.5 * one, (one, many)


def test_argument_errors_of_several_files_are_all_collected_before_anything_is_read(tree):
    names = _files(tree)
    before = tack_snapshot(tree.root)
    r = run(T, "--root", tree.root, "--old", "x", "--new", "y", "--if-sha256", "xyz",
            "--if-sha256", "0" * 64, *names, "f1.txt", wrap=["strace", "-f", "-qq", "-o",
                                                             str(tree.outside / "trace"),
                                                             "-e", "trace=openat,openat2"])
    assert r.rules == ["args.bad-value", "args.conflict", "args.conflict"]
    assert r.errors[2]["detail"]["path"] == "f1.txt"
    opened = (tree.outside / "trace").read_text()
    assert not any(n in opened for n in FILES), "a file was opened before the arguments passed"
    assert tack_snapshot(tree.root) == before


def test_stdin_that_is_a_directory_is_refused(tree):
    d = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
    try:
        p = subprocess.run([tack.bin_path(T), "--root", str(tree.root), "--stdin", "plain.txt"],
                           stdin=d, capture_output=True, timeout=30)
    finally:
        os.close(d)
    doc = tack.check_output(T, [b"--stdin", b"plain.txt"], p.returncode, p.stdout, p.stderr)
    assert doc["errors"][0]["rule"] == "io.is-a-directory"
    assert read(tree, "plain.txt") == tack.PLAIN


def test_one_name_spelled_two_ways_without_root_is_refused_hard_links_are_two_names(tree):
    names = _files(tree)
    before = _hashes(tree)
    r = run(T, "--all", "--old", "x =", "--new", "z =", "f1.txt", tree.p("f1.txt"), cwd=tree.root)
    assert r.rules == ["args.conflict"] and r.errors[0]["detail"]["same_as"] == "f1.txt"
    assert r.data["files"] == [] and _hashes(tree) == before
    os.link(tree.p("f1.txt"), tree.p("hard.txt"))
    r = rep(tree, "--all", "--old", "x =", "--new", "z =", "f1.txt", "hard.txt", names[2])
    assert r.exit == 0 and r.data["files_written"] == 3
    assert read(tree, "hard.txt") == read(tree, "f1.txt") == FILES["f1.txt"].replace(b"x =", b"z =")
