"""The folders under src/ are layers, and an include only ever points down (ENGINEERING.md).

From the bottom: mem (memory for large buffers, nothing of tack's), contract (tables, parser,
JSON, envelope), text (pure functions), os (Linux effects), writer (what the tools that change
files share), runner (contract::main: opens the
root, installs the sandbox, decides the exit code); tools/ and mcp/ stand on top. A folder may
include its own headers and those of the layers below it, never one above: nothing in
contract/ or text/ reaches into os/ or the runner. A new folder under src/ fails here until it
is given its place in LAYERS.
"""

import re

import tack

# Bottom first; each folder may include itself and what comes before it.
LAYERS = ["mem", "contract", "text", "os", "writer", "runner"]

INCLUDE = re.compile(rb'^\s*#\s*include\s*"([^"]+)"', re.M)


def upward_includes(folder: str, text: bytes) -> list[str]:
    """The quoted includes in `text` (a file in src/FOLDER) that name a layer above FOLDER, or
    a folder that is no layer at all."""
    allowed = set(LAYERS[: LAYERS.index(folder) + 1])
    bad = []
    for m in INCLUDE.finditer(text):
        target = m.group(1).decode()
        top = target.split("/", 1)[0] if "/" in target else None
        if top is None or top not in allowed:
            bad.append(target)
    return bad


def sources():
    src = tack.REPO / "src"
    return sorted(p for p in src.rglob("*") if p.is_file() and p.suffix in (".h", ".cpp", ".inc"))


def test_every_folder_under_src_is_a_layer():
    folders = sorted(p.name for p in (tack.REPO / "src").iterdir() if p.is_dir())
    assert folders == sorted(LAYERS), f"give each folder under src/ its place in LAYERS: {folders}"
    for layer in LAYERS:
        assert any(p.parent.name == layer for p in sources()), f"src/{layer} has no sources"


def test_no_include_points_up():
    src = tack.REPO / "src"
    found = []
    for path in sources():
        rel = path.relative_to(src)
        for target in upward_includes(rel.parts[0], path.read_bytes()):
            found.append(f"src/{rel} includes {target}")
    assert not found, "includes that point up a layer:\n" + "\n".join(found)


def test_the_check_sees_an_upward_include():
    # The check itself: what it must refuse, and what it must let through.
    assert upward_includes("text", b'#include "os/open.h"\n') == ["os/open.h"]
    assert upward_includes("contract", b'  #  include "runner/main.h"\n') == ["runner/main.h"]
    assert upward_includes("mem", b'#include "contract/json.h"\n') == ["contract/json.h"]
    assert upward_includes("os", b'#include "local.h"\n') == ["local.h"]
    assert upward_includes("os", b'#include <os/x.h>\n#include "text/eol.h"\n#include "mem/big_alloc.h"\n') == []
    assert upward_includes("runner", b'#include "os/sandbox.h"\n#include "runner/main.h"\n') == []
