// npm run db:migrate — applies pending migrations to $DATABASE_URL (the API also migrates on start).
import pg from "pg";
import { migrate, MigrationError } from "../src/migrate.ts";
import { withPgSession } from "../src/sql-session.ts";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error("DATABASE_URL is not set. (The embedded PGlite database is migrated when the API opens it.)");
  process.exit(64);
}
const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
try {
  const started = performance.now();
  const { applied } = await withPgSession(pool, (session) => migrate(session, { log: console.log }));
  const ms = Math.round(performance.now() - started);
  console.log(applied.length ? `applied ${applied.length} migration(s) in ${ms} ms` : `database is up to date (${ms} ms)`);
} catch (error) {
  if (!(error instanceof MigrationError)) throw error;
  console.error(`db:migrate: ${error.message}`);
  process.exitCode = 1;
} finally {
  await pool.end();
}
