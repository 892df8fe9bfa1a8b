import assert from "node:assert/strict";
import test from "node:test";
import { DatabaseProbe } from "./database-probe.ts";

function countingDb(answer: () => Promise<unknown>) {
  const db = { calls: 0, raw: { query: () => { db.calls++; return answer(); } } };
  return db as unknown as { calls: number; raw: never };
}

test("probes arriving together share one query, and its answer is reused until the TTL passes", async () => {
  let now = 0;
  const db = countingDb(() => new Promise((r) => setTimeout(() => r({ rows: [] }), 5)));
  const probe = new DatabaseProbe(db, { ttlMs: 1_000, timeoutMs: 100, now: () => now });
  const states = await Promise.all(Array.from({ length: 50 }, () => probe.state()));
  assert.deepEqual(new Set(states), new Set(["connected"]));
  assert.equal(db.calls, 1);
  now = 999;
  assert.equal(await probe.state(), "connected");
  assert.equal(db.calls, 1);
  now = 1_000;
  assert.equal(await probe.state(), "connected");
  assert.equal(db.calls, 2);
});

test("a failing or hanging database is reported as error, and seen again after the TTL", async () => {
  let now = 0;
  let mode: "fail" | "hang" | "ok" = "fail";
  const db = countingDb(() => (mode === "fail" ? Promise.reject(new Error("down")) : mode === "hang" ? new Promise(() => {}) : Promise.resolve({ rows: [] })));
  const probe = new DatabaseProbe(db, { ttlMs: 1_000, timeoutMs: 20, now: () => now });
  assert.equal(await probe.state(), "error");
  now = 2_000;
  mode = "hang";
  assert.equal(await probe.state(), "error");
  now = 4_000;
  mode = "ok";
  assert.equal(await probe.state(), "connected");
  assert.equal(db.calls, 3);
});
