#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (address and undefined-behaviour sanitizers) and
# runs each for $1 seconds (default 10): every tests/fuzz/*_fuzz.cpp, or the target files named
# after the seconds. Crashes land in $TACK_FUZZ_OUT/crashes/ (default build-fuzz/). Exits 1 when
# any target crashed, leaked, timed out or did not build, after running all of them.
set -uo pipefail
secs=${1:-10}
shift || true
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${TACK_FUZZ_OUT:-$top/build-fuzz}
mkdir -p "$out/crashes"
if [ $# -gt 0 ]; then targets=("$@"); else targets=("$top"/tests/fuzz/*_fuzz.cpp); fi
failed=()
for target in "${targets[@]}"; do
  name=$(basename "$target" .cpp)
  # each target names the sources it needs on its first line: "// fuzz-sources: a.cpp b.cpp"
  srcs=$(head -1 "$target" | sed -n 's|^// fuzz-sources: ||p' | tr ' ' '\n' | sed "/^$/d; s|^|$top/|" | tr '\n' ' ')
  # shellcheck disable=SC2086 # srcs is a list of paths without spaces
  if ! clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I"$top/src" \
      -DTACK_VERSION='"fuzz"' "$target" $srcs -lxxhash -o "$out/$name" 2> "$out/$name.log"; then
    echo "$name: build failed"; cat "$out/$name.log"; failed+=("$name (build)"); continue
  fi
  echo "== $name ($secs s)"
  rm -f "$out/crashes/$name-"*
  # libFuzzer exits non-zero on a crash, a sanitizer report, a leak or a timeout; its log is
  # kept whole, and the lines that matter are shown.
  "$out/$name" -max_total_time="$secs" -timeout=10 -artifact_prefix="$out/crashes/$name-" \
    -print_final_stats=1 > "$out/$name.run.log" 2>&1
  status=$?
  grep -E "stat::number_of_executed_units|ERROR|SUMMARY|crash-|leak-|timeout-" "$out/$name.run.log"
  artifacts=$(find "$out/crashes" -maxdepth 1 -name "$name-*" | wc -l)
  if [ "$status" -ne 0 ] || [ "$artifacts" -ne 0 ]; then
    echo "$name: FAILED (exit $status, $artifacts artifact(s) in $out/crashes; log $out/$name.run.log)"
    failed+=("$name")
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#targets[@]} target(s), no crash"
