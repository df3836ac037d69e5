#!/usr/bin/python3
"""Writes tools.json, the index of the installed tools, from their introspect and binaries.

One entry per tool and one for tack-mcp: name, version, the binary's path and SHA-256, its
effects and how they are enforced, its output schema, its reversibility. The hash is of the
file as installed (after any stripping), so --bin names the binaries that will be run and
--tools-dir the path they are run from. The index's own schema is schemas/index.v1.json.
"""

import hashlib
import json
import os

import tackinfo

SCHEMA = "index.v1"
# Mechanism keys of introspect's authority (which hold is this machine's, not the index's).
MECHANISMS = {"landlock_abi": "landlock", "seccomp": "seccomp", "no_new_privs": "no_new_privs"}
REVERSIBILITY = ["reversible-cheap", "irreversible-bounded", "irreversible-consequential"]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def tool_entry(info, bin_dir, tools_dir):
    a = info["authority"]
    schema = info["output_schema"]
    return {
        "name": info["tool"],
        "version": info["version"],
        "summary": info["summary"],
        "path": os.path.join(tools_dir, info["tool"]),
        "sha256": sha256(os.path.join(bin_dir, info["tool"])),
        "effects": info["effects"],
        "enforcement": {
            "by": "self",
            "files": a["files"],
            "programs": a["programs"],
            "network": a["network"],
            "mechanisms": [MECHANISMS.get(m, m) for m in a["mechanisms"]],
            "without_mechanism": a["without_mechanism"],
        },
        "output": info["output"],
        "schemas": {"output": info["schema"], "output_id": schema["$id"]},
        "reversibility": info["reversibility"],
        "guarantees": info["guarantees"],
    }


def mcp_entry(mcp, entries, bin_dir, tools_dir):
    """tack-mcp has no table: what it may do is what the tools it runs may do, plus running
    them and reading its client's messages; it holds itself to a supervisor's row (as run's),
    and each call keeps that tool's own enforcement."""
    effects = {k: any(e["effects"][k] for e in entries) for k in entries[0]["effects"]}
    effects["reads_stdin"] = True
    effects["starts_programs"] = True
    worst = max((e["reversibility"] for e in entries),
                key=lambda r: REVERSIBILITY.index(r) if r in REVERSIBILITY else len(REVERSIBILITY))
    return {
        "name": tackinfo.MCP,
        "version": mcp["version"],
        "summary": mcp["summary"],
        "path": os.path.join(tools_dir, tackinfo.MCP),
        "sha256": sha256(os.path.join(bin_dir, tackinfo.MCP)),
        "effects": effects,
        "enforcement": {
            "by": "tools",
            "runs": [e["name"] for e in entries],
            "mechanisms": ["landlock", "seccomp", "no_new_privs"],
            "calls": "the server itself runs under run's supervisor row (read and execute "
                     "anywhere, write beneath --root, /tmp and its cgroup, no internet socket); "
                     "each call runs one tool's own binary from the same directory, beneath "
                     "--root, under that tool's enforcement as well",
        },
        "output": "mcp",
        "schemas": {"output": None, "serves": [e["schemas"]["output"] for e in entries]},
        "reversibility": worst,
        "guarantees": [],
    }


def generate(infos, mcp, bin_dir, tools_dir):
    entries = [tool_entry(i, bin_dir, tools_dir) for i in infos]
    entries.append(mcp_entry(mcp, entries, bin_dir, tools_dir))
    doc = {"schema": SCHEMA, "version": infos[0]["version"], "tools": entries}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def main():
    a = tackinfo.arguments(__doc__, tools_dir={"help": "where the tools are run from"})
    text = generate(tackinfo.tools(a.bin, a.tools), tackinfo.mcp(a.bin), a.bin,
                    a.tools_dir or os.path.abspath(a.bin))
    tackinfo.write(a.out, text)


if __name__ == "__main__":
    main()
