#!/usr/bin/python3
"""The bench report: figures gathered by bench/lib.sh as JSON lines, written out as markdown.

  report.py gather OUT.json ROUND.json...  hyperfine exports of several rounds -> one list of
                                           {command, times}; prints each command's median
  report.py row M.json ROWS SECTION LABEL GOAL
  report.py value ROWS SECTION LABEL VALUE UNIT GOAL MET COMMAND
  report.py write ROWS OUT.md              the report: machine, versions, a table per section
"""
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys


def gather(out_path, *rounds):
    merged = []
    for path in rounds:
        for i, r in enumerate(json.load(open(path))["results"]):
            if i == len(merged):
                merged.append({"command": r["command"], "times": []})
            merged[i]["times"].extend(r["times"])
    with open(out_path, "w") as f:
        json.dump(merged, f)
    print(" ".join(str(statistics.median(m["times"])) for m in merged))


def append(rows_path, row):
    with open(rows_path, "a") as f:
        f.write(json.dumps(row, sort_keys=True) + "\n")


def row(m_path, rows_path, section, label, goal):
    merged = json.load(open(m_path))
    for m in merged:  # the tools by name, scratch files by their own
        for d in (os.environ.get("TACK_BENCH_BIN"), os.environ.get("TACK_BENCH_WORK")):
            if d:
                m["command"] = m["command"].replace(d + "/", "")
    cmds = [{"command": m["command"], "median": statistics.median(m["times"]),
             "min": min(m["times"]), "runs": len(m["times"])} for m in merged]
    r = {"kind": "time", "section": section, "label": label, "commands": cmds}
    if len(cmds) >= 2:
        r["ratio"] = cmds[0]["median"] / cmds[1]["median"]
        r["ratio_min"] = cmds[0]["min"] / cmds[1]["min"]
    if goal != "-":
        r["goal"] = float(goal)
        r["met"] = r.get("ratio", float("inf")) <= float(goal)
    append(rows_path, r)


def value(rows_path, section, label, val, unit, goal, met, command):
    append(rows_path, {"kind": "value", "section": section, "label": label, "value": val,
                       "unit": unit, "goal": goal, "met": {"yes": True, "no": False}.get(met),
                       "command": command})


def version(argv):
    if not shutil.which(argv[0]):
        return "not installed"
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=10)
    except OSError:
        return "?"
    text = (out.stdout or out.stderr).strip().splitlines()
    return text[0] if text else "?"


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = "?"
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) // (1024 * 1024)} GiB"
    load = open("/proc/loadavg").read().split()[:3]
    return [("cpu", cpu), ("cores", str(os.cpu_count())), ("memory", mem),
            ("kernel", platform.release()), ("load at the end", " ".join(load))]


VERSIONS = [["rg", "--version"], ["ugrep", "--version"], ["grep", "--version"],
            ["fdfind", "--version"], ["fzf", "--version"], ["find", "--version"],
            ["jq", "--version"], ["sha256sum", "--version"], ["openssl", "version"],
            ["sed", "--version"], ["hyperfine", "--version"], ["g++", "--version"]]


def ms(s):
    return f"{s * 1000:.2f}"


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def write(rows_path, out_path):
    rows = [json.loads(l) for l in open(rows_path) if l.strip()] if os.path.exists(rows_path) else []
    out = ["# tack bench report", ""]
    out.append("Written by `make bench` (bench/run.sh). Times are medians (and minimums) in ms of"
               " every run, taken in alternating rounds by hyperfine -N, output through a pipe,"
               " LC_ALL=C. A ratio is the first command's median over the second's.")
    out.append("")
    out += ["| machine | |", "|---|---|"] + [f"| {k} | {cell(v)} |" for k, v in machine()]
    out += ["", "| program | version |", "|---|---|"]
    out += [f"| {v[0]} | {cell(version(v))} |" for v in VERSIONS]
    met = [r for r in rows if r.get("met") is not None]
    out += ["", f"{len(rows)} figures; {sum(r['met'] for r in met)} of {len(met)} goals met."]
    sections = []
    for r in rows:
        if r["section"] not in sections:
            sections.append(r["section"])
    for s in sections:
        out += ["", f"## {s}", ""]
        times = [r for r in rows if r["section"] == s and r["kind"] == "time"]
        values = [r for r in rows if r["section"] == s and r["kind"] == "value"]
        if times:
            out += ["| case | ratio (of minimums) | goal | met | median ms (min) | runs | commands |",
                    "|---|---|---|---|---|---|---|"]
            for r in times:
                cmds = r["commands"]
                ratio = f"{r['ratio']:.2f} ({r['ratio_min']:.2f})" if "ratio" in r else "-"
                goal = f"≤ {r['goal']:.2f}" if "goal" in r else "-"
                met_s = {True: "yes", False: "**no**"}.get(r.get("met"), "-")
                times_s = " / ".join(f"{ms(c['median'])} ({ms(c['min'])})" for c in cmds)
                runs = "/".join(str(c["runs"]) for c in cmds)
                cmd_s = "<br>".join(f"`{cell(c['command'])}`" for c in cmds)
                out.append(f"| {cell(r['label'])} | {ratio} | {goal} | {met_s} | {times_s} | {runs} | {cmd_s} |")
        if values:
            out += ["", "| figure | value | goal | met | command |", "|---|---|---|---|---|"]
            for r in values:
                met_s = {True: "yes", False: "**no**"}.get(r.get("met"), "-")
                out.append(f"| {cell(r['label'])} | {cell(str(r['value']))} {cell(r['unit'])} | "
                           f"{cell(r['goal'])} | {met_s} | `{cell(r['command'])}` |")
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"gather": gather, "row": row, "value": value, "write": write}[cmd](*args)
