import assert from "node:assert/strict";
import { test } from "node:test";
import { AttemptLimiter } from "./attempt-limiter.ts";

test("blocks a key after `limit` failures until its window ends", () => {
  let now = 1_000_000;
  const limiter = new AttemptLimiter(3, 60_000, () => now);
  for (let i = 0; i < 3; i++) {
    assert.equal(limiter.retryAfter("a"), 0);
    limiter.fail("a");
  }
  assert.equal(limiter.retryAfter("a"), 60);
  assert.equal(limiter.retryAfter("b"), 0, "keys are independent");
  now += 30_000;
  assert.equal(limiter.retryAfter("a"), 30);
  now += 30_000;
  assert.equal(limiter.retryAfter("a"), 0, "a new window starts clean");
  limiter.fail("a");
  assert.equal(limiter.retryAfter("a"), 0);
});
