// Helpers for tests in any package: a fresh, migrated database per call.
import { type Database, type DatabaseKind, openDatabase, wrapPglite } from "./client.ts";
import { createPglite } from "./pglite.ts";
import { migratedPgliteTemplate } from "./pglite-template.ts";
import { skipUnless } from "../../../scripts/test-requirements.ts";
import { endPool } from "./end-pool.ts";
import { createMigratedPostgresDatabase } from "./postgres-template.ts";
import { createScratchPostgresDatabase } from "./scratch-database.ts";

export { createMigratedPostgresDatabase, createScratchPostgresDatabase, endPool };

/** PostgreSQL-backed tests run when `DATABASE_URL` names a server (CI sets it; `npm test` starts one). */
export function postgresAvailable(): boolean {
  return Boolean(process.env.DATABASE_URL);
}

/**
 * For `test(name, { skip: skipWithoutPostgres() }, fn)`: false, or the reason the test is skipped; under CI a
 * missing server throws instead (scripts/test-requirements.ts).
 */
export function skipWithoutPostgres(): string | false {
  return skipUnless(postgresAvailable() ? false : "needs PostgreSQL: DATABASE_URL is not set (npm test starts a throwaway cluster when it finds PostgreSQL binaries)");
}

/**
 * A fresh, migrated, isolated database; `close()` destroys it.
 * - "postgres": `CREATE DATABASE rye_test_<random>` on the server of `DATABASE_URL`, a copy of the server's migrated
 *   template (see postgres-template.ts), dropped on close.
 * - "pglite": in memory, loaded from a migrated template (see pglite-template.ts) instead of initdb.
 * Default: "postgres" when available, else "pglite".
 */
export async function openTestDatabase(kind: DatabaseKind = postgresAvailable() ? "postgres" : "pglite"): Promise<Database> {
  if (kind === "postgres") return openPostgresTestDatabase();
  return wrapPglite(await createPglite({ loadDataDir: await migratedPgliteTemplate() }), false);
}

async function openPostgresTestDatabase(): Promise<Database> {
  const scratch = await createMigratedPostgresDatabase();
  let db: Database;
  try {
    db = await openDatabase({ databaseUrl: scratch.url });
  } catch (error) {
    await scratch.drop();
    throw error;
  }
  return {
    ...db,
    close: async () => {
      try {
        await db.close();
      } finally {
        await scratch.drop();
      }
    },
  };
}

