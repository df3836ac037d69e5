# lib.sh — what the side-by-side benchmarks share. Sourced, never run:
#   . "$(dirname "$0")/lib.sh" NAME BIN_DIR
# sets bin (the tools) and work (a scratch directory on disk, removed at exit; TACK_BENCH_DIR
# to choose it), pins the locale, enters work, and defines timings, ratio, ms and peak_kib.
bin=$(cd "${2:-build/bin}" && pwd)
# On disk, not on a tmpfs: an fsync that costs nothing would measure the wrong thing.
work=${TACK_BENCH_DIR:-$(mktemp -d "/var/tmp/tack-bench-$1.XXXXXX")}
trap 'rm -rf "$work"' EXIT
export LC_ALL=C
cd "$work"

# timings WARMUP RUNS CMD...: the mean seconds of each command, in the order given, from one
# hyperfine run (interleaved, output through a pipe).
timings() {
  hyperfine -N --output=pipe --warmup "$1" --runs "$2" --export-json "$work/h.json" "${@:3}" >/dev/null 2>&1
  means
}
# The means of the last hyperfine --export-json "$work/h.json", in its order.
means() {
  python3 -c 'import json,sys; print(" ".join(str(r["mean"]) for r in json.load(open(sys.argv[1]))["results"]))' "$work/h.json"
}
# The medians of the same: a start-up of a few milliseconds has a long tail on a shared machine.
medians() {
  python3 -c 'import json,sys; print(" ".join(str(r["median"]) for r in json.load(open(sys.argv[1]))["results"]))' "$work/h.json"
}
# ratio A B [DIGITS]: A / B, to 2 decimals unless told.
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.{int(sys.argv[3])}f}')" "$1" "$2" "${3:-2}"; }
ms() { python3 -c "import sys; print(f'{float(sys.argv[1])*1000:.2f} ms')" "$1"; }
# Peak RSS in KiB of a command, taken by a launcher that is not the test runner.
peak_kib() { "$bin/../support/maxrss" "$@"; }
