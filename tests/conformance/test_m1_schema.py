"""M1 — every output validates against its schema.

The validation itself happens in tack.run for every invocation of every module; this module
checks the schemas (checked in == introspect's, valid Draft 2020-12), shows the validator can
say no, and runs a focused set of peek invocations that reach every shape of peek's data.
"""

import copy
import json

import jsonschema
import pytest

import schemas
import tack
from tack import run

TOOLS = tack.expected_tools()
METASCHEMA = "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("tool", TOOLS)
def test_binary_is_built(tool):
    assert (tack.BIN / tool).is_file(), f"tools/{tool}.cpp exists but {tack.BIN / tool} does not"


@pytest.mark.parametrize("tool", TOOLS)
def test_checked_in_schema_matches_introspect(tool):
    path = schemas.path_for(tool)
    assert path.exists(), f"{path} is missing: run `python3 tests/conformance/schemas.py --write`"
    printed = tack.introspect(tool)["output_schema"]
    checked_in = path.read_text(encoding="utf-8")
    assert json.loads(checked_in) == printed, f"{path} drifted from `{tool} introspect`"
    assert checked_in == schemas.render(printed), f"{path} is not in the --write rendering"


@pytest.mark.parametrize("tool", TOOLS)
def test_schema_is_valid_draft_2020_12(tool):
    schema = tack.introspect(tool)["output_schema"]
    assert schema.get("$schema") == METASCHEMA
    jsonschema.Draft202012Validator.check_schema(schema)
    sid = tack.introspect(tool)["schema"]
    assert sid == f"{tool}.v1"
    assert schema.get("title") == sid
    assert schema.get("$id", "").endswith(f"/{sid}.json")


@pytest.mark.parametrize("tool", TOOLS)
def test_schema_rule_enum_is_the_declared_rules(tool):
    schema = tack.introspect(tool)["output_schema"]
    enum = schema["$defs"]["error"]["properties"]["rule"]["enum"]
    assert sorted(enum) == sorted(tack.declared_rules(tool))
    codes = schema["$defs"]["error"]["properties"]["code"]["enum"]
    assert sorted(codes) == sorted({tack.EXIT_NAMES[x] for x in tack.declared_rules(tool).values()})


@pytest.mark.parametrize("tool", TOOLS)
def test_introspect_describes_the_tool(tool):
    info = tack.introspect(tool)
    tack.check_values(info, b64=False)
    for key in ("tool", "version", "summary", "usage", "output", "schema", "flags", "operands",
                "exit_codes", "rules", "limits", "confinement", "effects", "reversibility",
                "guarantees", "output_schema"):
        assert key in info, f"introspect lacks {key}"
    assert info["tool"] == tool
    assert info["output"] in ("document", "stream")
    assert info["effects"]["network"] is False
    for r in info["rules"]:
        if r["rule"] in tack.CATALOGUE:
            assert r["exit"] == tack.CATALOGUE[r["rule"]], r
        assert r["code"] == tack.EXIT_NAMES[r["exit"]], r
        assert r["repair"] in ("never", "sometimes", "always"), r
    codes = {c["code"] for c in info["exit_codes"]}
    assert {r["exit"] for r in info["rules"]} <= codes
    assert {0, 1} <= codes
    for lim in info["limits"]:
        assert isinstance(lim["ceiling"], int) and lim["ceiling"] > 0
        assert int(lim["default"]) <= lim["ceiling"]


# --- the validator can fail ---------------------------------------------------------------

def _ok_doc(tree):
    return run("peek", "--root", tree.root, "plain.txt").doc


@pytest.mark.parametrize("mutate", [
    lambda d: d.update(extra=1),
    lambda d: d["data"].update(size=1.5),
    lambda d: d["data"].pop("eof"),
    lambda d: d["data"]["lines"][0].update(text=["x"]),
    lambda d: d["data"].update(eol="cr"),
    lambda d: d.update(ok=False),  # ok:false needs error and errors
    lambda d: d["data"]["lines"][0].update(witness="h12345"),
    lambda d: d.update(error={"code": "NOT_FOUND", "rule": "io.no-such-rule", "message": "",
                              "hint": None, "repair": None, "detail": {}}),
], ids=["extra-key", "float", "missing-eof", "text-list", "bad-eol", "ok-false-no-errors",
        "bad-witness", "undeclared-rule"])
def test_validator_rejects_broken_documents(tree, mutate):
    doc = copy.deepcopy(_ok_doc(tree))
    tack.validate("peek", doc)  # the original is fine
    mutate(doc)
    with pytest.raises(tack.ContractViolation):
        tack.validate("peek", doc)


def test_output_checks_reject_contract_breaks(tree):
    good = run("peek", "--root", tree.root, "plain.txt")
    args = [b"--root", bytes(tree.root), b"plain.txt"]
    tack.check_output("peek", args, 0, good.out, b"")
    for out, err, code in [
        (good.out + good.out, b"", 0),                  # two documents
        (good.out.rstrip(b"\n"), b"", 0),               # no final newline
        (good.out, b"warning\n", 0),                    # stderr in JSON mode
        (good.out, b"", 3),                             # exit without an error
        (good.out.replace(b'"size":', b'"size":1.0,"x":'), b"", 0),
        (good.out.replace(b'"alpha"', b'"alph\\ufffd"'), b"", 0),
        (good.out.replace(b'"alpha"', b'{"b64":"YWxwaGE="}'), b"", 0),  # b64 of UTF-8
    ]:
        with pytest.raises((tack.ContractViolation, json.JSONDecodeError)):
            tack.check_output("peek", args, code, out, err)


# --- every shape of peek's data -----------------------------------------------------------

def test_shape_lines_mode(tree):
    d = run("peek", "--root", tree.root, "plain.txt").data
    assert d["mode"] == "lines" and "lines" in d and "text" not in d
    assert all(set(l) == {"n", "offset", "text"} for l in d["lines"])


def test_shape_bytes_mode(tree):
    d = run("peek", "--root", tree.root, "--bytes", "0:5", "plain.txt").data
    assert d["mode"] == "bytes" and "text" in d and "lines" not in d
    assert d["text"] == "alpha"


def test_shape_bytes_mode_b64(tree):
    d = run("peek", "--root", tree.root, "--bytes", "0:4", "latin1.txt").data
    assert d["text"] == {"b64": "Y2Fm6Q=="}


def test_shape_truncated_lines(tree):
    d = run("peek", "--root", tree.root, "--max-bytes", "6", "plain.txt").data
    assert d["truncated"] is True and d["next"] == {"line": 2} and d["eof"] is False


def test_shape_truncated_bytes(tree):
    d = run("peek", "--root", tree.root, "--bytes", "0:", "--max-bytes", "4", "plain.txt").data
    assert d["truncated"] is True and d["next"] == {"byte": 4} and d["text"] == "alph"


def test_shape_line_too_long(tree):
    r = run("peek", "--root", tree.root, "--max-line-bytes", "100", "long.txt")
    assert r.exit == 8 and r.rules == ["limit.line-too-long"]
    long = [l for l in r.lines if l["text"] is None]
    assert long == [{"n": 3, "offset": 16, "text": None, "length": 5006}]


def test_shape_witness(tree):
    d = run("peek", "--root", tree.root, "--witness", "plain.txt").data
    assert all(set(l) == {"n", "offset", "text", "witness"} for l in d["lines"])


def test_shape_count_lines(tree):
    d = run("peek", "--root", tree.root, "--count-lines", "plain.txt").data
    assert d["total_lines"] == 10


def test_shape_bytes_count_lines(tree):
    d = run("peek", "--root", tree.root, "--count-lines", "--bytes", "0:1", "nofinal.txt").data
    assert d["total_lines"] == 3


def test_shape_empty_file(tree):
    d = run("peek", "--root", tree.root, "empty.txt").data
    assert d["lines"] == [] and d["to"] is None and d["size"] == 0


def test_shape_b64_lines_and_path(tree):
    tree.write(b"\xff.txt", b"\xe9t\xe9\n")
    d = run("peek", "--root", tree.root, b"\xff.txt").data
    assert d["path"] == {"b64": "/y50eHQ="}
    assert d["lines"][0]["text"] == {"b64": "6XTp"}


def test_shape_argument_error_has_no_data(tree):
    doc = run("peek", "--bogus", "plain.txt").doc
    assert "data" not in doc and doc["ok"] is False


def test_shape_io_error_has_no_data(tree):
    doc = run("peek", "--root", tree.root, "missing.txt").doc
    assert "data" not in doc and doc["error"]["rule"] == "io.not-found"


def test_shape_several_errors(tree):
    doc = run("peek", "--max-bytes", "x", "--lines", "0", "--count-lines=1", "a").doc
    assert sorted(e["rule"] for e in doc["errors"]) == [
        "args.bad-value", "args.bad-value", "args.unexpected-value"]
    assert doc["error"] == doc["errors"][0]


def test_shape_retry_repair(tree):
    r = run("peek", "--root", tree.root, "dir/../plain.txt")
    assert r.doc["error"]["repair"]["kind"] == "retry"
    assert r.retried and r.retried[0].exit == 0


def test_shape_introspect_is_json(tree):
    r = run("peek", "introspect")
    assert r.json["tool"] == "peek"
