#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (address and undefined-behaviour sanitizers) and
# runs each for $1 seconds (default 10). Crashes land in build-fuzz/crashes/.
set -euo pipefail
secs=${1:-10}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build-fuzz
mkdir -p "$out/crashes"
for target in "$top"/tests/fuzz/*_fuzz.cpp; do
  name=$(basename "$target" .cpp)
  # each target names the sources it needs on its first line: "// fuzz-sources: a.cpp b.cpp"
  srcs=$(head -1 "$target" | sed -n 's|^// fuzz-sources: ||p' | tr ' ' '\n' | sed "s|^|$top/|" | tr '\n' ' ')
  clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I"$top/src" \
    -DTACK_VERSION='"fuzz"' "$target" $srcs -lxxhash -o "$out/$name" 2> "$out/$name.log" ||
    { echo "$name: build failed"; cat "$out/$name.log"; exit 1; }
  echo "== $name ($secs s)"
  "$out/$name" -max_total_time="$secs" -timeout=10 -artifact_prefix="$out/crashes/$name-" -print_final_stats=1 \
    2>&1 | grep -E "stat::number_of_executed_units|ERROR|crash-" || true
done
