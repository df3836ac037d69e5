"""The Debian package and `make install`, checked by their consumers.

Builds the package from the build tree (TACK_BUILD, else build/) with gen/deb.py as `make deb`
does (gzip instead of xz: the same files, thirty times faster), runs lintian on it, unpacks it with dpkg-deb -x into a temporary root and, from there,
runs every tool, the launcher and tack-mcp, renders the man pages (groff, man -l), drives the
bash completion (and checks the zsh and fish ones with their shells), and validates tools.json
against schemas/index.v1.json. Every expectation is read from the tools' own introspect.
"""

import gzip
import hashlib
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess

import jsonschema
import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
BUILD = pathlib.Path(os.environ.get("TACK_BUILD") or REPO / "build").resolve()
TOOLS = sorted(p.stem for p in (REPO / "tools").glob("*.cpp"))
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": "/nonexistent"}


def sh(argv, **kw):
    kw.setdefault("env", ENV)
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, **kw)


@pytest.fixture(scope="module")
def deb(tmp_path_factory):
    out = tmp_path_factory.mktemp("deb")
    r = sh(["/usr/bin/python3", "-B", str(REPO / "gen" / "deb.py"), "--build", str(BUILD),
            "--out", str(out), "--compression", "gzip"], env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    path = pathlib.Path(r.stdout.strip())
    assert path.is_file() and path.parent == out
    return path


@pytest.fixture(scope="module")
def root(deb, tmp_path_factory):
    d = tmp_path_factory.mktemp("root")
    r = sh(["dpkg-deb", "-x", str(deb), str(d)])
    assert r.returncode == 0, r.stderr
    return d


@pytest.fixture(scope="module")
def tool_dir(root):
    return root / "usr" / "lib" / "tack" / "bin"


@pytest.fixture(scope="module")
def info(tool_dir):
    """Each unpacked tool's introspect."""
    out = {}
    for t in TOOLS:
        r = sh([str(tool_dir / t), "introspect"])
        assert r.returncode == 0, (t, r.stderr)
        out[t] = json.loads(r.stdout)
    return out


def lintian_errors(deb):
    r = sh(["lintian", "--no-cfg", str(deb)])
    return r.returncode, [ln for ln in r.stdout.splitlines() if ln.startswith("E:")]


def test_lintian_reports_no_error(deb):
    code, errors = lintian_errors(deb)
    assert errors == [] and code == 0, errors


def test_lintian_would_see_an_error(deb, tmp_path):
    """The positive control: the same package without its copyright file is an error."""
    stage = tmp_path / "stage"
    assert sh(["dpkg-deb", "-R", str(deb), str(stage)]).returncode == 0
    (stage / "usr" / "share" / "doc" / "tack" / "copyright").unlink()
    broken = tmp_path / "broken.deb"
    r = sh(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", str(stage), str(broken)])
    assert r.returncode == 0, r.stderr
    code, errors = lintian_errors(broken)
    assert code != 0 and any("no-copyright-file" in e for e in errors), errors


def test_every_binary_is_static_and_simdjson_is_named(deb, root, tool_dir):
    """No binary loads a shared library, so there is no Depends; the simdjson compiled into
    jsonq and tack-mcp is named in Static-Built-Using by its Debian source package, at the
    version of the installed libsimdjson-dev, and so is the Hyperscan linked into seek on
    amd64 (libhyperscan-dev, which the build installs there); their licences are in the
    copyright file."""
    binaries = [root / "usr" / "bin" / "tack"] + sorted(tool_dir.iterdir())
    for binary in binaries:
        r = sh(["ldd", str(binary)])
        assert "not a dynamic executable" in r.stdout + r.stderr, (binary, r.stdout)
    assert sh(["dpkg-deb", "-f", str(deb), "Depends"]).stdout.strip() == ""
    source = sh(["dpkg-query", "-W", "-f", "${source:Package} (= ${source:Version})",
                 "libsimdjson-dev"]).stdout
    assert source.startswith("simdjson (= ")
    named = [source]
    if sh(["dpkg", "--print-architecture"]).stdout.strip() == "amd64":
        hs = sh(["dpkg-query", "-W", "-f", "${source:Package} (= ${source:Version})",
                 "libhyperscan-dev"]).stdout
        assert hs.startswith("hyperscan (= ")
        named.append(hs)
    assert sh(["dpkg-deb", "-f", str(deb), "Static-Built-Using"]).stdout.strip() == ", ".join(named)
    copyright_ = (root / "usr" / "share" / "doc" / "tack" / "copyright").read_text()
    for licence in ("Apache-2.0", "Expat", "BSD-3-Clause", "BSD-3-Clause-Intel", "BSD-2-Clause",
                    "BSL-1.0"):
        assert f"\nLicense: {licence}\n" in copyright_, licence


def test_layout_shadows_nothing(root, tool_dir):
    assert sorted(os.listdir(root / "usr" / "bin")) == ["tack", "tack-mcp"]
    assert os.readlink(root / "usr" / "bin" / "tack-mcp") == "../lib/tack/bin/tack-mcp"
    assert sorted(os.listdir(tool_dir)) == sorted(TOOLS + ["tack-mcp"])


@pytest.mark.parametrize("tool", TOOLS)
def test_every_installed_tool_runs(tool, tool_dir, info):
    r = sh([str(tool_dir / tool), "--version"])
    assert r.returncode == 0 and r.stdout.split()[0] == tool, r
    assert info[tool]["tool"] == tool


def test_launcher_lists_and_runs_every_tool(root, info):
    tack = str(root / "usr" / "bin" / "tack")
    r = sh([tack])
    assert r.returncode == 0
    for t in TOOLS:
        assert f"  {t}" in r.stdout and info[t]["summary"].split(". ")[0] in r.stdout
    assert str(root / "usr" / "lib" / "tack" / "bin") in r.stdout
    for t in TOOLS:
        r = sh([tack, t, "introspect"])
        assert r.returncode == 0 and json.loads(r.stdout)["tool"] == t
    index = root / "usr" / "share" / "tack" / "tools.json"
    r = sh([tack, "jsonq", "--pointer", "/schema", str(index)])
    assert r.returncode == 0 and json.loads(r.stdout)["data"]["value"] == "index.v1", r.stdout
    r = sh([tack, "skills", "--root", str(root / "usr" / "share" / "tack"), "skills"])
    assert r.returncode == 0, r.stdout
    assert sorted(s["name"] for s in json.loads(r.stdout)["data"]["skills"]) == sorted(TOOLS + ["tack"])
    r = sh([tack, "pek"])
    assert r.returncode == 2 and "did you mean peek" in r.stderr


def test_launcher_hands_the_tool_its_own_path(root, tmp_path):
    """A retry repair names the tool's binary, not a system command of the same name."""
    tack = str(root / "usr" / "bin" / "tack")
    r = sh([tack, "peek", "--line", "1:1", str(REPO / "README.md")])
    assert r.returncode == 2
    err = json.loads(r.stdout)["error"]
    argv = err["repair"]["argv"]
    assert argv[0] == str(root / "usr" / "lib" / "tack" / "bin" / "peek")
    assert sh(argv).returncode == 0


def test_tack_mcp_serves_the_unpacked_tools(root, tmp_path):
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "test", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    stdin = "".join(json.dumps(m) + "\n" for m in msgs)
    r = subprocess.run([str(root / "usr" / "bin" / "tack-mcp"), "--root", str(tmp_path)],
                       input=stdin, capture_output=True, text=True, timeout=60, env=ENV)
    replies = {m.get("id"): m for m in map(json.loads, r.stdout.splitlines())}
    assert sorted(t["name"] for t in replies[2]["result"]["tools"]) == TOOLS, r.stderr


def test_tools_json_validates_and_names_the_installed_binaries(root, info):
    schema = json.loads((REPO / "schemas" / "index.v1.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    index = json.loads((root / "usr" / "share" / "tack" / "tools.json").read_text())
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(index)
    assert [e["name"] for e in index["tools"]] == TOOLS + ["tack-mcp"]
    for e in index["tools"]:
        assert e["path"] == f"/usr/lib/tack/bin/{e['name']}"
        data = (root / e["path"].lstrip("/")).read_bytes()
        assert hashlib.sha256(data).hexdigest() == e["sha256"], e["name"]
        if e["name"] in info:
            i = info[e["name"]]
            assert e["effects"] == i["effects"] and e["reversibility"] == i["reversibility"]
            assert e["schemas"]["output"] == i["schema"] and e["version"] == i["version"]
    mcp = index["tools"][-1]
    assert mcp["effects"]["starts_programs"] and mcp["enforcement"]["runs"] == TOOLS


def test_tools_json_schema_refuses_a_bad_index(root):
    schema = json.loads((REPO / "schemas" / "index.v1.json").read_text())
    index = json.loads((root / "usr" / "share" / "tack" / "tools.json").read_text())
    index["tools"][0]["sha256"] = "xyz"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(index, schema)


def man_pages(root):
    return sorted((root / "usr" / "share" / "man" / "man1").glob("*.1.gz"))


def test_man_pages_are_clean_roff(root):
    names = [p.name for p in man_pages(root)]
    assert names == sorted([f"tack-{t}.1.gz" for t in TOOLS] + ["tack-mcp.1.gz", "tack.1.gz"])
    for page in man_pages(root):
        r = subprocess.run(["groff", "-man", "-ww", "-z"], input=gzip.decompress(page.read_bytes()),
                           capture_output=True, timeout=60)
        assert r.returncode == 0 and r.stderr == b"", (page.name, r.stderr)
        r = sh(["man", "-l", str(page)], env=dict(ENV, MANWIDTH="80"))
        name = page.name.removesuffix(".1.gz")
        assert r.returncode == 0 and r.stdout.startswith(f"{name.upper()}(1)"), (name, r.stderr)
        assert re.search(rf"\nNAME\n +{name} +- +\S", r.stdout) and "\nSEE ALSO\n" in r.stdout, name


@pytest.mark.parametrize("tool", TOOLS)
def test_man_page_renders_every_flag_rule_and_example(tool, root, info):
    page = root / "usr" / "share" / "man" / "man1" / f"tack-{tool}.1.gz"
    r = sh(["man", "-l", str(page)], env=dict(ENV, MANWIDTH="250"))
    assert r.returncode == 0, r.stderr
    text = r.stdout
    for head in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "RULES",
                 "EXAMPLES", "SEE ALSO"):
        assert f"\n{head}\n" in text, head
    for f in info[tool]["flags"]:
        assert f"--{f['name']}" in text, f["name"]
    for rule in info[tool]["rules"]:
        assert rule["rule"] in text
    for ex in info[tool]["examples"]:
        assert ex["args"] in text


def complete_bash(root, words, cword, func="_tack", cwd=None):
    script = root / "usr" / "share" / "bash-completion" / "completions" / "tack"
    line = ("source {}; COMP_WORDS=({}); COMP_CWORD={}; {}; printf '%s\\n' \"${{COMPREPLY[@]}}\""
            .format(shlex.quote(str(script)), " ".join(shlex.quote(w) for w in words), cword, func))
    r = sh(["bash", "--norc", "-c", line], cwd=cwd)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return [w for w in r.stdout.split("\n") if w]


def test_bash_completes_a_flag_and_a_choice(root):
    assert complete_bash(root, ["tack", "peek", "--for"], 2) == ["--format"]
    assert complete_bash(root, ["tack", "list", "--kind", ""], 3) == ["file", "directory", "link"]
    assert complete_bash(root, ["tack", "list", "--kind=d"], 2) == ["--kind=directory"]
    assert complete_bash(root, ["tack", "pe"], 1) == ["peek"]
    # The tool's own binary, called by its full path.
    assert complete_bash(root, ["/usr/lib/tack/bin/seek", "--cou"], 1, "_tack_bin") == ["--count"]
    assert complete_bash(root, ["tack-mcp", "--read"], 1, "_tack_bin") == ["--read-only"]
    assert complete_bash(root, ["tack", "mcp", "--tools", "pe"], 3) == ["peek"]
    # What bash will call for each command: tack, tack-mcp, and each binary by its full path.
    specs = complete_bash(root, [], 0, "complete -p")
    assert "complete -F _tack tack" in specs and "complete -F _tack_bin tack-mcp" in specs
    for t in TOOLS:
        assert f"complete -F _tack_bin /usr/lib/tack/bin/{t}" in specs


def test_bash_completion_loads_from_where_it_is_installed(root):
    """bash-completion finds the file by the command's name in XDG_DATA_DIRS' completions."""
    r = sh(["bash", "--norc", "-c", "source /usr/share/bash-completion/bash_completion; "
            "__load_completion tack-mcp && complete -p tack tack-mcp"],
           env=dict(ENV, XDG_DATA_DIRS=str(root / "usr" / "share")))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["complete -F _tack tack", "complete -F _tack_bin tack-mcp"]


def test_bash_completes_paths_for_path_operands_and_root(root, tmp_path):
    (tmp_path / "notes.txt").write_text("x\n")
    (tmp_path / "nodir").mkdir()
    assert sorted(complete_bash(root, ["tack", "peek", "no"], 2, cwd=tmp_path)) == ["nodir", "notes.txt"]
    assert complete_bash(root, ["tack", "peek", "--root", "no"], 3, cwd=tmp_path) == ["nodir"]
    assert complete_bash(root, ["tack", "list", "no"], 2, cwd=tmp_path) == ["nodir"]


@pytest.mark.parametrize("tool", TOOLS)
def test_bash_completes_every_flag_and_choice_of(tool, root, info):
    flags = complete_bash(root, ["tack", tool, "--"], 2)
    assert sorted(flags) == sorted("--" + f["name"] for f in info[tool]["flags"])
    for f in info[tool]["flags"]:
        if f["choices"]:
            assert complete_bash(root, ["tack", tool, "--" + f["name"], ""], 3) == f["choices"]


ZSH_DRIVER = r"""
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z "compadd() { local -a h; builtin compadd -O h \"\$@\"; print -l -- \$h >> ${(q)2}; builtin compadd \"\$@\" }"
zpty -w z "$3"$'\t'
for i in {1..50}; do [[ -s $2 ]] && break; sleep 0.1; done
sleep 0.2
zpty -d z
"""


def complete_zsh(root, tmp_path, line):
    """What zsh's completion system offers for LINE<TAB>, in a pseudo-terminal (zpty): every
    compadd call the completion functions make is recorded."""
    fpath = root / "usr" / "share" / "zsh" / "vendor-completions"
    out = tmp_path / "zsh-matches"
    if out.exists():
        out.unlink()
    driver = tmp_path / "driver.zsh"
    driver.write_text(ZSH_DRIVER)
    r = sh(["zsh", "-f", str(driver), str(fpath), str(out), line], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return [w for w in out.read_text().split("\n") if w] if out.exists() else []


def test_zsh_completes_a_tool_a_flag_and_a_choice(root, tmp_path):
    assert complete_zsh(root, tmp_path, "tack pe") == ["peek"]
    assert complete_zsh(root, tmp_path, "tack peek --for") == ["--format"]
    assert complete_zsh(root, tmp_path, "tack list --kind ") == ["file", "directory", "link"]
    assert complete_zsh(root, tmp_path, "/usr/lib/tack/bin/seek --cou") == ["--count"]


def test_zsh_and_fish_completions(root):
    share = root / "usr" / "share"
    zsh_file = share / "zsh" / "vendor-completions" / "_tack"
    assert zsh_file.read_text().startswith("#compdef tack tack-mcp -p /usr/lib/tack/bin/*\n")
    r = sh(["zsh", "-n", str(zsh_file)])
    assert r.returncode == 0 and r.stderr == "", r.stderr
    fish_file = share / "fish" / "vendor_completions.d" / "tack.fish"
    r = sh(["fish", "--no-execute", str(fish_file)])
    assert r.returncode == 0 and r.stderr == "", r.stderr

    def fish_complete(line):
        r = sh(["fish", "--no-config", "-c",
                f"source {shlex.quote(str(fish_file))}; complete -C{shlex.quote(line)}"])
        assert r.returncode == 0, r.stderr
        return [ln.split("\t")[0] for ln in r.stdout.splitlines()]

    assert fish_complete("tack peek --form") == ["--format"]
    assert sorted(fish_complete("tack list --kind ")) == ["directory", "file", "link"]
    assert "peek" in fish_complete("tack pe")


def test_skills_are_each_tools_own(root, tool_dir):
    skills = root / "usr" / "share" / "tack" / "skills"
    assert sorted(os.listdir(skills)) == sorted(TOOLS + ["tack"])
    for t in TOOLS:
        assert (skills / t / "SKILL.md").read_text() == sh([str(tool_dir / t), "skill"]).stdout
    contract = sh([str(tool_dir / TOOLS[0]), "skill", "contract"]).stdout
    assert (skills / "tack" / "SKILL.md").read_text() == contract


def programs_dir_is_beneath(prefix, run, named=None):
    """`run --list` of an installed run names PREFIX/libexec/tack/programs and runs what is
    there; its introspect names it too (`named`, where the pages say it will be)."""
    programs = prefix / "libexec" / "tack" / "programs"
    r = sh([str(run), "--list"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["data"] == {"directory": str(programs), "programs": []}
    programs.mkdir(parents=True)
    try:
        hello = programs / "hello"
        hello.write_text("#!/bin/sh\necho hello from $0\n")
        hello.chmod(0o755)
        r = sh([str(run), "--list"])
        assert json.loads(r.stdout)["data"] == {"directory": str(programs), "programs": ["hello"]}
        r = sh([str(run), "--", "hello"], cwd=str(prefix))
        assert r.returncode == 0, r.stdout + r.stderr
        assert json.loads(r.stdout)["data"]["stdout"]["text"] == f"hello from {hello}\n"
    finally:
        shutil.rmtree(prefix / "libexec")
    auth = json.loads(sh([str(run), "introspect"]).stdout)["authority"]["programs"]
    assert auth.startswith(f"only those in {programs} (beneath the prefix run is installed in")


def test_unpacked_run_looks_beneath_its_own_prefix(root, tool_dir):
    programs_dir_is_beneath(root / "usr", tool_dir / "run")
    # The package's pages and index name where it will be once installed, /usr's.
    page = gzip.decompress((root / "usr" / "share" / "man" / "man1" / "tack-run.1.gz").read_bytes())
    assert b"/usr/libexec/tack/programs" in page and str(root).encode() not in page
    index = json.loads((root / "usr" / "share" / "tack" / "tools.json").read_text())
    [entry] = [e for e in index["tools"] if e["name"] == "run"]
    assert entry["enforcement"]["programs"].startswith("only those in /usr/libexec/tack/programs (")


def test_make_install_prefix_runs_programs_beneath_it(tmp_path):
    """A real PREFIX (no DESTDIR): the installed run looks beneath it, not in /usr/local."""
    prefix = tmp_path / "opt" / "x"
    r = subprocess.run(["make", "-s", "-C", str(REPO), "install", f"BUILD={BUILD}",
                        f"PREFIX={prefix}"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    programs_dir_is_beneath(prefix, prefix / "lib" / "tack" / "bin" / "run")
    r = sh([str(prefix / "bin" / "tack"), "run", "--list"])
    assert json.loads(r.stdout)["data"]["directory"] == str(prefix / "libexec" / "tack" / "programs")


def test_make_install_honours_prefix_and_destdir(tmp_path):
    dest = tmp_path / "dest"
    r = subprocess.run(["make", "-s", "-C", str(REPO), "install", f"BUILD={BUILD}",
                        "PREFIX=/opt/tack", f"DESTDIR={dest}"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    top = dest / "opt" / "tack"
    assert sorted(os.listdir(top / "bin")) == ["tack", "tack-mcp"]
    assert (top / "share" / "zsh" / "site-functions" / "_tack").is_file()
    index = json.loads((top / "share" / "tack" / "tools.json").read_text())
    assert {e["path"] for e in index["tools"]} == {f"/opt/tack/lib/tack/bin/{t}" for t in TOOLS + ["tack-mcp"]}
    r = sh([str(top / "bin" / "tack"), "peek", "--lines", "1:1", str(REPO / "README.md")])
    assert r.returncode == 0 and json.loads(r.stdout)["data"]["lines"][0]["text"] == "# tack"
    page = (top / "share" / "man" / "man1" / "tack.1").read_text()
    assert "/opt/tack/lib/tack/bin" in page and "/opt/tack/share/tack/tools.json" in page
    # Staged, run looks beneath where it stands; the pages name where it will be.
    programs_dir_is_beneath(top, top / "lib" / "tack" / "bin" / "run")
    page = (top / "share" / "man" / "man1" / "tack-run.1").read_text()
    assert "/opt/tack/libexec/tack/programs" in page and str(dest) not in page


def test_a_tree_without_its_history_is_dated_by_its_sources(tmp_path):
    """An unpacked tarball has no commit to ask: the package takes its sources' newest time
    (git archive stamps every file with its commit's), never 0 (lintian refuses 1970)."""
    tree = tmp_path / "tree"
    shutil.copytree(REPO / "gen", tree / "gen", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("CMakeLists.txt", "Makefile"):
        shutil.copy(REPO / name, tree / name)
    (tree / "src").mkdir()
    (tree / "src" / "newest.cpp").write_text("")
    for path in [tree / "CMakeLists.txt", tree / "Makefile", *tree.rglob("*")]:
        os.utime(path, (1_700_000_000, 1_700_000_000), follow_symlinks=False)
    os.utime(tree / "src" / "newest.cpp", (1_750_000_000, 1_750_000_000))
    # what the build adds is not a source: a cache, a build tree
    (tree / "gen" / "__pycache__").mkdir()
    (tree / "gen" / "__pycache__" / "x.pyc").write_text("")
    (tree / "build").mkdir()
    (tree / "build" / "later").write_text("")
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    r = sh(["/usr/bin/python3", "-B", "-c", "import dist; print(dist.source_date())"],
           cwd=tree / "gen", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "1750000000"
