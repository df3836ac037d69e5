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
node "$here/mcp/compare.mjs" "$bin/tack-mcp" "${TACK_MCP_RUNS:-300}"
