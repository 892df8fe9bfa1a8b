import assert from "node:assert/strict";
import { test } from "node:test";
import type { Logger } from "../logger.ts";
import { PollingLoop } from "./polling-loop.ts";

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("rounds follow each other at once while work waits, pause when idle, and a failure is logged and retried", async () => {
  const lines: { msg: string; fields?: Record<string, unknown> }[] = [];
  const logger: Logger = { log: (_level, msg, fields) => void lines.push({ msg, ...(fields ? { fields } : {}) }) };
  // Rounds 1–3 report more work, round 4 fails, round 5 reports none: then the loop waits idleMs (long).
  const outcomes = [true, true, true, "fail", false];
  let rounds = 0;
  const loop = new PollingLoop({
    round: async () => {
      const outcome = outcomes[rounds++];
      if (outcome === "fail") throw new Error("boom");
      return outcome === true;
    },
    idleMs: 60_000,
    logger,
    failureMessage: "round failed",
  });
  loop.start();
  await wait(100);
  assert.equal(rounds, 4, "three busy rounds at once, then the failed one; its retry waits idleMs");
  assert.deepEqual(lines, [{ msg: "round failed", fields: { error: "boom" } }]);
  await loop.stop();
});

test("stop waits for the round in flight and no round starts after it", async () => {
  let finished = false;
  let rounds = 0;
  const loop = new PollingLoop({
    round: async () => {
      rounds++;
      await wait(50);
      finished = true;
      return true;
    },
    idleMs: 10,
    logger: { log: () => undefined },
    failureMessage: "x",
  });
  loop.start();
  await wait(10);
  await loop.stop();
  assert.equal(finished, true);
  await wait(60);
  assert.equal(rounds, 1);
});
