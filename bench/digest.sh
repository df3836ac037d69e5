#!/usr/bin/env bash
# digest against its incumbents, side by side in one hyperfine run each (interleaved, output
# through a pipe, locale pinned), reported as ratios: a 256 MiB file against `openssl dgst` and
# sha256sum/sha512sum, startup against /usr/bin/true, and peak RSS at 1, 64 and 256 MiB.
# Usage: bench/digest.sh BIN_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh" digest "${1:-build/bin}"

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
  echo "digest $(ms "$t_d")  openssl $(ms "$t_o")  ${algo}sum $(ms "$t_s")"
  echo "ratio vs openssl $(ratio "$t_d" "$t_o")  vs ${algo}sum $(ratio "$t_d" "$t_s")"
  echo
done

echo "== startup: digest on a one-line file vs /usr/bin/true (goal <= 1.5x)"
echo "hello" > one.txt
read -r t_d t_t t_s <<< "$(timings 50 1000 "$bin/digest one.txt" "/usr/bin/true" "sha256sum one.txt")"
echo "digest $(ms "$t_d")  true $(ms "$t_t")  sha256sum $(ms "$t_s")  ratio vs true $(ratio "$t_d" "$t_t")"
echo

echo "== peak RSS (KiB) by file size (goal: flat, within 1.5x)"
head -c $((1024 * 1024)) big.bin > f1.bin
head -c $((64 * 1024 * 1024)) big.bin > f64.bin
for f in f1.bin f64.bin big.bin; do
  echo "$f ($(stat -c %s "$f") bytes): digest $(peak_kib "$bin/digest" "$f")" \
       " sha512 $(peak_kib "$bin/digest" --algo sha512 "$f")"
done
