// helpers.mjs — what the tack-mcp tests share: the built binaries, a scratch directory per test
// file, a fresh tree per test, a connected SDK client, and what /proc says about a process.
import { before, after } from "node:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

// This directory: not import.meta.dirname, which Node has only since 20.11 (Debian 12's is 18).
export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const BIN = process.env.TACK_BIN || path.resolve(HERE, "../../build/bin");
export const SERVER = path.join(BIN, "tack-mcp");

let base;
// Every client made, so that a test failing half-way still closes its server: an open one
// would keep the test file's process alive, and a failure would hang instead of failing.
const clients = [];

// The scratch directory of the test file that calls it (at its top level), removed at its end
// with every server still open closed first. Returns a getter: the directory exists once the
// file's tests run.
export function scratch(prefix) {
  before(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    fs.rmSync(base, { recursive: true, force: true });
  });
  return () => base;
}

// A fresh tree in the scratch directory: DIR/root, the server's root, and DIR/outside, a
// sibling no call may reach; `fill(root, dir)` puts the test's files in them.
export function tree(fill = () => {}) {
  const dir = fs.mkdtempSync(path.join(base, "t-"));
  const root = path.join(dir, "root");
  fs.mkdirSync(root);
  fs.mkdirSync(path.join(dir, "outside"));
  fill(root, dir);
  return { dir, root };
}

// tack-mcp serving `root` (`server`: another binary of it), connected through the SDK client;
// with `roots`, the client declares them. The tools are listed first, which makes the SDK check
// every later structuredContent against its outputSchema.
export async function connect(root, { server = SERVER, args = [], roots = null } = {}) {
  const client = new Client(
    { name: "tack-test", version: "1.0.0" },
    { capabilities: roots ? { roots: { listChanged: true } } : {} },
  );
  if (roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: roots.map((r) => ({ uri: "file://" + r, name: path.basename(r) })),
    }));
  }
  const transport = new StdioClientTransport({ command: server, args: ["--root", root, ...args], stderr: "pipe" });
  clients.push(client);
  await client.connect(transport);
  await client.listTools();
  return { client, pid: transport.pid };
}

// Whether process `pid` holds open a file whose path `matches` (a string: contained in it).
export function holds(pid, matches) {
  const test = typeof matches === "string" ? (p) => p.includes(matches) : matches;
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return test(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}
