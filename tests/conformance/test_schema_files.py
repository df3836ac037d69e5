"""Each tool's output schema is kept as JSON beside it: tools/TOOL.schema.json, with pieces shared
by several tools in src/*/*.schema.json. The build embeds them (gen/embed_schema.cpp); these
tests hold each file to strict JSON and its expansion to what the tool's introspect prints."""
import json
import pathlib

import pytest

import tack

TOOLS = tack.expected_tools()
SOURCES = sorted((tack.REPO / "tools").glob("*.schema.json")) + sorted(
    (tack.REPO / "src").glob("*/*.schema.json"))
# The end record's fields every stream has (`cut` lists the flags of the tool's table that can
# cut its answer); a tool's schema file names only its own.
END_FIELDS = ["type", "ok", "command", "schema", "complete", "truncated", "next", "cut"]


def _strict(pairs):
    keys = [k for k, _ in pairs]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    assert not dup, f"duplicate keys {dup}"
    return dict(pairs)


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def load(path: pathlib.Path):
    return json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_strict,
                      parse_constant=_reject_constant)


def expand(value, path: pathlib.Path, depth=0):
    """The file's value as embed_schema writes it: "#/defs/…" and other files' refs inlined,
    and beside other members a ref's object members first, then those."""
    assert depth < 32, f"{path}: $ref nested too deep"
    if isinstance(value, dict) and isinstance(value.get("$ref"), str):
        ref = value["$ref"]
        if ref.startswith("#/defs/") or not ref.startswith("#"):
            file, _, pointer = ref.partition("#")
            target_path = (path.parent / file).resolve() if file else path
            target = load(target_path)
            for token in filter(None, pointer.split("/")):
                target = target[int(token)] if isinstance(target, list) else target[token]
            target = expand(target, target_path, depth + 1)
            if len(value) == 1:
                return target
            rest = {k: expand(v, path, depth) for k, v in value.items() if k != "$ref"}
            assert isinstance(target, dict) and not set(rest) & set(target), f"{path}: {ref}"
            return {**target, **rest}
    if isinstance(value, dict):
        return {k: expand(v, path, depth) for k, v in value.items()}
    if isinstance(value, list):
        return [expand(v, path, depth) for v in value]
    return value


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(tack.REPO)))
def test_schema_file_is_strict_json(path):
    load(path)


def test_strict_json_is_checked(tmp_path):
    bad = tmp_path / "bad.schema.json"
    for text in ['{"data": {}, "data": {}}', '{"data": NaN}', '{"data": {}', '{"data": {}} x']:
        bad.write_text(text)
        with pytest.raises((AssertionError, ValueError)):
            load(bad)


@pytest.mark.parametrize("tool", TOOLS)
def test_schema_file_is_what_introspect_prints(tool):
    path = tack.REPO / "tools" / f"{tool}.schema.json"
    assert path.exists(), f"{path} is missing"
    doc = load(path)
    schema = tack.introspect(tool)["output_schema"]
    if "oneOf" in schema:  # a stream: its records, then the error and the end record
        assert set(doc) <= {"records", "end", "defs"} and "records" in doc, sorted(doc)
        assert expand(doc["records"], path) == schema["oneOf"][:-2]
        end = schema["oneOf"][-1]["properties"]
        own = {k: v for k, v in end.items() if k not in END_FIELDS}
        assert list(end)[:len(END_FIELDS)] == END_FIELDS
        assert expand(doc.get("end", {}), path) == own
    else:
        assert set(doc) <= {"data", "defs"} and "data" in doc, sorted(doc)
        assert expand(doc["data"], path) == schema["properties"]["data"]
