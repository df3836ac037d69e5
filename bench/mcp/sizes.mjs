// sizes.mjs — what a model reads from tack-mcp and from the reference filesystem server, through
// the same SDK client: the tool definitions (every description and compact input schema, and the
// server's instructions) and the content of four everyday calls on the same files, beside
// `rg -n` for the search. Prints one JSON object.
//   node sizes.mjs TACK_MCP_BINARY [RG]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [tackMcp, rg] = process.argv.slice(2);
const here = path.dirname(new URL(import.meta.url).pathname);
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tack-mcp-sizes-")));
// 100 short lines (the read), a directory of 20 files (the list), 20 matching lines (the search).
const short = Array.from({ length: 100 }, (_, i) => `line ${i + 1}: short text`);
fs.writeFileSync(path.join(root, "short.txt"), short.join("\n") + "\n");
fs.mkdirSync(path.join(root, "dir"));
for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(root, "dir", `file-${String(i).padStart(2, "0")}.txt`), "x\n");
const src = Array.from({ length: 200 }, (_, i) => (i % 10 === 3 ? `  call_the_thing(${i}); // needle here` : `  other_code(${i});`));
fs.writeFileSync(path.join(root, "code.c"), src.join("\n") + "\n");
fs.writeFileSync(path.join(root, "edit.txt"), "alpha\nvalue = 1\nomega\n");
fs.writeFileSync(path.join(root, "edit2.txt"), "alpha\nvalue = 1\nomega\n");

async function connect(command, args) {
  const client = new Client({ name: "sizes", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  return client;
}

// What a client puts before the model on every turn.
async function definitions(client) {
  const { tools } = await client.listTools();
  let description = 0, schema = 0;
  for (const t of tools) {
    description += Buffer.byteLength(t.description || "");
    schema += Buffer.byteLength(JSON.stringify(t.inputSchema));
  }
  const instructions = Buffer.byteLength(client.getInstructions() || "");
  return { tools: tools.length, description, schema, instructions, total: description + schema + instructions };
}

const contentBytes = (r) => r.content.reduce((n, c) => n + Buffer.byteLength(c.text || ""), 0);

const tack = await connect(tackMcp, ["--root", root]);
const ref = await connect(process.execPath, [path.join(here, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), root]);

const out = { definitions: { tack: await definitions(tack), reference: await definitions(ref) }, calls: {} };
const call = async (name, t, r) => {
  const a = await tack.callTool(t);
  const b = r ? await ref.callTool(r) : null;
  out.calls[name] = { tack: contentBytes(a), reference: b ? contentBytes(b) : null, tack_error: !!a.isError };
};
await call("read 100 lines", { name: "peek", arguments: { paths: ["short.txt"] } },
  { name: "read_text_file", arguments: { path: path.join(root, "short.txt") } });
await call("list 20 files", { name: "list", arguments: { dirs: ["dir"] } },
  { name: "list_directory", arguments: { path: path.join(root, "dir") } });
// The workspace searched as a whole on both sides: the answer names each line's file.
await call("search 20 lines", { name: "seek", arguments: { pattern: "needle" } }, null);
await call("edit one line", { name: "replace", arguments: { old: "value = 1", new: "value = 2", paths: ["edit.txt"] } },
  { name: "edit_file", arguments: { path: path.join(root, "edit2.txt"), edits: [{ oldText: "value = 1", newText: "value = 2" }] } });
out.calls["search 20 lines"].rg = rg ? execFileSync(rg, ["-n", "needle"], { cwd: root, stdio: ["ignore", "pipe", "ignore"] }).length : null;
out.files = { "short.txt": fs.statSync(path.join(root, "short.txt")).size };

await tack.close();
await ref.close();
fs.rmSync(root, { recursive: true, force: true });
console.log(JSON.stringify(out, null, 1));
