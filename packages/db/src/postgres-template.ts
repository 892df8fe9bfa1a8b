// Migrated PostgreSQL test databases without migrating each one: the migrations run once per server into a template
// database, and every test database is a copy of it (`CREATE DATABASE … TEMPLATE`: created and opened in 0.15-0.3 s
// instead of 0.5-0.8 s with the migrations, on a busy 2-core machine). The template's name carries a hash of the
// migrations, so a changed migration gets a new template and an old one is never used for it.
// See docs/testing.md, "PostgreSQL: each suite its own database".
import { createHash } from "node:crypto";
import pg from "pg";
import { migrate } from "./migrate.ts";
import { readMigrations } from "./migrations-dir.ts";
import { migrationsDir } from "./paths.ts";
import { createScratchPostgresDatabase } from "./scratch-database.ts";
import { pgSession } from "./sql-session.ts";

/** Serializes template builds across test processes sharing one server (an arbitrary constant, not Prisma's lock). */
const BUILD_LOCK_KEY = 72707370;
const ready = new Map<string, Promise<string>>();

/** The template's name for the current migrations: `rye_template_<hash of their names and checksums>`. */
export function templateDatabaseName(dir = migrationsDir): string {
  const hash = createHash("sha256");
  for (const m of readMigrations(dir)) hash.update(`${m.name}:${m.checksum}\n`);
  return `rye_template_${hash.digest("hex").slice(0, 16)}`;
}

/**
 * A new database `rye_test_<random>`, migrated: a copy of this server's template for the current migrations, which
 * is built first when the server has none (once per server, whichever test process gets there first).
 */
export async function createMigratedPostgresDatabase(serverUrl = process.env.DATABASE_URL, dir = migrationsDir): Promise<{ url: string; drop(): Promise<void> }> {
  if (!serverUrl) throw new Error("a PostgreSQL test database needs DATABASE_URL (see skipWithoutPostgres())");
  const server = serverUrl;
  const key = `${server}\n${dir}`;
  let template = ready.get(key);
  if (!template) {
    template = ensureTemplate(server, dir);
    ready.set(key, template);
    template.catch(() => ready.delete(key));
  }
  return createScratchPostgresDatabase(server, await template);
}

/** The template for the migrations in `dir` on the server, built now unless it exists; returns its name. */
export async function ensureTemplate(serverUrl: string, dir = migrationsDir): Promise<string> {
  const name = templateDatabaseName(dir);
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query("SELECT pg_advisory_lock($1)", [BUILD_LOCK_KEY]);
    const { rows } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rows.length > 0) return name;
    // Built under another name and renamed when complete: a build that died half-way is never taken for a template.
    const build = await createScratchPostgresDatabase(serverUrl);
    try {
      const client = new pg.Client({ connectionString: build.url });
      await client.connect();
      try {
        await migrate(pgSession(client), { migrationsDir: dir });
      } finally {
        await client.end();
      }
      const buildName = new URL(build.url).pathname.slice(1);
      await waitForNoSessions(admin, buildName);
      await admin.query(`ALTER DATABASE "${buildName}" RENAME TO "${name}"`);
    } catch (error) {
      await build.drop();
      throw error;
    }
    // Nobody connects to the template (a session on it would make every copy fail): copies are made, never opened.
    await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false IS_TEMPLATE true`);
    return name;
  } finally {
    await admin.end(); // also releases the advisory lock
  }
}

/** `client.end()` may resolve before the server has seen the session go; RENAME refuses a database that still has one. */
async function waitForNoSessions(admin: pg.Client, name: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const { rows } = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [name]);
    if (rows[0]!.n === 0 || Date.now() >= deadline) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}
