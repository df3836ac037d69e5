"""Helpers shared by the tests of the tools that change files (write, move, the M7 gate)."""

import glob
import hashlib
import os
import stat

from tack import run

MiB = 1024 * 1024


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def read(path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def W(tree, *args, stdin=b"", **kw):
    """write beneath the tree's root, run from the root's parent."""
    return run("write", "--root", tree.root, *args, stdin=stdin, cwd=tree.root.parent, **kw)


def litter(directory) -> list:
    """Temporary files left behind (".NAME.tack-*")."""
    return sorted(glob.glob(os.path.join(glob.escape(str(directory)), ".*.tack-*")))


def snapshot(directory) -> dict:
    """Every entry beneath `directory` (not following links), by relative path: its kind and
    its content and mode and inode, or its target."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(directory):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            rel = os.path.relpath(p, directory)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISREG(st.st_mode):
                out[rel] = ("file", read(p), stat.S_IMODE(st.st_mode), st.st_ino)
            else:
                out[rel] = ("dir" if stat.S_ISDIR(st.st_mode) else "other",)
    return out


# Run as `python3 -c FLIPPER ROOT` until ROOT/stop exists: flips ROOT/swap between a real
# directory (ROOT/swap_real) and a link (ROOT/swap_link, to outside the root). A call that ran
# while neither was there may have made a real `swap` of its own (write --parents): the
# flipper moves it aside, inside the root, and goes on.
FLIPPER = r"""
import os, sys
root = sys.argv[1]
real, lnk, swap, stop = (os.path.join(root, n) for n in ("swap_real", "swap_link", "swap", "stop"))
k = 0
while not os.path.exists(stop):
    try:
        os.rename(real, swap); os.rename(swap, real)
        os.rename(lnk, swap); os.rename(swap, lnk)
    except OSError:
        if os.path.isdir(swap) and not os.path.islink(swap):
            k += 1
            os.rename(swap, os.path.join(root, "made-%d" % k))
"""


# What the thread machinery calls (memory, waits): timing decides which thread makes them (a
# finished thread's stack is freed by the one that joins it) and how often they wait, so the
# Nth of them in one thread need not come in another run. The kill-at-every-call tests accept
# a run that finished past such a step; every other call must be reached.
THREAD_CALLS = {"futex", "mmap", "munmap", "mprotect", "madvise", "brk", "rseq",
                "set_robust_list", "rt_sigprocmask"}
