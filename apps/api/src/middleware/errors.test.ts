/** The error handler: every failure leaves as the envelope; a database too busy to run a transaction is a 503, not a 500. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Hono } from "hono";
import { type Database, isBusy, TRANSACTION_LIMITS } from "@rye/db";
import { openTestDatabase } from "@rye/db/testing";
import type { AppEnv } from "../env.ts";
import type { Logger } from "../logger.ts";
import { BUSY_RETRY_AFTER_S, errorHandler } from "./errors.ts";

let db: Database;
before(async () => {
  db = await openTestDatabase();
});
after(() => db.close());

test("a transaction that outlives its limit answers 503 UNAVAILABLE with Retry-After, and is logged as a warning", async () => {
  const logged: string[] = [];
  const logger: Logger = { log: (level, message) => void logged.push(`${level} ${message}`) };
  const app = new Hono<AppEnv>();
  app.post("/write", async (c) => {
    // The same error Prisma raises when a write waits or runs past TRANSACTION_LIMITS, made real with a tiny limit.
    await db.prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SELECT pg_sleep(0.3)");
    }, { maxWait: 50, timeout: 50 });
    return c.json({ ok: true });
  });
  app.onError(errorHandler(logger));
  const res = await app.request("/write", { method: "POST" });
  assert.equal(res.status, 503);
  assert.equal(res.headers.get("retry-after"), String(BUSY_RETRY_AFTER_S));
  const { error } = (await res.json()) as { error: { code: string; hint: string } };
  assert.equal(error.code, "UNAVAILABLE");
  assert.match(error.hint, /Retry/);
  assert.deepEqual(logged, ["warn a transaction could not start or finish in time"]);
});

test("the transaction limits are explicit and longer than Prisma's defaults (2 s to start, 5 s to run)", async () => {
  assert.deepEqual(TRANSACTION_LIMITS, { maxWait: 10_000, timeout: 30_000 });
  assert.equal(isBusy({ code: "P2028" }), true);
  assert.equal(isBusy({ code: "P2002" }), false);
});
