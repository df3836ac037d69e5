#!/usr/bin/env bash
# jsonq against jq on the same ~30 MB generated document, in one run: one deep pointer (the
# question jsonq exists for; goal <= 0.25x jq's time), the whole document compacted, the length
# of the big array, and startup against /usr/bin/true (jsonq links simdjson dynamically, which
# costs startup: the figure is reported as measured). Interleaved by hyperfine -N, output
# through a pipe, LC_ALL=C, reported as ratios; peak memory by the maxrss launcher.
#
#   bench/jsonq.sh build/bin
set -euo pipefail
. "$(dirname "$0")/lib.sh" jsonq "${1:-build/bin}"
maxrss=$bin/../support/maxrss
jq=$(command -v jq)
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
echo "jsonq $(ms "$t_j")  jq $(ms "$t_q")  ratio $(ratio3 "$t_j" "$t_q")"
echo

echo "== the whole document compacted: jsonq --format text vs jq -c ."
read -r t_j t_q <<< "$(timings 1 5 "$bin/jsonq --format text big.json" "$jq -c . big.json")"
echo "jsonq $(ms "$t_j")  jq $(ms "$t_q")  ratio $(ratio3 "$t_j" "$t_q")"
echo

echo "== length of the big array: jsonq --length --pointer /items vs jq '.items | length'"
read -r t_j t_q <<< "$(timings 1 10 "$bin/jsonq --length --pointer /items big.json" \
                                    "$jq .items|length big.json")"
echo "jsonq $(ms "$t_j")  jq $(ms "$t_q")  ratio $(ratio3 "$t_j" "$t_q")"
echo

echo "== startup: jsonq on a one-line document vs /usr/bin/true and jq"
printf '{"a": [1, 2]}\n' > small.json
read -r t_j t_t t_q <<< "$(timings 50 1000 "$bin/jsonq --pointer /a/1 small.json" /usr/bin/true \
                                           "$jq -c .a[1] small.json")"
echo "jsonq $(ms "$t_j")  true $(ms "$t_t")  jq $(ms "$t_q")" \
     " jsonq/true $(ratio3 "$t_j" "$t_t")  jsonq/jq $(ratio3 "$t_j" "$t_q")"
echo

echo "== peak RSS on the deep pointer (KiB; bytes of memory per input byte)"
for cmd in "$bin/jsonq --pointer $ptr big.json" "$jq -c $filter big.json"; do
  # shellcheck disable=SC2086
  kib=$("$maxrss" $cmd)
  per=$(python3 -c "print(f'{$kib * 1024 / $size:.2f}')")
  echo "$(basename "${cmd%% *}"): $kib KiB ($per per input byte)"
done
