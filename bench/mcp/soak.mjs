// soak.mjs — tack-mcp held under load through the SDK client: CALLS tool calls, CONCURRENCY in
// flight at once (the server allowed as many), a read, a listing and a search in turn, each
// answer checked. The server's resident memory (VmRSS) and open descriptors are taken from
// /proc after the first round of calls (every worker thread started) and again at the end:
// what a long session leaks shows as the difference.
//   node soak.mjs TACK_MCP_BINARY [CALLS] [CONCURRENCY]   (TACK_MCP_SOAK=FILE: the figures as JSON)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [tackMcp, callsArg, concArg] = process.argv.slice(2);
const calls = Number(callsArg || 100000);
const concurrency = Number(concArg || 16);
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tack-mcp-soak-")));
const lines = Array.from({ length: 2000 }, (_, i) => `line ${i + 1}: some ordinary source text, about sixty bytes long`);
fs.writeFileSync(path.join(root, "file.txt"), lines.join("\n") + "\n");
fs.mkdirSync(path.join(root, "dir"));
for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(root, "dir", `entry-${String(i).padStart(2, "0")}.txt`), "x\n");

const transport = new StdioClientTransport({
  command: tackMcp, args: ["--root", root, "--max-concurrent", String(concurrency)], stderr: "ignore",
});
const client = new Client({ name: "soak", version: "1.0.0" });
await client.connect(transport);
await client.listTools();
const pid = transport.pid;

function measure() {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return {
    rss_kib: Number(/^VmRSS:\s+(\d+) kB/m.exec(status)[1]),
    fds: fs.readdirSync(`/proc/${pid}/fd`).length,
    threads: Number(/^Threads:\s+(\d+)/m.exec(status)[1]),
  };
}

const kinds = [
  [{ name: "peek", arguments: { paths: ["file.txt"], lines: "1:100" } }, (r) => r.structuredContent?.data?.to === 100],
  [{ name: "list", arguments: { dirs: ["dir"] } }, (r) => r.structuredContent?.records?.length >= 50],
  [{ name: "seek", arguments: { pattern: "line 1999:", paths: ["file.txt"] } }, (r) => r.structuredContent?.end?.matches === 1],
];
// The figures once the server is idle: its pool refills in the background after a burst of
// calls (each tool keeps processes waiting, three descriptors each), so the descriptors are
// read when two readings 100 ms apart agree.
async function settled() {
  let m = measure();
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const n = measure();
    if (n.fds === m.fds) return n;
    m = n;
  }
  return m;
}

let next = 0, failed = 0, firstFailure = null, progress = false;
async function worker(limit) {
  for (;;) {
    const i = next++;
    if (i >= limit) return;
    // Every 10,000 calls, where the figures stand (a long soak shows its trend as it goes).
    if (progress && i > 0 && i % 10000 === 0) {
      const m = measure();
      console.log(`  ${i} calls: RSS ${m.rss_kib} KiB, descriptors ${m.fds}, threads ${m.threads}`);
    }
    const [call, ok] = kinds[i % kinds.length];
    const r = await client.callTool(call);
    if (r.isError || !ok(r)) {
      failed++;
      firstFailure ??= JSON.stringify(r).slice(0, 400);
    }
  }
}

// The first round: every worker thread of the server has taken a call.
await Promise.all(Array.from({ length: concurrency }, () => worker(concurrency * 4)));
const start = await settled();
const t0 = process.hrtime.bigint();
next = 0;
progress = true;
await Promise.all(Array.from({ length: concurrency }, () => worker(calls)));
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const end = await settled();
await client.close();
fs.rmSync(root, { recursive: true, force: true });

const result = { calls, concurrency, seconds: Number(seconds.toFixed(1)), failed, start, end };
console.log(`soak: ${calls} calls, ${concurrency} at a time, ${result.seconds} s (${(calls / seconds).toFixed(0)} calls/s), ` +
            `${failed} failed; server RSS ${start.rss_kib} -> ${end.rss_kib} KiB, ` +
            `descriptors ${start.fds} -> ${end.fds}, threads ${start.threads} -> ${end.threads}`);
if (firstFailure) console.log(`first failure: ${firstFailure}`);
if (process.env.TACK_MCP_SOAK) fs.writeFileSync(process.env.TACK_MCP_SOAK, JSON.stringify(result));
process.exit(failed ? 1 : 0);
