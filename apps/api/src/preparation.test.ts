/**
 * The start-up check (preparation.ts): a server spawns the preparation child exactly when the database needs the
 * one-time work — migrations not applied, no seed, stale signals — and not on a prepared database.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { test } from "node:test";
import { openDatabase } from "@rye/db";
import { createScratchPostgresDatabase, skipWithoutPostgres } from "@rye/db/testing";
import { createTestRegistry } from "../test/harness.ts";
import { pendingPreparation, prepareData } from "./preparation.ts";
import { systemSafetyRules } from "./services/safety-rules.ts";

test("a migrated database: seed pending, then nothing after prepareData, then stale signals when a version lost its quality", async () => {
  const reg = await createTestRegistry();
  try {
    const rules = await systemSafetyRules();
    assert.equal(await pendingPreparation(reg.db, rules), "the system bundle is not seeded");
    await prepareData(reg.deps, rules);
    assert.equal(await pendingPreparation(reg.db, rules), undefined, "a prepared database needs no child");
    await reg.db.raw.query(`UPDATE item_versions SET quality = NULL WHERE id = (SELECT id FROM item_versions LIMIT 1)`);
    assert.equal(await pendingPreparation(reg.db, rules), "quality or safety signals are missing or out of date");
    await prepareData(reg.deps, rules);
    assert.equal(await pendingPreparation(reg.db, rules), undefined);
  } finally {
    await reg.close();
  }
});

test("a new PostgreSQL database: every migration is pending", { skip: skipWithoutPostgres() }, async () => {
  const scratch = await createScratchPostgresDatabase();
  const db = await openDatabase({ databaseUrl: scratch.url, migrate: false });
  try {
    assert.match((await pendingPreparation(db, await systemSafetyRules())) ?? "", /^\d+ migration\(s\) not applied$/);
  } finally {
    await db.close();
    await scratch.drop();
  }
});
