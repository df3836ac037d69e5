#!/usr/bin/python3
"""schemas.py — the checked-in JSON Schemas of the tools' outputs (schemas/SCHEMA_ID.json).

    TACK_BIN=build/bin python3 tests/conformance/schemas.py --write

regenerates schemas/<tool>.v1.json for every built tool from `TOOL introspect`
(its `output_schema` member), as json.dumps(indent=2, sort_keys=False) + "\\n". The tests in
test_m1_schema.py fail when a checked-in schema differs from what introspect prints.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
SCHEMAS_DIR = REPO / "schemas"
BIN = pathlib.Path(os.environ.get("TACK_BIN") or (REPO / "build" / "bin")).resolve()
ALL_TOOLS = ["peek", "seek", "list", "digest", "jsonq", "tally", "skills", "write", "replace",
             "edit", "move", "run", "undo"]


def introspect(tool: str) -> dict:
    p = subprocess.run([str(BIN / tool), "introspect"], capture_output=True, check=True,
                       timeout=30)
    return json.loads(p.stdout)


def schema_id(tool: str) -> str:
    """peek -> peek.v1 (from introspect's `schema`; the file name follows it)."""
    return introspect(tool)["schema"]


def path_for(tool: str) -> pathlib.Path:
    return SCHEMAS_DIR / f"{tool}.v1.json"


def render(schema: dict) -> str:
    return json.dumps(schema, indent=2, sort_keys=False) + "\n"


def load(tool: str) -> dict | None:
    p = path_for(tool)
    if not p.exists():
        return None
    return json.loads(p.read_text(encoding="utf-8"))


def built_tools() -> list[str]:
    return [t for t in ALL_TOOLS if (BIN / t).exists()]


def write_all() -> list[pathlib.Path]:
    SCHEMAS_DIR.mkdir(exist_ok=True)
    written = []
    for tool in built_tools():
        info = introspect(tool)
        if info["schema"] != f"{tool}.v1":
            raise SystemExit(f"{tool}: schema id {info['schema']!r} is not {tool}.v1")
        p = path_for(tool)
        p.write_text(render(info["output_schema"]), encoding="utf-8")
        written.append(p)
    return written


def main(argv: list[str]) -> int:
    if argv[1:] == ["--write"]:
        for p in write_all():
            print(p.relative_to(REPO))
        return 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
