"""seek — M8 (a link to a file or directory outside the root is never followed or read, in a
walk or named, even when a directory is swapped for one mid-walk; special files never block)
and M9 (peak memory does not grow with the file: 1, 64 and 256 MiB within 1.5x).
"""

import os
import subprocess
import threading
import time

import pytest

import tack
from tack import run, tob

def S(*args, **kw):
    return run("seek", *args, **kw)


def test_links_in_a_walk_are_counted_never_followed(tree):
    tree.chain()
    tree.dangling()
    tree.devzero()
    tree.mid_link()
    r = S("--root", tree.root, "--hidden", "--no-ignore", "-m", "100000", "")
    assert tack.SECRET not in r.out
    paths = {tob(x["path"]) for x in r.json if x["type"] == "file"}
    assert not any(p.startswith((b"link_out", b"chain", b"dirlink", b"dangling", b"zero")) for p in paths)
    # link_out_file, link_out_dir, chain1, chain2, dangling, zero, dirlink
    assert r.json[-1]["skipped"]["symlink"] == 7
    assert r.exit == 0


@pytest.mark.parametrize("name", ["link_out_file", "link_out_dir", "chain1", "dangling", "zero",
                                  "dirlink/sub/deep.txt", "link_out_dir/secret.txt"])
def test_a_link_named_is_refused(tree, name):
    tree.chain()
    tree.dangling()
    tree.devzero()
    tree.mid_link()
    r = S("--root", tree.root, "c0ffee", name)
    assert r.rules == ["path.symlink"] and r.exit == 4
    assert tack.SECRET not in r.out
    assert not [x for x in r.json if x["type"] == "match"]


def test_paths_outside_the_root_are_refused_before_anything_is_read(tree):
    evil = os.path.join(str(tree.evil), "secret.txt")
    r = S("--root", tree.root, "c0ffee", evil, "../outside/secret.txt", str(tree.outside))
    assert r.rules == ["path.outside-root", "path.dotdot", "path.outside-root"]
    assert not [x for x in r.json if x["type"] == "match"] and tack.SECRET not in r.out


def test_special_files_never_block(tree):
    tree.fifo("fifo")
    tree.socket("sock")
    t = time.monotonic()
    r = S("--root", tree.root, "alpha", timeout=20)
    assert r.json[-1]["skipped"]["special"] == 2
    named = S("--root", tree.root, "alpha", "fifo", "sock", timeout=20)
    assert named.rules == ["io.special-file", "io.special-file"]
    dev = S("alpha", "/dev/zero", timeout=20)  # without --root too: a device is never read
    assert dev.rules == ["io.special-file"]
    assert time.monotonic() - t < 20


def test_a_directory_swapped_for_a_link_mid_walk_is_not_followed(tree):
    """Renames race the walk: `victim` is a directory holding files, then a link to a
    directory outside, then a directory again. No run may show a byte from outside."""
    root = str(tree.root)
    os.makedirs(os.path.join(root, "victim"))
    for i in range(200):
        with open(os.path.join(root, "victim", f"f{i:03d}.txt"), "wb") as f:
            f.write(b"inside\n")
    for i in range(50):
        with open(os.path.join(root, f"pad{i:02d}.txt"), "wb") as f:
            f.write(b"pad\n")
    os.symlink(str(tree.outside / "dir"), os.path.join(root, "victim_link"))
    os.symlink(str(tree.outside / "secret.txt"), os.path.join(root, "file_link"))
    with open(os.path.join(root, "victim.txt"), "wb") as f:
        f.write(b"inside\n")
    stop = threading.Event()
    swaps = [0]

    def swapper():
        j = lambda n: os.path.join(root, n)
        while not stop.is_set():
            os.rename(j("victim"), j("tmpdir"))
            os.rename(j("victim_link"), j("victim"))
            os.rename(j("victim.txt"), j("tmpfile"))
            os.rename(j("file_link"), j("victim.txt"))
            os.rename(j("victim"), j("victim_link"))
            os.rename(j("tmpdir"), j("victim"))
            os.rename(j("victim.txt"), j("file_link"))
            os.rename(j("tmpfile"), j("victim.txt"))
            swaps[0] += 1

    th = threading.Thread(target=swapper)
    th.start()
    try:
        for _ in range(40):
            p = subprocess.run([tack.bin_path("seek"), "--root", root, "--no-ignore", "-m", "100000",
                                "", "."], capture_output=True, timeout=60)
            assert p.returncode in (0, 3, 4), p.stdout[-500:]
            assert tack.SECRET not in p.stdout
            assert p.stdout.endswith(b"\n") and b'"type":"end"' in p.stdout.split(b"\n")[-2]
    finally:
        stop.set()
        th.join()
    assert swaps[0] > 10


# --- M9: memory -----------------------------------------------------------------------------

MIB = 1024 * 1024


def make_file(path, size, line=b"an ordinary line of text with words in it, nothing rare\n", every=None):
    chunk = line * (4 * MIB // len(line))
    with open(path, "wb") as f:
        written = 0
        while written < size:
            piece = chunk[: size - written]
            f.write(piece)
            written += len(piece)


def peak_kib(*argv):
    maxrss = tack.BIN.parent / "support" / "maxrss"
    p = subprocess.run([str(maxrss), tack.bin_path("seek"), *argv], capture_output=True, timeout=300)
    assert p.returncode in (0, 8), p.stderr
    return int(p.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["rare", "every-line", "one-long-line", "regex", "count-patterns",
                                  "totals"])
def test_memory_is_flat_in_the_file_size(tmp_path, case):
    peaks = []
    for size in (1 * MIB, 64 * MIB, 256 * MIB):
        path = str(tmp_path / f"{case}-{size}")
        if case == "one-long-line":
            make_file(path, size, line=b"x" * 4096)  # no newline at all: one line of `size`
            args = ["--max-line-bytes", "65536", "x", path]
        elif case == "every-line":
            make_file(path, size)
            args = ["-m", "100000000", "-C", "2", "ordinary", path]
        elif case == "regex":
            make_file(path, size)
            args = ["--regex", "-m", "100000000", "w[aeiou]rds? in", path]
        elif case == "count-patterns":
            make_file(path, size)
            args = ["-c", "-e", "ordinary", "-e", "words", "-e", "zzq", path]
        elif case == "totals":
            make_file(path, size)
            args = ["-m", "0", "ordinary", path]
        else:
            make_file(path, size)
            args = ["needle-that-is-not-there", path]
        peaks.append(peak_kib(*args))
        os.unlink(path)
    assert max(peaks) <= 1.5 * min(peaks), peaks
