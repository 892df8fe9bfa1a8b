/** Throwaway PostgreSQL databases for tests (only `pg`: light enough for the Playwright fixture too). */
import { randomBytes } from "node:crypto";
import pg from "pg";

/** An empty database `rye_test_<random>` on the server of `serverUrl` (default `DATABASE_URL`; not migrated). */
export async function createScratchPostgresDatabase(serverUrl = process.env.DATABASE_URL): Promise<{ url: string; drop(): Promise<void> }> {
  if (!serverUrl) throw new Error("a PostgreSQL test database needs DATABASE_URL (see skipWithoutPostgres())");
  const server = serverUrl;
  const name = `rye_test_${randomBytes(8).toString("hex")}`;
  await onServer(server, `CREATE DATABASE "${name}"`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onServer(server, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

async function onServer(serverUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}
