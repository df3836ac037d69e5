"""M4 — fault injection: random argv and stdin built from each tool's own `introspect` table.

Each case mixes the tool's flags (with values that fit, values that do not, and hostile ones),
junk tokens, paths from a fixture tree and hostile paths, and random stdin. Every case must
end without a signal, within the deadline, with output that keeps the contract (tack.run
validates it against the schema, checks exit codes against the catalogue, and executes every
retry repair). The fixture tree is rebuilt for every tool so one tool's changes (write, move)
never steer another's cases.

`make test` runs a short seeded smoke (TACK_FUZZ_CASES, default 40 per tool); the long run is
`TACK_FUZZ_CASES=10000 make conformance` or `python3 -m pytest tests/conformance/test_m4_fuzz.py`
with the variable set. TACK_FUZZ_SEED changes the seed.
"""

from __future__ import annotations

import os
import random

import pytest

import tack

CASES = int(os.environ.get("TACK_FUZZ_CASES", "40"))
SEED = int(os.environ.get("TACK_FUZZ_SEED", "20261129"))

HOSTILE_VALUES = [
    b"", b"-", b"--", b"-1", b"0", b"1", b"18446744073709551616", b"99999999999999999999999",
    b"a//../b", b"../..", b"/proc/self/mem", b"/dev/null", b"/dev/zero", b"/etc/passwd",
    b"x" * 5000, b"%2e%2e", b"~", b"-rf", b"a\nb", b"\xff\xfe", b"\xc0\x80", b"'\"",
    b" ", b"*", b"**", b"[", b"(", b"\\", b".", b"/", b"::", b"-3:", b"1:", b"h123456",
    b"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
]
JUNK_TOKENS = [b"--", b"-", b"--=", b"--x=", b"-Z", b"---", b"--root",
               b"introspect", b"skill", b"--help=1", b"-" * 3000]


# run's operands are program names: the fixture programs (tests/support/run_program.cpp) that
# end by themselves whatever their arguments and write nothing to stderr (which --format text
# passes through), plus the entries of the fixture directory that are not programs.
RUN_PROGRAMS = [b"echo", b"true", b"false", b"exit", b"cat", b"args", b"pwd", b"both", b"flood",
                b"longline", b"readall", b"unix", b"tmpwrite", b"orphan", b"script", b"notexec",
                b"dangling", b"garbage", b"subdir"]


def tree_paths(root: str) -> list[bytes]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            out.append(os.path.relpath(os.path.join(dirpath, n), root).encode())
    return sorted(out)


def value_for(flag: dict, rng: random.Random, paths: list[bytes]) -> bytes:
    kind = flag["kind"]
    r = rng.random()
    if r < 0.3:
        return rng.choice(HOSTILE_VALUES)
    if kind == "nat":
        ceiling = flag.get("ceiling") or 2**64
        return str(rng.choice([0, 1, 2, 7, 100, ceiling, ceiling + 1, rng.randrange(ceiling + 2)])).encode()
    if kind == "choice":
        return rng.choice(flag["choices"]).encode()
    if kind == "range":
        a = rng.randint(-5, 20)
        return rng.choice([f"{a}", f"{a}:", f"{a}:{a + rng.randint(-2, 9)}", f":{a}"]).encode()
    if kind == "path":
        return rng.choice(paths + [b"nope", b"dir", b"../x"])
    # an argv cannot hold a NUL byte: random values draw from 1..255
    return bytes(rng.randrange(1, 256) for _ in range(rng.randint(0, 12))) if r < 0.45 else rng.choice(
        [b"a", b"line", b"x y", b"\\w+", b"[A-Z]+", b"/a/0", b".a[0]", b"h000000", b"aa"])


def make_case(tool: str, table: dict, rng: random.Random, paths: list[bytes]):
    # --format is chosen once, up front, where no other flag can take it as its value (the
    # harness reads the format from the argv to know which contract applies).
    flags = [f for f in table["flags"] if f["name"] not in ("help", "version", "root", "format")]
    argv: list[bytes] = []
    for _ in range(rng.randint(0, 5)):
        f = rng.choice(flags)
        spell = b"--" + f["name"].encode()
        if f.get("short") and rng.random() < 0.2:
            spell = b"-" + f["short"].encode()
        if f["kind"] == "bool":
            argv.append(spell if rng.random() < 0.9 else spell + b"=1")
        elif rng.random() < 0.5:
            argv.append(spell + b"=" + value_for(f, rng, paths))
        else:
            argv += [spell, value_for(f, rng, paths)]
    if rng.random() < 0.15:
        argv.append(rng.choice(JUNK_TOKENS))
    for _ in range(rng.randint(0, 3)):
        argv.append(rng.choice(paths + HOSTILE_VALUES[:12]))
    rng.shuffle(argv)
    # Tools that touch files always get the fixture as --root (a writer must never be pointed
    # at the real filesystem by a fuzzer); readers sometimes run without one, from the fixture.
    fmt = next(f for f in table["flags"] if f["name"] == "format")
    if rng.random() < 0.25:
        argv = [b"--format=" + rng.choice(fmt["choices"]).encode()] + argv
    writer = table["effects"]["writes_files"]
    if any(f["name"] == "root" for f in table["flags"]) and (writer or rng.random() < 0.7):
        argv = [b"--root", b"."] + argv
    stdin = bytes(rng.randrange(256) for _ in range(rng.randint(0, 64))) if rng.random() < 0.3 else None
    return argv, stdin


@pytest.mark.parametrize("tool", tack.expected_tools())
def test_random_invocations_keep_the_contract(tool, tmp_path):
    if not os.path.exists(tack.bin_path(tool)):
        pytest.fail(f"{tool} is expected (tools/{tool}.cpp exists) but not built")
    table = tack.introspect(tool)
    rng = random.Random(f"{SEED}:{tool}")
    failures = []
    # A reader's sandbox lets it change nothing, so its tree is built once; a writer gets a
    # fresh tree for every case, the used one moved aside (removing it costs more than a run).
    writer = table["effects"]["writes_files"]
    for i in range(CASES):
        # Nested, so that hostile `../..` operands still land inside this test's own fixtures
        # (and not in other tests' files, which may hold text this check would misread).
        work = tmp_path / "n1" / "n2" / f"case{i % 8 if writer else 0}"
        if writer and work.exists():
            (tmp_path / "used").mkdir(exist_ok=True)
            work.rename(tmp_path / "used" / str(i))
        if not work.exists():
            tack.make_tree(work)
        if writer or i == 0:
            paths = tree_paths(str(work))
            if tool == "run":
                paths += RUN_PROGRAMS
        argv, stdin = make_case(tool, table, rng, paths)
        try:
            # `/` makes a walking reader cover the whole machine (list --find ranks every file
            # beneath it): a legitimate job that can outlast the hang deadline on a big disk.
            tack.run(tool, *argv, stdin=stdin, cwd=work, timeout=180 if b"/" in argv else 20)
        except Exception as e:  # a contract violation, a signal death, or a hang
            failures.append(f"case {i}: {tool} {argv!r}: {type(e).__name__}: {str(e)[:500]}")
    assert not failures, f"{len(failures)} of {CASES} cases broke the contract:\n" + "\n".join(failures[:10])
    if tool == "run":
        assert tack.run_survivors() == [], "a program run started is still running"
