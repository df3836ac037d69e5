# lib.sh — what the side-by-side benchmarks share. Sourced, never run:
#   . "$(dirname "$0")/lib.sh" NAME BIN_DIR
# sets bin (the tools) and work (a scratch directory on disk, removed at exit; TACK_BENCH_DIR
# to choose it), pins the locale, enters work, and defines timings, record, record_value,
# ratio, ms and peak_kib. With TACK_BENCH_ROWS set (make bench sets it), every recorded figure
# is appended there as one JSON line; bench/report.py turns the lines into build/bench/report.md.
bin=$(cd "${2:-build/bin}" && pwd)
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# On disk, not on a tmpfs: an fsync that costs nothing would measure the wrong thing.
work=${TACK_BENCH_DIR:-$(mktemp -d "/var/tmp/tack-bench-$1.XXXXXX")}
trap 'rm -rf "$work"' EXIT
export LC_ALL=C TACK_BENCH_BIN=$bin TACK_BENCH_WORK=$work
cd "$work"

# timings WARMUP RUNS [HYPERFINE-OPTION...] CMD...: the median seconds of each command, in the
# order given. hyperfine runs all of one command's runs before the next's; on a shared machine
# whose load drifts that biases a ratio, so the runs are taken in ten rounds (at least two runs
# a round), the commands alternating, and every run of every round is kept ($work/m.json:
# command, times). Options (--prepare per command, -i, --shell=none) pass through to hyperfine.
timings() {
  local warmup=$1 runs=$2
  shift 2
  local per=$(( runs / 10 )); [ "$per" -ge 2 ] || per=2
  local rounds=$(( (runs + per - 1) / per ))
  local files=()
  # a failing command is reported and stops the script (-i in the options times it anyway)
  if [ "$warmup" -gt 0 ]; then
    hyperfine -N --output=pipe --warmup "$warmup" --runs 1 "$@" >"$work/hf.log" 2>&1 ||
      { tail -5 "$work/hf.log" >&2; return 1; }
  fi
  for i in $(seq "$rounds"); do
    hyperfine -N --output=pipe --runs "$per" --export-json "$work/round.$i.json" "$@" >"$work/hf.log" 2>&1 ||
      { tail -5 "$work/hf.log" >&2; return 1; }
    files+=("$work/round.$i.json")
  done
  python3 "$bench_dir/report.py" gather "$work/m.json" "${files[@]}"
}

# agree KIND TACK_CMD INCUMBENT_CMD [--single]: runs the two command lines exactly as timings
# is given them and stops (returns 1, naming the difference) unless they give the same answer
# (bench/agree.py: KIND paths, lines, counts or files; NDJSON must be complete, not cut at a
# limit). Prints how many items agreed. The incumbent may exit 1 (rg, grep: no match).
agree() {
  local kind=$1 ours=$2 theirs=$3 single=${4:-} rc=0
  eval "$ours" </dev/null >"$work/agree.ours" || rc=$?
  if [ "$rc" -ne 0 ]; then echo "agree: '$ours' exited $rc" >&2; return 1; fi
  eval "$theirs" </dev/null >"$work/agree.theirs" || rc=$?
  if [ "$rc" -gt 1 ]; then echo "agree: '$theirs' exited $rc" >&2; return 1; fi
  python3 "$bench_dir/agree.py" "$kind" "$work/agree.ours" "$work/agree.theirs" $single ||
    { echo "agree: '$ours' and '$theirs' differ" >&2; return 1; }
}

# record SECTION LABEL GOAL: the last timings as a row of the report: every command's median
# and minimum, and the first command's median over the second's (GOAL: the most that ratio may
# be, e.g. 1.0; "-" for none).
record() {
  [ -n "${TACK_BENCH_ROWS:-}" ] || return 0
  python3 "$bench_dir/report.py" row "$work/m.json" "$TACK_BENCH_ROWS" "$1" "$2" "$3"
}

# record_value SECTION LABEL VALUE UNIT GOAL MET COMMAND: a figure that is not a timing (peak
# memory, bytes), with its goal in words and whether it was met (yes, no or -).
record_value() {
  [ -n "${TACK_BENCH_ROWS:-}" ] || return 0
  python3 "$bench_dir/report.py" value "$TACK_BENCH_ROWS" "$@"
}

# ratio A B [DIGITS]: A / B, to 2 decimals unless told.
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.{int(sys.argv[3])}f}')" "$1" "$2" "${3:-2}"; }
ms() { python3 -c "import sys; print(f'{float(sys.argv[1])*1000:.2f} ms')" "$1"; }
# Peak RSS in KiB of a command, taken by a launcher that is not the test runner.
# (The launcher spawns without a PATH search: the program is resolved here.)
peak_kib() {
  local prog
  prog=$(command -v "$1")
  shift
  "$bin/../support/maxrss" "$prog" "$@"
}

# linux_tree: sets tree to Debian's linux-source-6.1 unpacked once into $TACK_LINUX_DIR
# (default /var/tmp/tack-linux); the package is installed when its tarball is missing.
linux_tree() {
  local base=${TACK_LINUX_DIR:-/var/tmp/tack-linux}
  tree=$base/linux-source-6.1
  if [ ! -f "$base/.unpacked" ]; then
    local tarball=/usr/src/linux-source-6.1.tar.xz
    if [ ! -f "$tarball" ]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-source-6.1
    fi
    mkdir -p "$base"
    echo "unpacking $tarball into $base (once)" >&2
    tar -C "$base" -xf "$tarball"
    touch "$base/.unpacked"
  fi
}

# grown_tree K: prints a directory holding K copies of the tree made of hard links (the same
# bytes, cached once: what grows is the walk, the opens and the reads), made once beside it.
grown_tree() {
  local g=${TACK_LINUX_DIR:-/var/tmp/tack-linux}/grow/$1
  if [ ! -f "$g/.made" ]; then
    rm -rf "$g"
    mkdir -p "$g"
    for c in $(seq "$1"); do cp -al "$tree" "$g/c$c"; done
    touch "$g/.made"
  fi
  echo "$g"
}
