"""jsonq — one RFC 6901 pointer into one JSON document, gate by gate.

M5 differential against jq 1.6 on random documents (escapes, raw Unicode, big and negative
numbers, 1e400, empty keys, keys with / and ~, random whitespace): values byte for byte against
the document's own compact text and semantically against `jq -c getpath(P)` (numbers compared
as jq holds them, doubles clamped to the largest finite one), --keys against keys_unsorted,
--length against length, --type against type; misses against a Python model of the document
(the longest prefix that resolved, the first token that did not); every answer's offset and
line against where the node's own text starts. Documents with repeated keys against a model
that follows the first copy: query.duplicate-key exactly where the path is ambiguous, naming
the shallowest repeat, and jq's answer everywhere else. The validity verdict against
Python's strict json module on mutated documents, with the error offset never before the
mutated byte and a truncated document always ending "unexpected-end" exactly at its end. M3:
every declared rule reached, every retry executed (tack.run) and clearing its rule. And the
hostile cases: a terminal, a non-blocking pipe, a write-only or directory stdin, 100,000
levels of nesting, the --max-bytes edge through files and pipes.

data.value is the document's own text, so it may hold floats, duplicate keys and U+FFFD, which
tack's own fields never do: answers that carry such a value go through run_value, which cuts
the value out of the output and hands the rest to tack.check_output unchanged.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import threading
import time

import pytest

import tack
from tack import run

J = "jsonq"
MiB = 1024 * 1024
DOC = (b'{"a": [1, 2.5, {"b": "x\\/y", "c": null}],\n "t": true, "big": 12345678901234567890123,'
       b' "e": 1e400, "k~/": {"": 0}, "s": "caf\\u00e9 \xe2\x82\xac", "n": -0, "o": {}}\n')


@pytest.fixture
def jtree(tree):
    tree.write("d.json", DOC)
    tree.write("dup.json", b'{"a": 1, "b": [], "a": 2, "a": {"x": 1}}')
    tree.write("slash.json", b'{"k/x": {"y": true}}')
    tree.write("broken.json", b'{\n  "a": [1,\n   2,,\n]}')
    tree.write("scalar.json", b'  "just a string"  \n')
    tree.write("empty.json", b"")
    return tree


def data(r):
    assert r.exit == 0, r
    return r.data


def run_value(*args, stdin: bytes | None = None, cwd=None, wrap=None):
    """jsonq with an answer whose data.value is checked apart: the value's bytes are cut out
    of the envelope (the first `,"value":` after the pointer string, which escapes every quote,
    up to the envelope's `},"meta":`), the rest goes through tack.check_output as it stands.
    Returns (the parsed envelope with value None, the value's bytes)."""
    argv = [tack.to_bytes(x) for x in (wrap or [])] + [tack.bin_path(J).encode()]
    argv += [tack.to_bytes(a) for a in args]
    p = subprocess.run(argv, input=stdin, capture_output=True, cwd=cwd, timeout=60,
                       stdin=None if stdin is not None else subprocess.DEVNULL)
    assert p.returncode == 0, (p.returncode, p.stdout[:400], p.stderr[:400])
    head, tail = b',"value":', b'},"meta":{"version":'
    i, j = p.stdout.find(head), p.stdout.rfind(tail)
    assert 0 < i < j, p.stdout[:400]
    value = p.stdout[i + len(head):j]
    masked = p.stdout[:i] + b',"value":null' + p.stdout[j:]
    doc = tack.check_output(J, [tack.to_bytes(a) for a in args], p.returncode, masked, p.stderr)
    return doc, value


def place(text: bytes, offset: int) -> dict:
    """Where a byte is, as jsonq says it: offset, 1-based line (lines end at \\n), byte column."""
    start = text.rfind(b"\n", 0, offset) + 1
    return {"offset": offset, "line": text.count(b"\n", 0, offset) + 1,
            "column": offset - start + 1}


def located(d: dict) -> dict:
    return {k: d[k] for k in ("offset", "line", "column")}


def pointer(tokens) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


# --- a document generator that knows every node's own text -----------------------------------

STRING_PARTS = [  # (as written in JSON, what it stands for)
    ('a', 'a'), ('Zz', 'Zz'), (' ', ' '), ('\\"', '"'), ('\\\\', '\\'), ('\\/', '/'),
    ('\\b', '\b'), ('\\f', '\f'), ('\\n', '\n'), ('\\r', '\r'), ('\\t', '\t'),
    ('\\u00e9', '\u00e9'), ('\\u00E9', '\u00e9'), ('\\ud83d\\ude00', '\U0001f600'),
    ('\u00e9', '\u00e9'), ('\U0001f600', '\U0001f600'), ('\u4e2d', '\u4e2d'), ('~', '~'),
    ('/', '/'), ('~1', '~1'), ('\\u0000', '\x00'), ('\\u001f', '\x1f'),
]
NUMBERS = ["0", "-0", "7", "-42", "9007199254740993", "18446744073709551616",
           "-12345678901234567890123", "1.5", "-0.001", "1e10", "1E-7", "2.5e+3", "1e400",
           "-1e400", "1e-400", "0.1", "123.456e-2"]
SPACES = ["", "", "", " ", "\n", "\t", "  ", "\r\n "]


class Node:
    def __init__(self, kind, compact, text, py=None, children=None):
        self.kind, self.compact, self.text, self.py = kind, compact, text, py
        self.children = children or []  # [(key or index, Node)]


def gen_string(rng, keyish=False):
    n = rng.choice([0, 1, 1, 2, 3, 5]) if not keyish else rng.choice([0, 1, 1, 2])
    parts = [rng.choice(STRING_PARTS) for _ in range(n)]
    raw = '"' + "".join(p[0] for p in parts) + '"'
    return raw, "".join(p[1] for p in parts)


def gen(rng, depth=0, dups=False) -> Node:
    ws = lambda: rng.choice(SPACES)  # noqa: E731
    pick = rng.randrange(7 if depth < 5 else 4)
    if pick == 0:
        t = rng.choice(NUMBERS)
        kind = "integer" if not any(c in t for c in ".eE") else "float"
        return Node(kind, t, t)
    if pick == 1:
        raw, s = gen_string(rng)
        return Node("string", raw, raw, s)
    if pick == 2:
        t = rng.choice(["true", "false", "null"])
        return Node("null" if t == "null" else "boolean", t, t)
    if pick in (3, 4):
        kids = [gen(rng, depth + 1, dups) for _ in range(rng.randrange(5))]
        compact = "[" + ",".join(k.compact for k in kids) + "]"
        text = "[" + ",".join(ws() + k.text + ws() for k in kids) + ws() + "]"
        return Node("array", compact, text, children=list(enumerate(kids)))
    keys, seen = [], set()
    for _ in range(rng.randrange(5)):
        raw, s = rng.choice([gen_string(rng, True), ('""', ""), ('"a/b"', "a/b"),
                             ('"~"', "~"), ('"~1"', "~1"), ('"-"', "-"), ('"0"', "0")])
        if dups or s not in seen:  # repeated keys have their own test: jsonq refuses them
            seen.add(s)
            keys.append((raw, s))
    kids = [(k, gen(rng, depth + 1, dups)) for k in keys]
    compact = "{" + ",".join(raw + ":" + n.compact for (raw, _), n in kids) + "}"
    text = "{" + ",".join(ws() + raw + ws() + ":" + ws() + n.text + ws()
                          for (raw, _), n in kids) + ws() + "}"
    return Node("object", compact, text, children=[(s, n) for (_, s), n in kids])


def walk(node, path=()):
    yield path, node
    for k, child in node.children:
        yield from walk(child, path + (k,))


BIG = 1.7976931348623157e308


def semantic(v):
    """A value as jq 1.6 holds it: every number a double, +-inf clamped to the largest finite
    one (jq parses 1e400 with strtod and prints DBL_MAX)."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        f = float(v)
        return math.copysign(BIG, f) if math.isinf(f) else f
    if isinstance(v, list):
        return [semantic(x) for x in v]
    return {k: semantic(x) for k, x in v.items()}


def jq_answers(text: bytes, paths):
    """For each path: [getpath, type, keys_unsorted or null, length or null], from one jq run."""
    prog = ('$ps[] as $p | getpath($p) as $v | [$v, ($v|type), '
            '(if ($v|type) == "object" then ($v|keys_unsorted) else null end), '
            '(if ($v|type) == "object" or ($v|type) == "array" then ($v|length) else null end)]')
    ps = json.dumps([list(x) for x in paths])
    p = subprocess.run(["/usr/bin/jq", "-c", "--argjson", "ps", ps, prog],
                       input=text, capture_output=True, timeout=60, env={"LC_ALL": "C"})
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in p.stdout.decode().splitlines()]


def miss_model(root: Node, tokens):
    """(resolved token count, kind there) for a pointer that names nothing, else None."""
    node = root
    for i, t in enumerate(tokens):
        if node.kind == "object":
            nxt = [n for k, n in node.children if k == t]
        elif node.kind == "array":
            ok = t == "0" or (t.isdigit() and not t.startswith("0") and t.isascii())
            nxt = [node.children[int(t)][1]] if ok and int(t) < len(node.children) else []
        else:
            nxt = []
        if not nxt:
            return i, node.kind
        node = nxt[0]
    return None


def path_model(root: Node, tokens):
    """What jsonq answers for a pointer, following an object's first copy of a key:
    ("repeated", tokens resolved, key, copies) at the shallowest key the path repeats, else
    ("miss", tokens resolved) or ("ok", node)."""
    node = root
    for i, t in enumerate(tokens):
        if node.kind == "object":
            nxt = [n for k, n in node.children if k == t]
            if len(nxt) > 1:
                return ("repeated", i, t, len(nxt))
        elif node.kind == "array":
            ok = t == "0" or (t.isdigit() and not t.startswith("0") and t.isascii())
            nxt = [node.children[int(t)][1]] if ok and int(t) < len(node.children) else []
        else:
            nxt = []
        if not nxt:
            return ("miss", i)
        node = nxt[0]
    return ("ok", node)


@pytest.mark.parametrize("seed", range(6))
def test_m5_repeated_keys_are_refused_exactly_where_the_path_is_ambiguous(tmp_path, seed):
    """Documents with repeated keys: a pointer through one is query.duplicate-key naming the
    shallowest, with every copy's offset; any other pointer answers, and agrees with jq."""
    rng = random.Random(seed * 104729 + 3)
    root = gen(rng, dups=True)
    while root.kind != "object":
        root = gen(rng, dups=True)
    text = root.text.encode()
    f = tmp_path / "dups.json"
    f.write_bytes(text)
    nodes = list(walk(root))
    chosen = rng.sample(nodes, min(16, len(nodes)))
    oks = []
    for path, _ in chosen:
        tokens = [str(t) for t in path]
        if "\x00" in pointer(tokens):  # no argv holds a NUL
            continue
        model = path_model(root, tokens)
        r = run(J, "--type", "--pointer", pointer(tokens), f)
        if model[0] == "repeated":
            _, i, key, count = model
            assert r.rules == ["query.duplicate-key"], (pointer(tokens), r)
            d = r.doc["error"]["detail"]
            assert (d["resolved"], tack.tob(d["key"]), d["count"]) == (
                pointer(tokens[:i]), key.encode(), count)
            for c in d["copies"]:
                assert text[c["offset"]] == ord('"') and c["line"] == place(text, c["offset"])["line"]
        else:
            assert model[0] == "ok" and r.exit == 0, (pointer(tokens), model, r)
            assert r.data["kind"] == model[1].kind
            assert text[r.data["offset"]:].startswith(model[1].text.encode())
            oks.append((path, model[1]))
    for (path, node), (jv, *_rest) in zip(oks, jq_answers(text, [p for p, _ in oks])):
        raw = run_value("--pointer", pointer(path), f)[1]
        assert semantic(json.loads(raw)) == semantic(jv), (pointer(path), raw, jv)


@pytest.mark.parametrize("seed", range(12))
def test_m5_differential_against_jq(tmp_path, seed):
    rng = random.Random(seed * 7919 + 1)
    root = gen(rng)
    while root.kind not in ("object", "array"):
        root = gen(rng)
    text = (rng.choice(SPACES) + root.text + rng.choice(SPACES)).encode()
    f = tmp_path / "doc.json"
    f.write_bytes(text)
    nodes = list(walk(root))
    chosen = [nodes[0]] + rng.sample(nodes, min(12, len(nodes)))
    answers = jq_answers(text, [p for p, _ in chosen])
    for (path, node), (jv, jtype, jkeys, jlen) in zip(chosen, answers):
        ptr = pointer(path)
        # The value: byte for byte the document's own compact text, and what jq reads there.
        doc, raw = run_value("--pointer", ptr, f)
        assert doc["data"]["kind"] == node.kind
        # Where it starts: the node's own text, as written, begins at the offset.
        off = doc["data"]["offset"]
        assert text[off:].startswith(node.text.encode()), (ptr, off, node.text)
        assert located(doc["data"]) == place(text, off)
        assert raw == node.compact.encode(), (ptr, raw, node.compact)
        assert semantic(json.loads(raw)) == semantic(jv), (ptr, raw, jv)
        want_type = "number" if node.kind in ("integer", "float") else node.kind
        assert jtype == want_type
        typed = data(run(J, "--type", "--pointer", ptr, f))
        assert typed["kind"] == node.kind and located(typed) == located(doc["data"])
        assert data(run(J, "--exists", "--pointer", ptr, f))["exists"] is True
        if node.kind == "object":
            assert data(run(J, "--keys", "--pointer", ptr, f))["keys"] == jkeys
        if node.kind in ("object", "array"):
            assert data(run(J, "--length", "--pointer", ptr, f))["length"] == jlen
        # Through a pipe, the same bytes.
        assert run_value("--pointer", ptr, stdin=text)[1] == raw
    # Misses: a token appended to a real path, or changed; the model says where it stops.
    for _ in range(6):
        path, node = rng.choice(nodes)
        tokens = [str(t) for t in path] + [rng.choice(["zz", "0", "7", "", "~", "a/b", "01"])]
        m = miss_model(root, tokens)
        if m is None:
            continue
        i, kind_there = m
        r = run(J, "--pointer", pointer(tokens), f)
        assert r.rules == ["query.no-such-path"], r
        d = r.doc["error"]["detail"]
        assert d["resolved"] == pointer(tokens[:i]) and d["missing"] == tokens[i]
        assert d["kind"] == kind_there
        assert data(run(J, "--exists", "--pointer", pointer(tokens), f)) == {
            "pointer": pointer(tokens), "kind": None, "exists": False}


# --- values as written ------------------------------------------------------------------------

@pytest.mark.parametrize("ptr,kind,raw", [
    ("", "object", None),
    ("/a", "array", b'[1,2.5,{"b":"x\\/y","c":null}]'),
    ("/a/1", "float", b"2.5"),
    ("/a/2/b", "string", b'"x\\/y"'),
    ("/big", "integer", b"12345678901234567890123"),
    ("/e", "float", b"1e400"),
    ("/k~0~1/", "integer", b"0"),
    ("/s", "string", b'"caf\\u00e9 \xe2\x82\xac"'),
    ("/n", "integer", b"-0"),
    ("/o", "object", b"{}"),
    ("/a/2/c", "null", b"null"),
])
def test_values_are_returned_as_the_document_wrote_them(jtree, ptr, kind, raw):
    doc, got = run_value("--root", jtree.root, "--pointer", ptr, "d.json")
    d = doc["data"]
    assert d == {"pointer": ptr, "kind": kind, **place(DOC, d["offset"]), "value": None}
    if raw is not None:
        assert got == raw
        assert DOC[d["offset"]:].startswith(raw if kind not in ("array", "object") else raw[:1])
        if kind == "array":
            assert d["offset"] == DOC.index(b"[1, 2.5")
    else:  # the whole document, whitespace outside strings removed and nothing else changed
        assert got == (b'{"a":[1,2.5,{"b":"x\\/y","c":null}],"t":true,'
                       b'"big":12345678901234567890123,"e":1e400,"k~/":{"":0},'
                       b'"s":"caf\\u00e9 \xe2\x82\xac","n":-0,"o":{}}')


def test_string_whitespace_and_replacement_characters_survive_byte_for_byte(tmp_path):
    inner = b'"  a \\t b\xef\xbf\xbd\\ufffd  "'  # spaces inside a string, U+FFFD written both ways
    f = tmp_path / "s.json"
    f.write_bytes(b'{ "k" :\n [ ' + inner + b' , 1 ] }')
    assert run_value("--pointer", "/k", f)[1] == b"[" + inner + b",1]"
    assert run_value("--pointer", "/k/0", f)[1] == inner


# --- repeated keys: a path through one is refused, whichever copy other parsers take -----------

def dup_error(r, key, resolved, count):
    assert r.rules == ["query.duplicate-key"] and r.exit == 8, r
    e = r.doc["error"]
    d = e["detail"]
    assert (tack.tob(d["key"]), d["resolved"], d["count"]) == (key, resolved, count), d
    assert e["repair"]["kind"] == "none" and "last" in e["hint"]
    assert "data" not in r.doc
    return d


@pytest.mark.parametrize("flag", [[], ["--exists"], ["--type"], ["--keys"], ["--length"]])
def test_a_key_repeated_at_the_root_is_refused_with_every_copy(jtree, flag):
    text = jtree.p("dup.json")
    doc = open(text, "rb").read()
    r = run(J, "--root", jtree.root, *flag, "--pointer", "/a", "dup.json")
    d = dup_error(r, b"a", "", 3)
    assert [c["offset"] for c in d["copies"]] == [1, 18, 26]
    assert all(doc[c["offset"]:c["offset"] + 3] == b'"a"' for c in d["copies"])
    assert all(c["line"] == 1 for c in d["copies"])
    # Through it, whatever the first copy holds (a number has no /x: still the repeat first).
    r = run(J, "--root", jtree.root, *flag, "--pointer", "/a/x", "dup.json")
    dup_error(r, b"a", "", 3)


def test_a_repeat_off_the_path_still_answers_and_the_object_reads_as_written(jtree):
    r = lambda *a: run(J, "--root", jtree.root, *a, "dup.json")  # noqa: E731
    assert data(r("--pointer", "/b"))["value"] == []
    assert data(r("--keys")) == {"pointer": "", "kind": "object", "offset": 0, "line": 1,
                                 "column": 1, "keys": ["a", "b"], "repeated": ["a"]}
    assert data(r("--length"))["length"] == 2 and data(r("--length"))["repeated"] == ["a"]
    assert run_value("--root", jtree.root, "dup.json")[1] == b'{"a":1,"b":[],"a":2,"a":{"x":1}}'
    # jq keeps the last copy, where jsonq refuses: the documented difference.
    jq = subprocess.run(["/usr/bin/jq", "-c", ".a"], input=b'{"a":1,"a":2}', capture_output=True)
    assert jq.stdout == b"2\n"


def test_repeats_deep_on_the_path_in_array_elements_and_off_it(tmp_path):
    f = tmp_path / "deep.json"
    text = (b'{"x": {"y": [\n  {"k": 1,\n   "k": 2},\n  {"k": 3}\n]},\n'
            b' "z": {"d": 1, "d": 2}, "w": 0}')
    f.write_bytes(text)
    d = dup_error(run(J, "--pointer", "/x/y/0/k", f), b"k", "/x/y/0", 2)
    assert [c["line"] for c in d["copies"]] == [2, 3]
    assert [text[c["offset"]:c["offset"] + 3] for c in d["copies"]] == [b'"k"'] * 2
    assert data(run(J, "--pointer", "/x/y/1/k", f))["value"] == 3
    assert data(run(J, "--pointer", "/w", f))["value"] == 0
    assert data(run(J, "--exists", "--pointer", "/x/y/2", f))["exists"] is False
    dup_error(run(J, "--exists", "--pointer", "/z/d", f), b"d", "/z", 2)
    assert data(run(J, "--keys", "--pointer", "/z", f))["repeated"] == ["d"]
    assert "repeated" not in data(run(J, "--keys", "--pointer", "/x", f))


def test_the_shallowest_repeat_is_named_and_outranks_a_miss_in_the_first_copy(tmp_path):
    f = tmp_path / "two.json"
    f.write_bytes(b'{"a": {"b": 1, "b": 2}, "a": {}}')
    dup_error(run(J, "--pointer", "/a/b", f), b"a", "", 2)
    dup_error(run(J, "--pointer", "/a/zz", f), b"a", "", 2)  # not no-such-path
    assert data(run(J, "--exists", "--pointer", "/q", f))["exists"] is False


def test_keys_are_compared_decoded_so_an_escaped_copy_is_a_repeat(tmp_path):
    f = tmp_path / "k.json"
    text = b'{"a\\/b": 1, "\\u00e9": 2, "\\u0041": 3, "A": 4, "\\ud83d\\ude00": 5}'
    f.write_bytes(text)
    assert data(run(J, "--keys", f))["keys"] == ["a/b", "\u00e9", "A", "\U0001f600"]
    assert data(run(J, "--keys", f))["repeated"] == ["A"]
    assert data(run(J, "--pointer", "/a~1b", f))["value"] == 1
    assert data(run(J, "--pointer", "/\u00e9", f))["value"] == 2
    d = dup_error(run(J, "--pointer", "/A", f), b"A", "", 2)  # "\u0041" is "A"
    assert [c["offset"] for c in d["copies"]] == [text.index(b'"\\u0041"'), text.index(b'"A"')]
    assert data(run(J, "--pointer", "/\U0001f600", f))["value"] == 5


def test_many_copies_are_counted_and_their_places_capped(tmp_path):
    body = b",\n".join(b'"k": %d' % i for i in range(40))
    r = run(J, "--pointer", "/k", stdin=b"{" + body + b"}")
    d = dup_error(r, b"k", "", 40)
    assert len(d["copies"]) == 16 and [c["line"] for c in d["copies"]] == list(range(1, 17))
    assert "…" in r.doc["error"]["message"]


def test_a_key_that_is_not_utf8_is_refused_and_a_pointer_that_is_not_is_echoed(tmp_path):
    r = run(J, "--pointer", "/a", stdin=b'{"\xff": 1, "\xff": 2}')
    assert r.rules == ["parse.json"] and r.doc["error"]["detail"]["reason"] == "invalid-utf8"
    r = run(J, "--pointer", b"/\xff~1x/y", stdin=b'{"\\u00ff/x": {"y": 1}, "a/b": 2}')
    assert r.rules == ["query.no-such-path"] and r.doc["error"]["repair"] is None
    assert tack.tob(r.doc["error"]["detail"]["missing"]) == b"\xff/x"


# --- where a value is ----------------------------------------------------------------------------

@pytest.mark.parametrize("name,text,ptr,written", [
    ("crlf", b'{\r\n  "a": 1,\r\n  "b": [true,\r\n    "x"]\r\n}\r\n', "/b/1", b'"x"'),
    ("bom", b'\xef\xbb\xbf{"a":\n 7}', "/a", b"7"),
    ("bom-root", b'\xef\xbb\xbf [1]', "", b"[1]"),
    ("no-final-newline", b'[\n1,\n2,\n{"z": null}]', "/2/z", b"null"),
    ("last-line-object", b'[1,\n\n\n{"z": {}}]', "/1/z", b"{}"),
    ("scalar-root", b'\n\n  -15 ', "", b"-15"),
    ("multibyte-column", '{"\u00e9\u00e9": "\u20ac", "k": false}'.encode(), "/k", b"false"),
    ("tabs", b'{"a":\t\t[\t0\t]}', "/a/0", b"0"),
])
def test_every_answer_says_where_its_value_starts(tmp_path, name, text, ptr, written):
    f = tmp_path / "p.json"
    f.write_bytes(text)
    for source in ({"args": [f]}, {"args": [], "stdin": text}):
        for flag in ([], ["--type"], ["--exists"]):
            r = run(J, *flag, "--pointer", ptr, *source["args"], stdin=source.get("stdin"))
            d = data(r)
            assert text[d["offset"]:].startswith(written), (name, d)
            assert located(d) == place(text, d["offset"]), (name, d)
    assert data(run(J, "--exists", "--pointer", ptr + "/nope", f)) == {
        "pointer": ptr + "/nope", "kind": None, "exists": False}


def test_the_crlf_line_is_the_one_peek_and_edit_count(tmp_path):
    text = b'{\r\n  "a": 1,\r\n  "b": [true,\r\n    "x"]\r\n}\r\n'
    f = tmp_path / "c.json"
    f.write_bytes(text)
    d = data(run(J, "--pointer", "/b/1", f))
    assert (d["line"], d["column"]) == (4, 5)
    assert text.split(b"\n")[d["line"] - 1] == b'    "x"]\r'
    d = data(run(J, "--pointer", "/a", f))
    assert (d["offset"], d["line"], d["column"]) == (10, 2, 8)


def test_text_mode_stays_the_value_alone(tmp_path):
    p = subprocess.run([tack.bin_path(J), "--format", "text", "--pointer", "/a"],
                       input=b'\n\n{"a": [1, 2]}', capture_output=True)
    assert (p.returncode, p.stdout) == (0, b"[1,2]\n")


# --- a key that holds '/' or '~': the escaped pointer ---------------------------------------------

SLASHED = (b'{"regions": {"eu/west": {"hosts": ["a", "b"]}, "us": 1},\n'
           b' "~1": "tilde-one", "a~b": 2, "a/b/c": 3, "p": {"q": 0}, "p/q": {"r": 4},\n'
           b' "m/n": {"o": 5}, "m/n/o": 6, "lone/x": {}}')


@pytest.mark.parametrize("given,fixed,value", [
    ("/regions/eu/west/hosts/1", "/regions/eu~1west/hosts/1", "b"),   # '/' unescaped
    ("/~1", "/~01", "tilde-one"),                                       # ~1 meant literally
    ("/a/b/c", "/a~1b~1c", 3),                                          # three tokens, one key
    ("/p/q/r", "/p~1q/r", 4),                                           # p exists, p/q/r does not
])
def test_a_miss_that_an_escaped_key_explains_gets_the_pointer_and_a_retry(
        tmp_path, given, fixed, value):
    f = tmp_path / "s.json"
    f.write_bytes(SLASHED)
    before = len(tack.RETRIES)
    r = run(J, "--pointer", given, f)
    assert r.rules == ["query.no-such-path"], r
    e = r.doc["error"]
    assert e["detail"]["suggested"] == fixed and f"--pointer '{fixed}'" in e["hint"]
    assert e["repair"] == {"kind": "retry", "argv": [tack.bin_path(J), f"--pointer={fixed}",
                                                     str(f)]}
    assert len(tack.RETRIES) == before + 1 and r.retried[0].exit == 0
    assert r.retried[0].data["value"] == value
    # --exists says no, as it should: the pointer as written names nothing.
    assert data(run(J, "--exists", "--pointer", given, f))["exists"] is False


def test_two_escaped_readings_that_both_resolve_are_a_choice(tmp_path):
    f = tmp_path / "s.json"
    f.write_bytes(SLASHED)
    r = run(J, "--pointer", "/m/n/o", f)
    e = r.doc["error"]
    assert r.rules == ["query.no-such-path"] and e["repair"]["kind"] == "choose"
    got = {a[1] for a in (o["argv"] for o in e["repair"]["options"])}
    assert got == {"--pointer=/m~1n/o", "--pointer=/m~1n~1o"}
    for o in e["repair"]["options"]:
        assert run(J, *o["argv"][1:]).exit == 0


def test_an_escaped_key_whose_rest_names_nothing_is_a_hint_without_a_retry(tmp_path):
    f = tmp_path / "s.json"
    f.write_bytes(SLASHED)
    r = run(J, "--pointer", "/lone/x/y", f)
    e = r.doc["error"]
    assert r.rules == ["query.no-such-path"] and e["repair"] is None
    assert "--pointer '/lone~1x'" in e["hint"] and "suggested" not in e["detail"]
    # A plain miss keeps its plain hint.
    r = run(J, "--pointer", "/regions/nope", f)
    assert "--keys --pointer '/regions'" in r.doc["error"]["hint"] and r.doc["error"]["repair"] is None


@pytest.mark.parametrize("ptr,value", [("/a~0b", 2), ("/~01", "tilde-one"), ("/a~1b~1c", 3),
                                       ("/regions/eu~1west/hosts/0", "a")])
def test_escaped_pointers_read_keys_with_slash_and_tilde(tmp_path, ptr, value):
    f = tmp_path / "s.json"
    f.write_bytes(SLASHED)
    assert data(run(J, "--pointer", ptr, f))["value"] == value


def test_tilde_sequences_in_a_pointer(tmp_path):
    f = tmp_path / "s.json"
    f.write_bytes(SLASHED)
    r = run(J, "--pointer", "/a~b", f)  # a bare ~: refused before reading, ~0 offered
    assert r.rules == ["query.bad-pointer"] and r.doc["error"]["detail"]["suggested"] == "/a~0b"
    assert r.retried[0].data["value"] == 2
    r = run(J, "--pointer", "/~0~1", f)  # "~/" is no key; nothing spells one
    assert r.rules == ["query.no-such-path"] and r.doc["error"]["repair"] is None


def test_scalar_documents_and_kinds(jtree, tmp_path):
    r = run(J, "--root", jtree.root, "scalar.json")
    assert data(r) == {"pointer": "", "kind": "string", "offset": 2, "line": 1, "column": 3,
                       "value": "just a string"}
    r = run(J, "--root", jtree.root, "--pointer", "/x", "scalar.json")
    assert r.rules == ["query.no-such-path"] and r.doc["error"]["detail"]["kind"] == "string"
    for text, kind in [(b"1", "integer"), (b"-1.0", "float"), (b"1E2", "float"),
                       (b"true", "boolean"), (b"null", "null"),
                       (b"123456789012345678901234567890", "integer")]:
        assert data(run(J, "--type", stdin=text))["kind"] == kind


def test_wrong_kind(jtree):
    r = run(J, "--root", jtree.root, "--keys", "--pointer", "/a", "d.json")
    assert r.rules == ["query.wrong-kind"]
    assert r.doc["error"]["detail"] == {"pointer": "/a", "kind": "array", "expected": ["object"]}
    r = run(J, "--root", jtree.root, "--length", "--pointer", "/s", "d.json")
    assert r.rules == ["query.wrong-kind"] and r.doc["error"]["detail"]["kind"] == "string"
    r = run(J, "--root", jtree.root, "--length", "--pointer", "/o", "d.json")
    assert data(r)["length"] == 0


def test_text_mode(jtree):
    def text(*a):
        p = subprocess.run([tack.bin_path(J), "--format", "text", "--root", str(jtree.root), *a],
                           capture_output=True)
        return p.returncode, p.stdout, p.stderr
    assert text("--pointer", "/a", "d.json") == (0, b'[1,2.5,{"b":"x\\/y","c":null}]\n', b"")
    assert text("--keys", "d.json")[1] == b'"a"\n"t"\n"big"\n"e"\n"k~/"\n"s"\n"n"\n"o"\n'
    assert text("--length", "--pointer", "/a", "d.json")[1] == b"3\n"
    assert text("--type", "--pointer", "/e", "d.json")[1] == b"float\n"
    assert text("--exists", "--pointer", "/zz", "d.json")[1] == b"false\n"
    code, out, err = text("--pointer", "/zz", "d.json")
    assert (code, out) == (3, b"") and err.startswith(b"jsonq: query.no-such-path: ")


# --- misses and pointers ----------------------------------------------------------------------

@pytest.mark.parametrize("ptr,resolved,missing,kind,hint", [
    ("/zz", "", "zz", "object", "--keys --pointer ''"),
    ("/a/3", "/a", "3", "array", "--pointer '/a/2'"),
    ("/a/01", "/a", "01", "array", "--pointer '/a/1'"),
    ("/a/-1", "/a", "-1", "array", "--pointer '/a/2'"),
    ("/a/x", "/a", "x", "array", None),
    ("/a/99999999999999999999999", "/a", "99999999999999999999999", "array", None),
    ("/t/x", "/t", "x", "boolean", None),
    ("/a/2/b/0", "/a/2/b", "0", "string", None),
    ("/k~0~1//x", "/k~0~1/", "x", "integer", None),
])
def test_misses_name_the_longest_prefix_that_resolved(jtree, ptr, resolved, missing, kind, hint):
    r = run(J, "--root", jtree.root, "--pointer", ptr, "d.json")
    assert r.exit == 3 and r.rules == ["query.no-such-path"]
    d = r.doc["error"]["detail"]
    assert (d["pointer"], d["resolved"], d["missing"], d["kind"]) == (ptr, resolved, missing, kind)
    if kind == "array":
        assert d["length"] == 3
    if hint:
        assert hint in r.doc["error"]["hint"]


def test_a_pointer_that_is_not_utf8_is_echoed_as_bytes(jtree):
    r = run(J, "--root", jtree.root, "--pointer", b"/\xff/a", "d.json")
    d = r.doc["error"]["detail"]
    assert r.rules == ["query.no-such-path"]
    assert tack.tob(d["pointer"]) == b"/\xff/a" and tack.tob(d["missing"]) == b"\xff"
    assert "\\xff" in r.doc["error"]["message"]  # never U+FFFD


def test_dash_is_refused_on_arrays_and_a_key_on_objects(tmp_path):
    f = tmp_path / "dash.json"
    f.write_bytes(b'{"-": "minus", "arr": [1, 2]}')
    assert data(run(J, "--pointer", "/-", f))["value"] == "minus"
    r = run(J, "--pointer", "/arr/-", f)
    assert r.rules == ["query.bad-pointer"] and r.exit == 2
    assert r.doc["error"]["detail"]["length"] == 2 and "/arr/1" in r.doc["error"]["hint"]


@pytest.mark.parametrize("given,rule,fixed", [
    ("a/b", "query.bad-pointer", "/a/b"),
    ("/a~x", "query.bad-pointer", "/a~0x"),
    ("/t~", "query.bad-pointer", "/t~0"),
    ("#/a/0", "query.bad-pointer", "/a/0"),
    ("#/k~0~1/", "query.bad-pointer", "/k~0~1/"),
    ("a.b", "query.bad-pointer", None),
    (".a[0]", "query.unsupported-syntax", "/a/0"),
    (".a[2].b", "query.unsupported-syntax", "/a/2/b"),
    ('."k~/"', "query.unsupported-syntax", "/k~0~1"),
    (".", "query.unsupported-syntax", ""),
    (".a[]", "query.unsupported-syntax", None),
    (".a | length", "query.unsupported-syntax", None),
    (".[-1]", "query.unsupported-syntax", None),
])
def test_malformed_pointers_are_refused_before_reading_with_the_spelling_to_retry(
        jtree, given, rule, fixed):
    jtree.write("nofloat.json", b'{"a": [1, 2, {"b": "x"}], "t": true, "k~/": {"": 0}}')
    before = len(tack.RETRIES)
    r = run(J, "--root", jtree.root, "--pointer", given, "nofloat.json")
    assert r.rules == [rule] and r.exit == 2 and "data" not in r.doc
    e = r.doc["error"]
    if fixed is None:
        assert e["repair"] is None
        return
    assert e["detail"]["suggested"] == fixed
    assert e["repair"]["kind"] == "retry" and f"--pointer={fixed}" in e["repair"]["argv"]
    # tack.run executed the retry: it cleared the rule, and the pointer was read.
    assert len(tack.RETRIES) == before + 1 and r.retried[0].exit in (0, 3)


def test_pointer_errors_come_before_reading(jtree):
    """An argument error reads nothing: a missing file and a bad pointer report both, no I/O."""
    r = run(J, "--root", jtree.root, "--pointer", "x~", "--keys", "--length", "nope.json")
    assert r.rules == ["args.conflict", "query.bad-pointer"]


# --- documents that are not JSON --------------------------------------------------------------

BROKEN = [  # (document, offset, line, column, reason) — positions worked out by hand
    (b"", 0, 1, 1, "unexpected-end"),
    (b" \n\t", 3, 2, 2, "unexpected-end"),
    (b"[1,]", 3, 1, 4, "unexpected-byte"),
    (b'{\n  "a": [1,\n   2,,\n]}', 18, 3, 6, "unexpected-byte"),
    (b'{"a":1}\n{"b":2}\n', 8, 2, 1, "trailing-content"),
    (b"[01]", 2, 1, 3, "unexpected-byte"),
    (b"[1.]", 3, 1, 4, "unexpected-byte"),
    (b"[truex]", 5, 1, 6, "unexpected-byte"),
    (b"nul", 3, 1, 4, "unexpected-end"),
    (b"[NaN]", 1, 1, 2, "unexpected-byte"),
    (b"{'a': 1}", 1, 1, 2, "unexpected-byte"),
    (b'{"a":1,}', 7, 1, 8, "unexpected-byte"),
    (b'["abc', 5, 1, 6, "unexpected-end"),
    (b'["\\x"]', 3, 1, 4, "bad-escape"),
    (b'["\\ud800"]', 8, 1, 9, "lone-surrogate"),
    (b'["\\udc00"]', 5, 1, 6, "lone-surrogate"),
    (b'["a\tb"]', 3, 1, 4, "control-character"),
    (b'\n\n  ["\xc3\xa9\xc3"]', 9, 3, 8, "invalid-utf8"),  # the quote cannot continue \xc3
    (b'["\xed\xa0\x80"]', 3, 1, 4, "invalid-utf8"),
    (b"\xef\xbb\xbf[1,]", 6, 1, 7, "unexpected-byte"),
    (b"[1] // comment", 4, 1, 5, "trailing-content"),
    (b"[" * 1025 + b"]" * 1025, 1024, 1, 1025, "too-deep"),
]


@pytest.mark.parametrize("doc,offset,line,column,reason", BROKEN,
                         ids=[f"broken{i}" for i in range(len(BROKEN))])
def test_parse_errors_name_the_exact_byte(tmp_path, doc, offset, line, column, reason):
    f = tmp_path / "b.json"
    f.write_bytes(doc)
    for r in (run(J, "--pointer", "/a", f), run(J, "--exists", stdin=doc)):
        assert r.rules == ["parse.json"] and r.exit == 8, r
        d = r.doc["error"]["detail"]
        assert (d["offset"], d["line"], d["column"], d["reason"]) == (offset, line, column, reason)
        assert f"line {line}, column {column}" in r.doc["error"]["message"]
        assert "data" not in r.doc


def test_depth_1024_is_read_and_100000_is_refused_without_a_crash(tmp_path):
    ok = b"[" * 1024 + b"7" + b"]" * 1024
    assert data(run(J, "--pointer", "/0" * 1024, stdin=ok))["value"] == 7
    for doc in (b"[" * 1025 + b"]" * 1025, b"[" * 100000 + b"]" * 100000, b"[" * 100000):
        r = run(J, stdin=doc)  # balanced or not: refused at the 1025th bracket, no stack blown
        assert r.rules == ["parse.json"] and r.doc["error"]["detail"]["reason"] == "too-deep"
        assert r.doc["error"]["detail"]["offset"] == 1024
        assert r.doc["error"]["detail"]["max_depth"] == 1024
    r = run(J, stdin=b'{"a":' * 100000)
    assert r.doc["error"]["detail"]["offset"] == 5 * 1024


def test_a_bom_is_skipped_and_counted_in_offsets(tmp_path):
    assert data(run(J, "--pointer", "/0", stdin=b"\xef\xbb\xbf [true]"))["value"] is True
    r = run(J, stdin=b"\xef\xbb\xbf")
    assert r.doc["error"]["detail"]["offset"] == 3


def py_valid(b: bytes) -> bool:
    """RFC 8259 by Python's strict json module, with what it is lenient about refused: NaN and
    Infinity, and lone surrogate escapes (which jsonq refuses: they name no character)."""
    def reject(x):
        raise ValueError(x)
    try:
        v = json.loads(b.decode("utf-8"), parse_constant=reject)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    def surrogate_free(x):
        if isinstance(x, str):
            return not any(0xD800 <= ord(c) <= 0xDFFF for c in x)
        if isinstance(x, list):
            return all(surrogate_free(y) for y in x)
        if isinstance(x, dict):
            return all(surrogate_free(k) and surrogate_free(y) for k, y in x.items())
        return True
    return surrogate_free(v)


MUTANT_BYTES = b'x,]}[{":\\0 \x01\xff\xc3\xa9tnue.-+Eu\r\t\x00'


def mutate(rng, text: bytes) -> tuple[bytes, int]:
    """One to three substitutions, insertions or deletions; returns the text and the first
    position touched (every byte before it is unchanged)."""
    m, first = bytearray(text), len(text)
    for _ in range(rng.choice([1, 1, 2, 3])):
        k = rng.randrange(len(m)) if m else 0
        op = rng.random()
        if op < 0.5 and m:
            m[k] = rng.choice(MUTANT_BYTES)
        elif op < 0.75 or not m:
            m.insert(k, rng.choice(MUTANT_BYTES))
        else:
            del m[k]
        first = min(first, k)
    return bytes(m), first


def test_skipped_strings_cannot_pass_for_keys():
    """simdjson's skip takes `"":` for a key and does not match brackets: every value is read."""
    for doc in (b'{"-":[1, "":0 } ]}', b'[1, {"a":{}}, true, "":0 } ]', b'{"a":["x":1}]}'):
        r = run(J, "--type", stdin=doc)
        assert r.rules == ["parse.json"], doc
        assert r.doc["error"]["detail"]["reason"] == "unexpected-byte"


@pytest.mark.parametrize("seed", range(4))
def test_verdicts_agree_with_python_and_errors_never_precede_the_damage(seed):
    rng = random.Random(1000 + seed)
    for _ in range(80):
        text = gen(rng).text.encode()
        if not text:
            continue
        mutated, k = mutate(rng, text)
        r = run(J, "--type", stdin=mutated)
        assert (r.exit == 0) == py_valid(mutated), (mutated, r)
        if r.exit:
            d = r.doc["error"]["detail"]
            assert r.rules == ["parse.json"] and d["reason"] != "simdjson", r
            assert d["offset"] >= k, (mutated, k, d)
        # Cut short: "unexpected-end" exactly at the cut, unless the prefix is JSON itself.
        cut = text[:rng.randrange(len(text))]
        r = run(J, "--type", stdin=cut)
        if r.exit:
            d = r.doc["error"]["detail"]
            assert (d["reason"], d["offset"]) == ("unexpected-end", len(cut)), (cut, d)
        else:
            assert py_valid(cut)


# --- input: files, pipes, limits --------------------------------------------------------------

def test_stdin_and_dash_are_the_same_document(jtree):
    a = run(J, "--pointer", "/a/0", stdin=DOC)
    b = run(J, "--pointer", "/a/0", "-", stdin=DOC)
    c = run(J, "--pointer", "/a/0", "--", "-", stdin=DOC)
    assert a.out == b.out == c.out and data(a)["value"] == 1
    assert run_value("--pointer", "/a/1", stdin=DOC)[1] == b"2.5"
    # A file literally named "-" is ./-
    jtree.write("-", b"[42]")
    assert data(run(J, "--pointer", "/0", "./-", cwd=jtree.root))["value"] == 42


@pytest.mark.parametrize("through", ["file", "pipe"])
def test_max_bytes_edge_and_its_retry(tmp_path, through):
    doc = b'{"k": "' + b"v" * 1000 + b'"}'
    n = len(doc)
    f = tmp_path / "m.json"
    f.write_bytes(doc)
    src = {"stdin": doc} if through == "pipe" else {}
    args = [] if through == "pipe" else [f]
    assert run(J, "--type", "--max-bytes", str(n), *args, **src).exit == 0
    before = len(tack.RETRIES)
    r = run(J, "--type", "--max-bytes", str(n - 1), *args, **src)
    assert r.rules == ["limit.input-too-large"] and r.exit == 8
    d = r.doc["error"]["detail"]
    assert (d["size"], d["max_bytes"], d["ceiling"]) == (n, n - 1, 1 << 30)
    assert f"--max-bytes={n}" in r.doc["error"]["repair"]["argv"]
    assert len(tack.RETRIES) == before + 1 and r.retried[0].exit == 0


def test_the_ceiling_is_a_bad_value_and_an_endless_stdin_stops(tmp_path):
    assert run(J, "--max-bytes", str((1 << 30) + 1), stdin=b"1").rules == ["args.bad-value"]
    assert run(J, "--max-bytes", "0", stdin=b"1").rules == ["args.bad-value"]
    # /dev/zero as stdin: read to the cap, counted to the ceiling, refused without a retry.
    with open("/dev/zero", "rb") as z:
        p = subprocess.run([tack.bin_path(J), "--max-bytes", "10"], stdin=z, capture_output=True,
                           timeout=60)
    doc = tack.check_output(J, [b"--max-bytes", b"10"], p.returncode, p.stdout, p.stderr)
    e = doc["error"]
    assert e["rule"] == "limit.input-too-large" and e["detail"]["size"] is None
    assert e["repair"]["kind"] == "none"


def _stdin_run(stdin_file, *args):
    p = subprocess.run([tack.bin_path(J), *args], stdin=stdin_file, capture_output=True, timeout=20)
    return tack.check_output(J, [a.encode() for a in args], p.returncode, p.stdout, p.stderr)


def test_hostile_stdins(tmp_path):
    with open("/dev/null", "wb") as wo:  # open for writing only: read() fails with EBADF
        assert _stdin_run(wo)["error"]["rule"] == "io.read-failed"
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert _stdin_run(fd)["error"]["rule"] == "io.is-a-directory"
    finally:
        os.close(fd)
    with open("/dev/null", "rb") as null:
        assert _stdin_run(null)["error"]["detail"]["reason"] == "unexpected-end"


def test_a_terminal_on_stdin_is_refused_not_waited_on():
    master, slave = os.openpty()
    try:
        start = time.monotonic()
        doc = _stdin_run(slave, "--pointer", "/a")
        assert time.monotonic() - start < 10
    finally:
        os.close(master)
        os.close(slave)
    assert [e["rule"] for e in doc["errors"]] == ["args.missing-operand"]


def test_a_nonblocking_pipe_is_waited_on(tmp_path):
    """An inherited O_NONBLOCK stdin gives EAGAIN before the writer writes: jsonq polls."""
    r, w = os.pipe()
    os.set_blocking(r, False)
    p = subprocess.Popen([tack.bin_path(J), "--pointer", "/x"], stdin=r, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    os.close(r)

    def writer():
        time.sleep(0.3)
        os.write(w, b'{"x": ')
        time.sleep(0.2)
        os.write(w, b"[1]}")
        os.close(w)
    t = threading.Thread(target=writer)
    t.start()
    out, err = p.communicate(timeout=20)
    t.join()
    doc = tack.check_output(J, [b"--pointer", b"/x"], p.returncode, out, err)
    assert doc["data"] == {"pointer": "/x", "kind": "array", "offset": 6, "line": 1,
                           "column": 7, "value": [1]}


def test_a_closed_stdout_is_io_write_failed(jtree):
    with open("/dev/full", "wb") as full:
        p = subprocess.run([tack.bin_path(J), "--root", str(jtree.root), "d.json"], stdout=full,
                           stderr=subprocess.PIPE, timeout=20)
    assert p.returncode == 1 and p.stderr.startswith(b"jsonq: io.write-failed: ")


# --- M3: every declared rule reached ------------------------------------------------------------

R = "{root}"
# A terminal on stdin whose master stays open (with it closed, the slave is no longer a tty).
PTY_STDIN = ["/usr/bin/python3", "-c", "import os,sys; m,s=os.openpty(); "
             "os.set_inheritable(m, True); os.dup2(s,0); os.execv(sys.argv[1], sys.argv[1:])"]
FIXTURES = [  # (id, rule, args, options)
    ("unknown-flag", "args.unknown-flag", ["--root", R, "--pointr", "/t", "d.json"], {}),
    ("unknown-flag-far", "args.unknown-flag", ["--root", R, "--zzzzzz", "d.json"], {}),
    ("missing-value", "args.missing-value", ["--root", R, "d.json", "--pointer"], {}),
    ("bad-value", "args.bad-value", ["--root", R, "--max-bytes", "x", "d.json"], {}),
    ("bad-value-format", "args.bad-value", ["--root", R, "--format", "yaml", "d.json"], {}),
    ("unexpected-value", "args.unexpected-value", ["--root", R, "--keys=1", "d.json"], {}),
    ("duplicate-flag", "args.duplicate-flag", ["--root", R, "-p", "/a", "-p", "/t", "d.json"], {}),
    ("conflict", "args.conflict", ["--root", R, "--type", "--exists", "d.json"], {}),
    ("missing-operand", "args.missing-operand", ["--pointer", "/a"], {"wrap": PTY_STDIN}),
    ("too-many-operands", "args.too-many-operands", ["--root", R, "d.json", "dup.json"], {}),
    ("path-empty", "path.empty", ["--root", R, ""], {}),
    ("dotdot", "path.dotdot", ["--root", R, "--type", "dir/../d.json"], {}),
    ("absolute", "path.absolute", ["--root", R, "--type", R + "/d.json"], {}),
    ("outside-root", "path.outside-root", ["--root", R, "/etc/passwd"], {}),
    ("too-long", "path.too-long", ["--root", R, "a" * 4097], {}),
    ("symlink", "path.symlink", ["--root", R, "link_out_file"], {}),
    ("not-found", "io.not-found", ["--root", R, "missing.json"], {}),
    ("not-a-directory", "io.not-a-directory", ["--root", R, "d.json/x"], {}),
    ("is-a-directory", "io.is-a-directory", ["--root", R, "dir"], {}),
    ("special-fifo", "io.special-file", ["--root", R, "fifo"], {}),
    ("special-dev-zero", "io.special-file", ["/dev/zero"], {}),
    ("permission-denied", "io.permission-denied", ["--root", R, "noaccess.txt"],
     {"wrap": tack.NO_DAC}),
    ("read-failed", "io.read-failed", ["/proc/self/mem"], {}),
    ("input-too-large", "limit.input-too-large",
     ["--root", R, "--type", "--max-bytes", "9", "d.json"], {}),
    ("parse-json", "parse.json", ["--root", R, "broken.json"], {}),
    ("parse-json-empty", "parse.json", ["--root", R, "empty.json"], {}),
    ("bad-pointer", "query.bad-pointer", ["--root", R, "--pointer", "a~b", "d.json"], {}),
    ("bad-pointer-dash", "query.bad-pointer", ["--root", R, "--pointer", "/a/-", "d.json"], {}),
    ("no-such-path", "query.no-such-path", ["--root", R, "--pointer", "/a/9", "d.json"], {}),
    ("no-such-path-escape", "query.no-such-path",
     ["--root", R, "--pointer", "/k/x/y", "slash.json"], {}),
    ("duplicate-key", "query.duplicate-key", ["--root", R, "--pointer", "/a", "dup.json"], {}),
    ("wrong-kind", "query.wrong-kind", ["--root", R, "--keys", "--pointer", "/t", "d.json"], {}),
    ("unsupported-syntax", "query.unsupported-syntax",
     ["--root", R, "--pointer", ".a[0]", "d.json"], {}),
]


def _fixture(jtree, args, opts, extra=()):
    jtree_fifo = jtree.p("fifo")
    if not os.path.exists(jtree_fifo):
        jtree.fifo("fifo")
        jtree.no_access("noaccess.txt")
    a = [x.replace(R, str(jtree.root)) for x in args]
    return run(J, *extra, *a, cwd=jtree.root.parent, wrap=opts.get("wrap"), timeout=20)


@pytest.mark.parametrize("fx", FIXTURES, ids=[f[0] for f in FIXTURES])
def test_m3_fixture_reaches_its_rule(jtree, fx):
    name, rule, args, opts = fx
    r = _fixture(jtree, args, opts)
    assert r.rules and r.rules[0] == rule, f"{name}: reached {r.rules}"
    assert r.exit == tack.CATALOGUE[rule]
    before_reading = ("args.", "path.", "query.bad", "query.unsup")
    if rule.startswith(before_reading) and name != "bad-pointer-dash":
        assert "data" not in r.doc  # refused before anything was read


TEXT_FIXTURES = [f for f in FIXTURES if "--format" not in f[2]]


@pytest.mark.parametrize("fx", TEXT_FIXTURES, ids=[f[0] for f in TEXT_FIXTURES])
def test_m3_fixture_in_text_mode(jtree, fx):
    name, rule, args, opts = fx
    r = _fixture(jtree, args, opts, extra=("--format", "text"))
    assert r.exit == tack.CATALOGUE[rule]
    assert r.err.startswith(f"jsonq: {rule}: ".encode()), r.err


def test_m3_declared_rules_equal_reached_rules(jtree):
    reached = set()
    for name, rule, args, opts in FIXTURES:
        reached.update(_fixture(jtree, args, opts).rules)
    declared = set(tack.declared_rules(J))
    assert reached - declared == set(), "errors with rules jsonq does not declare"
    assert declared - reached == set(), "declared rules no fixture reaches (holes)"
    assert declared == {f[1] for f in FIXTURES}


def test_m3_retries_clear_their_rule(jtree):
    """Each kind of retry jsonq offers, executed by tack.run and clearing its rule."""
    cases = [
        (["--pointr", "/a/0", "d.json"], "args.unknown-flag"),
        (["--type", "dir/../d.json"], "path.dotdot"),
        (["--type", str(jtree.root) + "/d.json"], "path.absolute"),
        (["--type", "--max-bytes", "9", "d.json"], "limit.input-too-large"),
        (["--pointer", "a~b", "d.json"], "query.bad-pointer"),
        (["--pointer", ".a[0]", "d.json"], "query.unsupported-syntax"),
        (["--pointer", "/k/x/y", "slash.json"], "query.no-such-path"),
    ]
    for args, rule in cases:
        before = len(tack.RETRIES)
        r = run(J, "--root", jtree.root, *args, cwd=jtree.root.parent)
        assert r.rules == [rule]
        assert len(tack.RETRIES) == before + 1, f"{rule}: no retry executed"
        assert tack.RETRIES[-1]["rule"] == rule and r.retried[0].exit in (0, 3)


def test_introspect_states_the_limits_and_effects():
    info = tack.introspect(J)
    assert info["effects"]["reads_stdin"] is True and info["effects"]["writes_files"] is False
    assert info["limits"] == [{"flag": "max-bytes", "default": "67108864", "ceiling": 1 << 30},
                              {"flag": "max-value-bytes", "default": "65536", "ceiling": 1 << 24}]
    help_ = next(f["help"] for f in info["flags"] if f["name"] == "max-bytes")
    assert "bytes per input byte" in help_
