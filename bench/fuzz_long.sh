#!/usr/bin/env bash
# The black-box fuzzer (tests/conformance/test_m4_fuzz.py) run long: TACK_FUZZ_CASES cases per
# tool, the tools spread over parallel pytest processes (xargs -P), each with its own seed
# stream (TACK_FUZZ_SEED) and its own tmp dir. The binaries are copied first to a private
# directory so a rebuild elsewhere cannot swap them mid-run.
#
#   bash bench/fuzz_long.sh [BIN_DIR]
#   TACK_FUZZ_CASES=10000 TACK_FUZZ_JOBS=2 TACK_FUZZ_TOOLS="peek list" bash bench/fuzz_long.sh
#
# The default, 10000 cases over each of the built tools (11 today), is 110,000 cases.
# Per-tool logs and a summary (cases, seconds, failures) land in $TACK_FUZZ_OUT
# (default: a fresh /var/tmp/tack-fuzz.XXXXXX); the exit status is non-zero when any tool failed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src_bin=$(cd "${1:-$top/build/bin}" && pwd)
cases=${TACK_FUZZ_CASES:-10000}
jobs=${TACK_FUZZ_JOBS:-$(nproc)}
seed=${TACK_FUZZ_SEED:-$(date +%s)}
out=${TACK_FUZZ_OUT:-$(mktemp -d /var/tmp/tack-fuzz.XXXXXX)}
mkdir -p "$out/bin"
cp -p "$src_bin"/* "$out/bin/"
tools=${TACK_FUZZ_TOOLS:-$(cd "$top" && /usr/bin/python3 -c \
  'import sys; sys.path.insert(0, "tests/conformance"); import tack; print(" ".join(tack.expected_tools()))')}

echo "fuzz_long: $cases cases per tool, tools: $tools, $jobs jobs, seed $seed, out $out"
export top out cases seed
# One tool: its own pytest process, exact parametrization id, its own basetemp.
one() {
  local tool=$1 t0 t1 rc
  t0=$(date +%s)
  (cd "$top" && TACK_BIN="$out/bin" TACK_FUZZ_CASES="$cases" TACK_FUZZ_SEED="$seed" \
     timeout "${TACK_FUZZ_DEADLINE:-86400}" \
     /usr/bin/python3 -m pytest -q -p no:cacheprovider --basetemp="$out/tmp-$tool" \
       "tests/conformance/test_m4_fuzz.py::test_random_invocations_keep_the_contract[$tool]" \
       > "$out/$tool.log" 2>&1)
  rc=$?
  t1=$(date +%s)
  rm -rf "$out/tmp-$tool"
  local verdict=passed
  [ $rc -ne 0 ] && verdict="FAILED(rc=$rc)"
  echo "$tool $cases cases $((t1 - t0)) s $verdict" | tee -a "$out/summary.txt"
}
export -f one
: > "$out/summary.txt"
start=$(date +%s)
printf '%s\n' $tools | xargs -P "$jobs" -I{} bash -c 'one "$@"' _ {}
end=$(date +%s)
n=$(wc -w <<< "$tools")
failed=$(grep -c FAILED "$out/summary.txt")
echo "fuzz_long: $((n * cases)) cases over $n tools in $((end - start)) s, $failed tool(s) failed; logs in $out"
for t in $tools; do
  grep -q "$t .*FAILED" "$out/summary.txt" && { echo "--- $t"; grep -E "^case |cases broke" "$out/$t.log" | head -20; }
done
[ "$failed" -eq 0 ]
