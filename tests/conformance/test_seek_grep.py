"""M5 — seek against GNU grep in the C locale on generated hostile files: CRLF and mixed line
ends, NUL bytes, Latin-1 and UTF-8, long lines, no final newline. Literal search is held to
`grep -F -n -b -a [-i] [-w]` (line numbers, byte offsets, text) and its spans to
`grep -o -b`; --regex to `grep -E` on patterns both accept with one meaning.
"""

import os
import random
import subprocess

import pytest

import tack
from tack import run, tob

ENV = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "")}
SEEDS = int(os.environ.get("TACK_SEEK_GREP_SEEDS", "40"))


def grep(args, path):
    p = subprocess.run(["grep", "-a", *args, path], capture_output=True, env=ENV)
    assert p.returncode in (0, 1), p.stderr
    out = []
    for line in p.stdout.split(b"\n")[:-1]:
        n, off, text = line.split(b":", 2)
        out.append((int(n), int(off), text))
    return out


def seek(args, path):
    r = run("seek", "-m", "100000000", "--max-bytes", "16777216", *args, "--", os.fsencode(path) if False else path)
    return r


def random_file(rng):
    alphabet = [b"a", b"b", b"c", b"A", b"B", b"x", b"_", b"-", b" ", b"\x00", b"\xe9", b"\xc3\xa9",
                b"ab", b"Ab", b"\r", b"0"]
    crlf = rng.random() < 0.3
    lines = []
    for _ in range(rng.randrange(0, 60)):
        n = rng.choice([0, 1, 3, 8, 20, 40]) if rng.random() > 0.03 else rng.randrange(20000, 200000)
        parts = []
        size = 0
        while size < n:
            t = rng.choice(alphabet)
            if crlf and t == b"\r":
                continue
            parts.append(t)
            size += len(t)
        lines.append(b"".join(parts))
    eol = b"\r\n" if crlf else b"\n"
    body = eol.join(lines)
    if lines and rng.random() < 0.7:
        body += eol
    if body.startswith(b"\xef\xbb\xbf"):
        body = b"x" + body
    return body, crlf


def needles(rng, body, crlf):
    out = []
    for _ in range(6):
        if body and rng.random() < 0.7:
            i = rng.randrange(len(body))
            cand = body[i:i + rng.randrange(1, 5)]
        else:
            cand = bytes(rng.choice(b"abAB_x -\xe9") for _ in range(rng.randrange(1, 4)))
        cand = cand.split(b"\n")[0].replace(b"\x00", b"")
        if crlf:
            cand = cand.replace(b"\r", b"")
        if cand:
            out.append(cand)
    return out


@pytest.mark.parametrize("seed", range(SEEDS))
def test_literal_against_grep_F(tmp_path, seed):
    rng = random.Random(seed)
    body, crlf = random_file(rng)
    path = str(tmp_path / "f.bin")
    with open(path, "wb") as f:
        f.write(body)
    compared = 0
    wanted = needles(rng, body, crlf)
    for needle in wanted:
        for flags in ([], ["-i"], ["-w"], ["-i", "-w"]):
            want = grep(["-F", "-n", "-b", *flags, "-e", needle], path)
            if crlf:  # seek shows the lines of a CRLF file without their '\r'
                want = [(n, off, t[:-1] if t.endswith(b"\r") else t) for n, off, t in want]
            sflags = ["--word" if f == "-w" else f for f in flags]
            r = run("seek", "-m", "100000000", "--max-bytes", "16777216", *sflags, "--", needle, path)
            got = [(m["line"], m["offset"], tob(m["text"])) for m in r.json if m["type"] == "match"]
            assert got == want, (needle, flags)
            # every span, as grep -o -b places it in the file
            spans = [(m["line"], m["offset"] + s) for m in r.json if m["type"] == "match"
                     for s, _ in m["spans"]]
            want_o = [(n, off) for n, off, _ in grep(["-F", "-o", "-n", "-b", *flags, "-e", needle], path)]
            assert spans == want_o, (needle, flags)
            compared += len(want)
    # A needle cut from the file (no '\n' in it) is on one of its lines: grep found it, so the
    # comparison above held for real matches and not only for two empty lists.
    assert (compared > 0) == any(n in body for n in wanted), (compared, wanted)


def test_the_literal_differential_sees_matches_and_every_hostile_kind(tmp_path):
    # The generator is not vacuous: across the seeds, files hold each hostile kind and the
    # comparisons see thousands of matching lines.
    kinds = set()
    total = 0
    for seed in range(SEEDS):
        rng = random.Random(seed)
        body, crlf = random_file(rng)
        kinds |= {k for k, v in {"crlf": crlf, "nul": b"\0" in body, "latin1": b"\xe9" in body,
                                 "long": any(len(l) > 10000 for l in body.split(b"\n")),
                                 "nofinal": bool(body) and not body.endswith(b"\n"),
                                 "mixed": b"\r\n" in body and not crlf}.items() if v}
        path = str(tmp_path / f"f{seed}")
        with open(path, "wb") as f:
            f.write(body)
        for needle in needles(rng, body, crlf):
            total += len(grep(["-F", "-n", "-b", "-e", needle], path))
    assert kinds == {"crlf", "nul", "latin1", "long", "nofinal", "mixed"}
    assert total > 1000


def random_regex(rng, depth=0):
    atoms = ["a", "b", "c", "x", "0", " ", "[a-c]", "[^ab]", ".", "\\.", "[0-9]", "\\w", "(a|bc)",
             "(x|y|z)", "[A-Z]", "aBc", "Xyz", "abc", "_x", "[A-Z]+_x"]
    parts = []
    for _ in range(rng.randrange(1, 4)):
        a = rng.choice(atoms) if depth > 1 or rng.random() < 0.8 else "(" + random_regex(rng, depth + 1) + ")"
        a += rng.choice(["", "", "", "*", "+", "?", "{1,3}", "{2}"])
        parts.append(a)
    rx = "".join(parts)
    if depth == 0:
        if rng.random() < 0.2:
            rx = "^" + rx
        if rng.random() < 0.2:
            rx += "$"
        if rng.random() < 0.15:
            rx += "|" + rng.choice(atoms)
    return rx


@pytest.mark.parametrize("seed", range(SEEDS))
def test_regex_against_grep_E(tmp_path, seed):
    rng = random.Random(1000 + seed)
    # runs of letters in both cases, so literals found inside patterns are held to their case
    pieces = [b"a", b"b", b"c", b"x", b"y", b"z", b"A", b"B", b"X", b"0", b"1", b" ", b".", b"_",
              b"-", b"abc", b"aBc", b"ABC", b"Xyz", b"xyz"]
    lines = [b"".join(rng.choice(pieces) for _ in range(rng.randrange(0, 25)))
             for _ in range(rng.randrange(1, 80))]
    body = b"\n".join(lines) + (b"\n" if rng.random() < 0.7 else b"")
    path = str(tmp_path / "r.txt")
    with open(path, "wb") as f:
        f.write(body)
    for _ in range(8):
        rx = random_regex(rng)
        flags = ["-i"] if rng.random() < 0.3 else []
        want = grep(["-E", "-n", "-b", *flags, "-e", rx], path)
        r = run("seek", "--regex", "-m", "100000000", "--max-bytes", "16777216", *flags, "--", rx, path)
        got = [(m["line"], m["offset"], tob(m["text"])) for m in r.json if m["type"] == "match"]
        assert got == want, (rx, flags)
