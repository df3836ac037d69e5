"""The skills an agent reads: short enough to read in one go, generated from the tables.

`TOOL skill` is a tool's use in brief (at most ~1.2 KB), `TOOL skill contract` the contract
every tool keeps (at most ~3 KB), and the toolbox's whole skill text at most 17 KB; the full
detail stays in `--help` and `introspect`. Every skill is a valid agentskills.io SKILL.md (read
back by tack's own `skills`), and every worked example in a table runs on a fixture tree and
answers as its schema says.
"""

import json
import shlex

import pytest

import tack
from tack import run

TOOLS = tack.expected_tools()
TOOL_LIMIT = 1200
CONTRACT_LIMIT = 3072
TOTAL_LIMIT = 17 * 1024  # thirteen tools (undo joined the twelve at 16 KB)


def skill(tool, *extra):
    r = run(tool, "skill", *extra)
    assert r.exit == 0 and r.err == b""
    return r.out


@pytest.mark.parametrize("tool", TOOLS)
def test_tool_skill_is_short(tool):
    assert len(skill(tool)) <= TOOL_LIMIT, skill(tool).decode()


def test_contract_skill_is_short_and_the_same_from_every_tool():
    texts = {skill(t, "contract") for t in TOOLS}
    assert len(texts) == 1
    assert len(texts.pop()) <= CONTRACT_LIMIT


def test_whole_toolbox_skill_text():
    total = len(skill(TOOLS[0], "contract")) + sum(len(skill(t)) for t in TOOLS)
    assert total <= TOTAL_LIMIT, total


@pytest.mark.parametrize("tool", TOOLS)
def test_tool_skill_names_its_own_rules_and_points_to_the_rest(tool):
    text = skill(tool).decode()
    info = tack.introspect(tool)
    for rule in info["rules"]:
        own = not rule["rule"].startswith(("args.", "path.", "io."))
        assert (f"`{rule['rule']}`" in text) == own, rule["rule"]
    usage = info["usage"].replace("[--root DIR] ", "").replace(" [--root DIR]", "")
    usage = usage.replace(" [--format json|text]", "").replace(" [--format ndjson|text]", "")
    assert usage in text
    assert f"`{tool} --help`" in text and f"`{tool} introspect`" in text
    assert f"`{tool} skill contract`" in text
    for ex in info["examples"]:
        assert ex["args"] in text and ex["shows"] in text


def test_contract_skill_lists_every_common_rule_with_its_exit():
    text = skill(TOOLS[0], "contract").decode()
    for rule, code in tack.CATALOGUE.items():
        area, _, name = rule.partition(".")
        if area in ("args", "path", "io"):
            assert f" {name} ({code})" in text, rule


def test_skills_read_back_as_valid_skill_files(tmp_path):
    root = tmp_path / "skills"
    for tool in TOOLS:
        (root / tool).mkdir(parents=True)
        (root / tool / "SKILL.md").write_bytes(skill(tool))
    (root / "tack").mkdir()
    (root / "tack" / "SKILL.md").write_bytes(skill(TOOLS[0], "contract"))
    r = run("skills", "--root", str(tmp_path), "skills")
    assert r.exit == 0, r.out
    names = sorted(s["name"] for s in r.data["skills"])
    assert names == sorted(TOOLS + ["tack"])
    assert r.data.get("invalid", []) == []


def test_skill_contract_is_only_that_pair():
    """`TOOL skill contract` is reserved as `TOOL skill` is; other words after skill are operands."""
    r = run("peek", "skill", "contrac")
    assert r.rules and r.rules[0] in ("args.too-many-operands", "io.not-found"), r.out


# --- an operand that starts with '-' ------------------------------------------------------

def test_pattern_starting_with_dash_gets_a_double_dash_repair(tree):
    tree.write("notes.md", b"- [ ] todo\n- [x] done\n")
    r = run("seek", "- [ ]", "--root", tree.root, "notes.md")
    assert r.rules == ["args.unknown-flag"]
    e = r.errors[0]
    assert "--" in e["hint"]
    assert e["repair"]["kind"] == "retry" and "--" in e["repair"]["argv"]
    # tack.run executed the repair: it found the one open item
    again = r.retried[0]
    assert again.exit == 0
    assert [m["line"] for m in again.json if m["type"] == "match"] == [1]


@pytest.mark.parametrize("tok", ["-1", "- x", "-é", "-=x", "--=", "- "])
def test_no_letter_or_space_is_never_taken_for_a_flag(tree, tok):
    tree.write("f.txt", b"a -1 - x -\xc3\xa9 -=x\n")
    r = run("seek", "--root", tree.root, tok, "f.txt")
    assert r.rules == ["args.unknown-flag"]
    assert r.errors[0]["repair"]["kind"] == "retry"
    assert r.retried and r.retried[0].exit == 0


def test_flag_shaped_unknown_token_keeps_the_nearest_flag_repair(tree):
    r = run("seek", "--root", tree.root, "--wrod", "x")
    assert r.rules == ["args.unknown-flag"]
    assert "--word" in r.errors[0]["repair"]["argv"]


# --- worked examples ----------------------------------------------------------------------

SAMPLE = tack.REPO / "demo" / "sample"
EXAMPLES = [(t, ex["args"], ex["shows"]) for t in TOOLS for ex in tack.introspect(t)["examples"]]


@pytest.mark.parametrize("tool", TOOLS)
def test_every_tool_has_two_to_four_examples(tool):
    n = sum(1 for t, _, _ in EXAMPLES if t == tool)
    assert 2 <= n <= 4, n


def _run_example(tmp_path, command):
    import os
    import shutil
    import subprocess
    tree = tmp_path / "sample"
    shutil.copytree(SAMPLE, tree, symlinks=True)
    env = {"PATH": f"{tack.BIN}:/usr/bin:/bin", "LC_ALL": "C"}
    return subprocess.run(["bash", "-c", command], cwd=tree, env=env, capture_output=True,
                          timeout=30)


@pytest.mark.parametrize("ex", EXAMPLES, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(EXAMPLES)])
def test_example_runs_and_answers_as_it_says(tmp_path, ex):
    """Each example, run as an agent would type it on the sample tree (demo/sample), answers
    as its schema says, and as its line says: a rule it names is the error, else it succeeds."""
    tool, command, shows = ex
    words = shlex.split(command)
    assert tool in words and (words[0] == tool or words[words.index(tool) - 1] == "|"), command
    p = _run_example(tmp_path, command)
    assert p.returncode >= 0
    out = p.stdout.decode()
    if "--format text" in command:
        assert p.returncode == 0 and out, p
        return
    if tack.introspect(tool)["output"] == "document":
        docs = [json.loads(out)]
        errors = docs[0].get("errors", [])
        ok = docs[0]["ok"]
    else:
        docs = [json.loads(line) for line in out.splitlines()]
        errors = [d["error"] for d in docs if d["type"] == "error"]
        ok = docs[-1]["type"] == "end" and docs[-1]["ok"]
    for d in docs:
        tack.validate(tool, d, f" example {command!r}")
    named = [r for r in tack.CATALOGUE if r in shows]
    if named:
        assert [e["rule"] for e in errors][:1] == named[:1], out
        assert p.returncode == tack.CATALOGUE[named[0]]
    else:
        assert ok, out
        assert p.returncode == (9 if "--dry-run" in words else 0), out


@pytest.mark.parametrize("tool", TOOLS)
def test_the_arguments_offered_to_a_model_are_flags_of_the_tool(tool):
    # tack-mcp offers a model only these (the table's mcp_flags); a name no flag has would be an
    # argument that does nothing, and the runner's own flags are the server's to set.
    info = tack.introspect(tool)
    flags = {f["name"] for f in info["flags"]}
    assert info["mcp_flags"], tool
    for name in info["mcp_flags"]:
        assert name in flags, (tool, name)
        assert name not in ("root", "format", "help", "version"), (tool, name)
    assert len(info["mcp_flags"]) == len(set(info["mcp_flags"]))
