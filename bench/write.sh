#!/usr/bin/env bash
# The tools that change files against their incumbent, side by side in one hyperfine run each
# (interleaved, output through a pipe, locale pinned), reported as ratios. The incumbent is
# `cp` + `sync FILE` of the very bytes the tool stores, on the same filesystem: both leave the
# bytes durable. (`sync FILE` is coreutils' fsync of that one file, not a filesystem-wide sync:
# under strace it is openat + fsync.) The tools also hash the old file under a lock, compute
# the diff, fsync the directory and rename atomically.
#
#  1. write --if-sha256, replacing a 1 MiB text file (every 100th line changed). Goal <= 1.2x.
#     cp opens the existing file with O_TRUNC, which on ext4 starts the data's writeback at
#     close (auto_da_alloc), while `sync` is still being started: the incumbent's fsync then
#     finds little left to do.
#  2. write --create of the same 1 MiB, against cp to a new name + sync.
#  3. The replace of 1 as a dry run (read, hash, diff; no fsync) against cat of the file.
#  4. replace of one string in a 10 MiB file against cp of the replaced bytes + sync.
#  5. Peak RSS: the 1 MiB write, and replace in 10 and 100 MiB files.
# Usage: bench/write.sh BIN_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh" write "${1:-build/bin}"

echo "write/replace benchmarks ($(uname -r), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $(df -T . | awk 'NR==2{print $2}'))"
echo

# 1 MiB of text, and the same with every 100th line changed: the edit an agent makes.
# (Files, not pipes, into head: under pipefail a writer cut short by head would fail the script.)
awk 'BEGIN { for (i = 1; i <= 40000; i++) printf "line %d of the tack write benchmark, some words\n", i }' > gen.txt
head -c 1048576 gen.txt > old.txt
awk 'NR % 100 == 0 { print "changed: " $0; next } { print }' old.txt > gen.txt
head -c 1048576 gen.txt > new.txt
old_hash=$(sha256sum old.txt | cut -c1-64)

# The answers agree before anything is timed: write stores exactly the bytes cp does.
cp old.txt by_write.txt
"$bin/write" --root . --if-sha256 "$old_hash" --content-file new.txt by_write.txt > /dev/null
cmp -s new.txt by_write.txt || { echo "write did not store the new bytes" >&2; exit 1; }

# durable LABEL TOOL_CMD TOOL_PREPARE CP_CMD CP_PREPARE WARMUP RUNS: one interleaved hyperfine
# run of the tool against cp + sync, each after its own --prepare; prints times and the ratio.
durable() {
  hyperfine -N --output=pipe --warmup "$6" --runs "$7" --export-json h.json \
    --prepare "$3" "$2" --prepare "$5" "$4" >/dev/null 2>&1
  local t_tool t_cp
  read -r t_tool t_cp <<< "$(means)"
  echo "$1 $(ms "$t_tool")  cp+sync $(ms "$t_cp")  ratio $(ratio "$t_tool" "$t_cp")"
  echo
}

# Each timed run replaces old content with new: --prepare puts the old bytes back (a new inode
# for write, so neither command inherits the other's dirty pages).
echo "== 1. replace 1 MiB, durable: write --if-sha256 vs cp + sync FILE (goal <= 1.2x)"
durable write "$bin/write --root . --if-sha256 $old_hash --content-file new.txt by_write.txt" \
  "cp old.txt by_write.txt" "sh -c 'cp new.txt by_cp.txt && sync by_cp.txt'" "cp old.txt by_cp.txt" 3 40

echo "== 2. create 1 MiB, durable: write --create vs cp to a new name + sync FILE"
durable "write --create" "$bin/write --root . --create --content-file new.txt created.txt" \
  "rm -f created.txt" "sh -c 'cp new.txt by_cp_new.txt && sync by_cp_new.txt'" "rm -f by_cp_new.txt" 3 40

echo "== 3. the replace of 1 as a dry run (read, hash, diff; no fsync) vs cat of the file"
cp old.txt dry.txt
# -i: a completed dry run exits 9 by contract.
hyperfine -N -i --output=pipe --warmup 3 --runs 30 --export-json h.json \
  "$bin/write --root . --dry-run --if-sha256 $old_hash --content-file new.txt dry.txt" \
  "cat new.txt" >/dev/null 2>&1
read -r t_dry t_cat <<< "$(means)"
echo "write --dry-run $(ms "$t_dry")  cat $(ms "$t_cat")  ratio $(ratio "$t_dry" "$t_cat")"
echo

# 10 MiB of lines with one unique string in the middle; the incumbent stores the replaced
# bytes, made once beforehand by the tool itself (and checked against sed).
python3 - <<'EOF'
size = 10 << 20
out = bytearray()
i = 0
while len(out) < size:
    out += b"line %08d of the replace benchmark, some words to fill it\n" % i
    i += 1
out = out[:size]
mid = len(out) // 2
out[mid:mid + 13] = b"NEEDLE_UNIQUE"
open("big.txt", "wb").write(bytes(out))
EOF
cp big.txt big_new.txt
"$bin/replace" --root . --old NEEDLE_UNIQUE --new NEEDLE_CHANGED big_new.txt > /dev/null
sed 's/NEEDLE_UNIQUE/NEEDLE_CHANGED/' big.txt | cmp -s - big_new.txt ||
  { echo "replace did not store the replaced bytes" >&2; exit 1; }
echo "== 4. replace one string in 10 MiB, durable: replace vs cp of the result + sync FILE"
durable replace "$bin/replace --root . --old NEEDLE_UNIQUE --new NEEDLE_CHANGED by_replace.txt" \
  "cp big.txt by_replace.txt" "sh -c 'cp big_new.txt by_cp_big.txt && sync by_cp_big.txt'" \
  "cp big.txt by_cp_big.txt" 2 20

echo "== 5. peak RSS"
cp old.txt rss.txt
echo "write 1 MiB: $("$bin/../support/maxrss" "$bin/write" --root . --if-sha256 "$old_hash" --content-file new.txt rss.txt) KiB"
cp big.txt rss_big.txt
echo "replace in 10 MiB: $("$bin/../support/maxrss" "$bin/replace" --root . --old NEEDLE_UNIQUE --new NEEDLE_CHANGED rss_big.txt) KiB"
for _ in 1 2 3 4 5 6 7 8 9 10; do cat big.txt; done > huge.txt
echo "replace in 100 MiB: $("$bin/../support/maxrss" "$bin/replace" --root . --max-bytes 268435456 --all --old NEEDLE_UNIQUE --new NEEDLE_CHANGED huge.txt) KiB"
