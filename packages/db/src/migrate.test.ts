import assert from "node:assert/strict";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import pg from "pg";
import { migrate, MigrationError, type SqlSession } from "./migrate.ts";
import { readMigrations } from "./migrations-dir.ts";
import { migrationsDir } from "./paths.ts";
import { createPglite } from "./pglite.ts";
import { pgliteSession, withPgSession } from "./sql-session.ts";
import { createScratchPostgresDatabase, endPool, skipWithoutPostgres } from "./testing.ts";

const migrationNames = readMigrations(migrationsDir).map((m) => m.name);

/** A private copy of prisma/migrations that a test may edit. */
function copyOfMigrations(): string {
  const dir = mkdtempSync(join(tmpdir(), "rye-migrations-"));
  cpSync(migrationsDir, dir, { recursive: true });
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function tableExists(db: SqlSession, table: string): Promise<boolean> {
  const { rows } = await db.query<{ found: string | null }>("SELECT to_regclass($1)::text AS found", [table]);
  return rows[0]?.found != null;
}

/** A pool for a scratch database; closed with endPool before the database is dropped. */
function scratchPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on("error", () => {});
  return pool;
}

/** The behaviour every backend must show; `db` is an empty database. */
async function checkRunner(db: SqlSession): Promise<void> {
  const dir = copyOfMigrations();

  const first = await migrate(db, { migrationsDir: dir });
  assert.deepEqual(first.applied, migrationNames);
  assert.ok(await tableExists(db, "item_versions"));
  const { rows } = await db.query<{ migration_name: string; checksum: string; applied_steps_count: number }>(
    `SELECT migration_name, checksum, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`,
  );
  assert.deepEqual(
    rows,
    readMigrations(dir).map((m) => ({ migration_name: m.name, checksum: m.checksum, applied_steps_count: 1 })),
  );

  assert.deepEqual((await migrate(db, { migrationsDir: dir })).applied, [], "second run applies nothing");

  // A migration that fails is rolled back entirely and not recorded.
  const broken = join(dir, "99990101000000_broken");
  mkdirSync(broken);
  writeFileSync(join(broken, "migration.sql"), `CREATE TABLE "half_done" ("id" INT);\nSELECT no_such_function();\n`);
  await assert.rejects(migrate(db, { migrationsDir: dir }), (error: unknown) => {
    assert.ok(error instanceof MigrationError);
    assert.match(error.message, /migration 99990101000000_broken failed and was rolled back: .*no_such_function/);
    return true;
  });
  assert.equal(await tableExists(db, "half_done"), false);
  rmSync(broken, { recursive: true });

  // An applied migration edited afterwards is refused, by name.
  const [firstName] = migrationNames;
  assert.ok(firstName);
  appendFileSync(join(dir, firstName, "migration.sql"), "\n-- an innocent-looking edit\n");
  await assert.rejects(migrate(db, { migrationsDir: dir }), (error: unknown) => {
    assert.ok(error instanceof MigrationError);
    assert.match(error.message, new RegExp(`migration ${firstName} was modified after it was applied`));
    return true;
  });
}

describe("migration runner", () => {
  test("PGlite: applies, is idempotent, rolls back failures, refuses edited migrations", async () => {
    const db = await createPglite();
    try {
      await checkRunner(pgliteSession(db));
    } finally {
      await db.close();
    }
  });

  test("PostgreSQL: applies, is idempotent, rolls back failures, refuses edited migrations", { skip: skipWithoutPostgres() }, async () => {
    const scratch = await createScratchPostgresDatabase();
    const pool = scratchPool(scratch.url);
    try {
      await withPgSession(pool, checkRunner);
    } finally {
      await endPool(pool);
      await scratch.drop();
    }
  });

  test("PostgreSQL: concurrent runners apply each migration once", { skip: skipWithoutPostgres() }, async () => {
    const scratch = await createScratchPostgresDatabase();
    // Separate pools stand for separate API processes starting at the same moment.
    const pools = Array.from({ length: 4 }, () => scratchPool(scratch.url));
    try {
      const results = await Promise.all(pools.map((pool) => withPgSession(pool, (session) => migrate(session))));
      assert.deepEqual(results.flatMap((r) => r.applied).sort(), migrationNames);
      const { rows } = await pools[0]!.query(`SELECT count(*)::int AS n FROM "_prisma_migrations"`);
      assert.equal(rows[0].n, migrationNames.length);
    } finally {
      await Promise.all(pools.map((pool) => endPool(pool)));
      await scratch.drop();
    }
  });
});
