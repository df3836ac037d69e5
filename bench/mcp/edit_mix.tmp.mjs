import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const [cmd, root, n, mode] = process.argv.slice(2);
const here = path.dirname(new URL(import.meta.url).pathname);
async function connect(command, args) { const c = new Client({ name: "t", version: "1" }); await c.connect(new StdioClientTransport({ command, args, stderr: "ignore" })); await c.listTools(); return c; }
const tack = await connect(cmd, ["--root", root]);
const ref = await connect(process.execPath, [path.join(here, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), root]);
let flip = 0; const ta = [], tb = [];
for (let i = 0; i < Number(n); i++) {
  let [a, b] = flip++ % 2 ? ["value = 2", "value = 1"] : ["value = 1", "value = 2"];
  let t0 = process.hrtime.bigint();
  await tack.callTool({ name: "replace", arguments: { old: a, new: b, paths: ["edit.txt"] } });
  ta.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (mode === "mix") {
    [a, b] = flip++ % 2 ? ["value = 2", "value = 1"] : ["value = 1", "value = 2"];
    t0 = process.hrtime.bigint();
    await ref.callTool({ name: "edit_file", arguments: { path: path.join(root, "edit.txt"), edits: [{ oldText: a, newText: b }] } });
    tb.push(Number(process.hrtime.bigint() - t0) / 1e6);
  } else if (mode === "read") {
    t0 = process.hrtime.bigint();
    await ref.callTool({ name: "read_text_file", arguments: { path: path.join(root, "edit.txt") } });
    tb.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}
const p = (t, q) => { const s = [...t].sort((x, y) => x - y); return s[Math.floor(s.length * q)]?.toFixed(2); };
console.log(mode, "tack p50", p(ta, 0.5), "p90", p(ta, 0.9), "ref p50", p(tb, 0.5));
await tack.close(); await ref.close();
