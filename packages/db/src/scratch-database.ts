/** Throwaway PostgreSQL databases for tests (only `pg`: light enough for the Playwright fixture too). */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";

/**
 * How long `drop()` lets the database's sessions end on their own before it terminates them. Sessions still
 * closing (a pool ended a moment ago, a child process just killed) end in milliseconds; terminating one instead
 * sends its client "terminating connection due to administrator command", an error that surfaces after the test.
 */
export const DROP_GRACE_MS = 3_000;

/**
 * An empty database `rye_test_<random>` on the server of `serverUrl` (default `DATABASE_URL`; not migrated), or a copy
 * of `template` (postgres-template.ts: a migrated one).
 * Each suite makes its own, so no suite depends on another's database. Before `drop()`, close what connects to it
 * (`await endPool(pool)`, `await client.end()`): drop waits up to DROP_GRACE_MS for sessions to end, then forces.
 */
export async function createScratchPostgresDatabase(serverUrl = process.env.DATABASE_URL, template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (!serverUrl) throw new Error("a PostgreSQL test database needs DATABASE_URL (see skipWithoutPostgres())");
  const server = serverUrl;
  const name = `rye_test_${randomBytes(8).toString("hex")}`;
  await onServer(server, (admin) => admin.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`));
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onServer(server, (admin) => dropDatabase(admin, name)) };
}

async function dropDatabase(admin: pg.Client, name: string): Promise<void> {
  const deadline = Date.now() + DROP_GRACE_MS;
  for (;;) {
    const { rows } = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [name]);
    if (rows[0]!.n === 0 || Date.now() >= deadline) break;
    await sleep(20);
  }
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

async function onServer(serverUrl: string, fn: (admin: pg.Client) => Promise<unknown>): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await fn(admin);
  } finally {
    await admin.end();
  }
}
