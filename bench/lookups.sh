#!/usr/bin/env bash
# The everyday lookups agents were measured on, each as the calls an agent now makes with tack
# and with the shell: the command lines, how many calls, and the bytes of output the agent
# reads (JSON and --format text for tack). A worked transcript, run on generated inputs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh" lookups "${1:-build/bin}"

python3 - <<'PY'
import json, random
random.seed(7)
# a source tree with call sites of one function among others
import os
for d in range(40):
    os.makedirs(f"src/mod{d:02d}", exist_ok=True)
    for f in range(10):
        with open(f"src/mod{d:02d}/file{f}.c", "w") as out:
            for i in range(200):
                r = random.random()
                if r < 0.02: out.write(f"    buf_copy(dst, src, {i});\n")
                elif r < 0.03: out.write(f"    x = buf_copy (a, b, c);\n")
                elif r < 0.04: out.write(f"static int buf_copy_all(void) {{ return {i}; }}\n")
                else: out.write(f"    int v{i} = compute({i}, {d});\n")
# a 1M-line log with a level field
levels = ["INFO"] * 70 + ["WARN"] * 20 + ["ERROR"] * 9 + ["error"]
with open("app.log", "w") as out:
    for i in range(1_000_000):
        out.write(f"2026-12-01T10:{i % 60:02d}:{i % 59:02d} {random.choice(levels)} req={i} took={i % 997}ms\n")
# a 300k-line log whose last ERROR is near its end
with open("events.log", "w") as out:
    for i in range(300_000):
        out.write(f"{i:06d} ERROR disk {i % 7} full\n" if i % 997 == 0 else f"{i:06d} INFO tick {i}\n")
# a 200k-line log with one marker
with open("server.log", "w") as out:
    for i in range(200_000):
        out.write("MARKER: migration started\n" if i == 123_456 else f"line {i} ordinary\n")
# a 20 MB one-line JSON document
doc = {"meta": {"version": 3}, "items": [{"id": i, "name": f"item{i}", "tags": ["a", "b"]} for i in range(300_000)],
       "config": {"regions": {"eu/west": {"port": 8443}}}}
with open("big.json", "w") as out:
    json.dump(doc, out, separators=(",", ":"))
PY
sha256sum src/mod0*/file0.c > SHA256SUMS
echo "tampered" >> src/mod03/file0.c

# row TASK TACK_CALLS SHELL_CALLS [TACK_FINDING SHELL_FINDING]: the calls an agent makes for
# TASK with each, one call a line, each run on its own as an agent's tool call is (a pipeline is
# one call). A call that fails (exits other than 0, or the FINDING status that reports what the
# task looks for, e.g. a checksum that does not match) is dropped: neither counted as a call
# made nor its output as bytes read, and named as failed. A side whose calls all failed stops
# the script: its figures would mean nothing.
row() {
  local task=$1 tack_calls=$2 shell_calls=$3
  local tn tb sn sb
  read -r tn tb <<< "$(calls "$tack_calls" "${4:-0}")"
  read -r sn sb <<< "$(calls "$shell_calls" "${5:-0}")"
  if [ "$tn" -eq 0 ] || [ "$sn" -eq 0 ]; then
    echo "$task: every call of one side failed" >&2
    return 1
  fi
  printf '%s\n  tack  (%d call(s)): %s\n        %d bytes\n  shell (%d call(s)): %s\n        %d bytes\n' \
    "$task" "$tn" "${tack_calls//$'\n'/ ; }" "$tb" "$sn" "${shell_calls//$'\n'/ ; }" "$sb"
  record_value "what an agent's lookups cost: calls and bytes read, tack / shell" "$task" \
    "$tn call(s), $tb B / $sn call(s), $sb B" "" "no more calls than the shell" \
    "$([ "$tn" -le "$sn" ] && echo yes || echo no)" "${tack_calls//$'\n'/ ; }"
}
# calls LINES FINDING: "N BYTES", how many of the calls succeeded (exit 0 or FINDING) and the
# bytes of their output; each failed call is named on stderr.
calls() {
  local n=0 bytes=0 line rc
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    rc=0
    bash -c "$line" >"$work/call.out" 2>/dev/null || rc=$?
    if [ "$rc" -eq 0 ] || [ "$rc" -eq "$2" ]; then
      n=$((n + 1))
      bytes=$((bytes + $(wc -c < "$work/call.out")))
    else
      echo "  failed (exit $rc), dropped: $line" >&2
    fi
  done <<< "$1"
  echo "$n $bytes"
}
export PATH="$bin:$PATH"

row "count the call sites of buf_copy (not buf_copy_all)" \
    "seek --max-count 0 --regex --format text 'buf_copy\s*\(' src" \
    "grep -rE 'buf_copy\s*\(' src | wc -l"
row "which files call it, with counts" \
    "seek --count --max-count 10000 --regex --format text 'buf_copy\s*\(' src" \
    "grep -rcE 'buf_copy\s*\(' src | grep -v ':0$'"
row "the most frequent level in a 1M-line log, and its other spellings" \
    "tally --field 2 --delim ' ' --top 5 --format text app.log" \
    "cut -d' ' -f2 app.log | sort | uniq -c | sort -rn | head -5"
row "how many lines say error in any case" \
    "tally --match error -i --field 2 --delim ' ' --format text app.log" \
    "grep -ic error app.log"
row "verify a checksum list (one file was changed since)" \
    "digest --check SHA256SUMS --format text" \
    "sha256sum -c SHA256SUMS" 8 1
# jq keeps the last of repeated keys without a word: the shell needs a second call to be sure
row "a value deep in a 20 MB one-line JSON, sure no key on its path is repeated" \
    "jsonq --format text --pointer '/config/regions/eu~1west/port' big.json" \
    "jq '.config.regions[\"eu/west\"].port' big.json
grep -oE '\"(config|regions|eu/west|port)\":' big.json | sort | uniq -c"
row "read around a marker in a 200k-line log" \
    "seek --context 3 --max-count 1 --format text MARKER server.log" \
    "grep -n -C3 -m1 MARKER server.log"
row "the last line that says ERROR in a 300k-line log" \
    "seek --last 1 --format text ERROR events.log" \
    "grep -n ERROR events.log | tail -1"
row "find a definition" \
    "seek --regex --format text '^static int buf_copy_all' src/mod00" \
    "grep -rn '^static int buf_copy_all' src/mod00"
echo
skills=$(for t in peek seek list digest jsonq tally skills write replace edit move run undo; do "$bin/$t" skill; done | wc -c)
contract=$("$bin/peek" skill contract | wc -c)
echo "skills an agent reads: $skills bytes for thirteen tools, $contract for the contract"
record_value "what an agent's lookups cost: calls and bytes read, tack / shell" \
  "the skills an agent reads: thirteen tools + the contract" "$((skills + contract))" B "<= 17408 B" \
  "$([ $((skills + contract)) -le 17408 ] && echo yes || echo no)" "TOOL skill; peek skill contract"

# The same lookups over MCP, as a model reads them: one call each through the SDK client, its
# content's bytes against the reference filesystem server's (and rg -n's for the search), and
# what the tool definitions cost on every turn (bench/mcp/sizes.mjs).
if command -v node >/dev/null && [ -d "$here/mcp/node_modules/@modelcontextprotocol/server-filesystem" ]; then
  sizes=$(node "$here/mcp/sizes.mjs" "$bin/tack-mcp" "$(command -v rg || true)")
  SIZES="$sizes" python3 - <<'PY' | while IFS=$'\t' read -r task value met; do
import json, os
d = json.loads(os.environ["SIZES"])
t, r = d["definitions"]["tack"], d["definitions"]["reference"]
print(f"MCP: tool definitions + instructions, every turn ({t['tools']} tools / {r['tools']})\t"
      f"{t['total']} B / {r['total']} B\t{'yes' if t['total'] <= r['total'] else 'no'}")
for name, c in d["calls"].items():
    other, who = (c["reference"], "reference server") if c.get("reference") is not None else (c.get("rg"), "rg -n")
    if other is None:
        continue
    bound = other + 600 if name.startswith("read") else other * (1.1 if who == "rg -n" else 1.0)
    print(f"MCP: {name} (1 call each, vs the {who})\t{c['tack']} B / {other} B\t{'yes' if c['tack'] <= bound else 'no'}")
PY
    echo "  $task: $value"
    record_value "what an agent's lookups cost: calls and bytes read, tack / shell" "$task" "$value" "" \
      "content <= the reference's (a read: + 6 B a line; a search: <= 1.1x rg -n)" "$met" "bench/mcp/sizes.mjs"
  done
fi
