#!/usr/bin/env bash
# list against find, and list --find against `fd | fzf --filter`, on the kernel tree (Debian's
# linux-source-6.1, unpacked by bench/lib.sh's linux_tree), side by side in one hyperfine run
# per case (-N, alternating rounds, output through a pipe, locale pinned), as ratios.
#
#  1. the whole tree: `list --depth 64 --hidden --no-ignore` against `find .` (goal <= 1.0)
#  2. ranking by a fuzzy query: `list --find Q --no-ignore` against
#     `fdfind --no-ignore --type f . | fzf --filter Q` (goal <= 1.0)
# Before each timing the very command lines timed are run once and must give the same paths
# (bench/agree.py), list's answer complete and not cut at --max-entries; a difference stops
# the script, since a timing of two different answers means nothing.
#  3. growth: the tree linked 1x, 2x and 4x (directories only, so no answer is cut at
#     --max-entries' ceiling): time and peak RSS of list and find
# Usage: bench/list.sh BIN_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh" list "${1:-build/bin}"
linux_tree
runs=${TACK_BENCH_RUNS:-10}
# every answer whole: the byte budget at its ceiling (the default, 64 KiB, cuts a tree's listing)
list="$bin/list --no-ignore --max-entries 100000 --max-bytes 16777216"
cd "$tree"
echo "list benchmarks: $tree ($(find . | wc -l) entries), $(nproc) cores"
echo

echo "== 1. the whole tree: list vs find . (goal <= 1.0x)"
n=$(agree paths "$list --depth 64 --hidden ." "find .")
echo "($n paths, the same in both)"
read -r l f <<< "$(timings 2 "$runs" "$list --depth 64 --hidden ." "find .")"
record "list (goal <= 1.0x the incumbent)" "the whole tree vs find (NDJSON: kind and depth too)" 1.0
echo "list $(ms "$l")  find $(ms "$f")  ratio $(ratio "$l" "$f")"
agree paths "$list --depth 64 --hidden --format text ." "find ." >/dev/null
read -r l f <<< "$(timings 2 "$runs" "$list --depth 64 --hidden --format text ." "find .")"
record "list (goal <= 1.0x the incumbent)" "the whole tree vs find, --format text (a path a line)" 1.0
echo "list --format text $(ms "$l")  find $(ms "$f")  ratio $(ratio "$l" "$f")"
echo

echo "== 2. list --find vs fdfind | fzf --filter (goal <= 1.0x)"
if command -v fdfind >/dev/null && command -v fzf >/dev/null; then
  for q in usbserial pmruntime drvnetethintel; do
    a=$(agree paths "$list --find $q" "sh -c 'fdfind --no-ignore --type f . | fzf --filter $q'")
    read -r l f <<< "$(timings 2 "$runs" "$list --find $q" "sh -c 'fdfind --no-ignore --type f . | fzf --filter $q'")"
    record "list (goal <= 1.0x the incumbent)" "--find $q vs fd | fzf --filter ($a paths)" 1.0
    echo "$q: list $(ms "$l")  fd|fzf $(ms "$f")  ratio $(ratio "$l" "$f")"
  done
else
  echo "fdfind or fzf is not installed; skipped"
fi
echo

echo "== 3. growth: directories of the tree linked 1x, 2x, 4x (goal: time x copies, memory flat)"
l1=""
for k in 1 2 4; do
  g=$(grown_tree "$k")
  agree paths "$list --depth 64 --kind directory $g" "find $g -mindepth 1 -type d" >/dev/null
  read -r l f <<< "$(timings 1 "$runs" "$list --depth 64 --kind directory $g" "find $g -mindepth 1 -type d")"
  record "list: growth (goal: time x copies, memory flat)" "${k}x the tree, directories" -
  [ -n "$l1" ] || l1="$l $f"
  read -r a1 b1 <<< "$l1"
  ml=$(peak_kib "$bin/list" --no-ignore --max-entries 100000 --max-bytes 16777216 --depth 64 --kind directory "$g")
  mf=$(peak_kib find "$g" -mindepth 1 -type d)
  echo "${k}x: list $(ms "$l") ($(ratio "$l" "$a1")x of 1x, $ml KiB)  find $(ms "$f") ($(ratio "$f" "$b1")x, $mf KiB)  ratio $(ratio "$l" "$f")"
  record_value "list: growth (goal: time x copies, memory flat)" "${k}x: list time over 1x" \
    "$(ratio "$l" "$a1")" x "$k" - "list --depth 64 --kind directory TREE_${k}x"
  record_value "list: growth (goal: time x copies, memory flat)" "${k}x: peak RSS list / find" \
    "$ml / $mf" KiB flat - "list --depth 64 --kind directory TREE_${k}x"
done
