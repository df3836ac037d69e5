"""skills — behaviour, M1 (every output validated by tack.run), M3 (every declared rule reached),
M8 (a SKILL.md reached through a link is never read).
"""

import os
import pathlib

import pytest

import tack
from tack import run, tob

REACHED = set()


def S(*args, **kw):
    r = run("skills", *args, **kw)
    REACHED.update(r.rules)
    return r


def skill(root, d, text):
    p = root / d
    p.mkdir(parents=True, exist_ok=True)
    (p / "SKILL.md").write_bytes(text if isinstance(text, bytes) else text.encode())


GOOD = "---\nname: {n}\ndescription: {d}\nlicense: MIT\nmetadata:\n  author: x\n  v: '1'\n---\n# Body\n"


@pytest.fixture
def skills_tree(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    skill(root, "pdf", GOOD.format(n="pdf", d="Read PDFs. Use for .pdf files."))
    skill(root, ".claude/skills/deploy", "---\nname: 'deploy'\ndescription: \"Ship it: \\u00e9 \\\"now\\\"\"\n---\nDeploy body\n")
    skill(root, "folded", "---\nname: folded\ndescription: >-\n  first line\n  second line\n\n  para\nallowed-tools: Bash Read\n---\nB\n")
    skill(root, "literal", "---\nname: literal\ndescription: |\n  one\n  two\n---\n")
    skill(root, "plainmulti", "---\nname: plainmulti\ndescription: a plain\n  continued # comment\n---\n")
    skill(root, "noclose", "---\nname: noclose\ndescription: x\n")
    skill(root, "nofront", "# just markdown\n")
    skill(root, "noname", "---\ndescription: x\n---\n")
    skill(root, "Bad--Name", "---\nname: Bad--Name\ndescription: x\n---\n")
    skill(root, "toolong", "---\nname: toolong\ndescription: " + "d" * 1025 + "\n---\n")
    skill(root, "latin", b"---\nname: latin\ndescription: caf\xe9\n---\n")
    skill(root, "mismatch", GOOD.format(n="other", d="x"))
    skill(root, "nodesc", "---\nname: nodesc\ndescription: ''\n---\n")
    skill(root, "flow", "---\nname: flow\ndescription: [a, b]\n---\n")
    skill(root, "dupkey", "---\nname: dupkey\nname: dupkey\ndescription: x\n---\n")
    skill(root, "unterminated", "---\nname: unterminated\ndescription: \"abc\n---\n")
    skill(root, ".git/hooks", GOOD.format(n="hooks", d="never walked"))
    return root


def test_lists_valid_and_invalid(skills_tree):
    r = S("--root", skills_tree)
    d = r.data
    names = {s["name"]: s for s in d["skills"]}
    assert set(names) == {"pdf", "deploy", "folded", "literal", "plainmulti"}
    assert names["deploy"]["description"] == 'Ship it: \u00e9 "now"'
    assert names["folded"]["description"] == "first line second line\npara"
    assert names["literal"]["description"] == "one\ntwo\n"
    assert names["plainmulti"]["description"] == "a plain continued"
    assert tob(names["pdf"]["path"]) == b"pdf/SKILL.md"
    ps = [tob(s["path"]) for s in d["skills"]]
    assert ps == sorted(ps)
    causes = {tob(i["path"]).split(b"/")[0].decode(): i["cause"] for i in d["invalid"]}
    assert set(causes) == {"noclose", "nofront", "noname", "Bad--Name", "toolong", "latin",
                           "mismatch", "nodesc", "flow", "dupkey", "unterminated"}
    assert "closing" in causes["noclose"] and "start" in causes["nofront"]
    assert "no 'name'" in causes["noname"] and "lowercase" in causes["Bad--Name"]
    assert "1024" in causes["toolong"] and "UTF-8" in causes["latin"]
    assert "directory" in causes["mismatch"] and "description" in causes["nodesc"]
    assert "twice" in causes["dupkey"] and "does not end" in causes["unterminated"]
    ips = [tob(i["path"]) for i in d["invalid"]]
    assert ips == sorted(ips)
    assert d["duplicates"] == [] and r.exit == 0


def test_show(skills_tree):
    r = S("--root", skills_tree, "--show", "pdf")
    assert r.data == {"name": "pdf", "description": "Read PDFs. Use for .pdf files.",
                      "path": "pdf/SKILL.md", "body": "# Body\n", "truncated": False,
                      "next": None, "cut": None}
    t = S("--root", skills_tree, "--show", "deploy", "--format", "text")
    assert t.out == b"Deploy body\n"


def test_show_unknown_and_duplicate(skills_tree):
    r = S("--root", skills_tree, "--show", "nope")
    assert r.rules == ["io.not-found"] and r.exit == 3 and "pdf" in r.errors[0]["detail"]["available"]
    skill(skills_tree, "x/pdf", GOOD.format(n="pdf", d="another"))
    r = S("--root", skills_tree)
    assert r.data["duplicates"] == [{"name": "pdf", "paths": ["pdf/SKILL.md", "x/pdf/SKILL.md"]}]
    r = S("--root", skills_tree, "--show", "pdf")
    e = r.errors[0]
    assert r.rules == ["precondition.count-mismatch"] and e["detail"]["found"] == 2
    assert e["repair"]["kind"] == "choose"
    for opt in e["repair"]["options"]:  # each option singles one out
        again = S(*[tob(a) for a in opt["argv"][1:]])
        assert again.exit == 0 and again.data["name"] == "pdf"
    # A skill of the same name beneath another's directory: the outer one's directory would
    # find both again, so each option names its SKILL.md.
    skill(skills_tree, "pdf/nested/pdf", GOOD.format(n="pdf", d="inner"))
    r = S("--root", skills_tree, "--show", "pdf")
    e = r.errors[0]
    assert e["detail"]["found"] == 3 and len(e["repair"]["options"]) == 3
    bodies = set()
    for opt in e["repair"]["options"]:
        again = S(*[tob(a) for a in opt["argv"][1:]])
        assert again.exit == 0 and again.data["path"] == opt["argv"][-1]
        bodies.add(again.data["description"])
    assert bodies == {"Read PDFs. Use for .pdf files.", "another", "inner"}


def test_a_skill_md_operand_is_that_one_skill(skills_tree):
    r = S("--root", skills_tree, "pdf/SKILL.md", "folded")
    assert r.exit == 0 and [s["path"] for s in r.data["skills"]] == ["folded/SKILL.md", "pdf/SKILL.md"]
    r = S("--root", skills_tree, "mismatch/SKILL.md")  # its directory's name is still checked
    assert r.data["skills"] == [] and "differs from its directory" in r.data["invalid"][0]["cause"]
    (skills_tree / "notes.md").write_text("x")
    assert S("--root", skills_tree, "notes.md").rules == ["io.not-a-directory"]
    assert S("--root", skills_tree, "gone/SKILL.md").rules == ["io.not-found"]
    (skills_tree / "fifo").mkdir()
    os.mkfifo(skills_tree / "fifo" / "SKILL.md")
    r = S("--root", skills_tree, "fifo/SKILL.md")
    assert r.rules == ["io.special-file"] and r.exit == 2


def test_big_file_and_dir_operands(skills_tree):
    p = skills_tree / "huge"
    p.mkdir()
    with open(p / "SKILL.md", "wb") as f:
        f.write(b"---\nname: huge\n")
        f.truncate(1024 * 1024 + 1)
    r = S("--root", skills_tree)
    assert r.rules == ["limit.input-too-large"] and r.exit == 8
    r = S("--root", skills_tree, "pdf", "folded")
    assert [s["name"] for s in r.data["skills"]] == ["folded", "pdf"]


def test_m8_links_never_read(skills_tree, tmp_path):
    out = tmp_path / "outside"
    skill(out, "evil", GOOD.format(n="evil", d=tack.SECRET.decode()))
    os.symlink(out / "evil" / "SKILL.md", skills_tree / "pdf" / "x")
    (skills_tree / "linked").mkdir()
    os.symlink(out / "evil" / "SKILL.md", skills_tree / "linked" / "SKILL.md")
    os.symlink(out / "evil", skills_tree / "evil")
    r = S("--root", skills_tree)
    assert tack.SECRET not in r.out
    assert r.data["skipped"]["symlink"] == 1
    assert S("--root", skills_tree, "evil").rules == ["path.symlink"]


R = "{root}"
FIXTURES = [
    ("args.unknown-flag", ["--root", R, "--shwo", "x"]),
    ("args.missing-value", ["--root", R, "--show"]),
    ("args.bad-value", ["--root", R, "--show", ""]),
    ("args.bad-value", ["--root", R, "--format", "xml"]),
    ("args.duplicate-flag", ["--root", R, "--show", "a", "-s", "b"]),
    ("path.empty", ["--root", R, ""]),
    ("path.dotdot", ["--root", R, "dir/../dir"]),
    ("path.absolute", ["--root", R, R + "/dir"]),
    ("path.outside-root", ["--root", R, "/etc"]),
    ("path.too-long", ["--root", R, "a" * 4097]),
    ("path.symlink", ["--root", R, "link_out_dir"]),
    ("io.not-found", ["--root", R, "missing"]),
    ("io.not-a-directory", ["--root", R, "plain.txt"]),
    ("io.special-file", ["--root", R, "fifo"]),
]


@pytest.mark.parametrize("rule,args", FIXTURES, ids=[f"{r}-{i}" for i, (r, _) in enumerate(FIXTURES)])
def test_m3_rule(tree, rule, args):
    tree.fifo()
    r = S(*[a.replace(R, str(tree.root)) for a in args])
    assert r.rules and r.rules[0] == rule, r


def test_m3_permission_and_read_failed(tree):
    d = tree.root / "closed"
    d.mkdir()
    os.chmod(d, 0)
    try:
        r = S("--root", tree.root, wrap=tack.NO_DAC)
        assert r.rules == ["io.permission-denied"] and r.exit == 4
    finally:
        os.chmod(d, 0o755)
    p = tree.root
    for i in range(40):
        p = p / f"d{i}"
    p.mkdir(parents=True)
    r = S("--root", tree.root, wrap=["prlimit", "--nofile=20"])
    assert "io.read-failed" in r.rules


def test_a_flag_without_a_value_given_one(skills_tree):
    r = S("--version=1", "--root", skills_tree)
    assert r.exit == 2 and r.rules == ["args.unexpected-value"]


def test_the_list_pages_within_its_byte_budget(tmp_path):
    root = tmp_path / "many"
    root.mkdir()
    for i in range(400):
        n = "s%03d" % i
        skill(root, n, GOOD.format(n=n, d="Skill number %d, described at some length, %s." % (i, "w" * 150)))
    first = S("--root", root)
    d = first.data
    assert (d["truncated"], d["cut"]) == (True, "max-bytes")
    assert len(first.out) < 64 * 1024 + 1024
    names, extra = [], []
    while True:
        r = S("--root", root, *extra)
        names += [x["name"] for x in r.data["skills"]]
        if r.data["next"] is None:
            break
        extra = ["--skip", str(r.data["next"]["skip"])]
    assert names == ["s%03d" % i for i in range(400)]
    whole = S("--root", root, "--max-bytes", "16777216").data
    assert whole["truncated"] is False and len(whole["skills"]) == 400


def test_a_long_body_is_cut_at_a_line_with_the_line_peek_goes_on_from(tmp_path):
    root = tmp_path / "long"
    root.mkdir()
    body = "".join("body line %d %s\n" % (i, "b" * 60) for i in range(3000))
    skill(root, "big", GOOD.format(n="big", d="A big one.") + body)
    r = S("--root", root, "--show", "big")
    d = r.data
    assert (d["truncated"], d["cut"]) == (True, "max-bytes")
    shown = tob(d["body"])
    assert shown.endswith(b"\n") and 64 * 1024 <= len(shown) < 64 * 1024 + 100
    text = (root / "big" / "SKILL.md").read_bytes()
    line = d["next"]["line"]
    rest = run("peek", "--root", root, "--lines", "%d:" % line, "--max-bytes", "16777216", "big/SKILL.md")
    assert shown + b"".join(tob(x["text"]) + b"\n" for x in rest.data["lines"]) == text[text.index(b"# Body\n"):]
    assert S("--root", root, "--show", "big", "--skip", "1").rules == ["args.conflict"]


def test_m3_a_skill_past_the_deepest_level_is_said_to_be_missed(tmp_path):
    root = tmp_path / "deep"
    skill(root / pathlib.Path(*["d"] * 64), "far", GOOD.format(n="far", d="Far down."))
    r = S("--root", root)
    assert r.rules == ["limit.too-deep"] and r.exit == 8 and r.data["skills"] == []
    near = S("--root", root / pathlib.Path(*["d"] * 2))
    assert near.exit == 0 and [s["name"] for s in near.data["skills"]] == ["far"]


def test_m3_declared_equals_reached():
    declared = set(tack.declared_rules("skills"))
    assert REACHED == declared, (sorted(declared - REACHED), sorted(REACHED - declared))
