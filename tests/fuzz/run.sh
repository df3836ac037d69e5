#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (address and undefined-behaviour sanitizers) and
# runs each for $1 seconds (default 10); further arguments name the targets to run, by name
# (tests/fuzz/NAME.cpp) or as a file (default: every tests/fuzz/*_fuzz.cpp). A target names the
# sources it needs on its first line ("// fuzz-sources: a.cpp b.cpp"), and may name libraries
# ("// fuzz-libs: -lx") and libFuzzer options ("// fuzz-options: -max_len=N") on the lines
# after. A target with a corpus checked in (tests/fuzz/corpus/NAME) starts from it; what a run
# adds goes to $TACK_FUZZ_OUT/corpus/NAME, never into the tree. The tools' catalogue
# (generated/mcp_catalog.inc) comes from the build (TACK_BUILD, default build/). Crashes land in
# $TACK_FUZZ_OUT/crashes/ (default build-fuzz/). Exits 1 when any target crashed, leaked, timed
# out or did not build, after running all of them.
set -uo pipefail
secs=${1:-10}
shift || true
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${TACK_BUILD:-$top/build}
out=${TACK_FUZZ_OUT:-$top/build-fuzz}
mkdir -p "$out/crashes"
if [ $# -gt 0 ]; then
  targets=()
  for n in "$@"; do
    case "$n" in
      */* | *.cpp) targets+=("$n") ;;
      *) targets+=("$top/tests/fuzz/$n.cpp") ;;
    esac
  done
else
  targets=("$top"/tests/fuzz/*_fuzz.cpp)
fi
header() {  # header FILE KEY: the value of "// KEY: ..." among the file's first lines
  head -5 "$1" | sed -n "s|^// $2: ||p"
}
failed=()
for target in "${targets[@]}"; do
  name=$(basename "$target" .cpp)
  [ -f "$target" ] || { echo "$name: no such target"; failed+=("$name (missing)"); continue; }
  srcs=$(header "$target" fuzz-sources | tr ' ' '\n' | sed '/^$/d' | sed "s|^|$top/|" | tr '\n' ' ')
  libs=$(header "$target" fuzz-libs)
  opts=$(header "$target" fuzz-options)
  # Rebuilt when the target, a source it names, a header beneath src/ or mcp/ or the catalogue
  # is newer than the binary.
  # shellcheck disable=SC2086
  if [ ! -x "$out/$name" ] || [ -n "$( (find "$target" $srcs "$build/generated/mcp_catalog.inc" -newer "$out/$name";
        find "$top/src" "$top/mcp" -name '*.h' -newer "$out/$name") 2>/dev/null | head -1)" ]; then
    # shellcheck disable=SC2086
    if ! clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        -I"$top/src" -I"$top" -I"$build/generated" -DTACK_VERSION='"fuzz"' "$target" $srcs -lxxhash $libs \
        -o "$out/$name" 2> "$out/$name.log"; then
      echo "$name: build failed"; cat "$out/$name.log"; failed+=("$name (build)"); continue
    fi
  fi
  mkdir -p "$out/corpus/$name"
  seeds=()
  [ -d "$top/tests/fuzz/corpus/$name" ] && seeds=("$top/tests/fuzz/corpus/$name")
  echo "== $name ($secs s)"
  rm -f "$out/crashes/$name-"*
  # libFuzzer exits non-zero on a crash, a sanitizer report, a leak or a timeout; its log is
  # kept whole, and the lines that matter are shown. An artifact left behind fails it too.
  # shellcheck disable=SC2086
  "$out/$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 $opts \
    -artifact_prefix="$out/crashes/$name-" -print_final_stats=1 "$out/corpus/$name" "${seeds[@]}" \
    > "$out/$name.run.log" 2>&1
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
