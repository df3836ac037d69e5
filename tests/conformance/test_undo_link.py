"""The earlier content kept by a link: a write's blob is the replaced file's own inode.

Where the file being replaced is a regular file of one link, without set-id bits, on the
journal's filesystem, the journal links its inode into .tack/journal/blobs/ instead of copying
it, and the change's rename leaves that inode only there. Hostile first: a second link, a set-id
file, a mount beneath the root, a link the kernel refuses, a blob of that hash already there and
shared or tampered with, and undo from a linked blob (which must keep the blob). Every bytes
check goes through undo, which verifies the blob's SHA-256.
"""

import os
import re
import stat
import subprocess

import pytest

from mutation import read, sha
import tack
from tack import run


def T(tool, tree, *args, **kw):
    return run(tool, "--root", tree.root, *args, cwd=tree.root.parent, **kw)


def U(tree, *args, **kw):
    return T("undo", tree, *args, **kw)


def blob(tree, content: bytes) -> bytes:
    return tree.p(".tack/journal/blobs/" + sha(content))


def write_over(tree, name, old: bytes, new: bytes, **kw):
    r = T("write", tree, "--if-sha256", sha(old), "--stdin", name, stdin=new, **kw)
    assert r.exit == 0, r.out
    return r


OLD, NEW = b"old line\n" * 3000, b"new line\n" * 2500


def test_the_blob_is_the_replaced_inode_and_undo_keeps_it(tree):
    path = tree.write("a.txt", OLD)
    os.chmod(path, 0o640)
    ino = os.stat(path).st_ino
    r = write_over(tree, "a.txt", OLD, NEW)
    b = os.stat(blob(tree, OLD))
    assert b.st_ino == ino and b.st_nlink == 1 and read(blob(tree, OLD)) == OLD
    u = U(tree, str(r.data["journal"]["id"]))
    assert u.exit == 0 and read(path) == OLD and stat.S_IMODE(os.stat(path).st_mode) == 0o640
    # undo wrote the bytes to a new file: the blob is still there, whole, and not the file
    assert os.stat(path).st_ino != ino
    assert os.stat(blob(tree, OLD)).st_ino == ino and read(blob(tree, OLD)) == OLD
    # and the undo's own blob (NEW) is the inode it replaced: taking the undo back works, and
    # then the first entry again
    assert read(blob(tree, NEW)) == NEW
    assert U(tree, str(u.data["journal"]["id"])).exit == 0 and read(path) == NEW
    assert U(tree, "--last").exit == 0 and read(path) == OLD


def test_a_file_of_two_links_is_copied_and_the_other_link_cannot_change_the_blob(tree):
    path = tree.write("a.txt", OLD)
    other = tree.p("other-link.txt")
    os.link(path, other)
    ino = os.stat(path).st_ino
    r = write_over(tree, "a.txt", OLD, NEW)
    assert os.stat(blob(tree, OLD)).st_ino != ino
    with open(other, "r+b") as f:  # the other name still writes to the old inode
        f.write(b"SCRIBBLED")
    assert read(blob(tree, OLD)) == OLD
    assert U(tree, str(r.data["journal"]["id"])).exit == 0 and read(path) == OLD


@pytest.mark.parametrize("bits", [0o4755, 0o2755, 0o1644])
def test_a_set_id_or_sticky_file_is_copied_never_kept_as_itself(tree, bits):
    path = tree.write("prog", OLD)
    os.chmod(path, bits)
    ino = os.stat(path).st_ino
    r = write_over(tree, "prog", OLD, NEW)
    b = os.stat(blob(tree, OLD))
    assert b.st_ino != ino and b.st_mode & 0o7000 == 0
    assert U(tree, str(r.data["journal"]["id"])).exit == 0 and read(path) == OLD


def test_a_mount_beneath_the_root_is_copied(tree):
    mnt = tree.p("mnt")
    os.makedirs(mnt)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tack-test", mnt],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        path = tree.write("mnt/a.txt", OLD)
        ino, dev = os.stat(path).st_ino, os.stat(path).st_dev
        r = write_over(tree, "mnt/a.txt", OLD, NEW)
        b = os.stat(blob(tree, OLD))
        assert b.st_dev != dev or b.st_ino != ino
        assert U(tree, str(r.data["journal"]["id"])).exit == 0 and read(path) == OLD
    finally:
        subprocess.run(["umount", "-l", mnt], check=True)


@pytest.mark.parametrize("err", ["EXDEV", "EPERM", "ENOENT", "EMLINK"])
def test_a_link_the_kernel_refuses_falls_back_to_a_copy(tree, err):
    path = tree.write("a.txt", OLD)
    ino = os.stat(path).st_ino
    wrap = ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=linkat",
            "-e", f"inject=linkat:error={err}"]
    r = write_over(tree, "a.txt", OLD, NEW, wrap=wrap)
    assert os.stat(blob(tree, OLD)).st_ino != ino and read(blob(tree, OLD)) == OLD
    assert not [n for n in os.listdir(tree.p(".tack/journal/blobs")) if n.endswith(b".tmp")]
    assert U(tree, str(r.data["journal"]["id"])).exit == 0 and read(path) == OLD


def test_without_the_capabilities_that_bypass_modes_it_still_keeps_the_blob(tree):
    from tack import NO_DAC
    path = tree.write("a.txt", OLD)
    r = write_over(tree, "a.txt", OLD, NEW, wrap=NO_DAC)
    assert read(blob(tree, OLD)) == OLD
    assert U(tree, str(r.data["journal"]["id"]), wrap=NO_DAC).exit == 0 and read(path) == OLD


def test_the_old_data_is_durable_before_the_change_commits(tree, tmp_path):
    path = tree.write("a.txt", OLD)
    trace = tmp_path / "trace.txt"
    argv = [tack.bin_path("write"), "--root", tree.root, "--if-sha256", sha(OLD),
            "--stdin", "a.txt"]
    p = subprocess.run(["strace", "-f", "-qq", "-o", trace, "-e",
                        "trace=openat,linkat,fdatasync,fsync,renameat", *argv],
                       input=NEW, capture_output=True, timeout=60)
    assert p.returncode == 0 and read(path) == NEW
    # one line a call, or two (unfinished, resumed) where threads overlap: where each starts
    # and where each returns
    calls = [re.sub(r"^\d+\s+", "", c) for c in trace.read_text().splitlines()]
    fd = next(re.search(r"= (\d+)$", c).group(1) for c in calls
              if '"a.txt", O_RDONLY' in c)
    link = next(i for i, c in enumerate(calls) if c.startswith("linkat(" + fd + ","))
    synced = next(i for i, c in enumerate(calls)
                  if re.match(r"fdatasync\(" + fd + r"\) += 0", c) or
                  c.startswith("<... fdatasync resumed>"))
    commit = next(i for i, c in enumerate(calls) if c.startswith("renameat(") and '"a.txt"' in c
                  and "tack-tmp" in c)
    assert link < synced < commit, calls


def test_a_blob_shared_with_a_file_after_a_failed_commit_is_not_trusted(tree):
    # renameat 1: the blob, 2: the file's own commit, made to fail (the pending entry is made
    # under its name): the file and the blob are one inode now
    path = tree.write("a.txt", OLD)
    wrap = ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=renameat",
            "-e", "inject=renameat:error=EIO:when=2"]
    r = T("write", tree, "--if-sha256", sha(OLD), "--stdin", "a.txt", stdin=NEW, wrap=wrap)
    assert r.rules == ["io.write-failed"] and read(path) == OLD
    assert os.stat(blob(tree, OLD)).st_ino == os.stat(path).st_ino
    # someone writes to the file in place (so to the blob), then takes the name away
    with open(path, "r+b") as f:
        f.write(b"TAMPERED")
    os.rename(path, tree.p("moved-away.txt"))
    assert os.stat(blob(tree, OLD)).st_nlink == 2
    os.unlink(tree.p("moved-away.txt"))
    # another file of the old content: its change finds the blob not what it is named and
    # keeps its own
    b_path = tree.write("b.txt", OLD)
    w = write_over(tree, "b.txt", OLD, NEW)
    assert read(blob(tree, OLD)) == OLD
    assert U(tree, str(w.data["journal"]["id"])).exit == 0 and read(b_path) == OLD


# 27 KB, and 1 MiB (from 256 KiB write compares the old file with a blob of it on a second
# thread, while it diffs)
@pytest.mark.parametrize("old", [OLD, OLD * 40], ids=["small", "large"])
def test_a_blob_already_there_is_kept_once(tree, old):
    a, b = tree.write("a.txt", old), tree.write("b.txt", old)
    ino_a = os.stat(a).st_ino
    ra = write_over(tree, "a.txt", old, NEW)
    rb = write_over(tree, "b.txt", old, NEW)
    assert os.stat(blob(tree, old)).st_ino == ino_a
    assert sorted(os.listdir(tree.p(".tack/journal/blobs"))) == sorted(
        [sha(old).encode()])
    assert U(tree, str(rb.data["journal"]["id"])).exit == 0 and read(b) == old
    assert U(tree, str(ra.data["journal"]["id"])).exit == 0 and read(a) == old


def test_pruning_takes_a_linked_blob_away_and_leaves_the_files(tree):
    a = tree.write("a.txt", OLD)
    r1 = write_over(tree, "a.txt", OLD, NEW)
    assert os.stat(blob(tree, OLD)).st_nlink == 1
    with open(tree.p(".tack/journal/max-bytes"), "w") as f:
        f.write("4096\n")
    b = tree.write("b.txt", b"small\n")
    r2 = write_over(tree, "b.txt", b"small\n", b"smaller\n")
    assert r2.data["journal"]["pruned"] == [r1.data["journal"]["id"]]
    assert not os.path.exists(blob(tree, OLD)) and read(a) == NEW
    assert U(tree, str(r2.data["journal"]["id"])).exit == 0 and read(b) == b"small\n"
