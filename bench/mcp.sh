#!/usr/bin/env bash
# tack-mcp against the reference MCP filesystem server, through the same SDK client: p50 per
# call for a read of 100 lines, a directory listing and a one-line edit (goal <= 1.0x each),
# and the bytes a model is sent for the same read. npm packages from bench/mcp's lockfile.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "${1:-build/bin}" && pwd)
command -v node >/dev/null || { echo "mcp: node is not installed; skipped"; exit 0; }
(cd "$here/mcp" && npm ci --no-audit --no-fund --silent)
echo "== tack-mcp vs @modelcontextprotocol/server-filesystem, same SDK client, interleaved calls"
times=$(mktemp -d /var/tmp/tack-bench-mcp.XXXXXX)
trap 'rm -rf "$times"' EXIT
TACK_MCP_TIMES=$times node "$here/mcp/compare.mjs" "$bin/tack-mcp" "${TACK_MCP_RUNS:-300}"
if [ -n "${TACK_BENCH_ROWS:-}" ]; then
  section="tack-mcp vs the reference filesystem server, per call (goal <= 1.0x)"
  for f in "$times"/*.times.json; do
    python3 "$here/report.py" row "$f" "$TACK_BENCH_ROWS" "$section" "$(basename "$f" .times.json)" 1.0
  done
  python3 "$here/report.py" value "$TACK_BENCH_ROWS" "$section" \
    "bytes sent for the read of 100 lines: text + structured, tack-mcp / filesystem" \
    "$(cat "$times/bytes.txt")" B - - "bench/mcp/compare.mjs"
fi
