"""list — behaviour, M1 (every output validated by tack.run), M3 (every declared rule reached,
retries executed), M5 (differential against GNU find), M8 (links never entered, operands
checked), M9 (memory does not grow with the number of entries).
"""

import os
import pathlib
import random
import subprocess

import pytest

import tack
from tack import run, tob

REACHED = set()


def L(*args, **kw):
    r = run("list", *args, **kw)
    REACHED.update(r.rules)
    return r


def entries(r):
    return [x for x in r.json if x["type"] == "entry"]


def paths(r):
    return [tob(x["path"]) for x in entries(r)]


def end(r):
    return r.json[-1]


@pytest.fixture
def small(tmp_path):
    root = tmp_path / "root"
    for d in ["a/b/c", "a-b", "z", ".hid/x"]:
        (root / d).mkdir(parents=True)
    for f in ["a/one.txt", "a/b/two.txt", "a/b/c/three.txt", "a-b/f", "z/Z.md", ".hid/x/h",
              ".dot", "ign.log", "top.txt"]:
        (root / f).write_bytes(b"x" * 3)
    (root / ".gitignore").write_bytes(b"*.log\n")
    os.symlink("/etc", root / "ln_out")
    os.symlink("missing", root / "dangling")
    return root


def test_depth_one_bytewise(small):
    r = L("--root", small)
    assert paths(r) == [b"a", b"a-b", b"dangling", b"ln_out", b"top.txt", b"z"]
    e = end(r)
    assert e["entries"] == 6 and e["complete"] and not e["truncated"] and e["next"] is None
    assert e["skipped"]["hidden"] == 3 and e["skipped"]["ignored"] == 1  # .gitignore .dot .hid; ign.log
    kinds = {tob(x["path"]): x["kind"] for x in entries(r)}
    assert kinds[b"a"] == "directory" and kinds[b"top.txt"] == "file" and kinds[b"ln_out"] == "link"
    tgt = {tob(x["path"]): x.get("target") for x in entries(r)}
    assert tgt[b"ln_out"] == "/etc" and tgt[b"dangling"] == "missing" and tgt[b"a"] is None


def test_depth_first_and_depths(small):
    r = L("--root", small, "--depth", "64", "a")
    assert paths(r) == [b"a/b", b"a/b/c", b"a/b/c/three.txt", b"a/b/two.txt", b"a/one.txt"]
    assert [x["depth"] for x in entries(r)] == [1, 2, 3, 2, 1]


def test_hidden_no_ignore(small):
    r = L("--root", small, "--hidden", "--no-ignore")
    assert b".hid" in paths(r) and b"ign.log" in paths(r) and b".gitignore" in paths(r)
    assert end(r)["skipped"] == {"ignored": 0, "glob": 0, "hidden": 0, "binary": 0, "special": 0,
                                 "symlink": 0}


def test_kind_filter(small):
    r = L("--root", small, "--depth", "3", "--kind", "file")
    assert all(x["kind"] == "file" for x in entries(r))
    assert b"a/b/two.txt" in paths(r)
    r = L("--root", small, "--kind", "link")
    assert paths(r) == [b"dangling", b"ln_out"]


def test_cursor_pages_add_up(small):
    full = paths(L("--root", small, "--depth", "64", "--hidden", "--no-ignore"))
    got, skip = [], 0
    while True:
        r = L("--root", small, "--depth", "64", "--hidden", "--no-ignore", "--max-entries", "4",
              "--skip", str(skip))
        got += paths(r)
        e = end(r)
        if not e["truncated"]:
            assert e["next"] is None and e["complete"]
            break
        assert not e["complete"] and e["next"] == {"skip": skip + 4}
        skip = e["next"]["skip"]
    assert got == full
    # exactly a page: nothing more exists, so not truncated
    r = L("--root", small, "--depth", "64", "--hidden", "--no-ignore", "--max-entries",
          str(len(full)))
    assert not end(r)["truncated"] and len(paths(r)) == len(full)


def test_long(small):
    r = L("--root", small, "--long")
    by = {tob(x["path"]): x for x in entries(r)}
    st = os.lstat(small / "top.txt")
    assert by[b"top.txt"]["size"] == 3 and by[b"top.txt"]["mtime"] == int(st.st_mtime)
    assert by[b"ln_out"]["size"] == len("/etc")  # the link's own size
    assert "size" not in entries(L("--root", small))[0]


def test_text_mode(small):
    r = L("--root", small, "--format", "text")
    assert r.out.split(b"\n")[:4] == [b"a/", b"a-b/", b"dangling -> missing", b"ln_out -> /etc"]


def test_text_mode_ends_with_what_was_left_out(small):
    r = L("--root", small, "--format", "text")
    # the JSON answer's counts, in one line after the entries
    assert r.out.split(b"\n")[-2:] == [
        b"[skipped: 1 ignored, 3 hidden]", b""]
    j = L("--root", small)
    assert end(j)["skipped"]["ignored"] == 1 and end(j)["skipped"]["hidden"] == 3
    # nothing left out: no line
    r = L("--root", small, "--format", "text", "--hidden", "--no-ignore")
    assert not r.out.split(b"\n")[-2].startswith(b"[")
    # cut and left out: one line, the cursor first
    r = L("--root", small, "--format", "text", "--max-entries", "2")
    assert r.out == b'a/\na-b/\n[truncated by max-entries; next: {"skip":2}; skipped: 3 hidden]\n'
    r = L("--root", small, "--format", "text", "--max-entries", "2", "--hidden", "--no-ignore")
    assert r.out.endswith(b'\n[truncated by max-entries; next: {"skip":2}]\n')
    # --find counts the same way
    r = L("--root", small, "--format", "text", "--find", "top")
    assert r.out == b"top.txt\n[skipped: 1 ignored, 3 hidden]\n"


def test_text_mode_end_line_is_deterministic(small):
    outs = {L("--root", small, "--format", "text", "--depth", "64").out for _ in range(3)}
    assert len(outs) == 1


def test_each_exclusion_is_counted_once_under_its_own_cause(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    (root / ".gitignore").write_bytes(b"*.log\n.both.log\nbuilt/\n")
    for f in ["a.log", ".both.log", ".h", "built/x", "built/y", "ok"]:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_bytes(b"")
    sk = lambda *a: end(L("--root", root, "--depth", "64", *a))["skipped"]
    # ignore files before hidden names: .both.log is ignored; built/ is one entry
    assert sk() == {"ignored": 3, "glob": 0, "hidden": 2, "binary": 0, "special": 0, "symlink": 0}
    # without ignore files, what they left out falls to the next rule or is listed
    assert sk("--no-ignore") == {"ignored": 0, "glob": 0, "hidden": 3, "binary": 0, "special": 0,
                                 "symlink": 0}
    assert sk("--hidden") == {"ignored": 3, "glob": 0, "hidden": 0, "binary": 0, "special": 0,
                              "symlink": 0}


def test_find_ranks(tmp_path):
    root = tmp_path / "r"
    for f in ["src/list.cpp", "src/li/st.cpp", "tools/LIST.md", "docs/alist.txt", "other.c",
              "l/i/s/t.x"]:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_bytes(b"")
    r = L("--root", root, "--find", "list")
    ps = paths(r)
    scores = [x["score"] for x in entries(r)]
    assert b"other.c" not in ps and len(ps) == 5
    assert scores == sorted(scores, reverse=True)
    assert ps[0] in (b"src/list.cpp", b"tools/LIST.md")
    assert ps.index(b"src/list.cpp") < ps.index(b"src/li/st.cpp")
    assert ps.index(b"src/list.cpp") < ps.index(b"docs/alist.txt")  # word start beats mid-word
    assert end(r)["matched"] == 5 and not end(r)["truncated"]
    top2 = L("--root", root, "--find", "list", "--max-entries", "2")
    assert paths(top2) == ps[:2] and end(top2)["truncated"] and end(top2)["next"] == {"skip": 2}
    rest = L("--root", root, "--find", "list", "--skip", "2")
    assert paths(rest) == ps[2:]
    # --depth limits the tree ranked
    assert paths(L("--root", root, "--find", "list", "--depth", "1")) == []


def test_find_ties_bytewise(tmp_path):
    root = tmp_path / "r"
    for d in ["b", "a", "c"]:
        (root / d).mkdir(parents=True)
        (root / d / "x.txt").write_bytes(b"")
    r = L("--root", root, "--find", "x.txt")
    assert paths(r) == [b"a/x.txt", b"b/x.txt", b"c/x.txt"]
    assert len({x["score"] for x in entries(r)}) == 1


def test_multiple_operands_and_errors_in_order(small):
    r = L("--root", small, "z", "nope", "a-b")
    assert [x["type"] for x in r.json] == ["entry", "error", "entry", "end"]
    assert r.rules == ["io.not-found"] and r.exit == 3 and end(r)["errors"] == 1


# --- M8 -------------------------------------------------------------------------------------

def test_m8_links_never_entered(small, tmp_path):
    out = tmp_path / "outside"
    out.mkdir()
    (out / "secret").write_bytes(tack.SECRET)
    os.symlink(out, small / "a" / "to_out")
    r = L("--root", small, "--depth", "64", "--hidden", "--no-ignore")
    assert not any(b"secret" in p or p.startswith(b"ln_out/") for p in paths(r))
    assert b"a/to_out" in paths(r)
    assert L("--root", small, "a/to_out").rules == ["path.symlink"]
    assert L("--root", small, "ln_out").rules == ["path.symlink"]
    assert L("--root", small, str(out)).rules == ["path.outside-root"]
    assert L("--root", small, "../outside").rules == ["path.dotdot"]
    # `a/b/..` stays inside: the retry (executed by tack.run) lists `a`
    r = L("--root", small, "a/b/..")
    assert r.rules == ["path.dotdot"] and r.retried and paths(r.retried[0])[0] == b"a/b"
    r = L("--root", small, str(small / "a"))
    assert r.rules == ["path.absolute"] and r.retried
    # the root's own spelling may run through a link (the operator's choice)
    os.symlink(small, tmp_path / "rootlink")
    assert paths(L("--root", tmp_path / "rootlink")) == paths(L("--root", small))


# --- M5: against GNU find -------------------------------------------------------------------

def find_list(root, depth):
    p = subprocess.run(["find", root, "-mindepth", "1", "-maxdepth", str(depth), "-printf",
                        "%P\\0%y\\0"], capture_output=True, check=True, env={"LC_ALL": "C"})
    parts = p.stdout.split(b"\0")[:-1]
    kinds = {b"f": "file", b"d": "directory", b"l": "link"}
    return sorted((parts[i], kinds.get(parts[i + 1], "other")) for i in range(0, len(parts), 2))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_m5_differential_find(tmp_path, seed):
    rnd = random.Random(seed)
    root = tmp_path / "r"
    root.mkdir()
    names = [b"plain", b"with space", b"new\nline", b"quote'\"", b"\xff\xfehigh", b".hidden",
             b"-rf", b"a-b", b"a.b", b"A", b"\xc3\xa9t\xc3\xa9", b"back\\slash"]
    dirs = [os.fsencode(root)]
    for i in range(120):
        parent = rnd.choice(dirs)
        name = rnd.choice(names) + str(i).encode()
        path = parent + b"/" + name
        k = rnd.random()
        if k < 0.3:
            os.mkdir(path)
            dirs.append(path)
        elif k < 0.4:
            os.symlink(rnd.choice([b"/etc", b"..", b"nowhere", dirs[0]]), path)
        elif k < 0.45:
            os.mkfifo(path)
        else:
            open(path, "wb").close()
    for depth in (1, 2, 64):
        r = L("--root", root, "--depth", str(depth), "--hidden", "--no-ignore", "--max-entries",
              "100000")
        mine = sorted((tob(x["path"]), x["kind"]) for x in entries(r))
        assert mine == find_list(os.fsencode(root), depth)
        # and our order is the walk order: depth-first with each directory's names bytewise
        ps = paths(r)
        assert len(ps) == len(set(ps))
        for a, b in zip(ps, ps[1:]):
            ca, cb = a.split(b"/"), b.split(b"/")
            n = 0
            while n < min(len(ca), len(cb)) and ca[n] == cb[n]:
                n += 1
            if n < len(ca) and n < len(cb):
                assert ca[n] < cb[n], (a, b)


# --- M3 -------------------------------------------------------------------------------------

R = "{root}"
FIXTURES = [
    ("args.unknown-flag", ["--root", R, "--dpeth", "2"]),
    ("args.missing-value", ["--root", R, "--depth"]),
    ("args.bad-value", ["--root", R, "--depth", "65"]),
    ("args.bad-value", ["--root", R, "--depth", "0"]),
    ("args.bad-value", ["--root", R, "--kind", "socket"]),
    ("args.bad-value", ["--root", R, "--find", ""]),
    ("args.bad-value", ["--root", R, "--find", "x" * 257]),
    ("args.bad-value", ["--root", R, "--find", "x", "--skip", "100000"]),
    ("args.bad-value", ["--root", R, "--max-entries", "100001"]),
    ("args.unexpected-value", ["--root", R, "--long=yes"]),
    ("args.duplicate-flag", ["--root", R, "--depth", "1", "-d", "2"]),
    ("args.conflict", ["--root", R, "--find", "x", "--kind", "file"]),
    ("path.empty", ["--root", R, ""]),
    ("path.dotdot", ["--root", R, "dir/../dir"]),
    ("path.absolute", ["--root", R, R + "/dir"]),
    ("path.outside-root", ["--root", R, "/etc"]),
    ("path.too-long", ["--root", R, "a" * 4097]),
    ("path.symlink", ["--root", R, "link_out_dir"]),
    ("io.not-found", ["--root", R, "missing"]),
    ("io.not-found", ["--root", R + "/missing"]),
    ("io.not-a-directory", ["--root", R, "plain.txt"]),
    ("io.special-file", ["--root", R, "fifo"]),
]


@pytest.mark.parametrize("rule,args", FIXTURES, ids=[f"{r}-{i}" for i, (r, _) in enumerate(FIXTURES)])
def test_m3_rule(tree, rule, args, tmp_path):
    tree.fifo()
    argv = [a.replace(R, str(tree.root)) for a in args]
    r = L(*argv)
    assert r.rules and r.rules[0] == rule, r
    if rule.startswith("args.") or rule.startswith("path."):
        assert not entries(r)  # nothing read


def test_m3_permission_denied(tree):
    d = tree.root / "closed"
    d.mkdir()
    (d / "f").write_bytes(b"")
    os.chmod(d, 0)
    try:
        r = L("--root", tree.root, "--depth", "2", wrap=tack.NO_DAC)
        assert "io.permission-denied" in r.rules
        assert b"closed" in paths(r) and b"plain.txt" in paths(r)  # the rest still listed
        assert r.exit == 4 and not end(r)["complete"]
        r = L("--root", tree.root, "closed/x", wrap=tack.NO_DAC)
        assert r.rules == ["io.permission-denied"]
    finally:
        os.chmod(d, 0o755)


def test_m3_read_failed_out_of_descriptors(tmp_path):
    # Past the descriptor limit the walk cannot open a directory: io.read-failed (EMFILE), and
    # what came before is still listed.
    root = tmp_path / "deep"
    p = root
    for i in range(40):
        p = p / f"d{i}"
    p.mkdir(parents=True)
    r = L("--root", root, "--depth", "64", wrap=["prlimit", "--nofile=20"])
    assert "io.read-failed" in r.rules
    assert r.json[-2]["type"] == "error" or any(x["type"] == "error" for x in r.json)
    assert b"d0" in paths(r)


def test_m3_big_ignore_file(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    with open(root / ".gitignore", "wb") as f:
        f.truncate(17 * 1024 * 1024)
    (root / "f").write_bytes(b"")
    r = L("--root", root)
    assert r.rules == ["limit.input-too-large"] and r.exit == 8 and paths(r) == [b"f"]


def test_m3_a_walk_at_its_deepest_says_what_it_did_not_enter(tmp_path):
    # 64 levels is the deepest a walk goes: a directory there that holds entries is an error
    # record after its entry, never a silent cut (one that holds nothing is not).
    root = tmp_path / "deep"
    (root / pathlib.Path(*["d"] * 65)).mkdir(parents=True)
    (root / pathlib.Path(*["d"] * 65) / "target.txt").write_bytes(b"hit\n")
    (root / pathlib.Path(*["e"] * 64)).mkdir(parents=True)
    for args in (["--find", "target"], ["--depth", "64"]):
        r = L("--root", root, *args)
        assert r.rules == ["limit.too-deep"] and r.exit == 8, args
        err = next(x for x in r.json if x["type"] == "error")["error"]
        assert err["detail"] == {"path": "/".join(["d"] * 64), "depth": 64}
        assert r.json[-1]["complete"] is False
    # a depth asked for is the answer, not a cut
    assert L("--root", root, "--depth", "63").rules == []
    assert L("--root", root / pathlib.Path(*["d"] * 2), "--find", "target").rules == []


def test_m3_declared_equals_reached():
    # runs last in this module (pytest keeps file order): every declared rule was reached
    declared = set(tack.declared_rules("list"))
    assert REACHED == declared, (sorted(declared - REACHED), sorted(REACHED - declared))


# --- M9 -------------------------------------------------------------------------------------

def peak_rss_kib(argv):
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return ru.ru_maxrss


@pytest.mark.slow
def test_m9_memory_flat_in_entry_count(tmp_path):
    # What is held: the sorted name list of each directory on the current path (plus one
    # descriptor each). So 60 directories of 1000 files cost what one of them costs, and
    # the output is streamed, not held.
    one, many = tmp_path / "one", tmp_path / "many"
    for base, ndirs in ((one, 1), (many, 60)):
        for d in range(ndirs):
            dd = base / f"d{d:03}"
            dd.mkdir(parents=True)
            for i in range(1000):
                (dd / f"file-with-a-longish-name-{i:05}.txt").write_bytes(b"")
    args = ["--depth", "64", "--max-entries", "100000"]
    a = peak_rss_kib([tack.bin_path("list"), "--root", str(one)] + args)
    b = peak_rss_kib([tack.bin_path("list"), "--root", str(many)] + args)
    assert b <= a * 1.5, (a, b)
    # --find holds the best --max-entries only
    a = peak_rss_kib([tack.bin_path("list"), "--root", str(one), "--find", "txt"])
    b = peak_rss_kib([tack.bin_path("list"), "--root", str(many), "--find", "txt"])
    assert b <= a * 1.5, (a, b)
