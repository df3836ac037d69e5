// tack-mcp's pool of tools started ahead of their calls (mcp/pool.h), through the official SDK
// client: calls are served by waiting processes and the pool refills; a process killed while
// it waited, or started from a binary since replaced, is never used; calls beyond the pool
// still answer; a server killed with -9 leaves nothing running; a pooled process installs its
// own sandbox (its own seccomp filter, and Landlock refusing a write outside the root); and
// the waiting mode cannot be reached from a command line.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { BIN, scratch, tree as freshTree, connect, holds } from "./helpers.mjs";

const WAITING = "--tack-mcp-waiting";
const base = scratch("tack-mcp-pool-");
const tree = () => freshTree((root) => fs.writeFileSync(path.join(root, "a.txt"), "alpha\nbeta\n"));

// /proc/PID/stat: the state and the parent, read past the command's own parentheses.
function stat(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { state: f[0], ppid: Number(f[1]) };
  } catch {
    return null;
  }
}
const running = (pid) => {
  const s = stat(pid);
  return s !== null && s.state !== "Z" && s.state !== "X";
};
const cmdline = (pid) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
};
function children(pid) {
  return fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p) && stat(p)?.ppid === pid).map(Number);
}
function descendants(pid) {
  const out = [];
  for (const c of children(pid)) out.push(c, ...descendants(c));
  return out;
}
// The server's processes waiting for a call of `tool` (TOOL.fixture: the test build below).
function waiting(server, tool) {
  return children(server).filter((p) => {
    const a = cmdline(p);
    const name = a.length ? path.basename(a[0]) : "";
    return running(p) && a.length === 2 && (name === tool || name === `${tool}.fixture`) && a[1] === WAITING;
  });
}
async function until(what, ms = 5000) {
  for (let t = 0; t < ms; t += 50) {
    const v = what();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  return what();
}

const peekA = (client) => client.callTool({ name: "peek", arguments: { paths: ["a.txt"] } });
function assertPeekA(r) {
  assert.equal(r.isError, false, JSON.stringify(r.content));
  assert.equal(r.structuredContent.data.lines[1].text, "beta");
}

test("a call is served by a process started ahead of it, and the pool refills", async () => {
  const { root } = tree();
  const { client, pid } = await connect(root);
  assert.deepEqual(waiting(pid, "peek"), [], "nothing is started before a tool is called");
  assertPeekA(await peekA(client));
  const ready = await until(() => waiting(pid, "peek").length === 2 && waiting(pid, "peek"));
  assert.ok(ready, "two peek processes wait after the first call");
  assertPeekA(await peekA(client));
  // One of them served the call and is gone (a reader is reaped once its answer is sent); a
  // replacement takes its place.
  assert.ok(await until(() => ready.some((p) => !running(p))), `one of ${ready} served the call`);
  assert.ok(await until(() => waiting(pid, "peek").length === 2), "the pool refills");
  assert.deepEqual(waiting(pid, "list"), [], "a tool never called has no process waiting");
});

// A writer's answer goes out as soon as it is printed (its change made and durable), before
// its process has exited; the server ends that process before it starts another call, so calls
// made one after another never meet a lock the one before held.
test("writers one after another on one file: every call lands, none meets the last one's lock", async () => {
  const { root } = tree();
  const { client, pid } = await connect(root);
  const file = path.join(root, "a.txt");
  let sha = spawnSync("sha256sum", [file]).stdout.toString().slice(0, 64);
  for (let i = 0; i < 20; i++) {
    const r = await client.callTool({ name: "replace", arguments: { old: i % 2 ? "gamma" : "beta", new: i % 2 ? "beta" : "gamma", paths: ["a.txt"] } });
    assert.equal(r.isError, false, `replace ${i}: ${JSON.stringify(r.structuredContent)}`);
    sha = r.structuredContent.data.after_sha256;
    const w = await client.callTool({ name: "write", arguments: { path: "a.txt", if_sha256: sha, stdin: `alpha\n${i % 2 ? "beta" : "gamma"}\nround ${i}\n` } });
    assert.equal(w.isError, false, `write ${i}: ${JSON.stringify(w.structuredContent)}`);
    assert.equal(fs.readFileSync(file, "utf8"), `alpha\n${i % 2 ? "beta" : "gamma"}\nround ${i}\n`);
  }
  // Every process that served a call is gone: only the waiting ones are left.
  assert.ok(await until(() => children(pid).filter(running).every((p) => cmdline(p)[1] === WAITING)),
            "no writer outlives its call");
});

test("a process killed while it waited is not used: the next call still answers", async () => {
  const { root } = tree();
  const { client, pid } = await connect(root);
  assertPeekA(await peekA(client));
  const ready = await until(() => waiting(pid, "peek").length === 2 && waiting(pid, "peek"));
  assert.ok(ready);
  for (const p of ready) process.kill(p, "SIGKILL");
  await until(() => ready.every((p) => !running(p)));
  assertPeekA(await peekA(client));
  assertPeekA(await peekA(client));
  assert.ok(await until(() => waiting(pid, "peek").length === 2), "the pool refills after the kills");
});

test("calls while the pool is empty: more at once than it holds all answer, each its own", async () => {
  const { root } = tree();
  for (let i = 0; i < 12; i++) fs.writeFileSync(path.join(root, `f${i}.txt`), `file ${i}\n`);
  const { client } = await connect(root, { args: ["--max-concurrent", "8"] });
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, i) => client.callTool({ name: "digest", arguments: { paths: [`f${i}.txt`] } })),
  );
  results.forEach((r, i) => {
    assert.equal(r.isError, false, JSON.stringify(r.content));
    const [rec] = r.structuredContent.records;
    assert.equal(rec.path, `f${i}.txt`);
    assert.equal(rec.hex, spawnSync("sha256sum", [path.join(root, `f${i}.txt`)]).stdout.toString().slice(0, 64));
  });
});

test("kill -9 of the server leaves nothing running: waiting processes and a running call", async () => {
  const { root } = tree();
  const big = path.join(root, "big.bin");
  fs.closeSync(fs.openSync(big, "w"));
  fs.truncateSync(big, 64 * 1024 * 1024 * 1024); // sparse: hashing it takes minutes
  const { client, pid } = await connect(root);
  assertPeekA(await peekA(client));
  await client.callTool({ name: "digest", arguments: { paths: ["a.txt"] } });
  assert.ok(await until(() => waiting(pid, "peek").length === 2 && waiting(pid, "digest").length === 2));
  client.callTool({ name: "digest", arguments: { paths: ["big.bin"] } }).catch(() => {});
  const hashing = await until(() => descendants(pid).find((p) => holds(p, (f) => f === big)));
  assert.ok(hashing, "the long call runs");
  const all = descendants(pid);
  assert.ok(all.length >= 4, `the server's processes: ${all}`);
  process.kill(pid, "SIGKILL");
  const left = await until(() => all.every((p) => !running(p)) || null).then(() => all.filter(running));
  assert.deepEqual(left.map((p) => `${p}: ${cmdline(p).join(" ")}`), []);
});

test("a pooled process installs its own seccomp filter over the server's", async () => {
  const { root } = tree();
  const big = path.join(root, "big.bin");
  fs.closeSync(fs.openSync(big, "w"));
  fs.truncateSync(big, 64 * 1024 * 1024 * 1024);
  const { client, pid } = await connect(root);
  await client.callTool({ name: "digest", arguments: { paths: ["a.txt"] } });
  const ready = await until(() => waiting(pid, "digest").length === 2 && waiting(pid, "digest"));
  assert.ok(ready);
  const filters = (p) => Number(/Seccomp_filters:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, "utf8"))[1]);
  const server = filters(pid);
  // Its filter depends on the tool alone, so a process loads it while it waits (runner/waiting.h):
  // one of its own over what it inherited, and no second copy once it serves.
  assert.equal(filters(ready[0]), server + 1);
  const ac = new AbortController();
  const call = client.callTool({ name: "digest", arguments: { paths: ["big.bin"] } }, undefined, { signal: ac.signal });
  const serving = await until(() => ready.find((p) => running(p) && holds(p, (f) => f === big)));
  assert.ok(serving, "a process started ahead serves the call");
  assert.equal(filters(serving), server + 1, `filters: serving ${filters(serving)}, server ${server}`);
  ac.abort();
  await assert.rejects(call);
});

// The test build of write (build/fixture/write) creates TACK_TEST_WRITE_PAST_CHECKS past its own
// checks, so only the kernel's ruleset stands in its way. tack-mcp gives its tools an empty
// environment, so here a script in the server's directory sets it and executes the fixture in
// the waiting mode (the same process: its parent is still the server).
function serverWithHookedWrite(dir, target) {
  const fixture = path.resolve(BIN, "../fixture/write");
  const bin = path.join(dir, "bin");
  fs.mkdirSync(bin);
  fs.copyFileSync(path.join(BIN, "tack-mcp"), path.join(bin, "tack-mcp"));
  fs.copyFileSync(fixture, path.join(bin, "write.fixture"));
  fs.writeFileSync(path.join(bin, "write"),
    `#!/bin/sh\nTACK_TEST_WRITE_PAST_CHECKS='${target}' exec '${bin}/write.fixture' "$@"\n`, { mode: 0o755 });
  fs.chmodSync(path.join(bin, "tack-mcp"), 0o755);
  fs.chmodSync(path.join(bin, "write.fixture"), 0o755);
  return path.join(bin, "tack-mcp");
}

test("a write outside the root is refused by the kernel in a pooled process; inside, made", async () => {
  if (!fs.existsSync(path.resolve(BIN, "../fixture/write"))) return assert.fail("build/fixture/write is not built");
  for (const where of ["outside", "root"]) {
    const { dir, root } = tree();
    const target = path.join(dir, where, "escaped.txt");
    const server = serverWithHookedWrite(dir, target);
    const { client, pid } = await connect(root, { server, args: ["--tools", "write"] });
    const write = (name) => client.callTool({ name: "write", arguments: { path: name, create: true, stdin: "hi\n" } });
    await write("first.txt");
    if (where === "root") fs.rmSync(target);
    const ready = await until(() => waiting(pid, "write").length === 2 && waiting(pid, "write"));
    assert.ok(ready, "write processes wait");
    const r = await write("second.txt");
    // (a writer's answer goes out before its process is reaped: wait for the reaping)
    assert.ok(await until(() => ready.some((p) => !running(p))), "a process started ahead served the call");
    if (where === "outside") {
      assert.equal(r.isError, true);
      assert.equal(r.structuredContent.error.rule, "io.permission-denied", JSON.stringify(r.structuredContent));
      assert.equal(r.structuredContent.error.detail.errno, "EACCES");
      assert.ok(!fs.existsSync(target), "nothing was created outside the root");
    } else {
      assert.equal(r.isError, false, JSON.stringify(r.structuredContent));
      assert.ok(fs.existsSync(target), "the control: inside the root the same hook creates its file");
    }
  }
});

test("a tool binary replaced on disk: processes started from the old one are not used", async () => {
  const { dir, root } = tree();
  const bin = path.join(dir, "bin");
  fs.mkdirSync(bin);
  for (const f of ["tack-mcp", "peek"]) fs.copyFileSync(path.join(BIN, f), path.join(bin, f));
  for (const f of ["tack-mcp", "peek"]) fs.chmodSync(path.join(bin, f), 0o755);
  const { client, pid } = await connect(root, { server: path.join(bin, "tack-mcp"), args: ["--tools", "peek"] });
  assertPeekA(await peekA(client));
  const old = await until(() => waiting(pid, "peek").length === 2 && waiting(pid, "peek"));
  assert.ok(old);
  fs.copyFileSync(path.join(BIN, "peek"), path.join(bin, "peek.new"));
  fs.chmodSync(path.join(bin, "peek.new"), 0o755);
  fs.renameSync(path.join(bin, "peek.new"), path.join(bin, "peek"));
  assertPeekA(await peekA(client));
  assert.deepEqual(old.filter(running), [], "the processes of the old binary were ended");
  const now = await until(() => waiting(pid, "peek").length === 2 && waiting(pid, "peek"));
  assert.ok(now, "the pool refills from the new binary");
  for (const p of now) assert.ok(!fs.readlinkSync(`/proc/${p}/exe`).endsWith("(deleted)"), `${p} runs the new binary`);
});

test("the waiting mode is not reachable from a command line: it is an unknown flag there", () => {
  const argv = [path.join(BIN, "peek"), "--root", base(), "a.txt"];
  const body = Buffer.from(argv.map((a) => a + "\0").join(""));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(body.length);
  for (const tool of ["peek", "write", "run"]) {
    const p = spawnSync(path.join(BIN, tool), [WAITING], { input: Buffer.concat([len, body]), timeout: 10000 });
    assert.equal(p.status, 2, `${tool}: ${p.stdout}${p.stderr}`);
    const out = p.stdout.toString().trim().split("\n").map((l) => JSON.parse(l));
    const err = out.at(-1).error ?? out[0].error;
    assert.equal(err.rule, "args.unknown-flag", p.stdout.toString());
  }
});
