#!/usr/bin/env bash
# tally against the pipeline it replaces, side by side in one hyperfine run (interleaved,
# output through a pipe, locale pinned), reported as ratios: field 2 of 2 million CSV lines
# against `cut -d, -f2 | sort | uniq -c | sort -rn`, whole lines against `sort | uniq -c |
# sort -rn`, startup against /usr/bin/true, and peak RSS at 1, 64 and 256 MiB.
# Usage: bench/tally.sh BIN_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh" tally "${1:-build/bin}"

echo "tally benchmarks ($(uname -r), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
echo
# 2 million CSV lines; field 2 is one of 20,000 keys, half of them drawn from a heavy tail.
python3 - <<'PY'
import random
r = random.Random(7)
keys = ["user%05d" % i for i in range(20000)]
with open("lines.csv", "w") as f:
    for i in range(2_000_000):
        k = keys[min(int(r.paretovariate(1.2)) - 1, 19999)] if r.random() < 0.5 else r.choice(keys)
        f.write(f"{i},{k},{r.randrange(1000)},some trailing text\n")
PY
cut -d, -f2 lines.csv > keys.txt
# the answers agree before anything is timed (tally's ties are bytewise: sort them so too; the
# byte budget at its ceiling, as 100,000 keys pass the default 64 KiB)
diff <("$bin/tally" -f 2 -d , --top 100000 --max-bytes 16777216 --format text lines.csv) \
     <(cut -d, -f2 lines.csv | sort | uniq -c | sort -s -k1,1nr) >/dev/null \
  || { echo "tally disagrees with cut | sort | uniq -c" >&2; exit 1; }

echo "== field 2 of 2M lines: tally vs cut -d, -f2 | sort | uniq -c | sort -rn (goal <= 0.25x)"
read -r t_t t_p <<< "$(timings 1 5 "$bin/tally -f 2 -d , lines.csv" \
  "sh -c 'cut -d, -f2 lines.csv | sort | uniq -c | sort -rn'")"
record "tally (goal <= 0.25x the pipeline)" "field 2 of 2M lines vs cut | sort | uniq -c | sort -rn" 0.25
echo "tally $(ms "$t_t")  pipeline $(ms "$t_p")  ratio $(ratio "$t_t" "$t_p")"
echo

echo "== whole lines (2M, 20,000 distinct): tally vs sort | uniq -c | sort -rn"
read -r t_t t_p <<< "$(timings 1 5 "$bin/tally keys.txt" "sh -c 'sort keys.txt | uniq -c | sort -rn'")"
record "tally (goal <= 0.25x the pipeline)" "whole lines, 2M of 20,000 distinct, vs sort | uniq -c | sort -rn" -
echo "tally $(ms "$t_t")  pipeline $(ms "$t_p")  ratio $(ratio "$t_t" "$t_p")"
echo

echo "== 2M distinct lines (every line a key): tally vs sort | uniq -c | sort -rn"
read -r t_t t_p <<< "$(timings 1 3 "$bin/tally --max-keys 10000000 lines.csv" \
  "sh -c 'sort lines.csv | uniq -c | sort -rn'")"
record "tally (goal <= 0.25x the pipeline)" "2M distinct lines vs sort | uniq -c | sort -rn" -
echo "tally $(ms "$t_t")  pipeline $(ms "$t_p")  ratio $(ratio "$t_t" "$t_p")"
echo

echo "== startup: tally on a one-line file vs /usr/bin/true (goal <= 1.5x)"
echo "hello" > one.txt
read -r t_t t_true <<< "$(timings 50 1000 "$bin/tally one.txt" "/usr/bin/true")"
record "tally (goal <= 0.25x the pipeline)" "start-up on a one-line file vs /usr/bin/true (goal <= 1.5x)" 1.5
echo "tally $(ms "$t_t")  true $(ms "$t_true")  ratio $(ratio "$t_t" "$t_true")"
echo

echo "== peak RSS (KiB) by input size, 5,000 distinct keys (goal: flat, within 1.5x)"
python3 - <<'PY'
import random
r = random.Random(11)
block = bytearray()
while len(block) < (1 << 20) - 100:
    block += b"%d,key%04d,%s\n" % (r.randrange(10**6), r.randrange(5000), b"v" * r.randrange(60))
block += b"z" * ((1 << 20) - len(block) - 1) + b"\n"
for n in (1, 64, 256):
    with open(f"f{n}.csv", "wb") as f:
        for _ in range(n):
            f.write(block)
PY
first=""
for n in 1 64 256; do
  kf=$(peak_kib "$bin/tally" -f 2 -d , "f$n.csv")
  ks=$(peak_kib "$bin/tally" -f 2 -d , < "f$n.csv")
  [ -n "$first" ] || first=$kf
  echo "f$n.csv ($n MiB): field $kf  stdin $ks"
  flat=$(python3 -c "print('yes' if max($kf, $ks) <= 1.5 * $first else 'no')")
  record_value "tally: peak RSS (goal: flat, within 1.5x of 1 MiB)" "$n MiB, 5,000 distinct keys: file / stdin" \
    "$kf / $ks" KiB "<= 1.5x the 1 MiB figure" "$flat" "tally -f 2 -d , f$n.csv (and < f$n.csv)"
done
kd=$(peak_kib "$bin/tally" --max-keys 10000000 lines.csv)
echo "2M distinct keys (lines.csv, 77 MiB): $kd"
record_value "tally: peak RSS (goal: flat, within 1.5x of 1 MiB)" "2M distinct keys, 77 MiB" "$kd" KiB \
  "grows with the keys kept, by design" - "tally --max-keys 10000000 lines.csv"
