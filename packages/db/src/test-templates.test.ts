// The migrated templates behind openTestDatabase: on PostgreSQL, copies are migrated without migrating each one, the
// template is built once however many processes ask at the same time, and a failed build leaves nothing behind;
// on PGlite, the cached tarball is gunzipped once per process instead of once per database.
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import pg from "pg";
import { migrate } from "./migrate.ts";
import { readMigrations } from "./migrations-dir.ts";
import { migrationsDir } from "./paths.ts";
import { migratedPgliteTemplate } from "./pglite-template.ts";
import { createMigratedPostgresDatabase, ensureTemplate, templateDatabaseName } from "./postgres-template.ts";
import { pgSession } from "./sql-session.ts";
import { openTestDatabase, skipWithoutPostgres } from "./testing.ts";

/** A private copy of prisma/migrations plus one migration of its own, so its template is this test's alone. */
function migrationsOfOurOwn(extraSql: string): string {
  const dir = mkdtempSync(join(tmpdir(), "rye-template-migrations-"));
  cpSync(migrationsDir, dir, { recursive: true });
  const own = join(dir, "99990101000000_template_test");
  mkdirSync(own);
  writeFileSync(own + "/migration.sql", extraSql);
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function onServer<T>(fn: (admin: pg.Client) => Promise<T>, url = process.env.DATABASE_URL): Promise<T> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

const databaseNames = () => onServer(async (admin) => (await admin.query<{ datname: string }>("SELECT datname FROM pg_database")).rows.map((r) => r.datname));

async function dropTemplate(name: string): Promise<void> {
  await onServer(async (admin) => {
    await admin.query(`ALTER DATABASE "${name}" WITH IS_TEMPLATE false`).catch(() => {});
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
  });
}

/** The rows of `_prisma_migrations` (ids included: they are random per migration run). */
async function history(url: string): Promise<{ id: string; migration_name: string; checksum: string }[]> {
  return onServer(async (client) => (await client.query(`SELECT id, migration_name, checksum FROM "_prisma_migrations" ORDER BY migration_name`)).rows, url);
}

describe("the migrated PostgreSQL template for test databases", { skip: skipWithoutPostgres() }, () => {
  test("a copy is migrated without running the migrations: it holds the template's own migration history", async () => {
    const dir = migrationsOfOurOwn(`CREATE TABLE "template_marker" ("id" INT);`);
    const name = templateDatabaseName(dir);
    after(() => dropTemplate(name));
    const [a, b] = [await createMigratedPostgresDatabase(undefined, dir), await createMigratedPostgresDatabase(undefined, dir)];
    try {
      const rows = await history(a.url);
      assert.deepEqual(rows.map((r) => [r.migration_name, r.checksum]), readMigrations(dir).map((m) => [m.name, m.checksum]));
      // Each migration run records new random ids: equal ids mean both are copies of one run, the template's.
      assert.deepEqual(await history(b.url), rows);
      await onServer(async (client) => {
        assert.deepEqual((await migrate(pgSession(client), { migrationsDir: dir })).applied, [], "nothing left to apply");
        await client.query(`INSERT INTO "template_marker" VALUES (1)`);
      }, a.url);
      const marker = await onServer(async (client) => (await client.query(`SELECT count(*)::int AS n FROM "template_marker"`)).rows[0].n, b.url);
      assert.equal(marker, 0, "copies are independent");
      const template = await onServer(async (admin) => (await admin.query("SELECT datistemplate, datallowconn FROM pg_database WHERE datname = $1", [name])).rows);
      assert.deepEqual(template, [{ datistemplate: true, datallowconn: false }], "no session can open the template (one would block every copy)");
    } finally {
      await a.drop();
      await b.drop();
    }
  });

  test("processes asking at once build it once; a changed migration gets another template", async () => {
    const dir = migrationsOfOurOwn(`CREATE TABLE "template_marker" ("id" INT);`);
    const name = templateDatabaseName(dir);
    after(() => dropTemplate(name));
    const before = new Set(await databaseNames());
    // Separate admin sessions, as separate test processes have: the advisory lock serializes them.
    const names = await Promise.all([1, 2, 3].map(() => ensureTemplate(process.env.DATABASE_URL!, dir)));
    assert.deepEqual(names, [name, name, name]);
    assert.deepEqual((await databaseNames()).filter((n) => !before.has(n)), [name], "one template, no build left behind");

    writeFileSync(join(dir, "99990101000000_template_test", "migration.sql"), `CREATE TABLE "template_marker" ("id" BIGINT);`);
    const changed = templateDatabaseName(dir);
    assert.notEqual(changed, name);
    after(() => dropTemplate(changed));
    assert.equal(await ensureTemplate(process.env.DATABASE_URL!, dir), changed);
  });

  test("a migration that fails leaves no template and no half-built database, and says which migration", async () => {
    const dir = migrationsOfOurOwn(`SELECT no_such_function();`);
    const before = new Set(await databaseNames());
    await assert.rejects(createMigratedPostgresDatabase(undefined, dir), /migration 99990101000000_template_test failed and was rolled back: .*no_such_function/);
    assert.deepEqual((await databaseNames()).filter((n) => !before.has(n)), []);
  });

  test("openTestDatabase('postgres') is a copy of the template for prisma/migrations", async () => {
    const [a, b] = [await openTestDatabase("postgres"), await openTestDatabase("postgres")];
    try {
      const ids = async (db: typeof a) => (await db.raw.query<{ id: string }>(`SELECT id FROM "_prisma_migrations" ORDER BY migration_name`)).rows.map((r) => r.id);
      const first = await ids(a);
      assert.equal(first.length, readMigrations(migrationsDir).length);
      assert.deepEqual(await ids(b), first);
      assert.ok((await databaseNames()).includes(templateDatabaseName()));
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe("the migrated PGlite template for test databases", () => {
  test("kept gzipped in the temp dir, handed to PGlite as a plain tar (gunzipped once per process, not per database)", async () => {
    const blob = await migratedPgliteTemplate();
    assert.equal(blob.type, "application/x-tar");
    const bytes = new Uint8Array(await blob.arrayBuffer());
    assert.equal(Buffer.from(bytes.subarray(257, 262)).toString("latin1"), "ustar", "a tar header, not gzip");
    assert.equal(await migratedPgliteTemplate(), blob, "one copy per process");
    const cached = readdirSync(tmpdir()).filter((f) => /^rye-pglite-template-[0-9a-f]{24}\.tar\.gz$/.test(f));
    assert.ok(cached.some((f) => { const head = readFileSync(join(tmpdir(), f)).subarray(0, 2); return head[0] === 0x1f && head[1] === 0x8b; }), "the cached file is gzip");
    const [a, b] = [await openTestDatabase("pglite"), await openTestDatabase("pglite")];
    try {
      for (const db of [a, b]) {
        const { rows } = await db.raw.query<{ n: number }>(`SELECT count(*)::int AS n FROM "_prisma_migrations"`);
        assert.equal(rows[0]!.n, readMigrations(migrationsDir).length);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});
