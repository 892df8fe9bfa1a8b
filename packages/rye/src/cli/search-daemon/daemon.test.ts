/**
 * The search daemon with real processes and a real Unix socket: `bin/rye.mjs search` with RYE_SEARCH_DAEMON=1
 * against `rye search-daemon start`, compared byte for byte with the same search run in-process.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { execFile, spawn } from "node:child_process";
import { chmodSync, existsSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import type { Socket } from "node:net";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { DAEMON_VERSION, MAX_REQUEST_BYTES, PROTOCOL, REQUEST_READ_MS, socketPath } from "./protocol.ts";

const bin = fileURLToPath(new URL("../../../bin/rye.mjs", import.meta.url));

interface Run {
  stdout: string;
  stderr: string;
  code: number;
}

function rye(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env, cwd, encoding: "utf8" }, (err, stdout, stderr) => {
      resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 });
    });
  });
}

const knowledge = (id: string, title: string, body: string) => `---\nid: ${id}\ntitle: ${title}\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n---\n\n${body}\n`;

let base: string;
let home: string;
let projectA: string;
let projectB: string;
let env: NodeJS.ProcessEnv;
/** The same environment with the daemon asked (and a note on stderr whenever it is not used). */
let daemonEnv: NodeJS.ProcessEnv;

async function waitFor(check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A raw request on the socket: the answer line, parsed. */
function raw(payload: string | Buffer): Promise<{ ok: boolean; reason?: string; status?: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath(env));
    let text = "";
    socket.on("data", (c) => (text += c.toString("utf8")));
    socket.on("error", () => undefined);
    socket.on("close", () => (text ? resolve(JSON.parse(text)) : reject(new Error("no answer"))));
    socket.on("connect", () => socket.write(payload));
  });
}
const request = (fields: Record<string, unknown>) => raw(`${JSON.stringify({ protocol: PROTOCOL, version: DAEMON_VERSION, ...fields })}\n`);
const served = async () => Number((await request({ op: "status" })).status?.searches);

/** A foreground daemon this test owns (killed at the end whatever happens). */
function startDaemon(extra: string[] = []): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(process.execPath, [bin, "search-daemon", "start", "--foreground", ...extra], { env, cwd: base, stdio: ["ignore", "ignore", "pipe"] });
  const ready = waitFor(async () => (await request({ op: "status" }).catch(() => null))?.ok === true);
  return { child, ready };
}
const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));

before(async () => {
  base = await mkdtemp(join(tmpdir(), "rye-sd-"));
  home = join(base, "home");
  projectA = join(base, "a");
  projectB = join(base, "b");
  await mkdir(join(home, ".ai", "knowledge", "notes"), { recursive: true });
  await mkdir(join(projectA, ".ai", "knowledge", "notes"), { recursive: true });
  await mkdir(join(projectB, ".ai", "knowledge", "notes"), { recursive: true });
  await writeFile(join(home, ".ai", "knowledge", "notes", "mine.md"), knowledge("mine", "user note", "alpha shared words"));
  await writeFile(join(projectA, ".ai", "knowledge", "notes", "alpha.md"), knowledge("alpha", "alpha project note", "alpha registry signature"));
  await writeFile(join(projectA, ".ai", "knowledge", "notes", "beta.md"), knowledge("beta", "beta note", "beta words alpha"));
  await writeFile(join(projectB, ".ai", "knowledge", "notes", "gamma.md"), knowledge("gamma", "gamma note", "alpha gamma"));
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("RYE_") && k !== "XDG_STATE_HOME" && k !== "XDG_CACHE_HOME"));
  env = { ...clean, HOME: home, USER_SPACE: home, XDG_STATE_HOME: join(base, "state"), RYE_SEARCH_INDEX_DIR: join(base, "index"), RYE_OFFLINE: "1" };
  daemonEnv = { ...env, RYE_SEARCH_DAEMON: "1", RYE_SEARCH_DAEMON_DEBUG: "1" };
});

after(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Runs `args` through the daemon and in-process; both must print the same bytes and exit alike, and the daemon must have answered. */
function sameAsInProcess(args: string[], cwd: string): Promise<Run> {
  return sameAsInProcessWith(args, cwd, env);
}
async function sameAsInProcessWith(args: string[], cwd: string, runEnv: NodeJS.ProcessEnv): Promise<Run> {
  const before = await served();
  const viaDaemon = await rye(args, { ...runEnv, RYE_SEARCH_DAEMON: "1", RYE_SEARCH_DAEMON_DEBUG: "1" }, cwd);
  assert.equal(await served(), before + 1, `the daemon answered ${args.join(" ")} (stderr: ${viaDaemon.stderr})`);
  const inProcess = await rye(args, runEnv, cwd);
  assert.deepEqual(viaDaemon, inProcess, args.join(" "));
  return viaDaemon;
}

describe("search daemon", () => {
  let daemon: ChildProcess;

  before(async () => {
    const started = startDaemon();
    daemon = started.child;
    await started.ready;
  });
  after(async () => {
    daemon.kill("SIGKILL");
    await exited(daemon);
  });

  test("its folder is 0700 and its socket 0600", () => {
    assert.equal(statSync(join(base, "state", "rye")).mode & 0o777, 0o700);
    assert.equal(statSync(socketPath(env)).mode & 0o777, 0o600);
  });

  test("prints what the in-process search prints, byte for byte, with the same exit code", async () => {
    const hits = await sameAsInProcess(["search", "--local", "alpha"], projectA);
    assert.match(hits.stdout, /alpha@1\.0\.0 {2}\[project\]/);
    assert.match(hits.stdout, /mine@1\.0\.0 {2}\[user\]/);
    await sameAsInProcess(["search", "--json", "alpha", "-t", "knowledge"], projectA); // RYE_OFFLINE=1: local without --local
    await sameAsInProcess(["search", "--local", "--source", "system", "--limit", "3", "rye"], projectA); // signed system items: ✓
    await sameAsInProcess(["search", "--local", "nothing_matches_this"], projectA);
    const bad = await sameAsInProcess(["search", "--local", "alpha AND ("], projectA);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /BAD_REQUEST/);
    await sameAsInProcess(["search", "--local", "--limit", "0", "alpha"], projectA);
  });

  test("another cwd is another project; --project resolves against the client's cwd", async () => {
    const b = await sameAsInProcess(["search", "--local", "alpha"], projectB);
    assert.match(b.stdout, /gamma@/);
    assert.doesNotMatch(b.stdout, /beta@/);
    const viaFlag = await sameAsInProcess(["search", "--local", "-p", "../a", "alpha"], projectB);
    assert.match(viaFlag.stdout, /beta@/);
  });

  test("an edit, an added and a deleted item are seen by the next search", async () => {
    const folder = join(projectA, ".ai", "knowledge", "notes");
    await sameAsInProcess(["search", "--local", "alpha"], projectA);
    await writeFile(join(folder, "beta.md"), knowledge("beta", "beta renamed", "beta words alpha zebra"));
    assert.match((await sameAsInProcess(["search", "--local", "zebra"], projectA)).stdout, /beta renamed/);
    await writeFile(join(folder, "delta.md"), knowledge("delta", "delta note", "zebra delta"));
    assert.match((await sameAsInProcess(["search", "--local", "zebra"], projectA)).stdout, /delta@/);
    await unlink(join(folder, "delta.md"));
    assert.doesNotMatch((await sameAsInProcess(["search", "--local", "zebra"], projectA)).stdout, /delta@/);
    await writeFile(join(home, ".ai", "knowledge", "notes", "mine.md"), knowledge("mine", "user note", "alpha shared words zebra"));
    assert.match((await sameAsInProcess(["search", "--local", "zebra"], projectA)).stdout, /mine@/);
  });

  test("signatures are verified per request, with the keys that request's environment trusts", async () => {
    const signer = { ...env, USER_SPACE: join(base, "signer") };
    assert.equal((await rye(["keygen"], signer, projectB)).code, 0);
    const signed = await rye(["sign", join(projectB, ".ai", "knowledge", "notes", "gamma.md")], signer, projectB);
    assert.equal(signed.code, 0, signed.stderr);
    // The signer's user space trusts its key: ✓. Another user space (same project, same daemon) does not: !.
    const trusted = await sameAsInProcessWith(["search", "--local", "gamma"], projectB, signer);
    assert.match(trusted.stdout, /✓ knowledge notes\/gamma@/);
    const untrusted = await sameAsInProcessWith(["search", "--local", "gamma"], projectB, env);
    assert.match(untrusted.stdout, /! knowledge notes\/gamma@/);
  });

  test("refuses what it does not serve: registry searches, other versions, bad, foreign or oversized requests", async () => {
    const { RYE_OFFLINE: _, ...online } = env;
    const search = { op: "search", argv: ["search", "alpha"], cwd: projectA, env: online };
    assert.match((await request(search)).reason ?? "", /not a local search/);
    assert.match((await request({ ...search, argv: ["search", "--local", "--registry-only", "alpha"] })).reason ?? "", /not a local search/);
    assert.match((await request({ ...search, argv: ["search", "-p", "--local", "alpha"] })).reason ?? "", /not a local search/);
    assert.match((await request({ ...search, argv: ["load", "--local"] })).reason ?? "", /not a local search/);
    assert.match((await raw(`${JSON.stringify({ ...search, protocol: PROTOCOL, version: "0.0.0-other" })}\n`)).reason ?? "", /version mismatch/);
    assert.match((await raw("not json\n")).reason ?? "", /not JSON/);
    assert.match((await request({ ...search, argv: ["search", "--local", "alpha"], cwd: "relative" })).reason ?? "", /absolute/);
    assert.match((await request({ ...search, argv: ["search", "--local", "alpha"], env: { ...env, HOME: "/elsewhere" } })).reason ?? "", /another home/);
    assert.match((await raw(Buffer.alloc(MAX_REQUEST_BYTES + 1, 0x20))).reason ?? "", /larger than/);
    // A registry search with the daemon asked runs in-process (the client does not even ask).
    const before = await served();
    const online1 = await rye(["search", "--registry-only", "alpha"], daemonEnv, projectA);
    assert.match(online1.stderr, /UNAVAILABLE/);
    assert.equal(await served(), before);
  });

  test("a connection that sends no whole request is dropped after REQUEST_READ_MS", { timeout: 15_000 }, async () => {
    const socket = createConnection(socketPath(env));
    socket.on("error", () => undefined);
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write('{"protocol":1');
    const t = Date.now();
    await new Promise((resolve) => socket.once("close", resolve));
    const waited = Date.now() - t;
    assert.ok(waited >= REQUEST_READ_MS - 100 && waited < REQUEST_READ_MS + 3000, `closed after ${waited} ms`);
  });

  test("a client whose state folder is not private to the user does not use the socket", async () => {
    const dir = join(base, "state", "rye");
    chmodSync(dir, 0o755);
    try {
      const run = await rye(["search", "--local", "alpha"], daemonEnv, projectA);
      assert.match(run.stderr, /not a folder private to this user/);
      assert.equal(run.code, 0);
    } finally {
      chmodSync(dir, 0o700);
    }
  });
});

describe("falling back to the in-process search", () => {
  test("a daemon killed mid-way leaves a stale socket: the search runs in-process, same output", async () => {
    const { child, ready } = startDaemon();
    await ready;
    const warm = await rye(["search", "--local", "alpha"], daemonEnv, projectA);
    assert.doesNotMatch(warm.stderr, /not used/);
    child.kill("SIGKILL");
    await exited(child);
    assert.ok(existsSync(socketPath(env)), "the killed daemon's socket stays behind");
    const run = await rye(["search", "--local", "alpha"], daemonEnv, projectA);
    assert.match(run.stderr, /search daemon not used \(ECONNREFUSED\)/);
    const inProcess = await rye(["search", "--local", "alpha"], env, projectA);
    assert.equal(run.stdout, inProcess.stdout);
    assert.equal(run.code, inProcess.code);
    // A new daemon takes the stale socket over.
    const again = startDaemon();
    await again.ready;
    again.child.kill("SIGTERM");
    await exited(again.child);
    assert.ok(!existsSync(socketPath(env)), "a daemon stopped by SIGTERM removes its socket");
  });

  test("a daemon that does not answer in RYE_SEARCH_DAEMON_TIMEOUT_MS: the search runs in-process", { timeout: 30_000 }, async () => {
    await mkdir(join(base, "state", "rye"), { recursive: true, mode: 0o700 });
    const accepted: Socket[] = [];
    const silent = createServer((socket) => void accepted.push(socket));
    await new Promise<void>((resolve) => silent.listen(socketPath(env), resolve));
    chmodSync(socketPath(env), 0o600);
    try {
      const started = Date.now();
      const run = await rye(["search", "--local", "alpha"], { ...daemonEnv, RYE_SEARCH_DAEMON_TIMEOUT_MS: "300" }, projectA);
      assert.match(run.stderr, /no answer within 300 ms/);
      assert.match(run.stdout, /alpha@1\.0\.0/);
      assert.ok(Date.now() - started < 8000);
    } finally {
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test("without RYE_SEARCH_DAEMON=1 the daemon is not asked", async () => {
    const { child, ready } = startDaemon();
    await ready;
    try {
      const before = await served();
      await rye(["search", "--local", "alpha"], env, projectA);
      assert.equal(await served(), before);
    } finally {
      child.kill("SIGKILL");
      await exited(child);
    }
  });
});

describe("rye search-daemon start | status | stop", () => {
  test("start runs one daemon in the background; a second start is refused; stop stops it", async () => {
    const started = await rye(["search-daemon", "start", "--idle-timeout", "60"], env, base);
    assert.equal(started.code, 0, started.stderr);
    const pid = Number(/pid (\d+)/.exec(started.stdout)?.[1]);
    try {
      const second = await rye(["search-daemon", "start"], env, base);
      assert.equal(second.code, 1);
      assert.match(second.stderr, /CONFLICT/);
      assert.match((await rye(["search-daemon", "status"], env, base)).stdout, new RegExp(`pid ${pid}`));
      assert.match((await rye(["search-daemon", "stop"], env, base)).stdout, /stopped/);
      const status = await rye(["search-daemon", "status"], env, base);
      assert.equal(status.code, 1);
      assert.match(status.stdout, /no search daemon runs/);
    } finally {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* stopped */
      }
    }
  });

  test("the daemon exits after --idle-timeout seconds without a request and removes its socket", { timeout: 30_000 }, async () => {
    const { child, ready } = startDaemon(["--idle-timeout", "1"]);
    await ready;
    const t = Date.now();
    await exited(child);
    assert.ok(Date.now() - t < 5000);
    assert.equal(child.exitCode, 0);
    assert.ok(!existsSync(socketPath(env)));
  });
});
