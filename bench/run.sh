#!/usr/bin/env bash
# Side-by-side benchmarks: each tool against its incumbent on the same input, in one run,
# interleaved by hyperfine, output through a pipe, locale pinned; reported as ratios.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh" all "${1:-build/bin}"

echo "tack benchmarks ($(uname -r), $(nproc) cores)"
echo

echo "== startup: each tool on a one-line input vs /usr/bin/true, medians of 300 (goal <= 1.5x)"
echo "hello" > one.txt
echo '{"a":1}' > one.json
mkdir -p onedir && echo "hello" > onedir/one.txt
startup() {  # label, command (a dry run exits 9, so failures do not stop the timing)
  hyperfine -N -i --output=pipe --warmup 30 --runs 300 --export-json "$work/h.json" "$2" /usr/bin/true >/dev/null 2>&1
  read -r t_tool t_true <<< "$(medians)"
  echo "$1 $(ms "$t_tool")  true $(ms "$t_true")  ratio $(ratio "$t_tool" "$t_true")"
}
startup peek "$bin/peek one.txt"
startup seek "$bin/seek hello one.txt"
startup list "$bin/list onedir"
startup digest "$bin/digest one.txt"
startup jsonq "$bin/jsonq --pointer /a one.json"
# jsonq links Debian's shared simdjson (no static archive exists), so it pays the dynamic
# loader and libstdc++'s start-up; a program that does nothing but link simdjson shows that floor.
startup "  (floor: a no-op linked to simdjson)" "$bin/../support/simdjson_floor"
startup tally "$bin/tally one.txt"
startup skills "$bin/skills onedir"
startup write "$bin/write --dry-run --create --content-file one.txt new.txt"
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
echo "lines: $n; peek $(ms "$t_peek")  sed $(ms "$t_sed")  ratio $(ratio "$t_peek" "$t_sed")"
echo

echo "== peak RSS of peek reading the last lines (goal <= 8 MiB whatever the size)"
head -c $((1024 * 1024)) big.txt > small.txt
for f in small.txt big.txt; do
  echo "$f ($(stat -c %s $f) bytes): $(peak_kib "$bin/peek" --lines -3: "$f") KiB"
done

# Each tool's own section: bench/<tool>.sh, given the bin directory. (fuzz_long.sh is not a
# benchmark: an hour of fuzzing, run on its own.)
for t in seek list digest jsonq tally write run_tool mcp lookups; do
  echo
  bash "$here/$t.sh" "$bin"
done
