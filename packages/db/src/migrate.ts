// Applies prisma/migrations/*/migration.sql in name order and records them in `_prisma_migrations`
// exactly as `prisma migrate deploy` does, so Prisma's own tooling stays usable where it exists.
import { randomUUID } from "node:crypto";
import { readMigrations } from "./migrations-dir.ts";
import { migrationsDir as defaultMigrationsDir } from "./paths.ts";

/** One database session (a single connection): parameterized queries and multi-statement scripts. */
export interface SqlSession {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
  exec(sql: string): Promise<unknown>;
}

export interface MigrateOptions {
  migrationsDir?: string;
  log?: (message: string) => void;
}

export interface MigrateResult {
  /** Names of the migrations this call applied (empty when the database was up to date). */
  applied: string[];
}

export class MigrationError extends Error {
  override name = "MigrationError";
}

/** Prisma's own migrate lock key, so we also queue behind a `prisma migrate` run on the same database. */
const LOCK_KEY = 72707369;

const TRACKING_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
}

/**
 * Brings the database up to date, one transaction per migration. Each transaction first takes a
 * transaction-scoped advisory lock and re-reads the history, so concurrent runners (several API
 * processes starting together) apply every migration exactly once.
 */
export async function migrate(db: SqlSession, options: MigrateOptions = {}): Promise<MigrateResult> {
  const migrations = readMigrations(options.migrationsDir ?? defaultMigrationsDir);
  const applied: string[] = [];
  for (;;) {
    await db.exec("BEGIN");
    try {
      await db.query("SELECT pg_advisory_xact_lock($1)", [LOCK_KEY]);
      await db.exec(TRACKING_TABLE);
      const history = await db.query<AppliedRow>(
        `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
      );
      const done = checkHistory(history.rows, migrations);
      const next = migrations.find((m) => !done.has(m.name));
      if (!next) {
        await db.exec("COMMIT");
        return { applied };
      }
      options.log?.(`applying migration ${next.name}`);
      await db.exec(next.sql).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        throw new MigrationError(`migration ${next.name} failed and was rolled back: ${reason}`, { cause: error });
      });
      await db.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
         VALUES ($1, $2, $3, now(), clock_timestamp(), 1)`,
        [randomUUID(), next.checksum, next.name],
      );
      await db.exec("COMMIT");
      applied.push(next.name);
    } catch (error) {
      await db.exec("ROLLBACK").catch(() => {});
      throw error;
    }
  }
}

/** Names of the migrations already applied; throws when the history conflicts with the files. */
function checkHistory(rows: AppliedRow[], migrations: { name: string; checksum: string }[]): Set<string> {
  const files = new Map(migrations.map((m) => [m.name, m.checksum]));
  for (const row of rows) {
    if (row.finished_at === null) {
      throw new MigrationError(
        `migration ${row.migration_name} failed in an earlier run and is still marked as started in ` +
          `_prisma_migrations; repair the database, then delete or mark that row rolled back`,
      );
    }
    const checksum = files.get(row.migration_name);
    if (checksum !== undefined && checksum !== row.checksum) {
      throw new MigrationError(
        `migration ${row.migration_name} was modified after it was applied (checksum ${row.checksum} in ` +
          `the database, ${checksum} on disk); restore the file and put changes in a new migration`,
      );
    }
  }
  // Rows without a file (a newer release migrated this database) are left alone, so that rolling
  // back a deployment or running two versions side by side keeps working.
  return new Set(rows.map((row) => row.migration_name));
}

/**
 * The migrations in `migrationsDir` not (yet) applied to the database: the readiness probe of a process whose
 * release is newer than its database. An absent tracking table means none is applied.
 */
export async function unappliedMigrations(db: Pick<SqlSession, "query">, options: { migrationsDir?: string } = {}): Promise<string[]> {
  const { rows } = await db.query<{ present: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`);
  const applied = new Set<string>();
  if (rows[0]?.present) {
    const history = await db.query<{ migration_name: string }>(`SELECT migration_name FROM "_prisma_migrations" WHERE rolled_back_at IS NULL AND finished_at IS NOT NULL`);
    for (const row of history.rows) applied.add(row.migration_name);
  }
  return readMigrations(options.migrationsDir ?? defaultMigrationsDir)
    .map((m) => m.name)
    .filter((name) => !applied.has(name));
}
