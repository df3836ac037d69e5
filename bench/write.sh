#!/usr/bin/env bash
# write against its incumbent, side by side in one hyperfine run (interleaved, output through a
# pipe, locale pinned), reported as a ratio: replacing a 1 MiB text file (every 100th line
# changed) with `write --if-sha256 … --content-file` against `cp` + `sync FILE` of the same
# bytes. Both make the bytes durable; write also hashes the old file under a lock, computes the
# diff, fsyncs the directory and renames atomically. fsync dominates both. Goal: <= 1.2x.
# Also: the same replace with --dry-run (no fsync: the cost of hashing and diffing alone), and
# peak RSS of the write.
# Usage: bench/write.sh BIN_DIR
set -euo pipefail
bin=$(cd "${1:-build/bin}" && pwd)
# On disk, not on a tmpfs: an fsync that costs nothing would measure the wrong thing.
work=${TACK_BENCH_DIR:-$(mktemp -d /var/tmp/tack-bench-write.XXXXXX)}
trap 'rm -rf "$work"' EXIT
export LC_ALL=C
cd "$work"

ratio() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}')" "$1" "$2"; }
ms() { python3 -c "import sys; print(f'{float(sys.argv[1])*1000:.2f} ms')" "$1"; }

echo "write benchmarks ($(uname -r), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $(df -T . | awk 'NR==2{print $2}'))"
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

# Each timed run replaces old content with new: --prepare puts the old bytes back (a new inode
# for write, so neither command inherits the other's dirty pages).
echo "== replace 1 MiB, durable: write vs cp + sync FILE (goal <= 1.2x)"
hyperfine -N --output=pipe --warmup 3 --runs 40 --export-json h.json \
  --prepare "cp old.txt by_write.txt" \
  "$bin/write --root . --if-sha256 $old_hash --content-file new.txt by_write.txt" \
  --prepare "cp old.txt by_cp.txt" \
  "sh -c 'cp new.txt by_cp.txt && sync by_cp.txt'" >/dev/null 2>&1
read -r t_write t_cp <<< "$(python3 -c 'import json; print(" ".join(str(r["mean"]) for r in json.load(open("h.json"))["results"]))')"
echo "write $(ms "$t_write")  cp+sync $(ms "$t_cp")  ratio $(ratio "$t_write" "$t_cp")"
echo

echo "== the same replace as a dry run (hash + diff, no fsync) vs cat of the file"
cp old.txt dry.txt
# -i: a completed dry run exits 9 by contract.
hyperfine -N -i --output=pipe --warmup 3 --runs 30 --export-json h.json \
  "$bin/write --root . --dry-run --if-sha256 $old_hash --content-file new.txt dry.txt" \
  "cat new.txt" >/dev/null 2>&1
read -r t_dry t_cat <<< "$(python3 -c 'import json; print(" ".join(str(r["mean"]) for r in json.load(open("h.json"))["results"]))')"
echo "write --dry-run $(ms "$t_dry")  cat $(ms "$t_cat")  ratio $(ratio "$t_dry" "$t_cat")"
echo

echo "== peak RSS of the 1 MiB replace"
cp old.txt rss.txt
echo "write $("$bin/../support/maxrss" "$bin/write" --root . --if-sha256 "$old_hash" --content-file new.txt rss.txt) KiB"
