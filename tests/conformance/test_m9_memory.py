"""M9 — memory is flat: peak RSS at 1, 64 and 256 MiB inputs within 1.5x.

Peak RSS is taken by a tiny launcher (/usr/bin/time -f %M, or a minimal Python launcher using
os.wait4), never from pytest's process: Linux folds the pre-exec RSS of a forked child into its
ru_maxrss, so forking pytest itself would measure pytest.
"""

import os
import shutil
import subprocess
import sys

import pytest

import tack

MiB = 1024 * 1024
SIZES = [1, 64, 256]

LAUNCHER = r"""
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.execv(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
sys.stderr.write("%d %d\n" % (ru.ru_maxrss, os.waitstatus_to_exitcode(status)))
"""


def _block() -> bytes:
    """Exactly 1 MiB of lines of varied lengths, ending in a newline."""
    out = bytearray()
    i = 0
    while len(out) < MiB - 200:
        out += b"line %07d: %s\n" % (i, b"x" * (i * 7 % 97))
        i += 1
    pad = MiB - len(out) - 1
    out += b"y" * pad + b"\n"
    assert len(out) == MiB
    return bytes(out)


@pytest.fixture(scope="module")
def big_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("m9")
    block = _block()
    paths = {}
    for n in SIZES:
        p = d / f"f{n}.txt"
        with open(p, "wb") as f:
            for _ in range(n):
                f.write(block)
        paths[n] = p
    yield d, paths
    shutil.rmtree(d)


def peak_rss_kib(argv) -> int:
    if os.path.exists("/usr/bin/time"):
        p = subprocess.run(["/usr/bin/time", "-f", "%M", *map(str, argv)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
        assert p.returncode == 0, p.stderr
        return int(p.stderr.decode().strip().splitlines()[-1])
    p = subprocess.run([sys.executable, "-c", LAUNCHER, *map(str, argv)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
    rss, code = map(int, p.stderr.split())
    assert code == 0
    return rss


def test_launcher_measures_the_child():
    """Control: the launcher sees a child that allocates 200 MiB, and a small one as small."""
    grow = [sys.executable, "-c", "b = bytearray(200 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096])"]
    small = ["/bin/true"]
    assert peak_rss_kib(grow) > 200 * 1024
    assert peak_rss_kib(small) < 20 * 1024


CASES = [
    ("tail", ["--lines", "-3:"]),
    ("head-budget", ["--lines", "1:"]),
    ("middle", ["--lines", "5000:5002", "--count-lines"]),
    ("bytes-tail", ["--bytes", "-100:"]),
    ("bytes-count", ["--bytes", "0:10", "--count-lines"]),
    ("tail-witness", ["--lines", "-3:", "--witness"]),
    ("big-budget", ["--lines", "1:", "--max-bytes", "1048576"]),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_peak_rss_is_flat(big_files, case):
    d, paths = big_files
    name, args = case
    rss = {}
    for n in SIZES:
        argv = [tack.bin_path("peek"), "--root", d, *args, paths[n].name]
        rss[n] = peak_rss_kib(argv)
    assert max(rss.values()) / min(rss.values()) <= 1.5, f"{name}: peak RSS KiB by MiB {rss}"


@pytest.mark.slow
@pytest.mark.parametrize("case", [["--lines", "-3:", "--count-lines"], ["--lines", "1:"],
                                  ["--bytes", "-100:"]], ids=["tail", "head-budget", "bytes"])
def test_peak_rss_is_flat_for_several_files(big_files, case):
    """Several files in one call: each is read in turn, so memory is what one file needs plus
    each answer, whatever the files' sizes."""
    d, paths = big_files
    rss = {n: peak_rss_kib([tack.bin_path("peek"), "--root", d, *case,
                            *[paths[n].name] * 4]) for n in SIZES}
    assert max(rss.values()) / min(rss.values()) <= 1.5, f"peak RSS KiB by MiB {rss}"


@pytest.mark.slow
def test_peak_rss_at_the_budget_ceiling_is_flat(big_files):
    """With --max-bytes at its ceiling (16 MiB) the answer is capped for both the 64 and the
    256 MiB file, so memory must be the same for both (the 1 MiB file returns less)."""
    d, paths = big_files
    rss = {n: peak_rss_kib([tack.bin_path("peek"), "--root", d, "--lines", "1:",
                            "--max-bytes", "16777216", paths[n].name]) for n in (64, 256)}
    assert max(rss.values()) / min(rss.values()) <= 1.5, rss


@pytest.mark.slow
def test_an_answer_of_millions_of_empty_lines_is_not_held(tmp_path):
    """16 MiB of empty lines at the --max-bytes ceiling is an answer of 16,777,216 lines (over
    half a gigabyte of JSON): it is written as it is rendered, so memory stays near the few
    bytes a line needs to be remembered, not the answer's size (it once peaked at 2.7 GB)."""
    (tmp_path / "empty.txt").write_bytes(b"\n" * (16 * MiB))
    rss = peak_rss_kib([tack.bin_path("peek"), "--root", tmp_path, "--lines", "1:",
                        "--max-bytes", str(16 * MiB), "empty.txt"])
    assert rss < 160 * 1024, f"peak RSS {rss} KiB"
    # The streamed answer is the whole answer: every line, then the rest of the document.
    n = 100_000  # the answer is drained every 1,024 lines
    (tmp_path / "many.txt").write_bytes(b"\n" * n)
    r = tack.run("peek", "--root", tmp_path, "--lines", "1:", "--max-bytes", str(n), "many.txt")
    assert [(l["n"], l["offset"], l["text"]) for l in r.lines] == [(i, i - 1, "") for i in range(1, n + 1)]
    assert r.data["to"] == n and r.data["eof"] is True and r.data["truncated"] is False


@pytest.mark.slow
def test_tail_answer_is_right_on_the_big_file(big_files):
    d, paths = big_files
    r = tack.run("peek", "--root", d, "--lines", "-3:", "--count-lines", paths[256].name)
    block_lines = _block().count(b"\n")
    total = 256 * block_lines
    assert r.data["total_lines"] == total
    assert [l["n"] for l in r.lines] == [total - 2, total - 1, total]
    assert r.texts()[-1] == _block().split(b"\n")[-2]
    assert r.data["eof"] is True and r.data["size"] == 256 * MiB


@pytest.mark.slow
def test_run_peak_rss_is_the_cap_not_the_output():
    """run keeps at most --max-output of each stream (memory mapped, touched as it fills): a
    program writing 1, 64 or 256 MiB under a 64 MiB cap costs the bytes kept plus a little,
    and the answer (64 MiB of JSON) is written as it is rendered, never held whole."""
    cap = 64 * MiB
    rss = {}
    for n in SIZES:  # 256 MiB passes the cap: exit 8, limit.output-too-large
        p = subprocess.run(["/usr/bin/time", "-f", "%M", tack.bin_path("run"), "--max-output",
                            str(cap), "--", "flood", str(n * MiB)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
        assert p.returncode == (8 if n * MiB > cap else 0), p.stderr
        rss[n] = int(p.stderr.decode().strip().splitlines()[-1])
    assert rss[1] < 16 * 1024, rss
    for n in (64, 256):
        assert rss[n] <= cap // 1024 + 8 * 1024, f"peak RSS KiB by MiB written {rss}"
    assert max(rss[64], rss[256]) / min(rss[64], rss[256]) <= 1.5, rss
    assert tack.run_survivors() == []
