"""seek's walk — order, what it leaves out and counts, ignore files with git's semantics (held
to `git check-ignore` on generated trees), .ignore, hidden names, --glob.
"""

import os
import random
import socket
import subprocess

import pytest

import tack
from tack import run, tob


def S(*args, **kw):
    return run("seek", *args, **kw)


def files(r):
    return [tob(x["path"]) for x in r.json if x["type"] == "file"]


def skipped(r):
    return r.json[-1]["skipped"]


def put(root, rel, content=b"needle\n"):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb") as f:
        f.write(content)


def test_depth_first_bytewise_order(tmp_path):
    root = str(tmp_path)
    for rel in ["B", "_u", "a/x", "a/Z/y", "a-b", "a.txt", "a0", "\u00e9".encode(), "a/x0"]:
        put(root, os.fsdecode(rel) if isinstance(rel, bytes) else rel)
    r = S("--root", root, "needle")
    assert files(r) == [b"B", b"_u", b"a/Z/y", b"a/x", b"a/x0", b"a-b", b"a.txt", b"a0",
                        "\u00e9".encode()]


def test_what_is_left_out_is_counted(tmp_path):
    root = str(tmp_path)
    put(root, "keep.txt")
    put(root, ".hidden.txt")
    put(root, ".hdir/a.txt")
    put(root, ".hdir/b.txt")
    put(root, "x.log")
    put(root, "build/a.txt")
    put(root, "build/b.txt")
    put(root, "bin.dat", b"needle\0\n")
    put(root, ".gitignore", b"*.log\nbuild/\n")
    os.mkfifo(os.path.join(root, "fifo"))
    s = socket.socket(socket.AF_UNIX)
    s.bind(os.path.join(root, "sock"))
    s.close()
    os.symlink("keep.txt", os.path.join(root, "ln_file"))
    os.symlink("build", os.path.join(root, "ln_dir"))
    os.symlink("nowhere", os.path.join(root, "ln_dangling"))
    r = S("--root", root, "needle")
    assert files(r) == [b"keep.txt"]
    # an excluded directory is one entry: its contents are never visited
    assert skipped(r) == {"ignored": 2, "glob": 0, "hidden": 3, "binary": 1, "special": 2,
                          "symlink": 3}
    assert r.json[-1]["files"] == 1  # binary files are not "searched"
    r = S("--root", root, "--hidden", "--no-ignore", "needle")
    assert files(r) == [b".hdir/a.txt", b".hdir/b.txt", b".hidden.txt", b"build/a.txt",
                        b"build/b.txt", b"keep.txt", b"x.log"]
    assert skipped(r) == {"ignored": 0, "glob": 0, "hidden": 0, "binary": 1, "special": 2,
                          "symlink": 3}


def test_a_file_named_is_always_searched(tmp_path):
    root = str(tmp_path)
    put(root, ".gitignore", b"*.log\n")
    put(root, "x.log")
    put(root, ".secret.txt")
    put(root, "bin.dat", b"needle\0")
    r = S("--root", root, "needle", "x.log", ".secret.txt", "bin.dat")
    assert files(r) == [b"x.log", b".secret.txt", b"bin.dat"]
    assert [x["binary"] for x in r.json if x["type"] == "file"] == [False, False, True]


def test_dot_ignore_wins_over_gitignore(tmp_path):
    root = str(tmp_path)
    put(root, ".gitignore", b"*.txt\n")
    put(root, ".ignore", b"!keep.txt\ndrop.md\n")
    for n in ["keep.txt", "other.txt", "drop.md", "show.md"]:
        put(root, n)
    assert files(S("--root", root, "needle")) == [b"keep.txt", b"show.md"]


def test_nested_files_apply_below_their_directory(tmp_path):
    root = str(tmp_path)
    put(root, ".gitignore", b"*.log\n/top.txt\n")
    put(root, "sub/.gitignore", b"!keep.log\n/local.txt\n")
    for n in ["a.log", "top.txt", "sub/keep.log", "sub/b.log", "sub/top.txt", "sub/local.txt",
              "local.txt", "sub/deeper/local.txt", "sub/deeper/keep.log"]:
        put(root, n)
    r = S("--root", root, "needle")
    assert files(r) == [b"local.txt", b"sub/deeper/keep.log", b"sub/deeper/local.txt",
                        b"sub/keep.log", b"sub/top.txt"]


def test_an_excluded_directory_cannot_be_reincluded(tmp_path):
    root = str(tmp_path)
    put(root, ".gitignore", b"build/\n!build/keep.txt\n")
    put(root, "build/keep.txt")
    put(root, "build/.gitignore", b"!*\n")
    assert files(S("--root", root, "needle")) == []


def test_parent_ignore_files_apply_to_a_subdirectory_searched(tmp_path):
    root = str(tmp_path)
    put(root, ".gitignore", b"*.log\nsub/skip/\n")
    put(root, "sub/a.log")
    put(root, "sub/a.txt")
    put(root, "sub/skip/c.txt")
    assert files(S("--root", root, "needle", "sub")) == [b"sub/a.txt"]
    assert files(S("needle", "sub", cwd=root)) == [b"sub/a.txt"]
    # an absolute path without --root starts its own rules
    assert files(S("needle", os.path.join(root, "sub"))) == [
        os.fsencode(os.path.join(root, "sub/a.log")), os.fsencode(os.path.join(root, "sub/a.txt")),
        os.fsencode(os.path.join(root, "sub/skip/c.txt"))]


def test_negation_admits_a_hidden_name(tmp_path):
    root = str(tmp_path)
    put(root, ".gitignore", b"!.env\n")
    put(root, ".env")
    put(root, ".other")
    r = S("--root", root, "needle")
    assert files(r) == [b".env"]
    assert skipped(r)["hidden"] == 2  # .gitignore itself and .other


def test_globs(tmp_path):
    root = str(tmp_path)
    for n in ["a.md", "b.txt", "ab.txt", "sub/c.md", "sub/d.txt", "x.log"]:
        put(root, n)
    put(root, ".gitignore", b"*.log\n")
    g = lambda *gl: files(S("--root", root, *[a for x in gl for a in ("--glob", x)], "needle"))
    assert g("*.md") == [b"a.md", b"sub/c.md"]
    assert g("!*.md") == [b"ab.txt", b"b.txt", b"sub/d.txt"]
    assert g("*.txt", "!a*.txt") == [b"b.txt", b"sub/d.txt"]  # the last glob that matches decides
    assert g("!sub/") == [b"a.md", b"ab.txt", b"b.txt"]
    assert g("sub/*.md") == [b"sub/c.md"]  # matched on the path below the root
    assert g("*.log") == [b"x.log"]  # a glob that includes wins over .gitignore
    r = S("--root", root, "--glob", "*.md", "needle")
    # b.txt ab.txt sub/d.txt x.log .gitignore: --glob is asked first, then ignore files, then
    # whether a name is hidden (ripgrep's order), and each entry is counted once, under glob
    assert skipped(r) == {"ignored": 0, "glob": 5, "hidden": 0, "binary": 0, "special": 0,
                          "symlink": 0}


# --- differential: ignore files against git -----------------------------------------------

POOL = ["*.o", "!keep.o", "/root.txt", "build/", "!build/", "doc/**", "!doc/**/*.md", "**/tmp",
        "a/**/z", "[abc]*.c", "[!x-z]?.h", "name\\ ", "sp ace  ", "\\#lit", "*.[oa]", "deep/*/file",
        "**/cache/", "*~", "f?o", "[[:digit:]]*", "a**b", "foo**/bar", "src/*/gen", "!src/x/gen",
        "*/", "!*/", "lib/**/*.so", "/sub", "sub/", "!sub/keep", "*.txt", "!*.txt", "x/", "y"]
NAMES = ["a.o", "keep.o", "root.txt", "build", "keep", "doc", "x.md", "y.txt", "tmp", "z", "a",
         "b.c", "q.h", "xy.h", "name ", "sp ace", "#lit", "ab.a", "file", "cache", "f~", "foo",
         "fxo", "1x", "axxb", "foox", "bar", "src", "gen", "lib", "m.so", "sub", "x", "y", "deep"]


def git_ignored(root, rels):
    subprocess.run(["git", "init", "-q", root], check=True)
    env = {"HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ["PATH"]}
    p = subprocess.run(["git", "-c", "core.excludesFile=/dev/null", "check-ignore", "--no-index",
                        "-z", "-v", "-n", "--stdin"], input=b"".join(r + b"\0" for r in rels),
                       cwd=root, capture_output=True, env=env)
    f = p.stdout.split(b"\0")[:-1]
    assert len(f) == 4 * len(rels), p.stderr
    return {f[i + 3] for i in range(0, len(f), 4) if f[i + 2] and not f[i + 2].startswith(b"!")}


@pytest.mark.parametrize("seed", range(int(os.environ.get("TACK_SEEK_GIT_SEEDS", "12"))))
def test_ignore_files_agree_with_git(tmp_path, seed):
    rng = random.Random(seed)
    root = str(tmp_path / "t")
    rels = []

    def grow(at, depth):
        for name in rng.sample(NAMES, 12 if depth == 0 else 6):
            rel = f"{at}/{name}" if at else name
            if depth < 3 and rng.random() < 0.35:
                os.makedirs(os.path.join(root, rel))
                if rng.random() < 0.5:
                    put(root, f"{rel}/.gitignore", "".join(p + "\n" for p in rng.sample(POOL, 5)).encode())
                grow(rel, depth + 1)
            else:
                put(root, rel)
                rels.append(rel.encode())

    os.makedirs(root)
    put(root, ".gitignore", "".join(p + "\n" for p in rng.sample(POOL, 9)).encode())
    grow("", 0)
    ignored = git_ignored(root, rels)
    assert 0 < len(ignored) < len(rels)  # both answers occur: the comparison can fail
    r = S("--root", root, "--hidden", "-m", "100000", "needle")
    searched = {p for p in files(r) if not p.startswith(b".git/")}
    assert searched == set(rels) - ignored


# --- each exclusion under its own cause, and the text line that names them --------------------

def test_glob_exclusions_are_counted_as_glob_never_as_ignored(tmp_path):
    root = str(tmp_path)
    for n in ["a.md", "b.txt", "x.log", ".h.md", ".h.txt"]:
        put(root, n)
    put(root, ".gitignore", b"*.log\n")
    sk = lambda *a: skipped(S("--root", root, *a, "needle"))
    # a plain glob decides first: what it does not match is glob's, hidden or ignored or not
    # (.h.md matches it and is searched although hidden, as ripgrep does)
    r = S("--root", root, "--glob", "*.md", "needle")
    assert files(r) == [b".h.md", b"a.md"]
    assert skipped(r) == {"ignored": 0, "glob": 4, "hidden": 0, "binary": 0, "special": 0,
                          "symlink": 0}  # b.txt x.log .gitignore .h.txt
    # an excluding glob counts what it excludes; the rest falls to the next rules
    assert sk("--glob", "!*.md") == {"ignored": 1, "glob": 2, "hidden": 2, "binary": 0,
                                     "special": 0, "symlink": 0}
    # no glob: ignore files before hidden names
    assert sk() == {"ignored": 1, "glob": 0, "hidden": 3, "binary": 0, "special": 0, "symlink": 0}
    put(root, ".both.log")  # ignored and hidden: counted once, as ignored
    assert sk()["ignored"] == 2 and sk()["hidden"] == 3
    assert sk("--no-ignore")["hidden"] == 4 and sk("--no-ignore")["ignored"] == 0
    # a directory left out by a glob is one entry, its contents never visited
    put(root, "sub/a.md")
    put(root, "sub/b.md")
    assert sk("--glob", "!sub/")["glob"] == 1


def test_require_match_hint_does_not_count_what_globs_left_out(tmp_path):
    root = str(tmp_path)
    put(root, "a.txt", b"other\n")
    put(root, "b.txt", b"other\n")
    r = S("--root", root, "--require-match", "--glob", "*.md", "needle")
    (e,) = r.errors
    assert e["rule"] == "precondition.no-match" and e["hint"] is None
    assert e["detail"]["skipped"]["glob"] == 2 and e["detail"]["skipped"]["ignored"] == 0


def test_text_mode_says_what_was_not_searched(tmp_path):
    root = str(tmp_path)
    put(root, "bin.dat", b"needle\0\n")
    r = S("--root", root, "--format", "text", "needle")
    # the JSON answer says a binary file was skipped; text mode says so too, and exits 0
    assert r.exit == 0 and r.out == b"[skipped: 1 binary]\n"
    assert skipped(S("--root", root, "needle"))["binary"] == 1
    # named, it is searched: nothing left out, no line
    r = S("--root", root, "--format", "text", "needle", "bin.dat")
    assert r.out == b"bin.dat:1:needle\x00\n"
    put(root, "a.txt")
    put(root, "b.txt")
    put(root, ".h.txt")
    put(root, "c.log")
    put(root, ".gitignore", b"*.log\n")
    r = S("--root", root, "--format", "text", "--glob", "!b.txt", "needle")
    assert r.out == (b"a.txt:1:needle\n[skipped: 1 ignored, 1 left out "
                     b"by glob, 2 hidden, 1 binary]\n")
    # cut and left out: one line, the cursor first (what was left out before the cut)
    put(root, "z.txt")
    r = S("--root", root, "--format", "text", "-m", "3", "--hidden", "needle")
    assert r.out == (b".h.txt:1:needle\na.txt:1:needle\nb.txt:1:needle\n[truncated by max-count; next: {\"skip\":3}; "
                     b"skipped: 1 ignored, 1 binary]\n")
    # nothing left out, nothing cut: the matches alone
    r = S("--root", root, "--format", "text", "--hidden", "--no-ignore", "--glob", "*.txt",
          "needle")
    assert r.out == (b".h.txt:1:needle\na.txt:1:needle\nb.txt:1:needle\nz.txt:1:needle\n"
                     b"[skipped: 3 left out by glob]\n")
    r = S("--root", root, "--format", "text", "needle", "a.txt", "b.txt")
    assert r.out == b"a.txt:1:needle\nb.txt:1:needle\n"


@pytest.mark.parametrize("mode", [[], ["-c"], ["-l"], ["--max-count", "7"], ["--context", "1"]])
def test_the_answer_is_the_same_bytes_whatever_the_threads(tmp_path, mode):
    # Files of very different sizes (so workers finish out of order), errors and skips between
    # them: the answer of one thread is the answer of many, byte for byte.
    rnd = random.Random(7)
    for i in range(300):
        lines = rnd.choice([1, 3, 50, 4000])
        body = b"".join(b"needle %d\n" % j if rnd.random() < 0.3 else b"hay %d\n" % j
                        for j in range(lines))
        put(str(tmp_path), f"d{i % 13}/s{i % 5}/f{i:03}.txt", body)
    put(str(tmp_path), "d1/bin.dat", b"needle\0\n")
    os.symlink("d2", os.path.join(str(tmp_path), "d0", "link"))
    os.mkfifo(os.path.join(str(tmp_path), "d3", "fifo"))
    answers = [S("--root", str(tmp_path), "--threads", str(n), *mode, "needle").out
               for n in (1, 2, 3, 8)]
    assert answers[0].count(b"\n") > 8 and b"\"ok\":true" in answers[0]
    assert all(a == answers[0] for a in answers[1:])


def test_threads_past_the_ceiling_is_refused(tmp_path):
    put(str(tmp_path), "a.txt")
    r = S("--root", str(tmp_path), "--threads", "65", "needle")
    assert r.exit == 2 and r.rules == ["args.bad-value"]
