import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { rejects } from "../../test/rejects.ts";
import type { Ledger } from "./ledger.ts";
import { getEntry, readLedger, release, remaining, report, reserve, roundUsd } from "./ledger.ts";
import { ledgerPath, threadsDir } from "./paths.ts";
import { openBarrier, runFixture } from "./fixtures/run.ts";

const project = () => mkdtemp(join(tmpdir(), "rye-ledger-"));
const nano = (usd: number) => Math.round(usd * 1e9);

test("a root reserves; children take from its remaining, which counts the open reservations of all siblings", async () => {
  const p = await project();
  const root = await reserve(p, { threadId: "root", amount: 1 });
  assert.deepEqual(
    { ...root, created_at: "", updated_at: "" },
    { thread_id: "root", parent_thread_id: null, reserved_spend: 1, actual_spend: 0, max_spend: 1, spawned: 0, status: "active", created_at: "", updated_at: "" },
  );
  await report(p, "root", 0.1);
  await reserve(p, { threadId: "a", parentId: "root", amount: 0.5 });
  assert.equal(await remaining(p, "root"), 0.4);
  const err = await rejects(reserve(p, { threadId: "b", parentId: "root", amount: 0.41 }), "FORBIDDEN", /0\.400000 USD left/);
  assert.deepEqual(err.details, { limit_code: "spend_exceeded", remaining: 0.4, requested: 0.41, parent_thread_id: "root" });
  await reserve(p, { threadId: "b", parentId: "root", amount: 0.4 }); // exactly the rest
  assert.equal(await remaining(p, "root"), 0);
  assert.equal((await getEntry(p, "root"))!.spawned, 2);
  assert.equal((await getEntry(p, "root"))!.peak_committed, 1, "own 0.1 + open 0.5 + 0.4: the whole reservation at once");
  assert.equal(await getEntry(p, "nobody"), undefined);
});

test("spawns limit, missing or released parent, duplicate reservation and bad input are refused", async () => {
  const p = await project();
  await reserve(p, { threadId: "root", amount: 1 });
  await reserve(p, { threadId: "c1", parentId: "root", amount: 0.1, maxSpawns: 2 });
  await reserve(p, { threadId: "c2", parentId: "root", amount: 0.1, maxSpawns: 2 });
  const err = await rejects(reserve(p, { threadId: "c3", parentId: "root", amount: 0.1, maxSpawns: 2 }), "FORBIDDEN", /started 2 children/);
  assert.deepEqual(err.details, { limit_code: "spawns_exceeded", spawned: 2, max_spawns: 2, parent_thread_id: "root" });
  await rejects(reserve(p, { threadId: "c3", parentId: "ghost", amount: 0.1 }), "ITEM_NOT_FOUND");
  await rejects(reserve(p, { threadId: "c1", parentId: "root", amount: 0.1 }), "CONFLICT", /already has a budget reservation/);
  await release(p, "c1");
  await rejects(reserve(p, { threadId: "c1x", parentId: "c1", amount: 0 }), "CONFLICT", /has ended/);
  for (const amount of [-1, Number.NaN, Number.POSITIVE_INFINITY, 1e10]) await rejects(reserve(p, { threadId: "z", amount }), "BAD_REQUEST");
  await rejects(reserve(p, { threadId: "z", parentId: "z", amount: 0 }), "BAD_REQUEST");
  await rejects(reserve(p, { threadId: "../z", amount: 0 }), "PATH_TRAVERSAL");
  await rejects(reserve(p, { threadId: "z", parentId: "root", amount: 0, maxSpawns: 1.5 }), "BAD_REQUEST");
  await rejects(report(p, "root", -0.01), "BAD_REQUEST");
  await rejects(report(p, "ghost", 0.01), "ITEM_NOT_FOUND");
  await rejects(release(p, "ghost"), "ITEM_NOT_FOUND");
  assert.deepEqual(Object.keys((await readLedger(p)).entries).sort(), ["c1", "c2", "root"], "refusals wrote nothing");
});

test("upTo: a child takes what its parent has left when it asked for more; the spawn limit is checked before the budget", async () => {
  const p = await project();
  await reserve(p, { threadId: "root", amount: 1 });
  const a = await reserve(p, { threadId: "a", parentId: "root", amount: 0.75, maxSpawns: 3, upTo: true });
  assert.equal(a.reserved_spend, 0.75, "asked for less than is left: gets what it asked for");
  const b = await reserve(p, { threadId: "b", parentId: "root", amount: 1, maxSpawns: 3, upTo: true });
  assert.equal(b.reserved_spend, 0.25, "asked for more: gets the rest");
  const empty = await rejects(reserve(p, { threadId: "c", parentId: "root", amount: 1, maxSpawns: 3, upTo: true }), "FORBIDDEN");
  assert.equal((empty.details as { limit_code: string }).limit_code, "spend_exceeded", "nothing left");
  const spawns = await rejects(reserve(p, { threadId: "d", parentId: "root", amount: 1, maxSpawns: 2, upTo: true }), "FORBIDDEN");
  assert.equal((spawns.details as { limit_code: string }).limit_code, "spawns_exceeded", "over the spawn limit and out of budget: the spawn limit is what is reported");
  assert.equal((await getEntry(p, "root"))!.spawned, 2, "refusals start nothing");
});

test("maxActive: the threads holding a reservation at once are capped; a release frees a place", async () => {
  const p = await project();
  await reserve(p, { threadId: "one", amount: 1, maxActive: 2 });
  await reserve(p, { threadId: "two", parentId: "one", amount: 0.1, maxActive: 2 });
  const third = await rejects(reserve(p, { threadId: "three", amount: 1, maxActive: 2 }), "FORBIDDEN");
  assert.deepEqual(third.details, { limit_code: "threads_exceeded", active: 2, max_threads: 2 });
  assert.equal(await getEntry(p, "three"), undefined, "a refusal reserves nothing");
  await release(p, "two");
  await reserve(p, { threadId: "three", amount: 1, maxActive: 2 });
  await rejects(reserve(p, { threadId: "four", amount: 1, maxActive: 0 }), "BAD_REQUEST");
});

test("reports never clamp; an overrunning child counts with what it spent; sums do not drift", async () => {
  const p = await project();
  await reserve(p, { threadId: "root", amount: 1 });
  await reserve(p, { threadId: "kid", parentId: "root", amount: 0.2 });
  for (let i = 0; i < 3; i++) await report(p, "kid", 0.1); // 0.1 + 0.1 + 0.1 in floats is 0.30000000000000004
  assert.equal((await getEntry(p, "kid"))!.actual_spend, 0.3, "overrun visible, no drift");
  assert.equal(await remaining(p, "kid"), -0.1);
  assert.equal(await remaining(p, "root"), 0.7, "the active child counts with its 0.3 spent, not its 0.2 reserved");
  await release(p, "kid");
  assert.equal((await getEntry(p, "root"))!.actual_spend, 0.3);
  assert.equal(await remaining(p, "root"), 0.7);
  for (let i = 0; i < 1000; i++) await report(p, "root", 0.000001);
  assert.equal((await getEntry(p, "root"))!.actual_spend, 0.301);
  assert.equal(roundUsd(0.1 + 0.2), 0.3);
});

test("release cascades through released ancestors, is idempotent, and a late report follows the same path", async () => {
  const p = await project();
  await reserve(p, { threadId: "r", amount: 10 });
  await reserve(p, { threadId: "a", parentId: "r", amount: 5 });
  await reserve(p, { threadId: "b", parentId: "a", amount: 2 });
  await reserve(p, { threadId: "c", parentId: "b", amount: 1 });
  await report(p, "a", 0.5);
  await report(p, "b", 0.25);
  await report(p, "c", 0.125);
  // Out of order: the middle generation ends (killed) before its child.
  await release(p, "b");
  assert.equal((await getEntry(p, "a"))!.actual_spend, 0.75);
  await release(p, "c");
  assert.equal((await getEntry(p, "b"))!.actual_spend, 0.375, "c's spend lands on b …");
  assert.equal((await getEntry(p, "a"))!.actual_spend, 0.875, "… and, b being released, on a");
  const again = await release(p, "c");
  assert.equal(again.status, "released");
  assert.equal((await getEntry(p, "a"))!.actual_spend, 0.875, "idempotent");
  await report(p, "c", 0.0625); // the killed thread's last words
  const spent = Object.fromEntries(await Promise.all(["c", "b", "a", "r"].map(async (id) => [id, (await getEntry(p, id))!.actual_spend] as const)));
  assert.deepEqual(spent, { c: 0.1875, b: 0.4375, a: 0.9375, r: 0 });
  await release(p, "a");
  assert.equal((await getEntry(p, "r"))!.actual_spend, 0.9375);
});

test("the ledger file: atomic writes, no leftovers, and a damaged ledger is refused, never replaced", async () => {
  const p = await project();
  await reserve(p, { threadId: "r", amount: 1 });
  assert.deepEqual((await readdir(threadsDir(p))).sort(), ["ledger.json"]);
  const ledger = JSON.parse(await readFile(ledgerPath(p), "utf8")) as Ledger;
  assert.equal(ledger.version, 1);
  await writeFile(ledgerPath(p), "{\"version\": 1, \"entries\": {\"x\": {}}}");
  await rejects(reserve(p, { threadId: "s", amount: 1 }), "VALIDATION_FAILED", /not a valid budget ledger/);
  assert.match(await readFile(ledgerPath(p), "utf8"), /"x": \{\}/);
});

test("uncontended latency of one reserve (lock + read + write)", async (t) => {
  const p = await project();
  await reserve(p, { threadId: "root", amount: 1000 });
  const n = 200;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await reserve(p, { threadId: `c${i}`, parentId: "root", amount: 1 });
  const each = (performance.now() - t0) / n;
  t.diagnostic(`reserve: ${each.toFixed(2)} ms per call, uncontended, ledger growing to ${n + 1} entries`);
  assert.equal((await getEntry(p, "root"))!.spawned, n);
});

test("20 processes reserving at once never exceed the parent's remainder or spawns limit; spend cascades through four generations", async (t) => {
  const p = await project();
  const barrier1 = join(p, "go1");
  const barrier2 = join(p, "go2");
  // root ─┬─ A (1.00, spent 0.10, sibling S holds 0.25: remainder 0.65 → 9 × 0.07 fit) ── 20 contenders ── their children
  //       └─ B (2.00, at most 6 children: spawns bind, not spend)
  await reserve(p, { threadId: "root", amount: 5 });
  await reserve(p, { threadId: "a", parentId: "root", amount: 1 });
  await reserve(p, { threadId: "b", parentId: "root", amount: 2 });
  await report(p, "a", 0.1);
  await reserve(p, { threadId: "s", parentId: "a", amount: 0.25 });
  const ids = Array.from({ length: 20 }, (_, i) => `w${String(i).padStart(2, "0")}`);
  const workers = ids.map((id) => runFixture("ledger-worker.ts", [p, id, "a", "b", "0.07", "0.05", "15", "6", barrier1, barrier2]));
  await Promise.all(workers.map((w) => w.line(/^ready$/, 90_000)));
  await openBarrier(barrier1);
  type Attempt = { ok: boolean; ms: number; code?: string; limit_code?: string };
  const results = await Promise.all(workers.map(async (w) => JSON.parse((await w.line(/^reserved /)).slice(9)) as { a: Attempt; b: Attempt }));

  // Phase 1: the state after the race.
  const winnersA = ids.filter((_, i) => results[i]!.a.ok);
  const winnersB = ids.filter((_, i) => results[i]!.b.ok);
  assert.equal(winnersA.length, 9, "exactly the 9 reservations that fit");
  assert.equal(winnersB.length, 6, "exactly maxSpawns children");
  for (const r of results) {
    if (!r.a.ok) assert.deepEqual([r.a.code, r.a.limit_code], ["FORBIDDEN", "spend_exceeded"]);
    if (!r.b.ok) assert.deepEqual([r.b.code, r.b.limit_code], ["FORBIDDEN", "spawns_exceeded"]);
  }
  let ledger = await readLedger(p);
  const childrenOf = (id: string) => Object.values(ledger.entries).filter((e) => e.parent_thread_id === id);
  assert.deepEqual(childrenOf("a").map((e) => e.thread_id).sort(), ["s", ...winnersA].sort());
  assert.ok(childrenOf("a").reduce((sum, e) => sum + nano(e.reserved_spend), 0) - nano(0.25) <= nano(0.65), "never beyond the remainder");
  assert.equal(ledger.entries.a!.spawned, 10);
  assert.ok(ledger.entries.a!.peak_committed! <= ledger.entries.a!.reserved_spend, "the most ever committed at once stays within the reservation");
  assert.equal(ledger.entries.b!.spawned, 6);
  assert.equal(await remaining(p, "a"), 0.02);
  assert.equal(await remaining(p, "root"), 2);

  // Phase 2: grandchildren, concurrent reports and releases.
  await openBarrier(barrier2);
  const done = await Promise.all(
    workers.map(async (w, i) => (results[i]!.a.ok || results[i]!.b.ok ? (JSON.parse((await w.line(/^done /)).slice(5)) as { ops: number; ms: number }) : undefined)),
  );
  for (const w of workers) assert.equal((await w.exited).code, 0);
  ledger = await readLedger(p);
  assert.equal(nano(ledger.entries.a!.actual_spend), nano(0.1 + 9 * (3 * 0.013 + 2 * 0.011)), "A: own 0.10 + 9 children's 0.039 + their children's 0.022");
  assert.equal(nano(ledger.entries.b!.actual_spend), nano(6 * 0.005));
  await report(p, "s", 0.3); // the sibling overruns its 0.25
  await release(p, "s");
  await release(p, "a");
  await release(p, "b");
  ledger = await readLedger(p);
  assert.equal(nano(ledger.entries.root!.actual_spend), nano(0.1 + 9 * 0.061 + 0.3 + 6 * 0.005));
  // The invariant everywhere: actual = own reports + Σ released children's actual.
  const own = (id: string) => (id === "a" ? 0.1 : id === "s" ? 0.3 : id.endsWith("-g") ? 0.022 : id.endsWith("-b") ? 0.005 : /^w\d+$/.test(id) ? 0.039 : 0);
  for (const e of Object.values(ledger.entries)) {
    const fromChildren = childrenOf(e.thread_id).filter((c) => c.status === "released").reduce((s, c) => s + nano(c.actual_spend), 0);
    assert.equal(nano(e.actual_spend), nano(own(e.thread_id)) + fromChildren, e.thread_id);
  }

  const latencies = results.flatMap((r) => [r.a.ms, r.b.ms]).sort((x, y) => x - y);
  const q = (f: number) => latencies[Math.min(latencies.length - 1, Math.floor(f * latencies.length))]!.toFixed(1);
  const phase2 = done.filter((d) => d !== undefined);
  t.diagnostic(`40 reserve calls from 20 processes at once: p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, max ${q(1)} ms (lock wait included)`);
  t.diagnostic(`phase 2: ${phase2.reduce((s, d) => s + d.ops, 0)} ledger operations from ${phase2.length} processes, slowest process ${Math.max(...phase2.map((d) => d.ms)).toFixed(0)} ms`);
});
