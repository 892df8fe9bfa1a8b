import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryWindowCounters, PostgresWindowCounters, type WindowCounters } from "../services/window-counters.ts";
import { openTestDatabase, skipWithoutPostgres } from "@rye/db/testing";
import { AttemptLimiter } from "./attempt-limiter.ts";

async function blocksAfterLimit(counters: (now: () => number) => WindowCounters): Promise<void> {
  let now = 1_000_000;
  const clock = () => now;
  const limiter = new AttemptLimiter(3, 60_000, counters(clock), "t:", clock);
  for (let i = 0; i < 3; i++) {
    assert.equal(await limiter.retryAfter("a"), 0);
    await limiter.fail("a");
  }
  assert.equal(await limiter.retryAfter("a"), 60);
  assert.equal(await limiter.retryAfter("b"), 0, "keys are independent");
  now += 30_000;
  assert.equal(await limiter.retryAfter("a"), 30);
  now += 30_000;
  assert.equal(await limiter.retryAfter("a"), 0, "a new window starts clean");
  await limiter.fail("a");
  assert.equal(await limiter.retryAfter("a"), 0);
}

test("blocks a key after `limit` failures until its window ends (memory)", () => blocksAfterLimit((now) => new MemoryWindowCounters(now)));

test("blocks a key after `limit` failures until its window ends, failures counted by two limiters on one PostgreSQL", { skip: skipWithoutPostgres() }, async () => {
  const db = await openTestDatabase("postgres");
  try {
    await blocksAfterLimit((now) => new PostgresWindowCounters(db, now));
    // Two processes = two limiters on the same table: their failures add up.
    const a = new AttemptLimiter(4, 60_000, new PostgresWindowCounters(db), "t:");
    const b = new AttemptLimiter(4, 60_000, new PostgresWindowCounters(db), "t:");
    await a.fail("shared");
    await b.fail("shared");
    await a.fail("shared");
    assert.equal(await b.retryAfter("shared"), 0);
    await b.fail("shared");
    assert.ok((await a.retryAfter("shared")) > 0, "the fourth failure, counted through the other limiter, blocks");
  } finally {
    await db.close();
  }
});
