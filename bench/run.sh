#!/usr/bin/env bash
# Side-by-side benchmarks: each tool against its incumbent on the same input, in one run,
# interleaved by hyperfine, output through a pipe, locale pinned; reported as ratios.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh" all "${1:-build/bin}"
# Every figure goes to the report beside the build: build/bench/report.md.
report=$(cd "$bin/.." && pwd)/bench/report.md
mkdir -p "$(dirname "$report")"
export TACK_BENCH_ROWS=${report%.md}.jsonl
: > "$TACK_BENCH_ROWS"

echo "tack benchmarks ($(uname -r), $(nproc) cores)"
echo

# A static binary's start-up on this machine (a cloud VM, where each cpuid instruction traps to
# the hypervisor, about 6 us): glibc's own probe of the processor, before main, is about 0.34 ms
# of every process (an empty static main 0.60 ms against 0.26 without libc). libgcc's probe
# (__builtin_cpu_supports, target_clones) added a dozen cpuids to the tools that linked it;
# asking glibc instead (text/cpu.h), interleaved runs, 600 rounds, median before -> after:
# seek 1.233 -> 1.165 ms, edit 1.246 -> 1.167, tally 1.134 -> 1.036, peek (never linked it)
# 0.982 -> 0.973; /usr/bin/true 1.032 (all under a Python launcher's ~0.5 ms).
echo "== startup: each tool on a one-line input vs /usr/bin/true, medians of 300 (goal <= 1.5x)"
echo "hello" > one.txt
echo '{"a":1}' > one.json
mkdir -p onedir && echo "hello" > onedir/one.txt
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' > init.jsonl
# The tools are timed from copies made here, written whole as a package's install writes them.
# The same bytes start at different speeds as their pages came into the cache: seek on one
# file, 400 runs, 0.74 ms as the linker left it in build/bin, 0.61 ms from a copy, 0.70-0.75 ms
# once the cache was dropped and it was read back (the same 66 page faults each time);
# /usr/bin/true 0.54 ms. Timed in build/bin, this table moved with whatever last wrote the build.
tools=$work/installed
mkdir -p "$tools"
for t in "$bin"/*; do [ "${t##*/}" = tack_unit ] || cp "$t" "$tools/"; done  # tack-mcp runs those beside it
startup() {  # label, command (a dry run exits 9: -i keeps timing it)
  read -r t_tool t_true <<< "$(timings 30 300 -i "$2" /usr/bin/true)"
  record "start-up (goal <= 1.5x /usr/bin/true)" "$1" 1.5
  echo "$1 $(ms "$t_tool")  true $(ms "$t_true")  ratio $(ratio "$t_tool" "$t_true")"
}
startup peek "$tools/peek one.txt"
startup seek "$tools/seek hello one.txt"
startup list "$tools/list onedir"
startup digest "$tools/digest one.txt"
startup jsonq "$tools/jsonq --pointer /a one.json"
startup tally "$tools/tally one.txt"
startup skills "$tools/skills onedir"
startup write "$tools/write --dry-run --create --content-file one.txt new.txt"
startup replace "$tools/replace --dry-run --old hello --new world one.txt"
echo '[{"witness":"head3d5","lines":["world"]}]' > edits.json
startup edit "$tools/edit --dry-run --if-sha256 $(sha256sum one.txt | cut -c1-64) --edits-file edits.json one.txt"
startup move "$tools/move --dry-run one.txt two.txt"
startup run "$tools/run --list"
# to the answer of an initialize and out at the end of its input; both sides under sh, which
# gives each the same file as input (Debian's hyperfine has no --input)
read -r t_tool t_true <<< "$(timings 30 300 "sh -c '$tools/tack-mcp --root onedir < init.jsonl'" \
  "sh -c '/usr/bin/true < init.jsonl'")"
record "start-up (goal <= 1.5x /usr/bin/true)" "tack-mcp, to the answer of initialize (both under sh)" 1.5
echo "tack-mcp $(ms "$t_tool")  true $(ms "$t_true")  ratio $(ratio "$t_tool" "$t_true")"
echo
echo "== a line near the end of a 256 MiB file: peek vs sed -n 'Np;Nq' (goal <= 1.0x)"
python3 - <<'PY'
import os
line = b"".join(b"line %07d of the benchmark file, with some ordinary text after it\n" % i for i in range(10000))
with open("big.txt", "wb") as f:
    target = 256 * 1024 * 1024
    while f.tell() + len(line) <= target:
        f.write(line)
PY
n=$(wc -l < big.txt)
N=$((n - 5))
read -r t_peek t_sed <<< "$(timings 2 10 "$bin/peek --lines $N big.txt" "sed -n ${N}p;${N}q big.txt")"
record "peek" "a line near the end of a 256 MiB file, vs sed" 1.0
echo "lines: $n; peek $(ms "$t_peek")  sed $(ms "$t_sed")  ratio $(ratio "$t_peek" "$t_sed")"
echo

echo "== peak RSS of peek reading the last lines (goal <= 8 MiB whatever the size)"
head -c $((1024 * 1024)) big.txt > small.txt
for f in small.txt big.txt; do
  kib=$(peak_kib "$bin/peek" --lines -3: "$f")
  echo "$f ($(stat -c %s $f) bytes): $kib KiB"
  record_value peek "peak RSS, last lines of $(($(stat -c %s $f) >> 20)) MiB" "$kib" KiB "<= 8192 KiB" \
    "$([ "$kib" -le 8192 ] && echo yes || echo no)" "peek --lines -3: $f"
done

# Each tool's own section: bench/<tool>.sh, given the bin directory. (fuzz_long.sh is not a
# benchmark: an hour of fuzzing, run on its own.)
# A section that fails is named in the report, and the others still run.
failed=""
for t in seek list digest jsonq tally write run_tool mcp lookups; do
  echo
  if ! bash "$here/$t.sh" "$bin"; then
    echo "$t: FAILED"
    failed+=" $t"
    record_value "sections that failed" "bench/$t.sh" failed "" "runs to its end" no "bash bench/$t.sh"
  fi
done

python3 "$here/report.py" write "$TACK_BENCH_ROWS" "$report"
echo
echo "report: $report"
[ -z "$failed" ] || { echo "failed:$failed" >&2; exit 1; }
