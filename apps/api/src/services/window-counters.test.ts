/** The two window-counter stores behave the same; the PostgreSQL one counts hits from several processes as one. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openTestDatabase, skipWithoutPostgres } from "@rye/db/testing";
import { MemoryWindowCounters, PostgresWindowCounters, type WindowCounters } from "./window-counters.ts";

async function windows(make: (now: () => number) => WindowCounters): Promise<void> {
  let now = 5_000_000;
  const counters = make(() => now);
  assert.deepEqual(await counters.peek("k"), { count: 0, resetAt: now });
  assert.deepEqual(await counters.hit("k", 10_000), { count: 1, resetAt: 5_010_000 });
  now += 4_000;
  assert.deepEqual(await counters.hit("k", 10_000), { count: 2, resetAt: 5_010_000 }, "hits in the window add up; the window does not move");
  assert.deepEqual(await counters.peek("k"), { count: 2, resetAt: 5_010_000 });
  assert.equal((await counters.hit("other", 10_000)).count, 1, "keys are independent");
  now = 5_010_000;
  assert.equal((await counters.peek("k")).count, 0, "the window has ended");
  assert.deepEqual(await counters.hit("k", 10_000), { count: 1, resetAt: 5_020_000 }, "the first hit after it opens the next window");
  await counters.clear("k");
  assert.equal((await counters.peek("k")).count, 0);
  assert.equal((await counters.hit("ali\u0000ce|\u{1F600}".repeat(500), 10_000)).count, 1, "any key: NUL, emoji, long");
}

test("memory: fixed windows open at the first hit, count, end, clear", () => windows((now) => new MemoryWindowCounters(now)));

test("PostgreSQL: the same windows; hits through several stores (processes) on one database add up exactly", { skip: skipWithoutPostgres() }, async () => {
  const db = await openTestDatabase("postgres");
  try {
    await windows((now) => new PostgresWindowCounters(db, now));
    const processes = [new PostgresWindowCounters(db), new PostgresWindowCounters(db), new PostgresWindowCounters(db)];
    const results = await Promise.all(Array.from({ length: 90 }, (_, i) => processes[i % 3]!.hit("burst", 60_000)));
    assert.deepEqual(
      results.map((r) => r.count).sort((a, b) => a - b),
      Array.from({ length: 90 }, (_, i) => i + 1),
      "each concurrent hit gets its own count: none lost, none doubled",
    );
    assert.equal(new Set(results.map((r) => r.resetAt)).size, 1, "one window for all of them");
  } finally {
    await db.close();
  }
});

test("PostgreSQL: the sweep deletes ended windows only", { skip: skipWithoutPostgres() }, async () => {
  const db = await openTestDatabase("postgres");
  try {
    let now = 1_000_000;
    const counters = new PostgresWindowCounters(db, () => now);
    await counters.hit("short", 1_000);
    await counters.hit("long", 60_000);
    now += 1_000;
    assert.equal(await counters.sweep(), 1);
    assert.equal((await counters.peek("long")).count, 1);
    const { rows } = await db.raw.query<{ n: number }>("SELECT count(*)::int AS n FROM rate_counters");
    assert.equal(Number(rows[0]!.n), 1);
  } finally {
    await db.close();
  }
});
