"""Helpers shared by the tests of the tools that change files (write, move, the M7 gate)."""

import glob
import hashlib
import os
import re
import signal
import stat
import subprocess

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


def strace_calls(argv, out, *options, **run_kw):
    """(the finished process, [(system call, its line)]) of argv run under strace -f with
    `options` (-e trace=..., -y), its trace written to the file `out`, then removed."""
    p = subprocess.run(["strace", "-f", "-qq", "-o", str(out), *options, *argv],
                       capture_output=True, **run_kw)
    # A call another thread interrupted is two lines, "NAME(... <unfinished ...>" and later
    # "<... NAME resumed>...)= R": joined into one, in the place where it started.
    calls, unfinished = [], {}
    for line in open(out, errors="replace").read().splitlines():
        tid = re.match(r"^(\d*)", line).group(1)
        r = re.match(r"^(?:\d+\s+)?<\.\.\. ([a-z0-9_]+) resumed>(.*)$", line)
        if r and tid in unfinished:
            at = unfinished.pop(tid)
            calls[at] = (calls[at][0], calls[at][1] + r.group(2))
            continue
        m = re.match(r"^(?:\d+\s+)?([a-z0-9_]+)\(", line)
        if m:
            if line.endswith(" <unfinished ...>"):
                unfinished[tid] = len(calls)
                line = line[:-len(" <unfinished ...>")]
            calls.append((m.group(1), line))
    os.unlink(out)
    return p, calls


def syscall_steps(argv, cwd) -> list:
    """Every system call one run of argv makes after its execve, in order, as (name, n): the
    nth call of that name, the point `strace -e inject` can stop it at (its exit left out).
    strace's when=N counts each thread's calls apart (a writer fsyncs on a second thread): so
    are they counted here, and a step two threads share is taken once."""
    _, calls = strace_calls(argv, cwd / "trace.txt", cwd=cwd, check=True, timeout=30)
    tids = [re.match(r"^(\d*)", line).group(1) for _, line in calls]
    names = [n for n, _ in calls]
    start = names.index("execve") + 1
    counts, steps = {}, []
    for tid, n in zip(tids[start:], names[start:]):
        counts[tid, n] = counts.get((tid, n), 0) + 1
        if n not in ("exit_group", "exit") and (n, counts[tid, n]) not in steps:
            steps.append((n, counts[tid, n]))
    return steps


def kill_at(name, nth, argv):
    """Runs argv killed with SIGKILL at its nth system call `name` (see syscall_steps)."""
    p = subprocess.run(["strace", "-f", "-qq", "-o", "/dev/null", "-e", f"trace={name}",
                        "-e", f"inject={name}:signal=SIGKILL:when={nth}", *argv],
                       capture_output=True, timeout=30)
    # strace ends as its tracee did: the kill really came at that call (or, for a call either
    # thread may make, THREAD_CALLS, the run took the other way and finished).
    assert p.returncode == -signal.SIGKILL or (p.returncode == 0 and name in THREAD_CALLS), (
        name, nth, p.returncode, p.stderr[-300:])


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
