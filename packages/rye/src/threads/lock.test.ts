import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { rejects } from "../../test/rejects.ts";
import { acquireFileLock, lockStats, releaseFileLock, withFileLock } from "./lock.ts";
import { openBarrier, runFixture } from "./fixtures/run.ts";

const scratch = () => mkdtemp(join(tmpdir(), "rye-lock-"));
const exists = (p: string) => stat(p).then(() => true, () => false);
/** A pid that certainly belonged to a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!;

test("12 processes × 25 increments under the lock lose no update, starting from a lock left by a dead process", async (t) => {
  const dir = await scratch();
  const lockPath = join(dir, "counter.lock");
  const counter = join(dir, "counter");
  const barrier = join(dir, "go");
  // A crashed holder's lock is in place when the race starts: it must be taken over exactly once.
  await writeFile(lockPath, JSON.stringify({ pid: deadPid(), host: hostname(), created_at: new Date().toISOString(), token: "dead" }));
  const workers = Array.from({ length: 12 }, () => runFixture("lock-worker.ts", [lockPath, counter, "25", barrier]));
  await Promise.all(workers.map((w) => w.line(/^ready$/)));
  const started = performance.now();
  await openBarrier(barrier);
  const stats = await Promise.all(workers.map(async (w) => JSON.parse((await w.line(/^done /, 50_000)).slice(5)) as Record<string, number>));
  const elapsed = performance.now() - started;
  for (const w of workers) assert.equal((await w.exited).code, 0);
  assert.equal(await readFile(counter, "utf8"), "300");
  assert.equal(await exists(lockPath), false, "the last holder released the lock");
  assert.equal(await exists(`${lockPath}.takeover`), false);
  const sum = (k: string) => stats.reduce((a, s) => a + (s[k] ?? 0), 0);
  assert.equal(sum("acquired"), 300);
  assert.equal(sum("takeovers"), 1, "the dead holder's lock was removed once, by one waiter");
  t.diagnostic(
    `300 locked increments by 12 processes in ${elapsed.toFixed(0)} ms (${(elapsed / 300).toFixed(2)} ms each); ` +
      `${sum("contended")} contended attempts; wait p50 ${Math.max(...stats.map((s) => s.p50!)).toFixed(1)} ms (worst process), max ${Math.max(...stats.map((s) => s.max!)).toFixed(1)} ms`,
  );
});

test("a lock held by a process that was killed is taken over at once (not after staleMs)", async () => {
  const dir = await scratch();
  const lockPath = join(dir, "x.lock");
  const holder = runFixture("lock-holder.ts", [lockPath]);
  await holder.line(/^held$/);
  const held = JSON.parse(await readFile(lockPath, "utf8")) as { pid: number; host: string };
  assert.equal(held.pid, holder.child.pid);
  assert.equal(held.host, hostname());
  holder.child.kill("SIGKILL");
  await holder.exited;
  const before = lockStats.takeovers;
  const t0 = performance.now();
  const value = await withFileLock(lockPath, async () => "mine", { staleMs: 60_000, timeoutMs: 2_000 });
  assert.equal(value, "mine");
  assert.ok(performance.now() - t0 < 1_000, "no waiting for the stale time");
  assert.equal(lockStats.takeovers, before + 1);
  assert.equal(await exists(lockPath), false);
});

test("the lock file is never seen without its holder, and acquiring leaves no file of its own behind", async () => {
  const dir = await scratch();
  const lockPath = join(dir, "x.lock");
  let running = true;
  let seen = 0;
  const incomplete: string[] = [];
  const reader = (async () => {
    while (running) {
      const text = await readFile(lockPath, "utf8").catch(() => null);
      if (text === null) continue;
      seen++;
      try {
        assert.equal(typeof (JSON.parse(text) as { token: unknown }).token, "string");
      } catch {
        incomplete.push(text);
      }
    }
  })();
  for (let i = 0; i < 300; i++) await withFileLock(lockPath, async () => {});
  running = false;
  await reader;
  assert.ok(seen > 0, "the reader saw the lock held");
  assert.deepEqual(incomplete, []);
  assert.deepEqual(await readdir(dir), []);
});

test("a live holder is waited for, then TIMEOUT names it with a hint", async () => {
  const dir = await scratch();
  const lockPath = join(dir, "x.lock");
  const holder = runFixture("lock-holder.ts", [lockPath]);
  try {
    await holder.line(/^held$/);
    const t0 = performance.now();
    const err = await rejects(withFileLock(lockPath, async () => assert.fail("must not run"), { timeoutMs: 300 }), "TIMEOUT", /waiting for the lock/);
    const waited = performance.now() - t0;
    assert.ok(waited >= 290 && waited < 1_500, `waited ${waited} ms`);
    assert.match(err.message, new RegExp(`pid ${holder.child.pid}`));
    assert.match(err.hint, /delete .*x\.lock/);
    assert.equal((err.details as { holder: { pid: number } }).holder.pid, holder.child.pid);
    assert.equal(await exists(lockPath), true, "a live holder's lock is never removed");
  } finally {
    holder.child.kill("SIGKILL");
    await holder.exited;
  }
});

test("a lock not refreshed for staleMs is taken over even when its pid is alive (another host, or a reused pid)", async () => {
  const dir = await scratch();
  for (const host of ["elsewhere.example", hostname()]) {
    const lockPath = join(dir, `${host}.lock`);
    await writeFile(lockPath, JSON.stringify({ pid: process.pid, host, created_at: "2020-01-01T00:00:00Z", token: "old" }));
    // Fresh: waited for.
    await rejects(withFileLock(lockPath, async () => undefined, { staleMs: 5_000, timeoutMs: 100 }), "TIMEOUT");
    // Old: taken over.
    const old = new Date(Date.now() - 10_000);
    await utimes(lockPath, old, old);
    assert.equal(await withFileLock(lockPath, async () => 42, { staleMs: 5_000, timeoutMs: 500 }), 42);
  }
});

test("an empty lock file (holder crashed between create and write) is judged by its age", async () => {
  const dir = await scratch();
  const lockPath = join(dir, "x.lock");
  await writeFile(lockPath, "");
  await rejects(withFileLock(lockPath, async () => undefined, { staleMs: 5_000, timeoutMs: 100 }), "TIMEOUT");
  const old = new Date(Date.now() - 6_000);
  await utimes(lockPath, old, old);
  assert.equal(await withFileLock(lockPath, async () => "ok", { staleMs: 5_000, timeoutMs: 500 }), "ok");
});

test("the heartbeat keeps a long-running holder from being taken for stale", async () => {
  const dir = await scratch();
  const lockPath = join(dir, "x.lock");
  const order: string[] = [];
  const first = withFileLock(
    lockPath,
    async () => {
      order.push("first:start");
      await new Promise((r) => setTimeout(r, 3_000)); // 3 × staleMs
      order.push("first:end");
    },
    { staleMs: 1_000 },
  );
  await new Promise((r) => setTimeout(r, 30));
  const second = withFileLock(lockPath, async () => void order.push("second"), { staleMs: 1_000, timeoutMs: 6_000 });
  await Promise.all([first, second]);
  assert.deepEqual(order, ["first:start", "first:end", "second"]);
});

test("the lock is released when the body throws, and release leaves a lock that is no longer ours", async () => {
  const dir = await scratch();
  const lockPath = join(dir, "sub/dir/x.lock");
  await assert.rejects(
    withFileLock(lockPath, async () => {
      assert.equal(await exists(lockPath), true);
      throw new Error("boom");
    }),
    /boom/,
  );
  assert.equal(await exists(lockPath), false);

  const holder = await acquireFileLock(lockPath);
  // Someone took it over meanwhile (we were judged stale): our release must not remove their lock.
  await writeFile(lockPath, JSON.stringify({ pid: process.pid, host: hostname(), created_at: new Date().toISOString(), token: "theirs" }));
  await releaseFileLock(lockPath, holder);
  assert.equal(JSON.parse(await readFile(lockPath, "utf8")).token, "theirs");
});

test("limits are checked", async () => {
  const dir = await scratch();
  await assert.rejects(withFileLock(join(dir, "x.lock"), async () => undefined, { staleMs: 0 }), RangeError);
  await assert.rejects(withFileLock(join(dir, "x.lock"), async () => undefined, { timeoutMs: -1 }), RangeError);
});
