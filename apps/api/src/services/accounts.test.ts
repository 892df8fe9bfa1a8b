/** The failed sign-in throttle (pure, with a fake clock); the routes test it end to end. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import { FAILED_LOGIN_WINDOW_MS, LoginThrottle, MAX_FAILED_LOGINS } from "./accounts.ts";
import { MemoryWindowCounters } from "./window-counters.ts";

const limited = (err: unknown) => err instanceof RyeError && err.code === "RATE_LIMITED";

test("limits are pinned: 10 failed attempts per 15 minutes", () => {
  assert.equal(MAX_FAILED_LOGINS, 10);
  assert.equal(FAILED_LOGIN_WINDOW_MS, 15 * 60 * 1000);
});

test("the eleventh attempt in a window is refused with retry_after, until the window ends", async () => {
  let now = 1_000_000;
  const clock = () => now;
  const throttle = new LoginThrottle(new MemoryWindowCounters(clock), clock);
  for (let i = 0; i < MAX_FAILED_LOGINS; i++) await throttle.begin("u1|1.2.3.4");
  await assert.rejects(throttle.begin("u1|1.2.3.4"), (err) => limited(err) && (err as RyeError).details !== undefined && (err as { details: { retry_after: number } }).details.retry_after === 900);
  now += 10 * 60 * 1000;
  await assert.rejects(throttle.begin("u1|1.2.3.4"), (err) => limited(err) && (err as { details: { retry_after: number } }).details.retry_after === 300);
  await throttle.begin("u1|5.6.7.8");
  await throttle.begin("u2|1.2.3.4");
  now += 5 * 60 * 1000;
  await throttle.begin("u1|1.2.3.4");
});

test("a correct password clears the count", async () => {
  const clock = () => 0;
  const throttle = new LoginThrottle(new MemoryWindowCounters(clock), clock);
  for (let i = 0; i < MAX_FAILED_LOGINS - 1; i++) await throttle.begin("k");
  await throttle.succeeded("k");
  for (let i = 0; i < MAX_FAILED_LOGINS; i++) await throttle.begin("k");
  await assert.rejects(throttle.begin("k"), limited);
});
