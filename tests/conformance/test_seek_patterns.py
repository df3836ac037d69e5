"""M5 — many -e patterns at once against GNU grep -F -f in the C locale, on files large enough
(several MiB) that seek searches them in one pass with its pattern set rather than pattern by
pattern: the same lines, each pattern named where it occurs, and the spans `grep -o -b` finds
for a pattern list (overlaps merged). Hostile bytes included: CRLF, NUL, Latin-1 and UTF-8,
a long line, and -i and --word.
"""

import os
import random
import subprocess

import pytest

from tack import run, tob

ENV = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "")}
WORDS = [b"PM_RESUME", b"pm_suspend", b"static", b"int", b"x", b"ret", b"\xc3\xa9t\xc3\xa9",
         b"M\xfcller", b"a_b", b"(", b"--", b"ab", b"ba", b"Z9"]


def make_file(rng, crlf):
    lines = []
    size = 0
    while size < 6 << 20:  # past the point where seek takes its pattern set
        n = rng.randrange(0, 12) if rng.random() > 0.0005 else 40000
        parts = []
        for _ in range(n):
            parts.append(rng.choice(WORDS) if rng.random() < 0.03 else
                         bytes(rng.choice(b"qwzk \t\x00\xe9_") for _ in range(rng.randrange(1, 6))))
        line = b" ".join(parts)
        lines.append(line)
        size += len(line) + 1
    eol = b"\r\n" if crlf else b"\n"
    return eol.join(lines) + eol


def grep_lines(args, path):
    p = subprocess.run(["grep", "-a", "-n", *args, path], capture_output=True, env=ENV)
    assert p.returncode in (0, 1), p.stderr
    return [int(ln.split(b":", 1)[0]) for ln in p.stdout.split(b"\n")[:-1]]


@pytest.mark.parametrize("seed,flags", [(1, []), (2, ["-i"]), (3, ["-w"]), (4, ["-i", "-w"])])
def test_many_patterns_in_one_pass_against_grep(tmp_path, seed, flags):
    rng = random.Random(seed)
    crlf = seed % 2 == 0
    body = make_file(rng, crlf)
    path = tmp_path / "big.txt"
    path.write_bytes(body)
    patterns = rng.sample(WORDS, 8) + [bytes(rng.choice(b"qwzk_") for _ in range(3)) for _ in range(40)]
    pfile = tmp_path / "patterns"
    pfile.write_bytes(b"\n".join(patterns) + b"\n")
    want = grep_lines(["-F", *flags, "-f", str(pfile)], str(path))
    sflags = ["--word" if f == "-w" else f for f in flags]
    args = ["-m", "100000000", "--max-bytes", "16777216", "--max-line-bytes", "1048576", *sflags]
    for p in patterns:
        args += ["-e", p]
    r = run("seek", *args, str(path), timeout=300)
    assert r.json[-1]["complete"] and not r.json[-1]["truncated"], r.json[-1]
    matches = [m for m in r.json if m["type"] == "match"]
    assert [m["line"] for m in matches] == want
    assert len(want) > 1000
    # Each line names exactly the patterns that occur in it (as grep finds them one by one,
    # here in Python: ASCII case folding under -i, word bytes [0-9A-Za-z_] under --word).
    def fold(b):
        return b.lower() if "-i" in flags else b

    def occurs(p, text):
        t, q = fold(text), fold(p)
        at = t.find(q)
        while at >= 0:
            before = t[at - 1:at]
            after = t[at + len(q):at + len(q) + 1]
            word = lambda c: c != b"" and (c.isalnum() and c.isascii() or c == b"_")
            if "-w" not in flags or (not word(before) and not word(after)):
                return True
            at = t.find(q, at + 1)
        return False

    for m in matches[:3000]:
        text = tob(m["text"])
        assert m["patterns"] == [i for i, p in enumerate(patterns) if occurs(p, text)], m
    # The spans: every place grep -o finds one of the patterns, overlapping ones merged.
    if not flags:
        p = subprocess.run(["grep", "-a", "-o", "-b", "-F", "-f", str(pfile), str(path)],
                           capture_output=True, env=ENV)
        starts = sorted(int(ln.split(b":", 1)[0]) for ln in p.stdout.split(b"\n")[:-1])
        got = sorted(m["offset"] + s for m in matches for s, _ in m["spans"])
        assert set(got) <= set(starts)
        assert len(got) > 1000
