/**
 * The SQL budget ledger against a real PostgreSQL: the cases of ledger.test.ts (same refusals, same sums), plus
 * 20 processes reserving at once through the configured back end (RYE_THREADS_BACKEND=postgres) — the reservations
 * that together would overdraw are refused exactly.
 */
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { createScratchPostgresDatabase, endPool, skipWithoutPostgres } from "@rye/db/testing";
import { rejects } from "../../test/rejects.ts";
import { SqlLedger } from "./ledger-sql.ts";
import { openBarrier, runFixture } from "./fixtures/run.ts";

const skip = skipWithoutPostgres();
const project = () => mkdtemp(join(tmpdir(), "rye-ledger-sql-"));
const nano = (usd: number) => Math.round(usd * 1e9);

let scratch: { url: string; drop(): Promise<void> };
let pool: pg.Pool;
let ledger: SqlLedger;

describe("the SQL budget ledger", { skip }, () => {
  before(async () => {
    scratch = await createScratchPostgresDatabase();
    pool = new pg.Pool({ connectionString: scratch.url, max: 4 });
    // A connection the server ends mid-suite fails the query that used it; the pool itself must not throw.
    pool.on("error", () => {});
    ledger = new SqlLedger(pool);
  });
  after(async () => {
    if (pool) await endPool(pool);
    await scratch?.drop();
  });

  test("a root reserves; children take from its remaining, which counts the open reservations of all siblings", async () => {
    const p = await project();
    const root = await ledger.reserve(p, { threadId: "root", amount: 1 });
    assert.deepEqual(
      { ...root, created_at: "", updated_at: "" },
      { thread_id: "root", parent_thread_id: null, reserved_spend: 1, actual_spend: 0, max_spend: 1, spawned: 0, status: "active", created_at: "", updated_at: "" },
    );
    await ledger.report(p, "root", 0.1);
    await ledger.reserve(p, { threadId: "a", parentId: "root", amount: 0.5 });
    assert.equal(await ledger.remaining(p, "root"), 0.4);
    const err = await rejects(ledger.reserve(p, { threadId: "b", parentId: "root", amount: 0.41 }), "FORBIDDEN", /0\.400000 USD left/);
    assert.deepEqual(err.details, { limit_code: "spend_exceeded", remaining: 0.4, requested: 0.41, parent_thread_id: "root" });
    await ledger.reserve(p, { threadId: "b", parentId: "root", amount: 0.4 });
    assert.equal(await ledger.remaining(p, "root"), 0);
    assert.equal((await ledger.getEntry(p, "root"))!.spawned, 2);
    assert.equal((await ledger.getEntry(p, "root"))!.peak_committed, 1);
    assert.equal(await ledger.getEntry(p, "nobody"), undefined);
    const other = await project();
    assert.equal(await ledger.getEntry(other, "root"), undefined, "projects do not share entries");
  });

  test("spawns limit, missing or released parent, duplicate reservation and bad input are refused", async () => {
    const p = await project();
    await ledger.reserve(p, { threadId: "root", amount: 1 });
    await ledger.reserve(p, { threadId: "c1", parentId: "root", amount: 0.1, maxSpawns: 2 });
    await ledger.reserve(p, { threadId: "c2", parentId: "root", amount: 0.1, maxSpawns: 2 });
    const err = await rejects(ledger.reserve(p, { threadId: "c3", parentId: "root", amount: 0.1, maxSpawns: 2 }), "FORBIDDEN", /started 2 children/);
    assert.deepEqual(err.details, { limit_code: "spawns_exceeded", spawned: 2, max_spawns: 2, parent_thread_id: "root" });
    await rejects(ledger.reserve(p, { threadId: "c3", parentId: "ghost", amount: 0.1 }), "ITEM_NOT_FOUND");
    await rejects(ledger.reserve(p, { threadId: "c1", parentId: "root", amount: 0.1 }), "CONFLICT", /already has a budget reservation/);
    await ledger.release(p, "c1");
    await rejects(ledger.reserve(p, { threadId: "c1x", parentId: "c1", amount: 0 }), "CONFLICT", /has ended/);
    for (const amount of [-1, Number.NaN, Number.POSITIVE_INFINITY, 1e10]) await rejects(ledger.reserve(p, { threadId: "z", amount }), "BAD_REQUEST");
    await rejects(ledger.reserve(p, { threadId: "z", parentId: "z", amount: 0 }), "BAD_REQUEST");
    await rejects(ledger.reserve(p, { threadId: "../z", amount: 0 }), "PATH_TRAVERSAL");
    await rejects(ledger.report(p, "root", -0.01), "BAD_REQUEST");
    await rejects(ledger.report(p, "ghost", 0.01), "ITEM_NOT_FOUND");
    await rejects(ledger.release(p, "ghost"), "ITEM_NOT_FOUND");
    assert.deepEqual(Object.keys((await ledger.readLedger(p)).entries).sort(), ["c1", "c2", "root"], "refusals wrote nothing");
  });

  test("upTo takes what is left; maxActive caps the threads holding a reservation", async () => {
    const p = await project();
    await ledger.reserve(p, { threadId: "root", amount: 1 });
    assert.equal((await ledger.reserve(p, { threadId: "a", parentId: "root", amount: 0.75, maxSpawns: 3, upTo: true })).reserved_spend, 0.75);
    assert.equal((await ledger.reserve(p, { threadId: "b", parentId: "root", amount: 1, maxSpawns: 3, upTo: true })).reserved_spend, 0.25);
    const empty = await rejects(ledger.reserve(p, { threadId: "c", parentId: "root", amount: 1, maxSpawns: 3, upTo: true }), "FORBIDDEN");
    assert.equal((empty.details as { limit_code: string }).limit_code, "spend_exceeded");
    const spawns = await rejects(ledger.reserve(p, { threadId: "d", parentId: "root", amount: 1, maxSpawns: 2, upTo: true }), "FORBIDDEN");
    assert.equal((spawns.details as { limit_code: string }).limit_code, "spawns_exceeded");
    const third = await rejects(ledger.reserve(p, { threadId: "x", amount: 1, maxActive: 3 }), "FORBIDDEN");
    assert.deepEqual(third.details, { limit_code: "threads_exceeded", active: 3, max_threads: 3 });
    await ledger.release(p, "b");
    await ledger.reserve(p, { threadId: "x", amount: 1, maxActive: 3 });
  });

  test("reports never clamp; an overrunning child counts with what it spent; sums do not drift", async () => {
    const p = await project();
    await ledger.reserve(p, { threadId: "root", amount: 1 });
    await ledger.reserve(p, { threadId: "kid", parentId: "root", amount: 0.2 });
    for (let i = 0; i < 3; i++) await ledger.report(p, "kid", 0.1);
    assert.equal((await ledger.getEntry(p, "kid"))!.actual_spend, 0.3);
    assert.equal(await ledger.remaining(p, "kid"), -0.1);
    assert.equal(await ledger.remaining(p, "root"), 0.7);
    await ledger.release(p, "kid");
    assert.equal((await ledger.getEntry(p, "root"))!.actual_spend, 0.3);
    for (let i = 0; i < 100; i++) await ledger.report(p, "root", 0.000001);
    assert.equal((await ledger.getEntry(p, "root"))!.actual_spend, 0.3001);
  });

  test("release cascades through released ancestors, is idempotent, and a late report follows the same path", async () => {
    const p = await project();
    await ledger.reserve(p, { threadId: "r", amount: 10 });
    await ledger.reserve(p, { threadId: "a", parentId: "r", amount: 5 });
    await ledger.reserve(p, { threadId: "b", parentId: "a", amount: 2 });
    await ledger.reserve(p, { threadId: "c", parentId: "b", amount: 1 });
    await ledger.report(p, "a", 0.5);
    await ledger.report(p, "b", 0.25);
    await ledger.report(p, "c", 0.125);
    await ledger.release(p, "b");
    assert.equal((await ledger.getEntry(p, "a"))!.actual_spend, 0.75);
    await ledger.release(p, "c");
    assert.equal((await ledger.getEntry(p, "b"))!.actual_spend, 0.375);
    assert.equal((await ledger.getEntry(p, "a"))!.actual_spend, 0.875);
    assert.equal((await ledger.release(p, "c")).status, "released");
    assert.equal((await ledger.getEntry(p, "a"))!.actual_spend, 0.875, "idempotent");
    await ledger.report(p, "c", 0.0625);
    const spent = Object.fromEntries(await Promise.all(["c", "b", "a", "r"].map(async (id) => [id, (await ledger.getEntry(p, id))!.actual_spend] as const)));
    assert.deepEqual(spent, { c: 0.1875, b: 0.4375, a: 0.9375, r: 0 });
    await ledger.release(p, "a");
    assert.equal((await ledger.getEntry(p, "r"))!.actual_spend, 0.9375);
  });

  test("20 processes reserving at once never exceed the parent's remainder or spawns limit; spend cascades exactly", async () => {
    const p = await project();
    const barrier1 = join(p, "go1");
    const barrier2 = join(p, "go2");
    await ledger.reserve(p, { threadId: "root", amount: 5 });
    await ledger.reserve(p, { threadId: "a", parentId: "root", amount: 1 });
    await ledger.reserve(p, { threadId: "b", parentId: "root", amount: 2 });
    await ledger.report(p, "a", 0.1);
    await ledger.reserve(p, { threadId: "s", parentId: "a", amount: 0.25 });
    const env = { ...process.env, RYE_THREADS_BACKEND: "postgres", RYE_THREADS_DATABASE_URL: scratch.url };
    const ids = Array.from({ length: 20 }, (_, i) => `w${String(i).padStart(2, "0")}`);
    const workers = ids.map((id) => runFixture("ledger-worker.ts", [p, id, "a", "b", "0.07", "0.05", "15", "6", barrier1, barrier2], { env }));
    await Promise.all(workers.map((w) => w.line(/^ready$/, 90_000)));
    await openBarrier(barrier1);
    type Attempt = { ok: boolean; code?: string; limit_code?: string };
    const results = await Promise.all(workers.map(async (w) => JSON.parse((await w.line(/^reserved /)).slice(9)) as { a: Attempt; b: Attempt }));
    assert.equal(results.filter((r) => r.a.ok).length, 9, "exactly the 9 reservations of 0.07 that fit in 0.65");
    assert.equal(results.filter((r) => r.b.ok).length, 6, "exactly maxSpawns children");
    for (const r of results) {
      if (!r.a.ok) assert.deepEqual([r.a.code, r.a.limit_code], ["FORBIDDEN", "spend_exceeded"]);
      if (!r.b.ok) assert.deepEqual([r.b.code, r.b.limit_code], ["FORBIDDEN", "spawns_exceeded"]);
    }
    assert.equal(await ledger.remaining(p, "a"), 0.02);
    await openBarrier(barrier2);
    await Promise.all(workers.map(async (w, i) => (results[i]!.a.ok || results[i]!.b.ok ? w.line(/^done /) : undefined)));
    for (const w of workers) assert.equal((await w.exited).code, 0);
    await ledger.report(p, "s", 0.3);
    await ledger.release(p, "s");
    await ledger.release(p, "a");
    await ledger.release(p, "b");
    const entries = (await ledger.readLedger(p)).entries;
    assert.equal(nano(entries.root!.actual_spend), nano(0.1 + 9 * 0.061 + 0.3 + 6 * 0.005));
  });
});
