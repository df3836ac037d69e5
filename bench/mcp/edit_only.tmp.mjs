import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const [cmd, root, n, wrap] = process.argv.slice(2);
const client = new Client({ name: "t", version: "1" });
const args = wrap ? [...wrap.split(" "), cmd, "--root", root] : ["--root", root];
await client.connect(new StdioClientTransport({ command: wrap ? wrap.split(" ")[0] : cmd, args: wrap ? args.slice(1) : args, stderr: "ignore" }));
await client.listTools();
let flip = 0; const times = [];
for (let i = 0; i < Number(n); i++) {
  const [a, b] = flip++ % 2 ? ["value = 2", "value = 1"] : ["value = 1", "value = 2"];
  const t0 = process.hrtime.bigint();
  const r = await client.callTool({ name: "replace", arguments: { old: a, new: b, paths: ["edit.txt"] } });
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (r.isError) { console.log(JSON.stringify(r)); break; }
}
times.sort((x, y) => x - y);
console.log("p50", times[Math.floor(times.length / 2)].toFixed(2), "p90", times[Math.floor(times.length * 0.9)].toFixed(2));
await client.close();
