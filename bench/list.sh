#!/usr/bin/env bash
# list vs find on a large tree: `list --depth 64 --hidden --no-ignore` against `find DIR`,
# interleaved by hyperfine -N, output through a pipe, locale pinned; reported as a ratio.
# $1: the bin directory. Uses the unpacked linux-source tree when bench/seek.sh left one at
# $TACK_LINUX (default /var/tmp/tack-linux/linux-source-6.1), else generates ~50k files.
set -euo pipefail
bin=$(cd "${1:-build/bin}" && pwd)
export LC_ALL=C
tree=${TACK_LINUX:-/var/tmp/tack-linux/linux-source-6.1}
work=$(mktemp -d /var/tmp/tack-bench-list.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ ! -d "$tree" ]; then
  tree=$work/tree
  python3 - "$tree" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(500):
    p = os.path.join(root, f"d{d // 50:02}", f"s{d:03}")
    os.makedirs(p)
    for f in range(100):
        open(os.path.join(p, f"file_{f:03}.c"), "w").close()
PY
fi
n=$(find "$tree" | wc -l)
echo "== list vs find: $tree ($n entries)"
json=$work/h.json
hyperfine -N --warmup 2 --runs 10 --export-json "$json" \
  "$bin/list --depth 64 --hidden --no-ignore --max-entries 100000 $tree" "find $tree" >/dev/null
python3 - "$json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(f"list {r[0]['mean']*1000:.1f} ms  find {r[1]['mean']*1000:.1f} ms  ratio {r[0]['mean']/r[1]['mean']:.2f}")
PY
