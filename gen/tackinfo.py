"""What the distribution generators know about the tools: only what each binary says of itself.

Every generator under gen/ (man pages, completions, tools.json, the launcher's list, the
skills) reads the tools through this module, which runs `TOOL introspect` (generated from the
tool's table) and `TOOL skill`; tack-mcp, which has no table, is read from its --version and
--help. Standard library only: it runs under Debian's /usr/bin/python3 at build time.
"""

import argparse
import json
import os
import subprocess

MCP = "tack-mcp"


def _run(argv):
    r = subprocess.run(argv, capture_output=True, text=True, check=False,
                       env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    if r.returncode != 0:
        raise SystemExit(f"{argv[0]} {' '.join(argv[1:])}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def introspect(bin_dir, name):
    return json.loads(_run([os.path.join(bin_dir, name), "introspect"]))


def skill(bin_dir, name, *topic):
    return _run([os.path.join(bin_dir, name), "skill", *topic])


def mcp(bin_dir):
    """tack-mcp as the tools.json and man generators need it: version, usage and summary."""
    path = os.path.join(bin_dir, MCP)
    version = _run([path, "--version"]).split()[-1]
    help_text = _run([path, "--help"])
    lines = help_text.splitlines()
    usage_lines, rest = [], []
    for i, line in enumerate(lines):
        if i == 0 or (line.startswith(" ") and not rest):
            usage_lines.append(line.strip())
        else:
            rest.append(line)
    usage = " ".join(usage_lines)
    if usage.startswith("usage: "):
        usage = usage[len("usage: "):]
    description = " ".join(x.strip() for x in rest if x.strip())
    return {"tool": MCP, "version": version, "usage": usage, "description": description,
            "summary": first_sentence(description)}


def first_sentence(text):
    cut = text.find(". ")
    return text if cut < 0 else text[:cut + 1]


def tools(bin_dir, names):
    return [introspect(bin_dir, n) for n in names]


def arguments(description, **extra):
    """The command line every generator takes: where the binaries are, which tools, the output."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--bin", required=True, help="the directory holding the tools' binaries")
    p.add_argument("--tools", required=True, help="the tool names, comma-separated")
    p.add_argument("--out", required=True, help="where to write")
    for flag, kw in extra.items():
        p.add_argument("--" + flag.replace("_", "-"), **kw)
    a = p.parse_args()
    a.tools = [t for t in a.tools.split(",") if t]
    return a


def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
