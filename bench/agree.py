#!/usr/bin/python3
"""Whether a timed tack command and its incumbent gave the same answer, from the output of the
very command lines the benchmark times (a timing of two commands that disagree means nothing).

    agree.py KIND TACK_OUT INCUMBENT_OUT [--single]

TACK_OUT is the tool's NDJSON or --format text output; INCUMBENT_OUT the incumbent's. KIND:
  paths   list against find / fd | fzf: the same set of paths (find's "./", and the text mode's
          trailing "/" and a link's " -> TARGET", set aside; "." itself is not an entry)
  lines   seek against rg -n: the same (path, line) pairs (--single: one file was searched, so
          rg wrote no path; line numbers only)
  counts  seek -c against rg -c: the same (path, count) pairs
  files   seek -l against rg -l: the same paths
  context seek --context against rg -n -C (one file, --single): the same lines, each a match or
          a context line alike (rg's "--" between groups set aside)
NDJSON must end with its end record, complete, not truncated, without errors: an answer cut
at a limit is not the whole answer. Exits 1 with the first differences shown, else prints the
number of items compared.
"""

import json
import re
import sys


def fail(msg):
    print(f"agree: {msg}", file=sys.stderr)
    sys.exit(1)


def tack_items(text, kind, single):
    lines = text.splitlines()
    if lines and lines[0].startswith("{"):
        records = [json.loads(ln) for ln in lines]
        end = records[-1] if records and records[-1].get("type") == "end" else None
        if end is None:
            fail("the tack output has no end record: it was cut short")
        if not end.get("complete") or end.get("truncated") or end.get("errors"):
            fail(f"the tack output is not the whole answer: {json.dumps(end)}")
        items = []
        for r in records[:-1]:
            if kind == "paths" and r.get("type") == "entry":
                items.append(r["path"])
            elif kind == "context" and r.get("type") in ("match", "context"):
                items.append(f"{r['line']}{':' if r['type'] == 'match' else '-'}")
            elif kind == "lines" and r.get("type") == "match":
                items.append(str(r["line"]) if single else f"{r['path']}:{r['line']}")
            elif kind == "counts" and r.get("type") == "file" and r.get("matches"):
                items.append(f"{r['path']}:{r['matches']}")
            elif kind == "files" and r.get("type") == "file":
                items.append(r["path"])
        return items
    # --format text: the lines as the incumbent writes them (seek names the path even of one
    # file), then notes in brackets
    out = []
    for ln in lines:
        if ln.startswith("[") and ln.endswith("]"):
            continue
        if kind == "context":  # PATH:N:TEXT or PATH-N-TEXT: as rg writes them, less the path
            m = re.match(r"^.*?([:-])(\d+)\1", ln)
            if not m:
                fail(f"not a line of seek's text: {ln[:80]!r}")
            ln = ln[m.start(2):]
        elif kind == "lines" and single:
            ln = ln.split(":", 1)[1]
        if kind == "paths" and " -> " in ln:  # a link, with its target (no name here has one)
            ln = ln.split(" -> ", 1)[0]
        out.append(ln)
    return incumbent_items("\n".join(out), kind, single)


def incumbent_items(text, kind, single):
    items = []
    for ln in text.splitlines():
        if kind == "paths":
            p = ln[2:] if ln.startswith("./") else ln
            p = p.rstrip("/") if p != "/" else p
            if p not in (".", ""):
                items.append(p)
        elif kind == "context":
            if ln != "--":
                m = re.match(r"^(\d+)([:-])", ln)
                if not m:
                    fail(f"not a line of rg -n -C: {ln[:80]!r}")
                items.append(m.group(1) + m.group(2))
        elif kind == "lines":
            if single:
                items.append(ln.split(":", 1)[0])
            else:
                path, line, _ = ln.split(":", 2)
                items.append(f"{path}:{line}")
        else:  # counts (path:N) and files (path) compare as written
            items.append(ln)
    return items


def main():
    args = [a for a in sys.argv[1:] if a != "--single"]
    single = "--single" in sys.argv[1:]
    if len(args) != 3 or args[0] not in ("paths", "lines", "counts", "files", "context"):
        fail(__doc__.strip().splitlines()[2].strip())
    kind, ours, theirs = args
    with open(ours, encoding="utf-8", errors="surrogateescape") as f:
        a = tack_items(f.read(), kind, single)
    with open(theirs, encoding="utf-8", errors="surrogateescape") as f:
        b = incumbent_items(f.read(), kind, single)
    if sorted(a) != sorted(b):
        sa, sb = set(a), set(b)
        only_a, only_b = sorted(sa - sb)[:5], sorted(sb - sa)[:5]
        fail(f"{kind}: tack {len(a)}, incumbent {len(b)}; only tack's: {only_a}; "
             f"only the incumbent's: {only_b}" + ("" if only_a or only_b else " (repeats differ)"))
    print(len(a))


if __name__ == "__main__":
    main()
