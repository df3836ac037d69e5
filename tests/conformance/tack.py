"""tack.py — the conformance suite's one way to run a tool and read its answer.

`run(tool, *args)` starts the built binary, parses what it wrote, and checks on every call the
parts of the contract that hold for any output of any tool (CONTRACT.md §1-3):

* JSON mode: exactly one JSON document and one newline (document tools) or NDJSON ending with
  an end record (stream tools); every document/record validates against the tool's schema
  (M1); no floats, no duplicate keys, no U+FFFD, every {"b64"} decodes to bytes that are not
  UTF-8; envelope and error keys in contract order; `ok` false exactly when errors exist;
  `error` == errors[0]; each error's `code` and the exit code come from the catalogue; stderr
  is empty.
* Text mode: errors on stderr as `TOOL: RULE: message`, exit from the first rule.
* Every `retry` repair is executed as it stands (same cwd, env, stdin, wrapper) and must
  clear its error's rule; it must not change --root (CONTRACT.md §3). Its argv[0] is the
  binary as invoked, or another tack tool in the same directory (checked against that tool's
  contract), which clears the error only by succeeding: exit 0, no error.

Everything a test sees also lands in REACHED (rules per tool) and RETRIES (retries executed),
so modules can assert on coverage.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import pathlib
import stat
import subprocess
from dataclasses import dataclass, field
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
SCHEMAS_DIR = REPO / "schemas"
BIN = pathlib.Path(os.environ.get("TACK_BIN") or (REPO / "build" / "bin")).resolve()

# The twelve tools of TOOLS.md, and undo. A tool is "expected" once its source exists in tools/; from
# then on a missing binary is a failure, not a skip.
ALL_TOOLS = ["peek", "seek", "list", "digest", "jsonq", "tally", "skills", "write", "replace",
             "edit", "move", "run", "undo"]


def expected_tools() -> list[str]:
    return [t for t in ALL_TOOLS if (REPO / "tools" / f"{t}.cpp").exists()]


# The shared catalogue, transcribed from CONTRACT.md §3 (a tool may add rows of its own).
CATALOGUE = {
    "args.unknown-flag": 2, "args.missing-value": 2, "args.bad-value": 2,
    "args.unexpected-value": 2, "args.duplicate-flag": 2, "args.conflict": 2,
    "args.missing-operand": 2, "args.required-flag": 2, "args.too-many-operands": 2,
    "path.empty": 2, "path.dotdot": 2, "path.absolute": 2, "path.outside-root": 4,
    "path.too-long": 2, "path.symlink": 4, "path.bad-name": 2, "io.not-found": 3,
    "io.not-a-directory": 3, "io.is-a-directory": 2, "io.special-file": 2,
    "io.permission-denied": 4, "io.read-failed": 1, "io.write-failed": 1,
    "io.rename-unsupported": 8, "limit.line-too-long": 8, "limit.input-too-large": 8,
    "limit.too-many-keys": 8, "limit.too-deep": 8, "limit.timeout": 8, "precondition.required": 2,
    "precondition.hash-mismatch": 5, "precondition.content-mismatch": 5,
    "precondition.count-mismatch": 5, "precondition.no-match": 8,
    "precondition.hash-failed": 8, "precondition.stale-witness": 5, "conflict.exists": 5,
    "conflict.locked": 5, "parse.json": 8, "query.bad-pointer": 2, "query.no-such-path": 3,
    "query.wrong-kind": 8, "query.unsupported-syntax": 2, "query.bad-pattern": 2,
    "query.duplicate-key": 8,  # jsonq's own row
    "parse.checksum-line": 8,  # digest --check's own row
    # run's own rows
    "limit.output-too-large": 8, "run.program-name": 2, "run.program-not-found": 3,
    "run.spawn-failed": 8,
    # the journal's rows (the writers, undo)
    "conflict.changed-since": 5, "journal.damaged": 8, "journal.no-entry": 3,
}
EXIT_NAMES = {0: "SUCCESS", 1: "GENERAL_ERROR", 2: "INVALID_ARGS", 3: "NOT_FOUND",
              4: "PERMISSION_DENIED", 5: "CONFLICT", 6: "TIMEOUT", 8: "PRECONDITION_FAILED",
              9: "DRY_RUN"}

ENVELOPE_ORDER = ["ok", "command", "schema", "dry_run", "planned_actions", "data", "error",
                  "errors", "meta"]
ERROR_ORDER = ["code", "rule", "message", "hint", "repair", "detail"]

# Observations shared by all modules.
REACHED: dict[str, set[str]] = {}
RETRIES: list[dict[str, Any]] = []

# setpriv wrapper: uid 0 without the capabilities that bypass file modes, so a mode-000 file
# owned by root really refuses open() with EACCES (the suite runs as root).
NO_DAC = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


class ContractViolation(AssertionError):
    pass


# `run` starts programs from one directory fixed when it is built: the suite drives its test
# build (build/fixture/run), whose directory holds the fixture programs; the shipped
# build/bin/run is checked apart (test_run.py).
RUN_FIXTURE = BIN.parent / "fixture" / "run"


def run_survivors(marker: str | None = None) -> list[str]:
    """Processes left by run's tests: any whose executable is the test build of run or its
    fixture program (build/support/run_program, whatever name started it), or whose command
    line holds `marker`. Zombies are not running and do not count."""
    exes = {str(RUN_FIXTURE), str(BIN.parent / "support" / "run_program")}
    out = []
    for _ in range(50):  # a process being reaped may linger a moment in /proc
        out = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    if f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                        continue
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read()
                exe = os.readlink(f"/proc/{pid}/exe")
            except OSError:
                continue
            if exe in exes or (marker and marker.encode() in cmd):
                out.append(f"{pid} {exe}: {cmd.replace(bytes(1), b' ')[:120]!r}")
        if not out:
            break
        import time
        time.sleep(0.02)
    return out


def bin_path(tool: str) -> str:
    if tool == "run":
        return str(RUN_FIXTURE)
    return str(BIN / tool)


def to_bytes(v: str | bytes | os.PathLike) -> bytes:
    if isinstance(v, bytes):
        return v
    return os.fsencode(v)


def tob(v: Any) -> bytes:
    """A text_or_bytes value as bytes."""
    if isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, dict) and set(v) == {"b64"}:
        return base64.b64decode(v["b64"], validate=True)
    raise ContractViolation(f"not a text_or_bytes value: {v!r}")


# --- JSON reading -------------------------------------------------------------------------

def _no_float(s: str):
    raise ContractViolation(f"a float in the output: {s}")


def _no_constant(s: str):
    raise ContractViolation(f"a non-JSON constant in the output: {s}")


def _pairs(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ContractViolation(f"duplicate keys in an object: {keys}")
    return dict(pairs)


def loads(b: bytes) -> Any:
    try:
        text = b.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        raise ContractViolation(f"output is not UTF-8: {e}") from None
    return json.loads(text, parse_float=_no_float, parse_constant=_no_constant,
                      object_pairs_hook=_pairs)


def _valid_utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8", errors="strict")
        return True
    except UnicodeDecodeError:
        return False


def check_values(v: Any, where: str = "$", b64: bool = True) -> None:
    """Contract rules on every value: integers only, no U+FFFD, sound b64 (off for schemas)."""
    if isinstance(v, bool) or v is None:
        return
    if isinstance(v, float):
        raise ContractViolation(f"{where}: float {v}")
    if isinstance(v, str):
        if "\ufffd" in v:
            raise ContractViolation(f"{where}: U+FFFD in a string")
        return
    if isinstance(v, list):
        for i, x in enumerate(v):
            check_values(x, f"{where}[{i}]", b64)
        return
    if isinstance(v, dict):
        if b64 and set(v) == {"b64"}:
            raw = v["b64"]
            if not isinstance(raw, str):
                raise ContractViolation(f"{where}: b64 is not a string")
            try:
                decoded = base64.b64decode(raw, validate=True)
            except Exception as e:  # binascii.Error
                raise ContractViolation(f"{where}: bad base64 {raw!r}: {e}") from None
            if base64.b64encode(decoded).decode() != raw:
                raise ContractViolation(f"{where}: base64 not in canonical padded form")
            if _valid_utf8(decoded):
                raise ContractViolation(f"{where}: b64 used for valid UTF-8 {decoded!r}")
            return
        for k, x in v.items():
            check_values(x, f"{where}.{k}", b64)


def _in_order(keys: list[str], order: list[str], what: str) -> None:
    unknown = [k for k in keys if k not in order]
    if unknown:
        raise ContractViolation(f"{what}: unexpected keys {unknown}")
    idx = [order.index(k) for k in keys]
    if idx != sorted(idx):
        raise ContractViolation(f"{what}: keys out of contract order: {keys}")


# --- introspection and schemas ------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def introspect(tool: str) -> dict:
    p = subprocess.run([bin_path(tool), "introspect"], capture_output=True, timeout=30)
    if p.returncode != 0 or p.stderr:
        raise ContractViolation(f"{tool} introspect: exit {p.returncode}, stderr {p.stderr!r}")
    return loads(p.stdout)


_WIDENING: dict[str, set[bytes]] = {}


def widening_flags(tool: str) -> set[bytes]:
    """The flags of `tool` that let a call touch more (introspect's widens): a repair never
    adds one."""
    if tool not in _WIDENING:
        _WIDENING[tool] = {b"--" + f["name"].encode() for f in introspect(tool)["flags"]
                           if f.get("widens")}
    return _WIDENING[tool]


def _flag_tokens(argv) -> set[bytes]:
    return {x.split(b"=", 1)[0] for x in argv if x.startswith(b"--")}


def declared_rules(tool: str) -> dict[str, int]:
    return {r["rule"]: r["exit"] for r in introspect(tool)["rules"]}


@functools.lru_cache(maxsize=None)
def validator(tool: str):
    import jsonschema
    import schemas  # the sibling module

    schema = schemas.load(tool)
    if schema is None:  # not checked in yet: the drift test fails; validate with the binary's
        schema = introspect(tool)["output_schema"]
    return jsonschema.Draft202012Validator(schema)


def validate(tool: str, doc: Any, where: str = "") -> None:
    errs = sorted(validator(tool).iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errs:
        e = errs[0]
        raise ContractViolation(
            f"{tool}{where}: output does not validate against {tool}'s schema at "
            f"{list(e.absolute_path)}: {e.message}")


# --- running ------------------------------------------------------------------------------

@dataclass
class Result:
    tool: str
    argv: list[bytes]
    exit: int
    out: bytes
    err: bytes
    json: Any = None              # the document, or the list of NDJSON records
    cwd: str | None = None
    env: dict | None = None
    retried: list["Result"] = field(default_factory=list)

    @property
    def doc(self) -> dict:
        assert isinstance(self.json, dict), f"no JSON document: {self.out[:200]!r}"
        return self.json

    @property
    def data(self) -> dict:
        return self.doc["data"]

    @property
    def errors(self) -> list[dict]:
        if isinstance(self.json, dict):
            return self.json.get("errors", [])
        if isinstance(self.json, list):
            return [r["error"] for r in self.json if r.get("type") == "error"]
        return []

    @property
    def rules(self) -> list[str]:
        return [e["rule"] for e in self.errors]

    @property
    def lines(self) -> list[dict]:
        return self.data["lines"]

    def texts(self) -> list[bytes]:
        return [tob(l["text"]) for l in self.lines]

    def __repr__(self) -> str:
        return (f"Result(argv={self.argv!r}, exit={self.exit}, out={self.out[:300]!r}, "
                f"err={self.err[:300]!r})")


def _format_of(args: list[bytes]) -> str | None:
    for i, a in enumerate(args):
        if a == b"--":
            return None
        if a == b"--format" and i + 1 < len(args):
            return args[i + 1].decode(errors="replace")
        if a.startswith(b"--format="):
            return a[len(b"--format="):].decode(errors="replace")
    return None


def _is_plain_text_request(tool: str, args: list[bytes]) -> bool:
    """skill, or --help / -h / --version before `--` and not taken as another flag's value
    (`peek --lines --help x` is a bad --lines, answered in JSON)."""
    if args in ([b"skill"], [b"skill", b"contract"]):
        return True
    valued = _valued_flags(tool)
    i = 0
    while i < len(args):
        a = args[i]
        if a == b"--":
            return False
        if a in (b"--help", b"-h", b"--version"):
            return True
        if a in valued:
            i += 1  # the next token is this flag's value, whatever it looks like
        i += 1
    return False


@functools.lru_cache(maxsize=None)
def _valued_flags(tool: str) -> frozenset[bytes]:
    """The spellings of the tool's flags that take a value as the next token."""
    out = set()
    for f in introspect(tool)["flags"]:
        if f["kind"] != "bool":
            out.add(b"--" + f["name"].encode())
            if f.get("short"):
                out.add(b"-" + f["short"].encode())
    return frozenset(out)


def _root_of(tool: str, argv: list[bytes]) -> list[bytes]:
    """Every --root value in an argv (before `--`), to check repairs never change it. A
    `--root` token that another flag takes as its value (`--show --root`) is no root."""
    out = []
    valued = _valued_flags(tool)
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == b"--":
            break
        if a == b"--root" and i + 1 < len(argv):
            out.append(argv[i + 1])
        elif a.startswith(b"--root="):
            out.append(a[len(b"--root="):])
        if a in valued:
            i += 1  # the next token is this flag's value, whatever it looks like
        i += 1
    return out


def check_output(tool: str, args: list[bytes], exit: int, out: bytes, err: bytes) -> Any:
    """The contract checks that hold for any invocation; returns the parsed JSON (or None)."""
    ctx = f" [{tool} {b' '.join(args)[:300]!r}]"
    if args == [b"introspect"]:
        if exit != 0 or err:
            raise ContractViolation(f"introspect failed{ctx}: {exit} {err!r}")
        return loads(out)
    if _is_plain_text_request(tool, args):
        # Help, the version and skills always succeed, on stdout alone.
        if exit != 0 or err or not out:
            raise ContractViolation(f"a plain-text request did not succeed{ctx}: exit {exit}, "
                                    f"stderr {err[:200]!r}, stdout {out[:200]!r}")
        if args[0] != b"skill" and not out.startswith(tool.encode() + b" "):
            raise ContractViolation(f"help or version does not begin with the tool's name{ctx}: "
                                    f"{out[:200]!r}")
        return None

    catalogue_exit = declared_rules(tool)
    if _format_of(args) == "text":
        if exit not in (0, 9):  # 9: a dry run that completed, not an error
            lines = err.decode("utf-8", errors="strict").splitlines()
            if not lines:
                raise ContractViolation(f"exit {exit} with an empty stderr in text mode{ctx}")
            first = lines[0]
            prefix = f"{tool}: "
            if not first.startswith(prefix):
                raise ContractViolation(f"text-mode stderr not 'TOOL: RULE: message'{ctx}: {first!r}")
            rule = first[len(prefix):].split(": ", 1)[0]
            if rule == "io.write-failed":
                if exit != 1:
                    raise ContractViolation(f"io.write-failed with exit {exit}{ctx}")
            elif rule not in catalogue_exit:
                raise ContractViolation(f"text-mode stderr names undeclared rule {rule!r}{ctx}")
            elif catalogue_exit[rule] != exit:
                raise ContractViolation(
                    f"exit {exit} but first rule {rule} has exit {catalogue_exit[rule]}{ctx}")
            for ln in lines:
                if not ln.startswith(prefix) or ": " not in ln[len(prefix):]:
                    raise ContractViolation(f"text-mode stderr line not 'TOOL: RULE: msg': {ln!r}")
        elif err:
            raise ContractViolation(f"exit 0 with stderr in text mode{ctx}: {err!r}")
        return None

    # JSON mode. The last-resort line is the only stderr ever allowed.
    if err:
        wf = f"{tool}: io.write-failed: ".encode()
        if not (err.startswith(wf) and err.count(b"\n") == 1 and err.endswith(b"\n") and exit == 1):
            raise ContractViolation(f"stderr not empty in JSON mode{ctx}: {err!r}")
        return None
    kind = introspect(tool)["output"]
    if kind == "document":
        if not out.endswith(b"\n") or out.count(b"\n") != 1:
            raise ContractViolation(f"not exactly one JSON document and one newline{ctx}: {out[:300]!r}")
        doc = loads(out)
        check_values(doc)
        validate(tool, doc, ctx)
        _in_order(list(doc), ENVELOPE_ORDER, f"envelope{ctx}")
        errors = doc.get("errors", [])
        if doc["ok"] != (len(errors) == 0):
            raise ContractViolation(f"ok={doc['ok']} with {len(errors)} errors{ctx}")
        if errors and doc.get("error") != errors[0]:
            raise ContractViolation(f"error is not errors[0]{ctx}")
        if doc.get("command") != tool:
            raise ContractViolation(f"command {doc.get('command')!r}{ctx}")
        if doc.get("meta", {}).get("version") != introspect(tool)["version"]:
            raise ContractViolation(f"meta.version differs from introspect's{ctx}")
        _check_errors(tool, errors, exit, ctx, dry_run=doc.get("dry_run") is True)
        return doc
    # Stream.
    if out and not out.endswith(b"\n"):
        raise ContractViolation(f"stream does not end with a newline{ctx}")
    records = [loads(line) for line in out.split(b"\n")[:-1]]
    if not records or records[-1].get("type") != "end":
        raise ContractViolation(f"the last line is not an end record{ctx}")
    for i, rec in enumerate(records):
        check_values(rec)
        validate(tool, rec, f"{ctx} line {i + 1}")
        if rec.get("type") == "end" and i != len(records) - 1:
            raise ContractViolation(f"an end record before the last line{ctx}")
        if rec.get("type") == "error":
            _in_order(list(rec["error"]), ERROR_ORDER, f"error record{ctx}")
    end = records[-1]
    errors = [r["error"] for r in records if r.get("type") == "error"]
    if end["ok"] != (len(errors) == 0):
        raise ContractViolation(f"end ok={end['ok']} with {len(errors)} error records{ctx}")
    if errors and end["complete"]:
        raise ContractViolation(f"complete:true after an error{ctx}")
    if end.get("truncated") and end["complete"]:
        raise ContractViolation(f"complete:true with truncated:true{ctx}")
    _check_errors(tool, errors, exit, ctx, dry_run=False)
    return records


def _check_errors(tool: str, errors: list[dict], exit: int, ctx: str, dry_run: bool) -> None:
    declared = declared_rules(tool)
    for e in errors:
        _in_order(list(e), ERROR_ORDER, f"error{ctx}")
        if list(e) != ERROR_ORDER:
            raise ContractViolation(f"error keys {list(e)} are not {ERROR_ORDER}{ctx}")
        rule = e["rule"]
        if rule not in declared:
            raise ContractViolation(f"rule {rule} is not declared by {tool} introspect{ctx}")
        if rule in CATALOGUE and CATALOGUE[rule] != declared[rule]:
            raise ContractViolation(
                f"{rule}: {tool} declares exit {declared[rule]}, the catalogue says {CATALOGUE[rule]}")
        if e["code"] != EXIT_NAMES[declared[rule]]:
            raise ContractViolation(f"{rule}: code {e['code']} but exit {declared[rule]}{ctx}")
        REACHED.setdefault(tool, set()).add(rule)
    if errors:
        want = declared[errors[0]["rule"]]
        if exit != want:
            raise ContractViolation(f"exit {exit}, first rule {errors[0]['rule']} wants {want}{ctx}")
    else:
        if exit not in ((9,) if dry_run else (0,)):
            raise ContractViolation(f"exit {exit} with no errors{ctx}")


def _spawn(argv: list[bytes], stdin, env, cwd, timeout):
    if stdin is not None and not isinstance(stdin, (bytes, bytearray)):  # an open file: as fd 0
        return subprocess.run(argv, stdin=stdin, capture_output=True, env=env, cwd=cwd,
                              timeout=timeout)
    return subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=cwd,
                          timeout=timeout, stdin=None if stdin is not None else subprocess.DEVNULL)


def _sibling_tool(argv0: bytes, invoked: str) -> str | None:
    """The tack tool a repair names when it is not the binary as invoked: another of
    ALL_TOOLS in the same directory (a repair may hand the work to a sibling tool, such as
    seek's repair that reads bytes with peek), else None."""
    head, _, name = argv0.rpartition(b"/")
    if head != os.path.dirname(to_bytes(invoked)):
        return None
    tool = name.decode(errors="replace")
    if tool not in ALL_TOOLS or to_bytes(bin_path(tool)) != argv0:
        return None
    return tool


def widened_effects(tool: str, other: str) -> list[str]:
    """The effects `other` has that `tool` has not (a repair by `other` must have none)."""
    mine, theirs = introspect(tool)["effects"], introspect(other)["effects"]
    return [k for k, v in theirs.items() if v and not mine.get(k)]


def run(tool: str, *args, stdin=None, env: dict | None = None,
        cwd: str | os.PathLike | None = None, wrap: list[str] | None = None,
        timeout: float = 60, retries: bool = True, _depth: int = 0) -> Result:
    """Runs BIN/tool with args; checks the contract; executes every retry repair."""
    argv0 = bin_path(tool)
    a = [to_bytes(x) for x in args]
    argv = [to_bytes(x) for x in (wrap or [])] + [to_bytes(argv0)] + a
    cwd_s = os.fspath(cwd) if cwd is not None else None
    p = _spawn(argv, stdin, env, cwd_s, timeout)
    if p.returncode < 0:
        raise ContractViolation(f"{tool} died by signal {-p.returncode}: {argv!r}")
    parsed = check_output(tool, a, p.returncode, p.stdout, p.stderr)
    r = Result(tool, argv, p.returncode, p.stdout, p.stderr, parsed, cwd_s, env)
    if retries and _depth < 3:
        for e in r.errors:
            rep = e.get("repair")
            if not (isinstance(rep, dict) and rep.get("kind") == "retry"):
                continue
            rargv = [tob(x) for x in rep["argv"]]
            same = rargv[0] == to_bytes(argv0)
            other = None if same else _sibling_tool(rargv[0], argv0)
            if not same and other is None:
                raise ContractViolation(
                    f"retry argv[0] {rargv[0]!r} is not the binary as invoked {argv0!r}, "
                    f"nor another tack tool beside it")
            by = other or tool
            # Handing the work to another tool must not widen it either: a tool that reads
            # nothing more than the one that failed, never a writer or a program starter.
            if other is not None:
                wider = widened_effects(tool, other)
                if wider:
                    raise ContractViolation(f"retry by {other} widens the effects {wider}: {rargv!r}")
            if _root_of(by, rargv) != _root_of(tool, a):
                raise ContractViolation(f"retry changes --root: {rargv!r} from {argv!r}")
            # Nor adds a flag that lets the call touch more, nor takes away --dry-run.
            added = (_flag_tokens(rargv[1:]) - _flag_tokens(a)) & widening_flags(by)
            if added:
                raise ContractViolation(f"retry adds {sorted(added)}: {rargv!r} from {argv!r}")
            if b"--dry-run" in _flag_tokens(a) and b"--dry-run" not in _flag_tokens(rargv[1:]):
                raise ContractViolation(f"retry drops --dry-run: {rargv!r} from {argv!r}")
            again = run(by, *rargv[1:], stdin=stdin, env=env, cwd=cwd, wrap=wrap,
                        timeout=timeout, _depth=_depth + 1)
            if e["rule"] in again.rules:
                raise ContractViolation(
                    f"retry {rargv!r} did not clear {e['rule']}: {again.out[:400]!r}")
            # Another tool clears the error by answering: it must succeed outright.
            if other is not None and (again.exit != 0 or again.errors):
                raise ContractViolation(
                    f"retry {rargv!r} by {other} did not succeed: exit {again.exit}, "
                    f"{again.out[:400]!r}")
            RETRIES.append({"tool": tool, "rule": e["rule"], "argv": rargv, "exit": again.exit,
                            "by": by})
            r.retried.append(again)
    return r


# --- the fixture tree ---------------------------------------------------------------------

SECRET = b"OUTSIDE-SECRET-c0ffee-7f3a"
LONG_LINE = b"L" * 5006

PLAIN = b"alpha\nbeta\ngamma \xce\xb4elta\n\nepsilon\nzeta\neta\ntheta\niota\nkappa\n"
CRLF = b"one\r\ntwo\r\nthree\r\n"
MIXED = b"one\r\ntwo\nthree\r\nfour\n"
NOFINAL = b"first\nsecond\nlast-without-newline"
NUL = b"abc\x00def\nsecond\x00\nthird\n"
LATIN1 = "caf\u00e9\nna\u00efve\nplain\n".encode("latin-1")
LONG = b"short 1\nshort 2\n" + LONG_LINE + b"\nshort 4\nshort 5\n"
BOM = b"\xef\xbb\xbfwith bom\nsecond\n"
DEEP = b"deep inside\n"


@dataclass
class Tree:
    root: pathlib.Path
    outside: pathlib.Path      # a sibling of the root
    evil: pathlib.Path         # a sibling named like the root with a suffix: `/rootevil`

    def p(self, name: str | bytes) -> bytes:
        return to_bytes(self.root) + b"/" + to_bytes(name)

    def write(self, name: str | bytes, content: bytes) -> bytes:
        path = self.p(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(content)
        return path

    def fifo(self, name: str = "fifo") -> bytes:
        os.mkfifo(self.p(name))
        return to_bytes(name)

    def socket(self, name: str = "sock") -> bytes:
        import socket
        s = socket.socket(socket.AF_UNIX)
        s.bind(self.p(name))
        s.close()  # the socket file stays
        return to_bytes(name)

    def link(self, name: str | bytes, target: str | bytes) -> bytes:
        os.symlink(to_bytes(target), self.p(name))
        return to_bytes(name)

    def dangling(self, name: str = "dangling") -> bytes:
        return self.link(name, "no-such-target")

    def chain(self, name: str = "chain1") -> bytes:
        """chain1 -> chain2 -> plain.txt, all inside the root."""
        self.link("chain2", "plain.txt")
        return self.link(name, "chain2")

    def loop(self, name: str = "loop1") -> bytes:
        self.link("loop2", name)
        return self.link(name, "loop2")

    def devzero(self, name: str = "zero") -> bytes:
        return self.link(name, "/dev/zero")

    def mid_link(self, name: str = "dirlink") -> bytes:
        """dirlink -> dir (inside): dirlink/sub/deep.txt runs through a link mid-path."""
        return self.link(name, "dir")

    def no_access(self, name: str = "noaccess.txt") -> bytes:
        self.write(name, b"guarded\n")
        os.chmod(self.p(name), 0)
        return to_bytes(name)

    def odd_names(self) -> dict[bytes, bytes]:
        """Names that are ordinary bytes: quotes, spaces, ~, %2e%2e, leading -, newline."""
        names = [b"it's \"quoted\".txt", b"with space.txt", b"~", b"~user", b"%2e%2e",
                 b"%2e%2e%2fx", b"-rf", b"-", b"--lines", b"new\nline.txt", b"tab\there",
                 b"introspect", b"\xff\xfe-latin.txt"]
        out = {}
        for n in names:
            content = b"content of " + n.replace(b"\n", b"\\n") + b"\n"
            self.write(n, content)
            out[n] = content
        return out


def make_tree(root: str | os.PathLike) -> Tree:
    """A fresh fixture tree at `root`, with outside targets in siblings of it."""
    root = pathlib.Path(root)
    parent = root.parent
    outside = parent / "outside"
    evil = parent / (root.name + "evil")
    for d in (root, outside / "dir", evil, root / "dir" / "sub"):
        d.mkdir(parents=True, exist_ok=True)
    (outside / "secret.txt").write_bytes(SECRET + b"\n")
    (outside / "dir" / "secret.txt").write_bytes(SECRET + b" in dir\n")
    (evil / "secret.txt").write_bytes(SECRET + b" evil\n")
    files = {
        "plain.txt": PLAIN, "crlf.txt": CRLF, "mixed.txt": MIXED, "nofinal.txt": NOFINAL,
        "nul.bin": NUL, "latin1.txt": LATIN1, "empty.txt": b"", "long.txt": LONG,
        "bom.txt": BOM, "dir/sub/deep.txt": DEEP,
    }
    for name, content in files.items():
        (root / name).write_bytes(content)
    os.symlink(outside / "secret.txt", root / "link_out_file")
    os.symlink(outside / "dir", root / "link_out_dir")
    return Tree(root, outside, evil)


def split_lines(content: bytes) -> list[bytes]:
    """Lines as peek counts them: a last line without '\\n' is a line; no '\\r' handling."""
    if not content:
        return []
    parts = content.split(b"\n")
    if parts[-1] == b"":
        parts.pop()
    return parts


def is_fifo(path: bytes) -> bool:
    return stat.S_ISFIFO(os.lstat(path).st_mode)


# --- sinks (M2) ---------------------------------------------------------------------------

SINKS = ["pipe", "file", "pty"]


def run_sink(argv: list, sink: str, env: dict | None = None, cwd=None,
             timeout: float = 30) -> tuple[int, bytes, bytes]:
    """Runs argv with stdout going into a pipe, a regular file, or a pty (raw mode, so the
    terminal changes no byte). Returns (exit, stdout, stderr)."""
    import select
    import tempfile
    import tty

    argv = [to_bytes(a) for a in argv]
    if sink == "pipe":
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, env=env,
                           cwd=cwd, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    if sink == "file":
        with tempfile.TemporaryFile() as f:
            p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.PIPE,
                               env=env, cwd=cwd, timeout=timeout)
            f.seek(0)
            return p.returncode, f.read(), p.stderr
    if sink == "pty":
        master, slave = os.openpty()
        try:
            tty.setraw(slave)
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave,
                                 stderr=subprocess.PIPE, env=env, cwd=cwd)
        finally:
            os.close(slave)
        chunks = []
        try:
            while True:
                ready, _, _ = select.select([master], [], [], timeout)
                if not ready:
                    p.kill()
                    raise ContractViolation(f"no output on the pty within {timeout}s: {argv!r}")
                try:
                    b = os.read(master, 65536)
                except OSError:  # EIO: every slave descriptor is closed
                    break
                if not b:
                    break
                chunks.append(b)
            err = p.stderr.read()
            p.wait(timeout)
        finally:
            os.close(master)
            p.stderr.close()
        return p.returncode, b"".join(chunks), err
    raise ValueError(sink)


# --- a writer that takes no lock -----------------------------------------------------------------

def race_under(path: str, positions: list[int], call, rounds: int = 4, reset=None):
    """Runs `call()` `rounds` times while another writer, ignoring tack's lock, keeps writing a
    'Z' at `positions` of whatever file is at `path` (reopened each time: it follows the name).
    `reset()` puts the original back after each round. Returns each round's result with the
    file as it was after it, the racy bytes zeroed (masked) so it can be compared."""
    import threading
    import time

    stop = threading.Event()

    def writer():
        i = 0
        while not stop.is_set():
            with open(path, "r+b") as f:
                f.seek(positions[i % len(positions)])
                f.write(b"Z")
            i += 1
            time.sleep(0.0002)

    out = []
    for _ in range(rounds):
        t = threading.Thread(target=writer)
        t.start()
        try:
            r = call()
        finally:
            stop.set()
            t.join()
            stop.clear()
        with open(path, "rb") as f:
            out.append((r, masked(f.read(), positions)))
        if reset:
            reset()
    return out


def masked(b: bytes, positions: list[int]) -> bytes:
    """`b` with the bytes at `positions` zeroed: what a racing writer may have touched."""
    b = bytearray(b)
    for pos in positions:
        if pos < len(b):
            b[pos] = 0
    return bytes(b)
