/**
 * Rate-limit hits counted in the process and written to PostgreSQL in batches: exact in one process, every hit
 * written (on the timer, at the cap, on close), and across processes over the limit by at most
 * (processes − 1) × maxUnconfirmed (batched-window-counters.ts).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Database } from "@rye/db";
import { openTestDatabase, skipWithoutPostgres } from "@rye/db/testing";
import { rateLimiter } from "../middleware/rate-limit.ts";
import { BatchedWindowCounters, type BatchedCountsOptions, unconfirmedCap } from "./batched-window-counters.ts";
import { type BatchHits, PostgresWindowCounters, type WindowCount } from "./window-counters.ts";

const NO_TIMER = 3_600_000;
const options = (o: Partial<BatchedCountsOptions> = {}): BatchedCountsOptions => ({ flushMs: NO_TIMER, maxUnconfirmed: 8, maxKeys: 1000, ...o });

/** The real store, counting its statements (and failing the next `failNext` of them). */
class CountingStore extends PostgresWindowCounters {
  statements = 0;
  failNext = 0;
  delayMs = 0;
  override async hitMany(batch: readonly BatchHits[]): Promise<Map<string, WindowCount>> {
    this.statements++;
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error("connection refused (injected)");
    }
    return super.hitMany(batch);
  }
  override async hit(key: string, windowMs: number): Promise<WindowCount> {
    this.statements++;
    return super.hit(key, windowMs);
  }
}

const countOf = async (counted: WindowCount | Promise<WindowCount>) => (await counted).count;

test("options must be whole numbers ≥ 1", () => {
  const store = {} as PostgresWindowCounters;
  for (const bad of [{ flushMs: 0 }, { maxUnconfirmed: 0 }, { maxKeys: 1.5 }, { maxUnconfirmed: Number.NaN }]) {
    assert.throws(() => new BatchedWindowCounters(store, options(bad)), RangeError, JSON.stringify(bad));
  }
});

describe("batched rate-limit counts on PostgreSQL", { skip: skipWithoutPostgres() }, () => {
  let db: Database;
  before(async () => {
    db = await openTestDatabase("postgres");
  });
  after(async () => {
    await db?.close();
  });

  test("one process: every hit gets its exact count, in fewer statements than hits; all are written", async () => {
    const store = new CountingStore(db);
    const counters = new BatchedWindowCounters(store, options({ maxUnconfirmed: 8 }));
    const counts = await Promise.all(Array.from({ length: 100 }, () => countOf(counters.hitNow("one", 60_000))));
    assert.deepEqual(counts, Array.from({ length: 100 }, (_, i) => i + 1));
    await counters.flush();
    assert.equal((await store.peek("one")).count, 100);
    assert.ok(store.statements <= 100 / 4 + 2, `${store.statements} statements for 100 hits (one per half cap at most)`);
    await counters.close();
  });

  test("hits within the cap are answered at once, without a statement; the timer writes them", async () => {
    const store = new CountingStore(db);
    const counters = new BatchedWindowCounters(store, options({ flushMs: 20, maxUnconfirmed: 50 }));
    for (let i = 1; i <= 5; i++) {
      const counted = counters.hitNow("timer", 60_000);
      assert.ok(!(counted instanceof Promise));
      assert.equal(counted.count, i);
    }
    assert.equal(store.statements, 0);
    for (let i = 0; i < 100 && (await store.peek("timer")).count < 5; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal((await store.peek("timer")).count, 5, "written by the timer");
    assert.equal(store.statements, 1, "in one statement");
    await counters.close();
  });

  test("close writes the hits not yet written (server shutdown)", async () => {
    const store = new CountingStore(db);
    const counters = new BatchedWindowCounters(store, options({ maxUnconfirmed: 1000 }));
    for (let i = 0; i < 7; i++) counters.hitNow("closing", 60_000);
    counters.hitNow("closing-too", 60_000);
    assert.equal(counters.unsentHits, 8);
    assert.equal((await store.peek("closing")).count, 0);
    await counters.close();
    assert.equal(counters.unsentHits, 0);
    assert.equal((await store.peek("closing")).count, 7);
    assert.equal((await store.peek("closing-too")).count, 1);
  });

  test("close waits for a batch already being written", async () => {
    const store = new CountingStore(db);
    const counters = new BatchedWindowCounters(store, options({ maxUnconfirmed: 100 }));
    counters.hitNow("in-flight", 60_000);
    store.delayMs = 200;
    void counters.flush();
    while (store.statements === 0) await new Promise((r) => setImmediate(r));
    assert.equal(counters.unsentHits, 0, "the hit is in the batch under way");
    await counters.close();
    assert.equal((await store.peek("in-flight")).count, 1, "written before close returned");
  });

  test("a failed write keeps its hits for the next batch and fails the hits that waited on it", async () => {
    const store = new CountingStore(db);
    const errors: string[] = [];
    const counters = new BatchedWindowCounters(store, options({ maxUnconfirmed: 2 }), Date.now, (e) => errors.push(e.message));
    counters.hitNow("failing", 60_000);
    counters.hitNow("failing", 60_000);
    store.failNext = 1;
    await assert.rejects(Promise.resolve(counters.hitNow("failing", 60_000)), /injected/);
    assert.deepEqual(errors, ["connection refused (injected)"]);
    await counters.flush();
    assert.equal((await store.peek("failing")).count, 3, "kept, and written by the next batch");
    assert.equal(await countOf(counters.hitNow("failing", 60_000)), 4);
    await counters.flush();
    assert.equal((await store.peek("failing")).count, 4);
    await counters.close();
  });

  test("close tries again when the database refuses, and reports what it could not write", async () => {
    const store = new CountingStore(db);
    const errors: string[] = [];
    const counters = new BatchedWindowCounters(store, options({ maxUnconfirmed: 100 }), Date.now, (e) => errors.push(e.message));
    counters.hitNow("refused", 60_000);
    store.failNext = 2;
    await counters.close();
    assert.equal((await store.peek("refused")).count, 1, "the third attempt wrote it");
    const gone = new BatchedWindowCounters(store, options({ maxUnconfirmed: 100 }), Date.now, (e) => errors.push(e.message));
    gone.hitNow("lost", 60_000);
    store.failNext = 3;
    await gone.close();
    assert.match(errors.at(-1)!, /1 rate-limit hits lost at shutdown/);
  });

  test("the window is the store's: it ends, the next opens at the first hit after", async () => {
    let now = 10_000_000;
    const store = new CountingStore(db, () => now);
    const counters = new BatchedWindowCounters(store, options({ maxUnconfirmed: 2 }), () => now);
    assert.deepEqual(counters.hitNow("win", 1_000), { count: 1, resetAt: now + 1_000 });
    counters.hitNow("win", 1_000);
    assert.deepEqual(await counters.hitNow("win", 1_000), { count: 3, resetAt: 10_001_000 });
    now += 1_000;
    assert.deepEqual(counters.hitNow("win", 1_000), { count: 1, resetAt: 10_002_000 }, "a new window here at once");
    await counters.flush();
    assert.deepEqual(await store.peek("win"), { count: 1, resetAt: 10_002_000 }, "and in the store");
    await counters.close();
  });

  test("beyond maxKeys, ended windows are dropped, else a hit goes to the store directly", async () => {
    let now = 20_000_000;
    const store = new CountingStore(db, () => now);
    const counters = new BatchedWindowCounters(store, options({ maxKeys: 2, maxUnconfirmed: 100 }), () => now);
    counters.hitNow("k1", 1_000);
    counters.hitNow("k2", 60_000);
    const third = counters.hitNow("k3", 60_000);
    assert.ok(third instanceof Promise, "no room: the store counts it");
    assert.equal((await third).count, 1);
    assert.equal((await store.peek("k3")).count, 1, "written at once");
    await counters.flush();
    now += 1_000; // k1's window ends: its slot is free again
    assert.ok(!(counters.hitNow("k4", 60_000) instanceof Promise));
    await counters.close();
  });

  test("the rate limiter over it: exactly the limit in one process, answered without a promise while within the cap", async () => {
    const counters = new BatchedWindowCounters(new PostgresWindowCounters(db), options({ maxUnconfirmed: 4 }));
    const limit = rateLimiter({ windowSeconds: 60, reads: 32, writes: 1, counters, scope: "batched-test" });
    const verdicts = [];
    for (let i = 0; i < 36; i++) {
      const v = limit("GET", "ip:192.0.2.7");
      if (i < 4) assert.ok(!(v instanceof Promise), `hit ${i + 1} is judged at once`);
      verdicts.push(await v);
    }
    assert.deepEqual(
      verdicts.map((v) => v.refusal?.code ?? "ok"),
      [...Array(32).fill("ok"), ...Array(4).fill("RATE_LIMITED")],
    );
    assert.deepEqual(
      verdicts.map((v) => Number(v.headers["RateLimit-Remaining"])),
      Array.from({ length: 36 }, (_, i) => Math.max(0, 31 - i)),
    );
    await counters.close();
  });

  test("a small limit gets a small cap: an eighth of it, at least 1", async () => {
    assert.equal(unconfirmedCap(32), 32);
    assert.equal(unconfirmedCap(32, 600), 32);
    assert.equal(unconfirmedCap(32, 120), 15);
    assert.equal(unconfirmedCap(32, 7), 1);
    const counters = new BatchedWindowCounters(new PostgresWindowCounters(db), options({ maxUnconfirmed: 32 }));
    const limit = rateLimiter({ windowSeconds: 60, reads: 1000, writes: 16, counters, scope: "batched-cap-test" });
    const judgedAtOnce = [];
    for (let i = 0; i < 4; i++) judgedAtOnce.push(!(limit("POST", "ip:192.0.2.8") instanceof Promise));
    assert.deepEqual(judgedAtOnce, [true, true, false, false], "writes limited to 16 judge 2 hits before the store answers");
    await counters.close();
  });

  test("several processes: at most (processes − 1) × maxUnconfirmed over the limit, and every hit written", async () => {
    const M = 4;
    const limit = 40;
    // The worst case for two: A has read the row; B then takes the whole budget; A, on its stale count, lets
    // through maxUnconfirmed more, then waits for the store and refuses.
    const stores = [new PostgresWindowCounters(db), new PostgresWindowCounters(db)];
    const [a, b] = stores.map((s) => new BatchedWindowCounters(s, options({ maxUnconfirmed: M })));
    let admitted = 0;
    const admit = async (c: BatchedWindowCounters) => {
      if ((await c.hitNow("worst", 60_000)).count <= limit) admitted++;
    };
    await admit(a!);
    await a!.flush();
    for (let i = 0; i < limit - 1; i++) await admit(b!);
    await b!.flush();
    for (let i = 0; i < 20; i++) await admit(a!);
    assert.equal(admitted, limit + M, "A judged exactly maxUnconfirmed hits on its stale count");
    await Promise.all([a!.close(), b!.close()]);
    assert.equal((await stores[0]!.peek("worst")).count, 1 + (limit - 1) + 20);

    // The same worst case with the limit named: the cap is an eighth of it, and so is the excess.
    const [c, d] = [0, 1].map(() => new BatchedWindowCounters(new PostgresWindowCounters(db), options({ maxUnconfirmed: 32 })));
    let named = 0;
    const admitNamed = async (x: BatchedWindowCounters) => {
      if ((await x.hitNow("worst-named", 60_000, limit)).count <= limit) named++;
    };
    await admitNamed(c!);
    await c!.flush();
    for (let i = 0; i < limit - 1; i++) await admitNamed(d!);
    await d!.flush();
    for (let i = 0; i < 20; i++) await admitNamed(c!);
    assert.equal(named, limit + limit / 8, "C judged an eighth of the limit on its stale count, not maxUnconfirmed");
    await Promise.all([c!.close(), d!.close()]);

    // Three at random, interleaved and concurrent: never more than the bound.
    for (let round = 0; round < 5; round++) {
      const key = `random-${round}`;
      const procs = [0, 1, 2].map(() => new BatchedWindowCounters(new PostgresWindowCounters(db), options({ maxUnconfirmed: M, flushMs: 5 })));
      let through = 0;
      const hits = 300;
      await Promise.all(
        Array.from({ length: hits }, async (_, i) => {
          await new Promise((r) => setTimeout(r, Math.random() * 30));
          if ((await procs[i % 3]!.hitNow(key, 60_000)).count <= limit) through++;
        }),
      );
      await Promise.all(procs.map((p) => p.close()));
      assert.ok(through >= limit, `at least the limit gets through: ${through}`);
      assert.ok(through <= limit + 2 * M, `round ${round}: ${through} through, bound ${limit + 2 * M}`);
      assert.equal((await stores[0]!.peek(key)).count, hits, "every hit written, none twice");
    }
  });
});
