#!/usr/bin/env bash
# digest against its incumbents, side by side in one hyperfine run each (interleaved, output
# through a pipe, locale pinned), reported as ratios:
#  - a 256 MiB file against `openssl dgst` (and sha256sum/sha512sum beside it);
#  - the kernel tree's .c files (about 32k, 600 MB, warm cache). digest has no directory walk
#    of its own, so it is given the file list the way sha256sum is, by find and xargs; xargs
#    runs sha256sum on every core (-P$(nproc)) and digest one batch after another, each batch
#    hashed on every core by digest itself;
#  - --check over the same files' list against `sha256sum -c` (single-threaded: coreutils
#    has no parallel check);
#  - start-up against /usr/bin/true;
#  - peak RSS at 1, 64 and 256 MiB, and over the tree's files (flat: the pool's window and a
#    buffer a thread, never the number of files).
# Usage: bench/digest.sh BIN_DIR. The tree is the one bench/seek.sh unpacks
# ($TACK_LINUX, default /var/tmp/tack-linux/linux-source-6.1); without it its cases are skipped.
set -euo pipefail
. "$(dirname "$0")/lib.sh" digest "${1:-build/bin}"
tree=${TACK_LINUX:-/var/tmp/tack-linux/linux-source-6.1}
section=digest

echo "digest benchmarks ($(uname -r), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
echo
head -c $((256 * 1024 * 1024)) /dev/urandom > big.bin
# the answers agree before anything is timed
want=$(sha256sum big.bin | cut -c1-64)
got=$("$bin/digest" --format text big.bin | cut -c1-64)
[ "$want" = "$got" ] || { echo "digest disagrees with sha256sum" >&2; exit 1; }

for algo in sha256 sha512; do
  echo "== 256 MiB file, $algo: digest vs openssl dgst -$algo (goal <= 1.05x) and ${algo}sum"
  read -r t_d t_o t_s <<< "$(timings 2 10 "$bin/digest --algo $algo big.bin" \
    "openssl dgst -$algo big.bin" "${algo}sum big.bin")"
  record $section "256 MiB file, $algo, vs openssl dgst" 1.05
  echo "digest $(ms "$t_d")  openssl $(ms "$t_o")  ${algo}sum $(ms "$t_s")"
  echo "ratio vs openssl $(ratio "$t_d" "$t_o")  vs ${algo}sum $(ratio "$t_d" "$t_s")"
  echo
done

if [ -d "$tree" ]; then
  cores=$(nproc)
  cd "$tree"  # read only: every file this script writes is under $work
  find . -name '*.c' -print0 | xargs -0 cat > /dev/null  # warm the cache
  files=$(find . -name '*.c' | wc -l)
  find . -name '*.c' -print0 | xargs -0 sha256sum > "$work/SUMS"
  # Over the tree the byte budget is at its ceiling (16 MiB): the default, 64 KiB, would cut
  # the answer after a few hundred files.
  # the same answers: digest's text is sha256sum's lines, but for the names, which digest
  # gives in their normal form (no leading ./); sorted, as xargs -P interleaves its batches
  if ! cmp -s <(find . -name '*.c' -print0 | xargs -0 "$bin/digest" --max-bytes 16777216 --format text | sort) \
              <(sed 's|  \./|  |' "$work/SUMS" | sort); then
    echo "digest disagrees with sha256sum on the tree" >&2; exit 1
  fi
  "$bin/digest" --max-bytes 16777216 --format text --check "$work/SUMS" | cmp -s - <(sha256sum -c "$work/SUMS") ||
    { echo "digest --check disagrees with sha256sum -c" >&2; exit 1; }

  echo "== $files .c files of $tree: find | xargs -0 digest vs find | xargs -0 -P$cores sha256sum (goal <= 1.0x)"
  read -r t_d t_s <<< "$(timings 1 10 \
    "sh -c 'find . -name \"*.c\" -print0 | xargs -0 $bin/digest --max-bytes 16777216'" \
    "sh -c 'find . -name \"*.c\" -print0 | xargs -0 -P$cores sha256sum'")"
  record $section "the kernel's $files .c files, find | xargs, vs xargs -P$cores sha256sum" 1.0
  echo "digest $(ms "$t_d")  sha256sum -P$cores $(ms "$t_s")  ratio $(ratio "$t_d" "$t_s")"
  echo

  echo "== --check over the same $files files vs sha256sum -c (goal <= 1.0x)"
  read -r t_d t_s <<< "$(timings 1 10 "$bin/digest --max-bytes 16777216 --check $work/SUMS" "sha256sum -c $work/SUMS")"
  record $section "--check of the kernel's $files .c files, vs sha256sum -c" 1.0
  echo "digest $(ms "$t_d")  sha256sum -c $(ms "$t_s")  ratio $(ratio "$t_d" "$t_s")"
  echo

  echo "== peak RSS (KiB) over the $files files (goal: flat, --check within 1.5x of a 1000-entry list's)"
  head -1000 "$work/SUMS" > "$work/SUMS1000"
  small=$(peak_kib "$bin/digest" --max-bytes 16777216 --check "$work/SUMS1000")
  chk=$(peak_kib "$bin/digest" --max-bytes 16777216 --check "$work/SUMS")
  # every file in one process as operands: the names themselves are held (argv and the
  # parsed operands), so that figure grows with them; it is shown, not held to a goal
  mapfile -t names < <(find . -name '*.c')
  ops=$(peak_kib "$bin/digest" --max-bytes 16777216 "${names[@]}")
  unset names
  echo "--check of 1000 $small  --check of $files $chk  $files operands $ops"
  record_value $section "peak RSS, --check of $files .c files" "$chk" KiB \
    "<= 1.5x a 1000-entry list's ($small KiB)" \
    "$([ "$chk" -le $((small * 3 / 2)) ] && echo yes || echo no)" "digest --check SUMS"
  record_value $section "peak RSS, $files .c files as operands" "$ops" KiB "-" - \
    "digest \$(find . -name '*.c')"
  echo
  cd "$work"
else
  echo "== the kernel tree is not at $tree (bench/seek.sh unpacks it): its cases are skipped"
  echo
fi

echo "== startup: digest on a one-line file vs /usr/bin/true (goal <= 1.5x)"
echo "hello" > one.txt
read -r t_d t_t t_s <<< "$(timings 50 1000 "$bin/digest one.txt" "/usr/bin/true" "sha256sum one.txt")"
record $section "start-up, one-line file, vs /usr/bin/true" 1.5
echo "digest $(ms "$t_d")  true $(ms "$t_t")  sha256sum $(ms "$t_s")  ratio vs true $(ratio "$t_d" "$t_t")"
echo

echo "== peak RSS (KiB) by file size (goal: flat, within 1.5x)"
head -c $((1024 * 1024)) big.bin > f1.bin
head -c $((64 * 1024 * 1024)) big.bin > f64.bin
first=""
for f in f1.bin f64.bin big.bin; do
  for algo in sha256 sha512; do
    kib=$(peak_kib "$bin/digest" --algo $algo "$f")
    first=${first:-$kib}
    record_value $section "peak RSS, $algo, $(($(stat -c %s "$f") >> 20)) MiB file" "$kib" KiB \
      "<= 1.5x the 1 MiB file's ($first KiB)" \
      "$([ "$kib" -le $((first * 3 / 2)) ] && echo yes || echo no)" "digest --algo $algo $f"
    echo -n "$f $algo $kib  "
  done
  echo
done
