#!/usr/bin/env bash
# jsonq against jq on the same ~30 MB generated document, in one run: one deep pointer (the
# question jsonq exists for), the whole document compacted, the length of the big array (goal
# <= 0.25x jq's time each), start-up against /usr/bin/true (goal <= 1.5x, as every tool) and
# peak memory on the deep pointer (the maxrss launcher). Alternating rounds of hyperfine -N,
# output through a pipe, LC_ALL=C, reported as ratios; every figure is recorded (lib.sh).
#
#   bench/jsonq.sh build/bin
set -euo pipefail
. "$(dirname "$0")/lib.sh" jsonq "${1:-build/bin}"
jq=$(command -v jq)
section="jsonq vs jq, and its start-up"
ratio3() { ratio "$1" "$2" 3; }

echo "jsonq benchmarks ($(uname -r), $(nproc) cores, $($jq --version))"
echo

# 93,000 records (about 30 MB): strings, escapes, non-ASCII text, floats, big integers, nesting;
# the record the pointer names is the last one, so neither tool can stop early.
python3 - <<'PY'
import json, random
rng = random.Random(30)
def record(i):
    return {"id": i, "name": "user %d \u00e9\u4e2d \"q\" \\ /" % i,
            "score": round(rng.random() * 1000, 3), "big": 12345678901234567890 + i,
            "tags": ["alpha", "b\nc", "\U0001f600"][: 1 + i % 3], "active": i % 2 == 0,
            "note": None, "nested": {"deep": {"x": [i, -i, {"y": "end of %d" % i}]}}}
doc = {"meta": {"count": 93000, "version": "1.0"}, "items": [record(i) for i in range(93000)]}
with open("big.json", "w", encoding="utf-8") as f:
    json.dump(doc, f, ensure_ascii=False, indent=1)
PY
size=$(stat -c %s big.json)
echo "document: big.json, $size bytes"
ptr=/items/92999/nested/deep/x/2/y
filter=".items[92999].nested.deep.x[2].y"
test "$("$bin/jsonq" --format text --pointer "$ptr" big.json)" = "$("$jq" -c "$filter" big.json)"
echo

echo "== one deep pointer: jsonq --pointer $ptr vs jq -c '$filter' (goal <= 0.25x)"
read -r t_j t_q <<< "$(timings 1 10 "$bin/jsonq --pointer $ptr big.json" "$jq -c $filter big.json")"
record "$section" "one deep pointer into a $((size >> 20)) MiB document" 0.25
echo "jsonq $(ms "$t_j")  jq $(ms "$t_q")  ratio $(ratio3 "$t_j" "$t_q")"
echo

echo "== the whole document compacted: jsonq --format text vs jq -c . (goal <= 0.25x)"
read -r t_j t_q <<< "$(timings 1 5 "$bin/jsonq --format text big.json" "$jq -c . big.json")"
record "$section" "the whole $((size >> 20)) MiB document compacted" 0.25
echo "jsonq $(ms "$t_j")  jq $(ms "$t_q")  ratio $(ratio3 "$t_j" "$t_q")"
echo

echo "== length of the big array: jsonq --length --pointer /items vs jq '.items | length' (goal <= 0.25x)"
read -r t_j t_q <<< "$(timings 1 10 "$bin/jsonq --length --pointer /items big.json" \
                                    "$jq .items|length big.json")"
record "$section" "the length of an array of 93,000 records" 0.25
echo "jsonq $(ms "$t_j")  jq $(ms "$t_q")  ratio $(ratio3 "$t_j" "$t_q")"
echo

echo "== start-up: jsonq on a one-line document vs /usr/bin/true (goal <= 1.5x), and vs jq"
printf '{"a": [1, 2]}\n' > small.json
read -r t_j t_t <<< "$(timings 30 300 "$bin/jsonq --pointer /a/1 small.json" /usr/bin/true)"
record "$section" "start-up on a one-line document, vs /usr/bin/true" 1.5
echo "jsonq $(ms "$t_j")  true $(ms "$t_t")  ratio $(ratio3 "$t_j" "$t_t")"
read -r t_j t_q <<< "$(timings 30 300 "$bin/jsonq --pointer /a/1 small.json" "$jq -c .a[1] small.json")"
record "$section" "start-up on a one-line document, vs jq" -
echo "jsonq $(ms "$t_j")  jq $(ms "$t_q")  ratio $(ratio3 "$t_j" "$t_q")"
echo

echo "== peak RSS on the deep pointer (KiB; bytes of memory per input byte; goal: no more than jq)"
kib_q=$(peak_kib "$jq" -c "$filter" big.json)
kib_j=$(peak_kib "$bin/jsonq" --pointer "$ptr" big.json)
for who in jsonq jq; do
  if [ $who = jsonq ]; then kib=$kib_j; else kib=$kib_q; fi
  per=$(python3 -c "print(f'{$kib * 1024 / $size:.2f}')")
  echo "$who: $kib KiB ($per per input byte)"
done
record_value "$section" "peak RSS of jsonq, one deep pointer into $((size >> 20)) MiB" "$kib_j" KiB \
  "<= jq's ($kib_q KiB)" "$([ "$kib_j" -le "$kib_q" ] && echo yes || echo no)" \
  "jsonq --pointer $ptr big.json"
record_value "$section" "peak RSS of jq, the same question" "$kib_q" KiB - - "jq -c $filter big.json"
