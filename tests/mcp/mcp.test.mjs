// tack-mcp driven by the official MCP TypeScript SDK client (@modelcontextprotocol/sdk), as
// Claude Code, Codex, Cursor or VS Code would drive it: list the tools and compile every schema,
// call every tool, errors and their repairs retried from `arguments`, roots that narrow,
// cancellation that leaves no process behind, 32 calls at once, and malformed input.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { BIN, HERE, SERVER, scratch, tree as freshTree, connect, holds } from "./helpers.mjs";

const SAMPLE = path.resolve(HERE, "../../demo/sample");
scratch("tack-mcp-");

// A fresh copy of the sample tree, with an outside sibling holding a secret.
const tree = () =>
  freshTree((root, dir) => {
    fs.cpSync(SAMPLE, root, { recursive: true });
    fs.writeFileSync(path.join(dir, "outside", "secret.txt"), "OUTSIDE-SECRET\n");
    fs.mkdirSync(path.join(root, "sub"));
    fs.writeFileSync(path.join(root, "sub", "inner.txt"), "inner\n");
  });

const sha256 = (file) => execFileSync("sha256sum", [file]).toString().slice(0, 64);

// The processes whose command line names `marker`, or that hold a file so named open (a tool
// started ahead of its call received its argv on a pipe: its command line does not show it).
function processesWith(marker) {
  const found = [];
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`).toString();
      if (/^Z/m.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1] ?? "")) continue;
      if (cmd.includes(marker) || holds(pid, marker)) found.push(pid + ": " + cmd.replace(/\0/g, " "));
    } catch {}
  }
  return found;
}

test("lists every tool with schemas the SDK compiles, and annotations from the effects", async () => {
  const { root } = tree();
  const { client } = await connect(root);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  for (const want of ["digest", "edit", "jsonq", "list", "move", "peek", "replace", "seek", "skills", "tally", "undo", "write"])
    assert.ok(names.includes(want), want);
  const validator = new AjvJsonSchemaValidator();
  for (const t of tools) {
    assert.equal(t.inputSchema.type, "object", t.name);
    assert.equal(t.outputSchema.type, "object", t.name);
    validator.getValidator(t.inputSchema);
    validator.getValidator(t.outputSchema);
    assert.ok(t.description.length > 15 && t.description.length < 200, `${t.name}: ${t.description.length}`);
    // In a model's terms: arguments by their names, no command-line flags or pointers to --help.
    const said = t.description + JSON.stringify(t.inputSchema);
    assert.ok(!/--[a-z]/.test(said), `${t.name}: ${said}`);
    assert.ok(t.title.startsWith(t.name));
  }
  const by = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(by.peek.annotations.readOnlyHint, true);
  assert.equal(by.write.annotations.readOnlyHint, false);
  assert.equal(by.write.annotations.destructiveHint, true);
  assert.equal(by.move.annotations.destructiveHint, false); // a tombstone: undone by moving back
  assert.deepEqual(by.peek.inputSchema.required, ["paths"]);
  assert.equal(by.peek.inputSchema.properties.lines.type, "string");
  assert.equal(by.peek.inputSchema.properties.max_bytes, undefined); // a knob: the CLI's
  assert.deepEqual(by.seek.inputSchema.required, ["pattern"]);
  assert.equal(by.write.inputSchema.properties.stdin.type, "string");
  await client.close();
});

test("--read-only lists only the tools that change nothing; --tools picks", async () => {
  const { root } = tree();
  let { client } = await connect(root, { args: ["--read-only"] });
  let names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(!names.includes("write") && !names.includes("move") && names.includes("peek"));
  await client.close();
  ({ client } = await connect(root, { args: ["--tools", "peek,seek"] }));
  names = (await client.listTools()).tools.map((t) => t.name).sort();
  assert.deepEqual(names, ["peek", "seek"]);
  await client.close();
});

test("every tool answers on the sample tree, valid against its outputSchema", async () => {
  const { root } = tree();
  const { client } = await connect(root);
  const calls = [
    ["peek", { paths: ["src/main.c"], lines: "1:3", witness: true }],
    ["seek", { pattern: "greet", paths: ["src"] }],
    ["list", { depth: 2 }],
    ["digest", { paths: ["src/main.c", "notes.txt"] }],
    ["jsonq", { pointer: "/server/port", file: "data.json" }],
    ["tally", { field: 2, delim: " ", file: undefined, files: ["app.log"] }],
    ["skills", { dirs: ["."] }],
    ["write", { create: true, stdin: "draft\n", path: "todo.md" }],
    ["replace", { old: "hello, %s", new: "hi, %s", paths: ["src/main.c"] }],
    ["move", { path: "README.md", newpaths: ["README.old.md"] }],
  ];
  for (const [name, args] of calls) {
    for (const k of Object.keys(args)) if (args[k] === undefined) delete args[k];
    const r = await client.callTool({ name, arguments: args });
    assert.equal(r.isError, false, `${name}: ${JSON.stringify(r.content)}`);
    assert.ok(r.structuredContent, name);
    assert.ok(r.content[0].text.length > 0);
  }
  assert.equal(fs.readFileSync(path.join(root, "todo.md"), "utf8"), "draft\n");
  assert.ok(fs.readFileSync(path.join(root, "src/main.c"), "utf8").includes("hi, %s"));
  assert.ok(fs.existsSync(path.join(root, "README.old.md")));
  // edit: by a witness read through the server
  const peek = await client.callTool({ name: "peek", arguments: { paths: ["src/main.c"], lines: "3", witness: true } });
  const w = peek.structuredContent.data.lines[0].witness;
  const r = await client.callTool({
    name: "edit",
    arguments: { if_sha256: sha256(path.join(root, "src/main.c")), stdin: JSON.stringify([{ witness: w, lines: [] }]), path: "src/main.c" },
  });
  assert.equal(r.isError, false, JSON.stringify(r.content));
  assert.equal(r.structuredContent.data.diff.removed, 1);
  // undo: the edit taken back from the journal, by its id
  const u = await client.callTool({ name: "undo", arguments: { last: true } });
  assert.equal(u.isError, false, JSON.stringify(u.content));
  assert.equal(u.structuredContent.data.id, r.structuredContent.data.journal.id);
  assert.ok(fs.readFileSync(path.join(root, "src/main.c"), "utf8").includes("hi, %s"));
  await client.close();
});

test("errors come as isError with the tool's rule; a retry repair runs again from its arguments", async () => {
  const { root } = tree();
  const { client } = await connect(root);
  let r = await client.callTool({ name: "peek", arguments: { paths: ["missing.txt"] } });
  assert.equal(r.isError, true);
  assert.equal(r.structuredContent.error.rule, "io.not-found");

  r = await client.callTool({ name: "peek", arguments: { paths: ["src/main.c"], lnes: "1:2" } });
  assert.equal(r.isError, true);
  const e = r.structuredContent.error;
  assert.equal(e.rule, "args.unknown-flag");
  assert.deepEqual(e.repair.arguments, { lines: "1:2", paths: ["src/main.c"] });
  assert.equal(e.repair.tool, "peek");
  r = await client.callTool({ name: "peek", arguments: e.repair.arguments });
  assert.equal(r.isError, false);
  assert.equal(r.structuredContent.data.to, 2);

  fs.writeFileSync(path.join(root, "long.txt"), "x".repeat(5000) + "\n");
  r = await client.callTool({ name: "peek", arguments: { paths: ["long.txt"], max_line_bytes: 100 } });
  assert.equal(r.structuredContent.error.rule, "limit.line-too-long");
  const again = await client.callTool({ name: "peek", arguments: r.structuredContent.error.repair.arguments });
  assert.equal(again.isError, false);

  // "path" where the tool takes several ("paths"): taken as one of them
  r = await client.callTool({ name: "peek", arguments: { path: "src/main.c", lines: "1" } });
  assert.equal(r.isError, false);
  r = await client.callTool({ name: "write", arguments: { stdin: "x", path: "notes.txt" } });
  assert.equal(r.structuredContent.error.rule, "precondition.required");
  r = await client.callTool({ name: "peek", arguments: { paths: ["../outside/secret.txt"] } });
  assert.equal(r.structuredContent.error.rule, "path.dotdot");
  assert.ok(!JSON.stringify(r).includes("OUTSIDE-SECRET"));
  r = await client.callTool({ name: "peek", arguments: { paths: ["src/main.c"], root: "../outside" } });
  assert.equal(r.structuredContent.error.rule, "path.dotdot");
  // a misspelt argument that would let the call touch more is named, never retried
  r = await client.callTool({ name: "write", arguments: { stdin: "x", path: "n.txt", creat: true } });
  assert.equal(r.structuredContent.error.rule, "args.unknown-flag");
  assert.equal(r.structuredContent.error.detail.nearest, "create");
  assert.equal(r.structuredContent.error.repair, null);
  assert.ok(!fs.existsSync(path.join(root, "n.txt")));
  // an unknown tool is the protocol's error
  await assert.rejects(client.callTool({ name: "rm", arguments: {} }), /Unknown tool/);
  await client.close();
});

test("a match in a line past every cap: the repair is peek's, as that tool's arguments", async () => {
  const { root } = tree();
  const line = "x".repeat(20 * 1024 * 1024) + '"needle":1' + "y".repeat(1000) + "\n";
  fs.writeFileSync(path.join(root, "one-line.json"), line);
  const { client } = await connect(root);
  const r = await client.callTool({ name: "seek", arguments: { pattern: '"needle"', paths: ["one-line.json"], max_line_bytes: 16777216 } });
  const err = r.structuredContent.records.find((x) => x.type === "error").error;
  assert.equal(err.rule, "limit.line-too-long");
  assert.equal(err.repair.tool, "peek");
  const window = await client.callTool({ name: "peek", arguments: err.repair.arguments });
  assert.equal(window.isError, false);
  assert.ok(window.structuredContent.data.text.includes('"needle"'));
  await client.close();
});

test("a pattern that starts with '-' is an operand through MCP", async () => {
  const { root } = tree();
  fs.writeFileSync(path.join(root, "todo.md"), "- [ ] one\n- [x] two\n");
  const { client } = await connect(root);
  const r = await client.callTool({ name: "seek", arguments: { pattern: "- [ ]", paths: ["todo.md"] } });
  assert.equal(r.isError, false);
  assert.equal(r.structuredContent.end.matches, 1);
  await client.close();
});

test("roots the client declares narrow the server's root and never widen it", async () => {
  const { dir, root } = tree();
  const sub = path.join(root, "sub");
  let { client } = await connect(root, { roots: [sub] });
  let r = await client.callTool({ name: "peek", arguments: { paths: ["inner.txt"] } });
  assert.equal(r.isError, false, JSON.stringify(r.content));
  r = await client.callTool({ name: "peek", arguments: { paths: ["src/main.c"] } });
  assert.equal(r.structuredContent.error.rule, "io.not-found"); // relative to sub: not there
  r = await client.callTool({ name: "peek", arguments: { paths: ["src/main.c"], root: "." } });
  assert.equal(r.structuredContent.error.rule, "path.outside-root");
  await client.close();

  // a client root outside the server's root gives nothing
  ({ client } = await connect(root, { roots: [path.join(dir, "outside")] }));
  r = await client.callTool({ name: "peek", arguments: { paths: ["secret.txt"] } });
  assert.equal(r.isError, true);
  assert.equal(r.structuredContent.error.rule, "path.outside-root");
  assert.ok(!JSON.stringify(r).includes("OUTSIDE-SECRET"));
  await client.close();

  // a client root above the server's root narrows to the server's root
  ({ client } = await connect(root, { roots: [dir] }));
  r = await client.callTool({ name: "peek", arguments: { paths: ["src/main.c"], lines: "1" } });
  assert.equal(r.isError, false);
  await client.close();
});

test("a root is the directory, never a link: a client root or a root argument swapped for one is refused", async () => {
  const { dir, root } = tree();
  const sub = path.join(root, "sub");
  fs.symlinkSync(path.join(dir, "outside"), path.join(root, "evil"));
  let { client } = await connect(root, { roots: [sub, root] });
  let r = await client.callTool({ name: "peek", arguments: { paths: ["inner.txt"] } });
  assert.equal(r.isError, false, JSON.stringify(r.content));
  // The agent's own moves put a link where the client's root was.
  r = await client.callTool({ name: "move", arguments: { path: "sub", newpaths: ["sub2"], root: "." } });
  assert.equal(r.isError, false, JSON.stringify(r.content));
  r = await client.callTool({ name: "move", arguments: { path: "evil", newpaths: ["sub"], root: "." } });
  assert.equal(r.isError, false, JSON.stringify(r.content));
  r = await client.callTool({ name: "peek", arguments: { paths: ["secret.txt"] } });
  assert.equal(r.structuredContent.error.rule, "path.symlink");
  assert.ok(!JSON.stringify(r).includes("OUTSIDE-SECRET"));
  // A root argument naming a link, inside or outside, is refused as a tool refuses one.
  fs.symlinkSync(path.join(root, "sub2"), path.join(root, "inner-link"));
  for (const asked of ["sub", "inner-link", path.join(root, "sub"), "sub/."]) {
    r = await client.callTool({ name: "peek", arguments: { paths: ["secret.txt"], root: asked } });
    assert.equal(r.structuredContent.error.rule, "path.symlink", asked);
    assert.ok(!JSON.stringify(r).includes("OUTSIDE-SECRET"));
  }
  r = await client.callTool({ name: "peek", arguments: { paths: ["inner.txt"], root: "sub2" } });
  assert.equal(r.isError, false, JSON.stringify(r.content));
  // A root that is not a string is refused, not ignored for the default.
  for (const asked of [5, ["sub2"], { p: "sub2" }, true]) {
    r = await client.callTool({ name: "peek", arguments: { paths: ["inner.txt"], root: asked } });
    assert.equal(r.structuredContent.error.rule, "args.bad-value", JSON.stringify(asked));
  }
  await client.close();
});

test("answers the server makes validate too; numbers and values come through as written", async () => {
  const { root } = tree();
  fs.writeFileSync(path.join(root, "n.json"),
    '{"a":1,"c":[1,2],"e":null,"s":"t","big":123456789012345678901234567890,"huge":1.5e400,"x":1.50,"z":-0}');
  const { client } = await connect(root);
  // A refusal of the server's own for a stream tool: an end record its outputSchema takes
  // (the SDK client checks it and would throw).
  for (const [name, args] of [["seek", { pattern: 5 }], ["list", { root: "/etc" }], ["digest", { paths: ["n.json"], bogus: 1 }]]) {
    const r = await client.callTool({ name, arguments: args });
    assert.equal(r.isError, true, name);
    assert.equal(r.structuredContent.end.ok, false);
  }
  const want = { "/a": "1", "/c": "[1,2]", "/e": "null", "/s": '"t"', "/big": "123456789012345678901234567890",
    "/huge": "1.5e400", "/x": "1.50", "/z": "-0" };
  for (const [pointer, text] of Object.entries(want)) {
    const r = await client.callTool({ name: "jsonq", arguments: { file: "n.json", pointer } });
    assert.equal(r.isError, false, pointer + JSON.stringify(r.content));
    assert.equal(r.content[0].text.trim(), text, pointer);
  }
  const whole = await client.callTool({ name: "jsonq", arguments: { file: "n.json", pointer: "" } });
  assert.equal(whole.isError, false, JSON.stringify(whole.content));
  assert.match(whole.content[0].text, /"big":123456789012345678901234567890,"huge":1.5e400,"x":1.50,"z":-0/);
  // A retry repair keeps the call's own root.
  const r = await client.callTool({ name: "peek", arguments: { paths: [path.join(root, "sub", "inner.txt")], root: "sub" } });
  assert.equal(r.structuredContent.error.rule, "path.absolute");
  assert.deepEqual(r.structuredContent.error.repair.arguments, { paths: ["inner.txt"], root: "sub" });
  const again = await client.callTool({ name: "peek", arguments: r.structuredContent.error.repair.arguments });
  assert.equal(again.isError, false);
  assert.equal(again.structuredContent.data.lines[0].text, "inner");
  await client.close();
});

test("a cancelled call's tool is killed: no process left in /proc", async () => {
  const { root } = tree();
  const big = path.join(root, "big-cancel-marker.bin");
  fs.closeSync(fs.openSync(big, "w"));
  fs.truncateSync(big, 64 * 1024 * 1024 * 1024); // sparse: hashing it takes minutes
  const { client } = await connect(root);
  const ac = new AbortController();
  const call = client.callTool({ name: "digest", arguments: { paths: ["big-cancel-marker.bin"] } }, undefined, { signal: ac.signal });
  await new Promise((res) => setTimeout(res, 300));
  assert.ok(processesWith("big-cancel-marker").length > 0, "the call was running");
  ac.abort();
  await assert.rejects(call);
  let left = [];
  for (let i = 0; i < 50; i++) {
    left = processesWith("big-cancel-marker");
    if (left.length === 0) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.deepEqual(left, []);
  // the server still answers
  const r = await client.callTool({ name: "peek", arguments: { paths: ["src/main.c"], lines: "1" } });
  assert.equal(r.isError, false);
  await client.close();
});

test("32 calls at once all answer, each its own", async () => {
  const { root } = tree();
  for (let i = 0; i < 32; i++) fs.writeFileSync(path.join(root, `f${i}.txt`), `file ${i}\n`);
  const { client } = await connect(root, { args: ["--max-concurrent", "8"] });
  const results = await Promise.all(
    Array.from({ length: 32 }, (_, i) => client.callTool({ name: "peek", arguments: { paths: [`f${i}.txt`] } })),
  );
  results.forEach((r, i) => {
    assert.equal(r.isError, false);
    assert.equal(r.structuredContent.data.lines[0].text, `file ${i}`);
  });
  await client.close();
});

// The raw protocol, without the SDK: malformed input gets the protocol's answer, never a crash.
function rawSession(root, lines, { closeAfterMs = 1500 } = {}) {
  return new Promise((resolve) => {
    const p = spawn(SERVER, ["--root", root], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    for (const l of lines) p.stdin.write(l);
    setTimeout(() => p.stdin.end(), closeAfterMs);
    setTimeout(() => p.kill("SIGKILL"), closeAfterMs + 10000).unref();
    p.on("exit", (code, signal) => resolve({ code, signal, out }));
  });
}

test("a client that offers roots and never answers roots/list is waited for once, not at every call", async () => {
  const { root } = tree();
  const p = spawn(SERVER, ["--root", root], { stdio: ["pipe", "pipe", "pipe"] });
  let buf = "";
  const waiting = new Map();
  p.stdout.on("data", (d) => {
    buf += d;
    for (let nl; (nl = buf.indexOf("\n")) >= 0; buf = buf.slice(nl + 1)) {
      const m = JSON.parse(buf.slice(0, nl));
      if (waiting.has(m.id)) waiting.get(m.id)(m);
    }
  });
  const call = (id, msg) => new Promise((resolve) => {
    waiting.set(id, resolve);
    p.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, ...msg }) + "\n");
  });
  await call(0, { method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: { roots: {} }, clientInfo: { name: "x", version: "1" } } });
  p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');  // roots/list: never answered
  const timed = async (id) => {
    const t0 = Date.now();
    const r = await call(id, { method: "tools/call", params: { name: "peek", arguments: { paths: ["README.md"], lines: "1" } } });
    assert.equal(r.result.isError, false);
    return Date.now() - t0;
  };
  const first = await timed(1), second = await timed(2), third = await timed(3);
  assert.ok(first >= 4000, `the first call waits for the roots: ${first} ms`);
  assert.ok(second < 2000 && third < 2000, `later calls do not: ${second}, ${third} ms`);
  p.stdin.end();
  await new Promise((resolve) => p.on("exit", resolve));
});

test("malformed messages, unknown methods and oversized lines get JSON-RPC errors; EOF ends cleanly", async () => {
  const { root } = tree();
  const big = '{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"' + "a".repeat(9 << 20) + '"}}\n';
  const { code, signal, out } = await rawSession(root, [
    "not json\n",
    '{"jsonrpc":"1.0","id":1,"method":"ping"}\n',
    '{"jsonrpc":"2.0","id":2,"method":"no/such"}\n',
    "[1,2,3]\n",
    big,
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"peek","arguments":[1]}}\n',
    '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"peek","arguments":{"path":{"a":1}}}}\n',
    '{"jsonrpc":"2.0","method":"notifications/unknown"}\n',
    '{"jsonrpc":"2.0","id":5,"method":"ping"}\n',
    '{"jsonrpc":"2.0","id":6,"method":5}\n',
    '{"jsonrpc":"2.0","id":7,"method":null}\n',
    // numbers past 64 bits are JSON: the request is answered, with its own id
    '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"peek","arguments":{"paths":["README.md"],"max_bytes":100000000000000000000}}}\n',
    '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"peek","arguments":{"paths":["README.md"],"x":-9223372036854775809}}}\n',
  ]);
  assert.equal(signal, null);
  assert.equal(code, 0);
  const msgs = out.trim().split("\n").map((l) => JSON.parse(l));
  const byId = (id) => msgs.find((m) => m.id === id);
  assert.equal(msgs.filter((m) => m.id === null && m.error?.code === -32700).length, 1);
  assert.equal(byId(1).error.code, -32600);
  assert.equal(byId(2).error.code, -32601);
  assert.ok(msgs.some((m) => m.id === null && m.error?.code === -32600 && /longer than/.test(m.error.message)));
  assert.equal(byId(3).error.code, -32602);
  assert.equal(byId(4).result.isError, true);
  assert.deepEqual(byId(5).result, {});
  assert.equal(byId(6).error.code, -32600);
  assert.equal(byId(7).error.code, -32600);
  assert.equal(byId(8).result.structuredContent.error.rule, "args.bad-value");
  assert.equal(byId(9).result.structuredContent.error.rule, "args.unknown-flag");
});

test("protocol versions: the current and the previous are agreed, others get the current", async () => {
  const { root } = tree();
  for (const [asked, agreed] of [["2025-11-25", "2025-11-25"], ["2025-06-18", "2025-06-18"], ["1999-01-01", "2025-11-25"]]) {
    const { out } = await rawSession(root, [
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: "x", version: "1" } } }) + "\n",
    ], { closeAfterMs: 500 });
    assert.equal(JSON.parse(out.split("\n")[0]).result.protocolVersion, agreed);
  }
});

test("the server runs under its own seccomp filter and no_new_privs, and its tools still work", async () => {
  const { root } = tree();
  const p = spawn(SERVER, ["--root", root], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  p.stdout.on("data", (d) => (out += d));
  p.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "peek", arguments: { paths: ["src/main.c"], lines: "1" } } }) + "\n");
  for (let i = 0; i < 100 && !out.includes('"id":1'); i++) await new Promise((res) => setTimeout(res, 50));
  const status = fs.readFileSync(`/proc/${p.pid}/status`, "utf8");
  p.stdin.end();
  await new Promise((res) => p.on("exit", res));
  assert.match(status, /NoNewPrivs:\s+1/);
  assert.match(status, /Seccomp:\s+2/);
  assert.equal(JSON.parse(out.split("\n")[0]).result.isError, false);
});

// What a model reads: every description and compact input schema, and the instructions. The
// reference filesystem server's fourteen tools cost 7,167 bytes; tack's may cost no more.
test("the tool definitions and instructions fit in the reference server's 7.2 KB", async () => {
  const { root } = tree();
  const { client } = await connect(root);
  const { tools } = await client.listTools();
  let bytes = Buffer.byteLength(client.getInstructions() || "");
  for (const t of tools) bytes += Buffer.byteLength(t.description) + Buffer.byteLength(JSON.stringify(t.inputSchema));
  assert.ok(bytes <= 7167, `${bytes} bytes`);
  assert.ok(!/--[a-z]/.test(client.getInstructions()));
  await client.close();
});

test("content is the tool's compact text; structuredContent the JSON; --content json the JSON", async () => {
  const { root } = tree();
  const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}: short text`);
  fs.writeFileSync(path.join(root, "short.txt"), lines.join("\n") + "\n");
  fs.writeFileSync(path.join(root, "crlf.txt"), "a\r\nb\r\n");
  const { client } = await connect(root);
  let r = await client.callTool({ name: "peek", arguments: { paths: ["short.txt"] } });
  const text = r.content[0].text;
  assert.equal(text, lines.map((l, i) => `${i + 1}\t${l}\n`).join(""));
  assert.ok(text.length <= fs.statSync(path.join(root, "short.txt")).size + 6 * 100);
  assert.equal(r.structuredContent.data.lines.length, 100);
  // notable: a one-line header
  r = await client.callTool({ name: "peek", arguments: { paths: ["crlf.txt"] } });
  assert.equal(r.content[0].text, "[crlf]\n1\ta\n2\tb\n");
  r = await client.callTool({ name: "peek", arguments: { paths: ["short.txt"], lines: "1:2", max_bytes: 30 } });
  assert.match(r.content[0].text, /^\[size \d+ bytes; cut by max-bytes; more: lines 2:\]\n1\tline 1: short text\n$/);
  // seek: path:line:text, counts path:N; list: a path a line
  r = await client.callTool({ name: "seek", arguments: { pattern: "line 10", paths: ["short.txt"] } });
  assert.equal(r.content[0].text, "short.txt:10:line 10: short text\nshort.txt:100:line 100: short text\n");
  r = await client.callTool({ name: "seek", arguments: { pattern: "line 10", paths: ["short.txt"], count: true } });
  assert.equal(r.content[0].text, "short.txt:2\n");
  r = await client.callTool({ name: "list", arguments: { dirs: ["sub"] } });
  assert.equal(r.content[0].text, "sub/inner.txt\n");
  // a writer: one line and the unified diff
  r = await client.callTool({ name: "replace", arguments: { old: "line 2: short", new: "line 2: long", paths: ["short.txt"] } });
  assert.equal(r.content[0].text.split("\n").slice(1).join("\n"),
    "@@ -1,5 +1,5 @@\n line 1: short text\n-line 2: short text\n+line 2: long text\n line 3: short text\n" +
    " line 4: short text\n line 5: short text\n");
  assert.match(r.content[0].text, /^short\.txt: 1 replacement\(s\), sha256 [0-9a-f]{64}\n/);
  // an error: rule: message, the repair as a tool call, never a path of the server's machine
  r = await client.callTool({ name: "peek", arguments: { paths: ["short.txt"], lnes: "1:2" } });
  assert.equal(r.content[0].text.split("\n")[0], "args.unknown-flag: peek takes no argument 'lnes'.");
  assert.ok(r.content[0].text.includes('repair: peek {"paths":["short.txt"],"lines":"1:2"}'), r.content[0].text);
  fs.writeFileSync(path.join(root, "long.txt"), "x".repeat(5000) + "\n");
  r = await client.callTool({ name: "peek", arguments: { paths: ["long.txt"], max_line_bytes: 1024 } });
  assert.equal(r.structuredContent.error.rule, "limit.line-too-long");
  assert.ok(!JSON.stringify(r).includes(root) && !JSON.stringify(r).includes(BIN), JSON.stringify(r));
  assert.match(r.content[0].text, /\nlimit\.line-too-long: [^\n]*\nhint: [^\n]*\nrepair: peek \{"max_line_bytes":5000,/);
  // an argument of the wrong type is named as the argument
  r = await client.callTool({ name: "peek", arguments: { paths: ["short.txt"], witness: "yes" } });
  assert.equal(r.structuredContent.error.rule, "args.bad-value");
  assert.match(r.content[0].text, /^args\.bad-value: the argument 'witness' of peek must be true or false\./);
  await client.close();

  const { client: json } = await connect(root, { args: ["--content", "json"] });
  r = await json.callTool({ name: "peek", arguments: { paths: ["crlf.txt"] } });
  assert.equal(JSON.parse(r.content[0].text).eol, "crlf");
  await json.close();
});

test("content past the server's budget is cut at a line and says so", async () => {
  const { root } = tree();
  fs.writeFileSync(path.join(root, "many.txt"), Array.from({ length: 5000 }, (_, i) => `needle ${i}`).join("\n") + "\n");
  const { client } = await connect(root, { args: ["--max-content", "4096"] });
  const r = await client.callTool({ name: "seek", arguments: { pattern: "needle", paths: ["many.txt"], max_count: 5000, max_bytes: 1 << 20 } });
  const text = r.content[0].text;
  assert.ok(Buffer.byteLength(text) <= 4096 + 200, `${text.length}`);
  assert.match(text, /\[content cut at \d+ of \d+ bytes; structuredContent holds the whole answer/);
  assert.equal(r.structuredContent.records.length, 5000 + 1);
  await client.close();
});

test("arguments a command line cannot carry are refused, never cut short or read as flags", async () => {
  const { root } = tree();
  const { client } = await connect(root);
  // exec ends an argument at a NUL byte: the tool would read another path than the one asked
  let r = await client.callTool({ name: "peek", arguments: { paths: ["src/main.c\u0000../outside/secret.txt"] } });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /NUL byte/);
  assert.ok(!JSON.stringify(r).includes("OUTSIDE-SECRET"));
  // an empty key would be "--", the end of the flags; a key with '=' would carry a value;
  // help, version and format are the server's (the tool would answer text, not its document)
  for (const bad of [{ "": true }, { "lines=1:2": true }, { "-n": "1" }, { help: true }, { version: true },
                     { format: "text" }]) {
    r = await client.callTool({ name: "peek", arguments: { paths: ["src/main.c"], ...bad } });
    assert.equal(r.isError, true, JSON.stringify(bad));
    assert.match(r.content[0].text, /^args\.unknown-flag: peek takes no argument /);
  }
  // an unknown key of a flag's shape is named by the server, with the nearest argument
  r = await client.callTool({ name: "peek", arguments: { paths: ["src/main.c"], lnes: "1:2" } });
  assert.equal(r.structuredContent.error.rule, "args.unknown-flag");
  await client.close();
});
