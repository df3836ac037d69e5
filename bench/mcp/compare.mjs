// compare.mjs — tack-mcp against the reference filesystem server, through the same SDK client:
// p50 and p90 per call for a read of 100 lines, a directory listing, a file found by name and
// a one-line edit, calls interleaved (one of each server in turn), and the bytes a model is
// sent for the same read.
// With a second tack-mcp binary (an earlier build), its calls are interleaved too, so a change
// is measured before and after in one run, each as a ratio to the same reference calls.
//   node compare.mjs TACK_MCP_BINARY RUNS [EARLIER_TACK_MCP_BINARY]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [tackMcp, runsArg, earlierMcp] = process.argv.slice(2);
const runs = Number(runsArg || 200);
const here = path.dirname(new URL(import.meta.url).pathname);
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tack-mcp-bench-")));
const lines = Array.from({ length: 2000 }, (_, i) => `line ${i + 1}: some ordinary source text, about sixty bytes long`);
fs.writeFileSync(path.join(root, "file.txt"), lines.join("\n") + "\n");
fs.mkdirSync(path.join(root, "dir"));
for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(root, "dir", `entry-${String(i).padStart(2, "0")}.txt`), "x\n");
fs.writeFileSync(path.join(root, "edit.txt"), "alpha\nvalue = 1\nomega\n");

async function connect(command, args) {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  await client.listTools();
  return client;
}

const tack = await connect(tackMcp, ["--root", root]);
const earlier = earlierMcp ? await connect(earlierMcp, ["--root", root]) : null;
const ref = await connect(process.execPath, [path.join(here, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), root]);

let flip = 0;
const ops = {
  "read 100 lines": [
    (c) => c.callTool({ name: "peek", arguments: { paths: ["file.txt"], lines: "1:100" } }),
    () => ref.callTool({ name: "read_text_file", arguments: { path: path.join(root, "file.txt"), head: 100 } }),
  ],
  "list a directory": [
    (c) => c.callTool({ name: "list", arguments: { dirs: ["dir"] } }),
    () => ref.callTool({ name: "list_directory", arguments: { path: path.join(root, "dir") } }),
  ],
  "find a file by name": [
    (c) => c.callTool({ name: "list", arguments: { find: "entry-42" } }),
    () => ref.callTool({ name: "search_files", arguments: { path: root, pattern: "**/entry-42*" } }),
  ],
  "edit one line": [
    (c) => {
      const [a, b] = flip++ % 2 ? ["value = 2", "value = 1"] : ["value = 1", "value = 2"];
      return c.callTool({ name: "replace", arguments: { old: a, new: b, paths: ["edit.txt"] } });
    },
    () => {
      const [a, b] = flip++ % 2 ? ["value = 2", "value = 1"] : ["value = 1", "value = 2"];
      return ref.callTool({ name: "edit_file", arguments: { path: path.join(root, "edit.txt"), edits: [{ oldText: a, newText: b }] } });
    },
  ],
};

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
};

async function timed(list, call, who, name) {
  const t = process.hrtime.bigint();
  const r = await call();
  list.push(Number(process.hrtime.bigint() - t) / 1e6);
  if (r.isError) throw new Error(`${who} ${name}: ${JSON.stringify(r.content)}`);
}

for (const [name, [a, b]] of Object.entries(ops)) {
  for (let i = 0; i < 10; i++) {
    await a(tack);
    await b();
    if (earlier) await a(earlier);
  }
  // The servers edit the same file: keep their edits in step (each call flips the value).
  flip = 0;
  fs.writeFileSync(path.join(root, "edit.txt"), "alpha\nvalue = 1\nomega\n");
  const ta = [], tb = [], te = [];
  // Each round starts with the next server in turn: the place in a round alone moves a
  // median by several percent on a busy machine.
  const turns = [
    () => timed(ta, () => a(tack), "tack-mcp", name),
    () => timed(tb, b, "filesystem", name),
    ...(earlier ? [() => timed(te, () => a(earlier), "earlier tack-mcp", name)] : []),
  ];
  for (let i = 0; i < runs; i++)
    for (let k = 0; k < turns.length; k++) await turns[(i + k) % turns.length]();
  const f = (xs, p) => `p${p * 100} ${pct(xs, p).toFixed(2)} / ${pct(tb, p).toFixed(2)} ms = ${(pct(xs, p) / pct(tb, p)).toFixed(2)}x`;
  console.log(`${name}: tack-mcp / filesystem  ${f(ta, 0.5)}  ${f(ta, 0.9)}  (${runs} calls each)`);
  if (earlier) console.log(`${name}: earlier tack-mcp / filesystem  ${f(te, 0.5)}  ${f(te, 0.9)}`);
  // Every call's time, in seconds, as bench/report.py gathers a timing (when asked for).
  if (process.env.TACK_MCP_TIMES) {
    const file = path.join(process.env.TACK_MCP_TIMES, name.replace(/[^a-z0-9]+/g, "-") + ".times.json");
    fs.writeFileSync(file, JSON.stringify([
      { command: `tack-mcp: ${name}`, times: ta.map((x) => x / 1000) },
      { command: `@modelcontextprotocol/server-filesystem: ${name}`, times: tb.map((x) => x / 1000) },
    ]));
  }
}

const size = (r) => ({
  text: r.content.reduce((n, c) => n + Buffer.byteLength(c.text || ""), 0),
  structured: r.structuredContent ? Buffer.byteLength(JSON.stringify(r.structuredContent)) : 0,
});
const sa = size(await ops["read 100 lines"][0](tack));
const sb = size(await ops["read 100 lines"][1]());
console.log(`read 100 lines, bytes sent: tack-mcp text ${sa.text} + structured ${sa.structured}; filesystem text ${sb.text} + structured ${sb.structured}`);
if (process.env.TACK_MCP_TIMES)
  fs.writeFileSync(path.join(process.env.TACK_MCP_TIMES, "bytes.txt"),
                   `${sa.text} + ${sa.structured} / ${sb.text} + ${sb.structured}`);
await tack.close();
if (earlier) await earlier.close();
await ref.close();
fs.rmSync(root, { recursive: true, force: true });
