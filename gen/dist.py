#!/usr/bin/python3
"""Writes everything tack installs under share/, from the tools' own introspect and skill.

    dist.py --bin DIR --tools a,b,... --out SHARE [--prefix PREFIX]

With --prefix (at install), the pages, completions and tools.json name the tools where they
are installed, PREFIX/lib/tack/bin, and --bin is that directory as written (under DESTDIR),
so tools.json hashes the files that will run. Without it (at build), they name --bin itself.
Writes, under SHARE: man/man1/*.1, bash-completion/completions/tack (and tack-mcp, a link),
zsh/vendor-completions/_tack (zsh/site-functions/_tack outside /usr), fish/vendor_completions.d/
tack.fish, tack/skills/TOOL/SKILL.md and tack/skills/tack/SKILL.md, tack/tools.json.
"""

import functools
import os
import subprocess

import completions
import man
import tackinfo
import tools_json


# What the source tree is made of (what a build adds, build/ and caches, is not looked at).
SOURCES = ["CMakeLists.txt", "Makefile", "README.md", "make.sh", "demo", "gen", "launcher", "mcp",
           "schemas", "src", "tools"]


def tree_date(top):
    """The newest modification time of the tree's sources: an unpacked `git archive` has its
    commit's time on every file, a copied tree its files' own."""
    newest = 0
    for name in SOURCES:
        path = os.path.join(top, name)
        if os.path.isfile(path):
            newest = max(newest, int(os.lstat(path).st_mtime))
        for root, dirs, files in os.walk(path):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
            for f in files:
                newest = max(newest, int(os.lstat(os.path.join(root, f)).st_mtime))
    return newest


@functools.cache  # asked for by every date in the package: one answer per build
def source_date():
    """SOURCE_DATE_EPOCH, else the last commit's time, else (a tree without its history) the
    newest of its sources' times: a page's date is reproducible, and never 1970 (lintian
    refuses a package of files that old)."""
    if os.environ.get("SOURCE_DATE_EPOCH", "").isdigit():
        return int(os.environ["SOURCE_DATE_EPOCH"])
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        r = subprocess.run(["git", "-C", top, "log", "-1", "--format=%ct"], capture_output=True,
                           text=True, check=False)
        if r.returncode == 0 and r.stdout.strip().isdigit():
            return int(r.stdout.strip())
    except OSError:  # no git on this machine
        pass
    return tree_date(top)


def main():
    a = tackinfo.arguments(__doc__, prefix={"help": "the installation prefix"})
    bin_dir = os.path.abspath(a.bin)
    prefix = a.prefix.rstrip("/") if a.prefix else None
    tools_dir = f"{prefix}/lib/tack/bin" if prefix else bin_dir
    infos = tackinfo.tools(bin_dir, a.tools)
    if prefix is not None:
        # run finds its programs directory beneath the prefix it is installed in, so the staged
        # binary (under DESTDIR) names the staged one: the pages name where it will be.
        staged = os.path.dirname(os.path.dirname(os.path.dirname(bin_dir)))
        for info in infos:
            auth = info.get("authority", {})
            if staged != prefix and isinstance(auth.get("programs"), str):
                auth["programs"] = auth["programs"].replace(f"{staged}/libexec/", f"{prefix}/libexec/")
    mcp = tackinfo.mcp(bin_dir)
    out = a.out
    for name, page in man.generate(infos, mcp, tools_dir, man.date_of(source_date())).items():
        tackinfo.write(os.path.join(out, "man", "man1", name), page)
    comp = completions.generate(infos, mcp, tools_dir)
    bash_dir = os.path.join(out, "bash-completion", "completions")
    tackinfo.write(os.path.join(bash_dir, "tack"), comp["bash"])
    # bash-completion loads a command's file by its name: tack-mcp's is tack's.
    link = os.path.join(bash_dir, tackinfo.MCP)
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink("tack", link)
    zsh_dir = "vendor-completions" if prefix == "/usr" else "site-functions"
    tackinfo.write(os.path.join(out, "zsh", zsh_dir, "_tack"), comp["zsh"])
    tackinfo.write(os.path.join(out, "fish", "vendor_completions.d", "tack.fish"), comp["fish"])
    for info in infos:
        t = info["tool"]
        tackinfo.write(os.path.join(out, "tack", "skills", t, "SKILL.md"),
                       tackinfo.skill(bin_dir, t))
    tackinfo.write(os.path.join(out, "tack", "skills", "tack", "SKILL.md"),
                   tackinfo.skill(bin_dir, infos[0]["tool"], "contract"))
    tackinfo.write(os.path.join(out, "tack", "tools.json"),
                   tools_json.generate(infos, mcp, bin_dir, tools_dir))


if __name__ == "__main__":
    main()
