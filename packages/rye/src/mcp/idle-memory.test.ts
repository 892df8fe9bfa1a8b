import assert from "node:assert/strict";
import { test } from "node:test";
import { collectGarbage } from "@rye/core/node-gc";
import { IdleCollector, memoryFootprint } from "./idle-memory.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("the collector runs once the calls stop, and only after enough growth", async () => {
  let footprint = 100;
  let collections = 0;
  const collector = new IdleCollector({ idleMs: 40, minGrowthBytes: 50, collect: () => collections++, footprint: () => footprint });
  footprint = 200;
  collector.activity();
  await sleep(20);
  collector.activity(); // a call within the quiet time restarts it
  await sleep(25);
  assert.equal(collections, 0, "not while calls keep coming");
  await sleep(40);
  assert.equal(collections, 1, "once the calls stopped");

  footprint = 220; // grew 20 since the last collection: below the 50 asked for
  collector.activity();
  await sleep(70);
  assert.equal(collections, 1, "small growth: no collection");
  footprint = 260;
  collector.activity();
  collector.stop();
  await sleep(70);
  assert.equal(collections, 1, "stopped: no collection");
});

test("the real collection frees what is no longer referenced and exposes no global gc", async () => {
  let garbage: ArrayBuffer[] | null = Array.from({ length: 16 }, () => new ArrayBuffer(4 * 1024 * 1024));
  const weak = new WeakRef(garbage[0]!);
  const before = memoryFootprint();
  garbage = null;
  // A WeakRef keeps its target alive until the current job ends.
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
  assert.equal(weak.deref(), undefined);
  assert.ok(before - memoryFootprint() >= 48 * 1024 * 1024, `freed ${((before - memoryFootprint()) / 1048576).toFixed(0)} MB`);
  assert.equal((globalThis as { gc?: unknown }).gc, undefined);
});
