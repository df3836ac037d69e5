#!/usr/bin/env bash
# seek vs ripgrep, side by side: hyperfine -N, interleaved, warm cache, output through a pipe
# (rg, like grep, stops at the first match when its output is /dev/null), locale pinned.
# Reported as seek's time over rg's, medians of alternating runs (goal <= 1.0, stretch 0.8).
#
# $1: the bin directory. The tree is Debian's linux-source-6.1, unpacked once into
# $TACK_LINUX_DIR (default /var/tmp/tack-linux, where bench/list.sh looks for it too); the
# package is installed when the tarball is missing.
#
# Settings are the same on both sides: --no-ignore (Debian's tarball ends its .gitignore with
# `/*`, which ignores the whole tree, and rg outside a git repository would read no
# .gitignore anyway), hidden files skipped, binary files skipped (rg's default; seek's: a
# NUL in the first 8 KiB), two threads (rg's default on this machine; seek uses every core),
# line numbers on. seek writes NDJSON records (path, line, offset, spans, text) where rg -n
# writes path:line:text; `seek --format text` is shown as well.
set -euo pipefail
bin=$(cd "${1:-build/bin}" && pwd)
export LC_ALL=C
base=${TACK_LINUX_DIR:-/var/tmp/tack-linux}
tree=$base/linux-source-6.1
runs=${TACK_BENCH_RUNS:-10}

if [ ! -f "$base/.unpacked" ]; then
  tarball=/usr/src/linux-source-6.1.tar.xz
  if [ ! -f "$tarball" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-source-6.1
  fi
  mkdir -p "$base"
  echo "unpacking $tarball into $base (once)"
  tar -C "$base" -xf "$tarball"
  touch "$base/.unpacked"
fi

work=$(mktemp -d /var/tmp/tack-bench-seek.XXXXXX)
trap 'rm -rf "$work"' EXIT

# median seconds of each command, in the order given. hyperfine runs all of one command's
# runs before the next's; on a shared machine whose load drifts that biases a ratio, so the
# runs are taken in rounds of two per command, alternating, and the median of all is kept.
timings() {
  local json=$work/h.json all=$work/all.txt
  : > "$all"
  hyperfine -N --output=pipe --warmup 1 --runs 1 "$@" >/dev/null 2>&1
  for _ in $(seq $(( (runs + 1) / 2 ))); do
    hyperfine -N --output=pipe --runs 2 --export-json "$json" "$@" >/dev/null 2>&1
    python3 -c 'import json,sys; print(json.dumps([r["times"] for r in json.load(open(sys.argv[1]))["results"]]))' "$json" >> "$all"
  done
  python3 - "$all" <<'PY'
import json, statistics, sys
rounds = [json.loads(l) for l in open(sys.argv[1])]
print(" ".join(str(statistics.median(t for r in rounds for t in r[i])) for i in range(len(rounds[0]))))
PY
}
line() {  # label, seek seconds, rg seconds, seek-text seconds
  python3 -c '
import sys
label, s, r, t = sys.argv[1], *map(float, sys.argv[2:5])
print(f"{label:<32} seek {s*1000:8.1f} ms   rg {r*1000:8.1f} ms   ratio {s/r:5.2f}   (text {t*1000:8.1f} ms, {t/r:5.2f})")
' "$@"
}

seek="$bin/seek --no-ignore --max-count 100000000"
echo "seek vs ripgrep $(rg --version | sed -n '1s/ripgrep //p') ($(uname -r), $(nproc) cores)"
echo "tree: $tree ($(find "$tree" -type f | wc -l) files, $(du -sh "$tree" | cut -f1))"
cd "$tree"
cat $(find . -type f -name '*.c' | head -2000) >/dev/null  # warm the cache
echo

set -f  # patterns are not globs here
# label | seek's pattern arguments | rg's (hyperfine -N splits them like a shell: quoted)
cases=(
  "literal PM_RESUME|PM_RESUME|PM_RESUME"
  "-i PM_RESUME|-i PM_RESUME|-i PM_RESUME"
  "regex [A-Z]+_RESUME|--regex '[A-Z]+_RESUME'|'[A-Z]+_RESUME'"
  "regex \w{5}\s+\w{5}\s+\w{5}|--regex '\w{5}\s+\w{5}\s+\w{5}'|'\w{5}\s+\w{5}\s+\w{5}'"
  # rg's \w and \s are Unicode, RE2's ASCII: the same lines need rg's ASCII classes
  "  same, rg with ASCII classes|--regex '\w{5}\s+\w{5}\s+\w{5}'|'(?-u:\w{5}\s+\w{5}\s+\w{5})'"
)
for c in "${cases[@]}"; do
  IFS='|' read -r label sargs rargs <<< "$c"
  # the same lines on both sides, or the timing means nothing
  ns=$(eval "$seek $sargs" | grep -c '"type":"match"' || true)
  nr=$(eval "rg --no-ignore -n $rargs" | wc -l)
  read -r s r t <<< "$(timings "$seek $sargs" "rg --no-ignore -n $rargs" "$seek --format text $sargs")"
  line "$label" "$s" "$r" "$t"
  echo "    seek --no-ignore --max-count 100000000 $sargs  |  rg --no-ignore -n $rargs  ($ns / $nr lines)"
done
echo

echo "== counts, file lists and several patterns (a count must cost no more than the lines)"
cases=(
  "count PM_RESUME|-c PM_RESUME|-c PM_RESUME"
  "files with PM_RESUME|-l PM_RESUME|-l PM_RESUME"
  "count 3 patterns|-c -e PM_RESUME -e PM_SUSPEND -e pm_runtime|-c -e PM_RESUME -e PM_SUSPEND -e pm_runtime"
)
for c in "${cases[@]}"; do
  IFS='|' read -r label sargs rargs <<< "$c"
  read -r s r t <<< "$(timings "$seek $sargs" "rg --no-ignore $rargs" "$seek --format text $sargs")"
  line "$label" "$s" "$r" "$t"
  echo "    seek --no-ignore --max-count 100000000 $sargs  |  rg --no-ignore $rargs"
done
echo

echo "== one 64 MiB file, about a million matching lines"
python3 - "$work/big.txt" <<'PY'
import sys
line = b"%07d some words around the needle and a few more words after it\n"
with open(sys.argv[1], "wb") as f:
    n = 0
    while f.tell() < 64 * 1024 * 1024:
        f.write(line % n)
        n += 1
PY
echo "lines: $(wc -l < "$work/big.txt"), matching: $(rg -c needle "$work/big.txt")"
read -r s r t <<< "$(timings "$seek needle $work/big.txt" "rg --no-ignore -n needle $work/big.txt" "$seek --format text needle $work/big.txt")"
line "literal needle, 64 MiB" "$s" "$r" "$t"
echo "    seek --no-ignore --max-count 100000000 needle big.txt   |   rg --no-ignore -n needle big.txt"
read -r s r t <<< "$(timings "$seek -c needle $work/big.txt" "rg --no-ignore -c needle $work/big.txt" "$seek --format text -c needle $work/big.txt")"
line "count needle, 64 MiB" "$s" "$r" "$t"
echo "    seek --no-ignore --max-count 100000000 -c needle big.txt   |   rg --no-ignore -c needle big.txt"
echo
echo "peak RSS (KiB) of seek on the 64 MiB file: $("$bin/../support/maxrss" "$bin/seek" --max-count 100000000 needle "$work/big.txt")"
