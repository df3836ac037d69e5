"""seek on one large named file with more than one thread searches it in parts, a worker each
(16 MiB; a file of 32 MiB or more is split), and joins them in order: the answer is byte for
byte the one a single thread gives (-j1, which searches the file whole), whatever falls on a
part's edge. The files here put the hostile cases on the edges: a line that starts just
before an edge and ends after it, a '\\n' as an edge's last byte, a line longer than
--max-line-bytes across an edge (its error is the file's one error, numbered from the file's
first line), CRLF endings (found once for all parts), a BOM, paging with --skip and
--max-count across edges, counts per -e pattern, regexes. The line numbers are also held to
Python's own count.
"""

import pytest

from tack import run

PART = 16 << 20
NEEDLE = b"needle"


def S(*args):
    return run("seek", *args)


def build(eol=b"\n", bom=False):
    """About 52 MiB of lines, some with NEEDLE, with one of the cases above at each edge."""
    out = bytearray(b"\xef\xbb\xbf" if bom else b"")
    n = 0

    def line(text):
        nonlocal n
        out.extend(text + eol)
        n += 1

    def fill_to(at):
        filler = [b"plain text of a line %d" % i for i in range(7)]
        while len(out) < at:
            line(filler[n % 7] + (b" " + NEEDLE if n % 97 == 0 else b""))

    # a '\n' as the first edge's last byte: the next line starts exactly at the edge
    fill_to(PART - 4000)
    line(b"x" * (PART - len(out) - len(eol) - 20) + NEEDLE + b"y" * (20 - len(NEEDLE)))
    assert len(out) == PART
    line(NEEDLE + b" first line of the second part")
    # a line from 30 bytes before the second edge to 30 after it, the needle after the edge
    fill_to(2 * PART - 4000)
    line(b"z" * (2 * PART - len(out) - 30))
    line(b"a" * 40 + NEEDLE + b"b" * 10)
    # a long line (past --max-line-bytes 4096) from 3000 bytes before the third edge, the
    # needle in it on both sides of the edge
    fill_to(3 * PART - 8000)
    line(b"w" * (3 * PART - 3000 - len(out) - len(eol)))
    line(b"L" * 2000 + NEEDLE + b"L" * 9000 + NEEDLE + b"L" * 100)
    fill_to(3 * PART + (4 << 20))
    out.extend(b"last line without an end " + NEEDLE)
    return bytes(out)


def build_context():
    """About 52 MiB of filler with a needle every 997 lines, and at each edge matches whose
    context crosses it: (1) the needle on the second line after the edge, its before-context
    reaching back into the part before; (2) on the last line before it and after a line of
    100,000 bytes after it: that line both one's after-context and the other's before-context,
    alone in a piece of the second part's output; (3) on the last line before it and the third
    after it, the lines between both one's after-context and the other's before-context."""
    out = bytearray()
    n = 0

    def line(text):
        nonlocal n
        out.extend(text + b"\n")
        n += 1

    def fill_to(at):  # filler lines up to `at`, the last one sized to end exactly there
        while len(out) < at:
            room = at - len(out)
            text = b"filler %d" % n + (b" " + NEEDLE if n % 997 == 0 else b"")
            if room - (len(text) + 1) < 40:
                text = b"f" * (room - 1)
            line(text)
        assert len(out) == at

    fill_to(PART)
    line(b"after edge 1, first")
    line(NEEDLE + b" after edge 1, second")
    before2 = NEEDLE + b" before edge 2"
    fill_to(2 * PART - len(before2) - 1)
    line(before2)
    assert len(out) == 2 * PART
    line(b"b" * 100000)
    line(NEEDLE + b" after the long line")
    last = b"e" * 10 + NEEDLE  # its '\n' the last byte before the third edge
    fill_to(3 * PART - len(last) - 1)
    line(last)
    assert len(out) == 3 * PART
    for i in range(4):
        line(b"after edge 3, %d" % i + (b" " + NEEDLE if i == 2 else b""))
    fill_to(3 * PART + (4 << 20))
    return bytes(out)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("parts")
    made = {"lf.txt": build(), "crlf.txt": build(b"\r\n", bom=True), "ctx.txt": build_context()}
    for name, data in made.items():
        (root / name).write_bytes(data)
    # Small files walked before and after the large ones; those after match on every line, so
    # that their output fills the pool's budget while a large file's parts are still to come.
    (root / "a").mkdir()
    for i in range(20):
        (root / "a" / f"s{i}.txt").write_bytes(b"a small file\n" + NEEDLE + b" %d\n" % i)
    (root / "z").mkdir()
    dense = b"".join(NEEDLE + b" line %d of a dense file\n" % i for i in range(3000))
    for i in range(40):
        (root / "z" / f"t{i:03}.txt").write_bytes(dense)
    return root, made


CASES = [
    [NEEDLE],
    ["--format", "text", NEEDLE],
    ["--max-count", "100000", "--max-bytes", "16777216", NEEDLE],
    ["--max-count", "100000", "--max-bytes", "16777216", "--max-line-bytes", "4096", NEEDLE],
    ["-c", NEEDLE],
    ["-c", "--max-line-bytes", "4096", NEEDLE],
    ["-c", "-e", NEEDLE, "-e", "line 3", "-e", "zzz"],
    ["--max-count", "0", "-e", NEEDLE, "-e", "part"],
    ["--regex", "--max-count", "100000", "--max-bytes", "16777216", "needle$"],
    ["--regex", "-c", "^needle"],
    ["-i", "--word", "--max-count", "100000", "--max-bytes", "16777216", "NEEDLE"],
    ["--last", "3", NEEDLE],
    ["--last", "20000", "--max-bytes", "16777216", "--format", "text", NEEDLE],
    ["--last", "5", "--before", "15000", "--max-line-bytes", "4096", NEEDLE],
    # (text: the harness checks every NDJSON record against the schema, slow for 100,000)
    ["--context", "2", "--format", "text", "--max-count", "100000", "--max-bytes", "16777216",
     NEEDLE],
    # windows that run into each other (a needle every 97 lines of filler), the long line at the
    # third edge shown as a context line without its text
    ["--context", "60", "--format", "text", "--max-count", "100000", "--max-bytes", "16777216",
     "--max-line-bytes", "4096", NEEDLE],
    ["--context", "3", "--skip", "100", "--max-count", "50", NEEDLE],
    ["--regex", "--context", "1", "--format", "text", "--max-count", "100000", "--max-bytes",
     "16777216", "needle$"],
    ["--last", "4", "--context", "2", NEEDLE],
]


@pytest.mark.parametrize("name", ["lf.txt", "crlf.txt"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: " ".join(map(str, c)))
def test_parts_answer_as_one_thread_does(files, name, case):
    root, _ = files
    one = S("--root", root, "-j", "1", *case, name)
    two = S("--root", root, "-j", "2", *case, name)
    assert two.out == one.out and two.exit == one.exit
    assert one.exit != 2 and len(one.out) > 200  # an answer with matches, not a refusal


# A walked file's size is known only once its worker opens it: it is searched as its first part,
# and when it goes on the rest follow as parts (os::Ordered's Expand), taken right after it.
WALKED = [
    # every line (text, cheap to check), the dense files' output filling the budget
    ["--format", "text", "--max-bytes", "16777216", "--max-count", "100000000", NEEDLE],
    # a page across lf.txt's third edge, and its long line as one error of the file
    ["--max-bytes", "16777216", "--skip", "15000", "--max-count", "2000", "--max-line-bytes",
     "4096", "--glob", "!z/**", "--glob", "!crlf.txt", NEEDLE],
    # a page that ends inside a large file, while its parts are still to come
    ["--skip", "200", "--max-count", "500", NEEDLE],
    ["-c", NEEDLE],
    ["-c", "--max-line-bytes", "4096", "-e", NEEDLE, "-e", "part"],
    ["--max-count", "0", NEEDLE],
    [NEEDLE],
    ["--last", "4", NEEDLE],
    ["--last", "3", "--before", "9000", "--glob", "!z/**", NEEDLE],
    ["--context", "2", "--format", "text", "--max-bytes", "16777216", "--max-count", "100000000",
     NEEDLE],
]


@pytest.mark.parametrize("case", WALKED, ids=lambda c: " ".join(map(str, c)))
def test_walked_large_files_answer_as_one_thread_does(files, case):
    root, _ = files
    one = S("--root", root, "-j", "1", *case)
    for threads in ("2", "3"):
        many = S("--root", root, "-j", threads, *case)
        assert many.out == one.out and many.exit == one.exit
    assert one.exit != 2 and len(one.out) > 200


def matching_lines(data):
    """(line number, offset shown) of each line holding NEEDLE."""
    want, start = [], 0
    for number, raw in enumerate(data.split(b"\n"), 1):
        if NEEDLE in raw:
            shown = start + 3 if start == 0 and data.startswith(b"\xef\xbb\xbf") else start
            want.append((number, shown))
        start += len(raw) + 1
    return want


@pytest.mark.parametrize("name", ["lf.txt", "crlf.txt"])
@pytest.mark.parametrize("form", ["ndjson", "text"])
def test_a_page_across_an_edge_is_the_same(files, name, form):
    root, made = files
    want = matching_lines(made[name])
    for edge in (PART, 2 * PART, 3 * PART):
        first = next(i for i, (_, off) in enumerate(want) if off >= edge)
        page = ["--format", form, "--max-count", "4", "--skip", str(first - 2), NEEDLE, name]
        one = S("--root", root, "-j", "1", *page)
        two = S("--root", root, "-j", "2", *page)
        assert two.out == one.out and b"max-count" in one.out


@pytest.mark.parametrize("name", ["lf.txt", "crlf.txt"])
def test_line_numbers_are_the_files(files, name):
    root, made = files
    data = made[name]
    r = S("--root", root, "-j", "2", "--max-count", "100000", "--max-bytes", "16777216", NEEDLE,
          name)
    got = [(m["line"], m["offset"]) for m in r.json if m["type"] == "match"]
    want = matching_lines(data)
    assert got == want
    # the lines across the edges are there, each once
    assert len(got) == len(set(got)) > 500


@pytest.mark.parametrize("name", ["lf.txt", "crlf.txt"])
def test_the_last_lines_are_the_files(files, name):
    # --last keeps the last matches of all the parts, as one file, numbered from its first line;
    # --before pages back across each edge
    root, made = files
    want = matching_lines(made[name])

    def last(*args):
        r = S("--root", root, "-j", "2", *args, name)
        assert r.out == S("--root", root, "-j", "1", *args, name).out
        files_ = [m for m in r.json if m["type"] == "file"]
        assert len(files_) == 1
        return [(m["line"], m["offset"]) for m in r.json if m["type"] == "match"]

    assert last("--last", "5", NEEDLE) == want[-5:]
    for edge in (PART, 2 * PART, 3 * PART):
        first = next(i for i, (_, off) in enumerate(want) if off >= edge)
        assert last("--last", "3", "--before", str(first + 1), NEEDLE) == want[first - 2:first + 1]


LIMITS = ["--max-count", "100000", "--max-bytes", "16777216"]
CONTEXT = [
    ["--context", "1", *LIMITS, NEEDLE],
    ["--context", "2", "--format", "text", *LIMITS, NEEDLE],
    ["--context", "5", "--format", "text", *LIMITS, "--regex", "needle|after edge"],
]


def one_and_many(root, args):
    one = S("--root", root, "-j", "1", *args)
    for threads in ("2", "3"):
        many = S("--root", root, "-j", threads, *args)
        assert many.out == one.out and many.exit == one.exit
    assert one.exit != 2 and len(one.out) > 200
    return one


@pytest.mark.parametrize("case", CONTEXT, ids=lambda c: " ".join(map(str, c)))
def test_context_across_an_edge_is_one_scans(files, case):
    # the lines around each edge shown once, in order, as one scan shows them
    root, _ = files
    one_and_many(root, case + ["ctx.txt"])


def test_context_pages_across_each_edge(files):
    # pages cut on either side of an edge: the held before-context of a page's first match,
    # the after-context of its last; --last's ring fed across the edges
    root, made = files
    want = matching_lines(made["ctx.txt"])
    for edge in (PART, 2 * PART, 3 * PART):
        first = next(i for i, (_, off) in enumerate(want) if off >= edge)
        for skip in (first - 2, first - 1, first):
            one_and_many(root, ["--context", "2", "--skip", str(skip), "--max-count", "2",
                                NEEDLE, "ctx.txt"])
        one_and_many(root, ["--context", "3", "--last", "2", "--before", str(first + 1), NEEDLE,
                            "ctx.txt"])


def test_context_around_lines_past_the_cap_and_a_part_without_a_line(tmp_path):
    # a line past --max-line-bytes first after an edge, between two matches (the one before it
    # the part's last line, so that the line is its after-context); a line longer than
    # a part, so that the part after the one it starts in holds no line of its own: the lines
    # around them are shown as one scan shows them (a line past the cap as a context line
    # without its text)
    out = bytearray()

    def fill_to(at, n=[0]):
        while len(out) < at:
            room = at - len(out)
            text = b"fill %d" % n[0] + (b" " + NEEDLE if n[0] % 500 == 0 else b"")
            if room - len(text) - 1 < 30:
                text = b"f" * (room - 1)
            out.extend(text + b"\n")
            n[0] += 1

    just_before = NEEDLE + b" on the last line before the edge\n"
    fill_to(PART - len(just_before))
    out.extend(just_before)
    assert len(out) == PART
    out.extend(b"L" * 20000 + b" " + NEEDLE + b" inside the long line\n")
    out.extend(NEEDLE + b" after the long line\nplain\n")
    fill_to(PART + 5000)
    out.extend(NEEDLE + b" before the giant\n" + b"y" * (PART + 100) + b"\n")
    out.extend(NEEDLE + b" after the giant\nq\n")
    fill_to(3 * PART + 300)
    out.extend(b"the last line, without an end " + NEEDLE)
    (tmp_path / "hostile.txt").write_bytes(bytes(out))
    for context in ("1", "3"):
        for cap in ("4096", "1048576"):
            one_and_many(tmp_path, ["--context", context, "--max-line-bytes", cap, "--format",
                                    "text", *LIMITS, NEEDLE, "hostile.txt"])


def test_context_lines_near_the_edges_are_the_files(files):
    root, made = files
    lines = made["ctx.txt"].split(b"\n")
    r = S("--root", root, "-j", "2", "--context", "3", "--max-count", "100000", "--max-bytes",
          "16777216", NEEDLE, "ctx.txt")
    shown = [(m["line"], m["type"]) for m in r.json if m["type"] in ("match", "context")]
    numbers = [n for n, _ in shown]
    assert numbers == sorted(set(numbers))  # each line once, in order
    want = set()
    for i, text in enumerate(lines, 1):
        if NEEDLE in text:
            want.update(range(max(1, i - 3), i + 4))
    want &= set(range(1, len(lines) + (0 if made["ctx.txt"].endswith(b"\n") else 1)))
    assert set(numbers) == want
    for n, kind in shown:
        assert (kind == "match") == (NEEDLE in lines[n - 1])


def test_a_long_line_across_an_edge_is_one_error_of_the_file(files):
    root, made = files
    data = made["lf.txt"]
    r = S("--root", root, "-j", "2", "--max-count", "100000", "--max-bytes", "16777216",
          "--max-line-bytes", "4096", NEEDLE, "lf.txt")
    errs = [e for e in r.errors if e["rule"] == "limit.line-too-long"]
    assert len(errs) == 1
    d = errs[0]["detail"]
    at = data.index(b"L" * 2000)
    assert at == 3 * PART - 3000
    assert d["lines"] == [data.count(b"\n", 0, at) + 1] and d["count"] == 1
    assert d["offsets"] == [at + 2000, at + 2000 + len(NEEDLE) + 9000]


def test_files_with_matches_is_not_split(files):
    # -l reads a file only to its first match
    root, _ = files
    one = S("--root", root, "-j", "1", "-l", NEEDLE, "lf.txt")
    two = S("--root", root, "-j", "2", "-l", NEEDLE, "lf.txt")
    assert one.out == two.out
