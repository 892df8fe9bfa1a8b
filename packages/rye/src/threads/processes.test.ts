import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { isAlive, killTree, processStartTime, threadProcessAlive } from "./processes.ts";

/** A detached node process that starts a child; both print nothing and run until killed. */
async function startTree(options: { ignoreTerm?: boolean; detached?: boolean } = {}): Promise<{ parent: number; child: number }> {
  const trap = options.ignoreTerm ? "process.on('SIGTERM', () => {});" : "";
  const childCode = `${trap} setInterval(() => {}, 1000);`;
  const code = `${trap} const c = require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(childCode)}], { stdio: 'ignore' });
    setTimeout(() => console.log(process.pid + ' ' + c.pid), 150); setInterval(() => {}, 1000);`;
  const proc = spawn(process.execPath, ["-e", code], { detached: options.detached ?? true, stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(createInterface({ input: proc.stdout! }), "line")) as [string];
  const [parent, child] = line.split(" ").map(Number) as [number, number];
  return { parent, child };
}

const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!;

test("isAlive: this process yes, an exited one no, nonsense no", () => {
  assert.equal(isAlive(process.pid), true);
  assert.equal(isAlive(deadPid()), false);
  for (const bad of [0, -1, 1.5, Number.NaN]) assert.equal(isAlive(bad), false);
});

test("killTree ends a detached process and the child it started, with SIGTERM within the grace period", async () => {
  const { parent, child } = await startTree();
  assert.ok(isAlive(parent) && isAlive(child));
  const t0 = performance.now();
  const result = await killTree(parent, { graceMs: 3_000 });
  assert.deepEqual(result, { wasAlive: true, forced: false, exited: true });
  assert.ok(performance.now() - t0 < 2_000);
  assert.equal(isAlive(parent), false);
  assert.equal(isAlive(child), false);
  assert.deepEqual(await killTree(parent), { wasAlive: false, forced: false, exited: true }, "a second kill finds nothing");
});

test("what ignores SIGTERM gets SIGKILL once the grace period is over, not before", async () => {
  const { parent, child } = await startTree({ ignoreTerm: true });
  const t0 = performance.now();
  const result = await killTree(parent, { graceMs: 400 });
  const took = performance.now() - t0;
  assert.deepEqual(result, { wasAlive: true, forced: true, exited: true });
  assert.ok(took >= 390 && took < 3_000, `took ${took} ms`);
  assert.equal(isAlive(parent), false);
  assert.equal(isAlive(child), false);
});

test("a process that leads no group is killed alone; killTree refuses pid 1, this process and bad grace", async () => {
  const { parent, child } = await startTree({ detached: false });
  try {
    assert.deepEqual(await killTree(parent, { graceMs: 1_000 }), { wasAlive: true, forced: false, exited: true });
    assert.equal(isAlive(parent), false);
    assert.equal(isAlive(child), true, "not in a group of its own: not reached, as documented");
  } finally {
    process.kill(child, "SIGKILL");
  }
  await assert.rejects(killTree(1), RangeError);
  await assert.rejects(killTree(process.pid), RangeError);
  await assert.rejects(killTree(0), RangeError);
  await assert.rejects(killTree(deadPid(), { graceMs: -1 }), RangeError);
});

test("Linux: a zombie counts as dead; a pid whose process started after the record was written is not the thread", { skip: process.platform !== "linux" ? "needs /proc" : false }, async () => {
  // The background child waits until its parent has exec'd into `sleep` (a shell may reap children before it
  // execs; `sleep` never does), then exits: a zombie, from then until its parent ends.
  const waitForExec = 'while [ "$(cat /proc/$PPID/comm)" != sleep ]; do sleep 0.02; done';
  const sh = spawn("sh", ["-c", `sh -c '${waitForExec}' & echo $!; exec sleep 30`], { stdio: ["ignore", "pipe", "ignore"] });
  const [line] = (await once(createInterface({ input: sh.stdout! }), "line")) as [string];
  const zombie = Number(line);
  const state = () => readFileSync(`/proc/${zombie}/stat`, "utf8").replace(/^.*\) /s, "")[0];
  for (let i = 0; i < 500 && state() !== "Z"; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(state(), "Z", "the child became a zombie");
  let signalled = true;
  try {
    process.kill(zombie, 0);
  } catch {
    signalled = false;
  }
  assert.equal(signalled, true, "the kernel still knows the zombie");
  assert.equal(isAlive(zombie), false);
  sh.kill("SIGKILL");

  const started = processStartTime(process.pid)!;
  assert.ok(started.getTime() <= Date.now() && Date.now() - started.getTime() < 10 * 60_000, String(started));
  const now = new Date().toISOString();
  assert.equal(threadProcessAlive({ pid: process.pid, updated_at: now }), true);
  assert.equal(threadProcessAlive({ pid: process.pid, updated_at: new Date(started.getTime() - 60_000).toISOString() }), false, "pid reused");
  assert.equal(threadProcessAlive({ pid: deadPid(), updated_at: now }), false);
  assert.equal(threadProcessAlive({ updated_at: now }), false);
});
