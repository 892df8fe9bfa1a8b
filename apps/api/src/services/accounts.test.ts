/** The failed sign-in throttle (pure, with a fake clock); the routes test it end to end. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import { FAILED_LOGIN_WINDOW_MS, LoginThrottle, MAX_FAILED_LOGINS } from "./accounts.ts";

const limited = (err: unknown) => err instanceof RyeError && err.code === "RATE_LIMITED";

test("limits are pinned: 10 failed attempts per 15 minutes", () => {
  assert.equal(MAX_FAILED_LOGINS, 10);
  assert.equal(FAILED_LOGIN_WINDOW_MS, 15 * 60 * 1000);
});

test("the eleventh attempt in a window is refused with retry_after, until the window ends", () => {
  let now = 1_000_000;
  const throttle = new LoginThrottle(() => now);
  for (let i = 0; i < MAX_FAILED_LOGINS; i++) throttle.begin("u1|1.2.3.4");
  assert.throws(() => throttle.begin("u1|1.2.3.4"), (err) => limited(err) && (err as RyeError).details !== undefined && (err as { details: { retry_after: number } }).details.retry_after === 900);
  now += 10 * 60 * 1000;
  assert.throws(() => throttle.begin("u1|1.2.3.4"), (err) => limited(err) && (err as { details: { retry_after: number } }).details.retry_after === 300);
  throttle.begin("u1|5.6.7.8");
  throttle.begin("u2|1.2.3.4");
  now += 5 * 60 * 1000;
  throttle.begin("u1|1.2.3.4");
});

test("a correct password clears the count", () => {
  const throttle = new LoginThrottle(() => 0);
  for (let i = 0; i < MAX_FAILED_LOGINS - 1; i++) throttle.begin("k");
  throttle.succeeded("k");
  for (let i = 0; i < MAX_FAILED_LOGINS; i++) throttle.begin("k");
  assert.throws(() => throttle.begin("k"), limited);
});
