// The SQL migrations and prisma/schema.prisma must describe the same database. Fails with the SQL
// that is missing; fix it with `npm run db:new -- <name>`.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { migrationsDir, schemaPath } from "./paths.ts";
import { diffMigrationsToSchema, type EngineTarget, pgEngineTarget, pgliteEngineTarget } from "./schema-engine.ts";
import { postgresAvailable, skipWithoutPostgres } from "./testing.ts";

// On PostgreSQL the check takes ~0.3 s, on PGlite ~3-4 s (one initdb): prefer the server.
const openTarget = (): Promise<EngineTarget> | EngineTarget =>
  postgresAvailable() ? pgEngineTarget(process.env.DATABASE_URL!) : pgliteEngineTarget();

test(`the migrated database matches schema.prisma (${postgresAvailable() ? "PostgreSQL" : "PGlite"})`, async () => {
  const target = await openTarget();
  try {
    const diff = await diffMigrationsToSchema(target, { schemaPath, migrationsDir });
    assert.equal(diff.exitCode, 0, `prisma/migrations is behind prisma/schema.prisma; missing SQL:\n${diff.stdout}`);
  } finally {
    await target.close();
  }
});

test("the check notices a field that exists only in schema.prisma", { skip: skipWithoutPostgres() }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "rye-schema-"));
  const target = pgEngineTarget(process.env.DATABASE_URL!);
  try {
    const changed = join(dir, "schema.prisma");
    const schema = readFileSync(schemaPath, "utf8").replace(/^model Blob \{\n/m, "model Blob {\n  mimeType String?\n");
    writeFileSync(changed, schema);
    const diff = await diffMigrationsToSchema(target, { schemaPath: changed, migrationsDir });
    assert.equal(diff.exitCode, 2);
    assert.match(diff.stdout ?? "", /ALTER TABLE "blobs" ADD COLUMN\s+"mimeType" TEXT/);
  } finally {
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
