/**
 * supabase/: the generated migrations stay equal to prisma/migrations, build the same schema the registry's own
 * migrator builds (and the registry then finds nothing to apply), and the row-level security migration closes the
 * registry's tables to Supabase's REST API roles. Run on a real PostgreSQL with Supabase's roles, `auth` schema,
 * auth.uid()/auth.jwt() and default grants reproduced (supabase-shim.sql); each query runs the way PostgREST runs
 * it: in a transaction, `SET LOCAL ROLE <anon|authenticated>`, the JWT's claims in `request.jwt.claims`.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { migrate, pgSession } from "@rye/db";
import { createScratchPostgresDatabase, skipWithoutPostgres } from "@rye/db/testing";
import { GENERATED_HEADER, readGeneratedMigrations, renderSupabaseMigrations } from "../scripts/migrations.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const migrationsDir = join(root, "supabase/migrations");
const shim = readFileSync(join(root, "supabase/test/supabase-shim.sql"), "utf8");

test("the generated migrations are those of prisma/migrations, one for one and byte for byte", () => {
  const wanted = renderSupabaseMigrations(join(root, "prisma/migrations"));
  const present = readGeneratedMigrations(migrationsDir);
  assert.deepEqual([...present.keys()].sort(), wanted.map((m) => m.file).sort(), "one file per Prisma migration (run `npm run supabase:migrations`)");
  for (const m of wanted) assert.equal(present.get(m.file), m.sql, `${m.file} is out of date (run \`npm run supabase:migrations\`)`);
  for (const m of wanted) {
    const source = readFileSync(join(root, "prisma/migrations", m.file.replace(/\.sql$/, ""), "migration.sql"), "utf8");
    assert.ok(m.sql.includes(source), `${m.file} holds its Prisma migration verbatim`);
  }
  // Hand-written Supabase migrations sort after the Prisma ones they secure.
  const handWritten = readdirSync(migrationsDir).filter((f) => f.endsWith(".sql") && !present.has(f));
  assert.deepEqual(handWritten.sort(), ["20261125190000_rye_row_level_security.sql", "20261125190100_rye_storage_bucket.sql"]);
  for (const file of handWritten) assert.ok(!readFileSync(join(migrationsDir, file), "utf8").startsWith(GENERATED_HEADER));
});

/** A scratch database with Supabase's pre-migration state and every supabase/migrations file applied in order. */
async function supabaseDatabase(): Promise<{ client: pg.Client; drop(): Promise<void> }> {
  const scratch = await createScratchPostgresDatabase();
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  await client.query(shim);
  for (const file of readdirSync(migrationsDir).filter((f) => f.endsWith(".sql")).sort()) {
    await client.query("BEGIN");
    await client.query(readFileSync(join(migrationsDir, file), "utf8")).catch((err: Error) => {
      throw new Error(`${file}: ${err.message}`);
    });
    await client.query("COMMIT");
  }
  return {
    client,
    drop: async () => {
      await client.end();
      await scratch.drop();
    },
  };
}

/** Tables, columns, types, defaults, constraints and indexes of public: what the two paths must agree on. */
async function schemaOf(client: pg.Client): Promise<unknown[]> {
  const { rows } = await client.query(`
    SELECT 'column' AS kind, table_name || '.' || column_name AS name, data_type || ' ' || udt_name || ' ' || is_nullable || ' ' || coalesce(column_default, '') AS def
      FROM information_schema.columns WHERE table_schema = 'public'
    UNION ALL SELECT 'index', indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'
    UNION ALL SELECT 'constraint', conrelid::regclass::text || '.' || conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'public'::regnamespace
    UNION ALL SELECT 'type', t.typname, string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid GROUP BY t.typname
    UNION ALL SELECT 'trigger', tgrelid::regclass::text || '.' || tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
    ORDER BY 1, 2`);
  return rows;
}

/** Runs `sql` as PostgREST would for a request of `role` carrying `claims`. */
async function asRole(client: pg.Client, role: "anon" | "authenticated" | "service_role", claims: Record<string, unknown>, sql: string, params: unknown[] = []) {
  await client.query("BEGIN");
  try {
    await client.query(`SET LOCAL ROLE ${role}`);
    await client.query("SELECT set_config('request.jwt.claims', $1, true)", [JSON.stringify({ role, ...claims })]);
    return (await client.query(sql, params)).rows;
  } finally {
    await client.query("ROLLBACK");
  }
}

describe("on PostgreSQL with Supabase's roles", { skip: skipWithoutPostgres() }, () => {
  let supabase: Awaited<ReturnType<typeof supabaseDatabase>>;
  const ids = { alice: randomUUID(), bob: randomUUID(), aliceAuth: randomUUID(), bobAuth: randomUUID(), strangerAuth: randomUUID() };

  before(async () => {
    supabase = await supabaseDatabase();
    const db = supabase.client;
    // The registry's rows, written as the owner (the registry's own connection).
    await db.query(
      `INSERT INTO users (id, username, password_hash, updated_at) VALUES ($1, 'alice', 'scrypt$secret-a', now()), ($2, 'bob', 'scrypt$secret-b', now())`,
      [ids.alice, ids.bob],
    );
    await db.query(`INSERT INTO identities (id, user_id, provider, subject) VALUES (gen_random_uuid(), $1, 'supabase', $2), (gen_random_uuid(), $3, 'supabase', $4)`, [
      ids.alice,
      ids.aliceAuth,
      ids.bob,
      ids.bobAuth,
    ]);
    await db.query(`INSERT INTO organizations (id, name) VALUES (gen_random_uuid(), 'acme')`);
    await db.query(`INSERT INTO memberships (org_id, user_id) SELECT id, $1 FROM organizations WHERE name = 'acme'`, [ids.alice]);
    await db.query(`INSERT INTO namespaces (id, name, user_id) VALUES (gen_random_uuid(), 'alice', $1), (gen_random_uuid(), 'bob', $2)`, [ids.alice, ids.bob]);
    await db.query(`INSERT INTO namespaces (id, name, org_id) SELECT gen_random_uuid(), 'acme', id FROM organizations WHERE name = 'acme'`);
    const items: [string, string, string, boolean][] = [
      ["bob", "bob-public", "public", false],
      ["bob", "bob-private", "private", false],
      ["bob", "bob-held", "public", true],
      ["alice", "alice-private", "private", false],
      ["acme", "acme-unlisted", "unlisted", false],
    ];
    for (const [namespace, name, visibility, held] of items) {
      await db.query(
        `INSERT INTO items (id, type, namespace_id, name, visibility, held, latest_version, updated_at)
         SELECT gen_random_uuid(), 'directive', id, $2, $3::visibility, $4, '1.0.0', now() FROM namespaces WHERE name = $1`,
        [namespace, name, visibility, held],
      );
      for (const [version, status] of [["1.0.0", "published"], ["1.1.0", "pending"]] as const) {
        await db.query(
          `INSERT INTO item_versions (id, item_id, version, major, minor, patch, content, content_hash, file_sha256, size_bytes, publisher_id,
                                      attestation, attestation_signature, status)
           SELECT gen_random_uuid(), i.id, $2, 1, $3, 0, 'body of ' || i.name, repeat('a', 64), repeat('b', 64), 10, $4, '{}', 'sig', $5::version_status
           FROM items i WHERE i.name = $1`,
          [name, version, version === "1.0.0" ? 0 : 1, namespace === "alice" ? ids.alice : ids.bob, status],
        );
      }
    }
    await db.query(`INSERT INTO api_tokens (id, user_id, name, token_hash) VALUES (gen_random_uuid(), $1, 'ci', repeat('c', 64))`, [ids.alice]);
    await db.query(`INSERT INTO web_sessions (id, user_id, token_hash, csrf_token, expires_at) VALUES (gen_random_uuid(), $1, repeat('d', 64), 'csrf', now() + interval '1 day')`, [ids.alice]);
    await db.query(`INSERT INTO webhooks (id, namespace_id, url, secret) SELECT gen_random_uuid(), id, 'https://hooks.example', 'whsec' FROM namespaces WHERE name = 'alice'`);
    await db.query(`INSERT INTO blobs (sha256, size, content) VALUES (repeat('e', 64), 3, '\\x616263')`);
    await db.query(`INSERT INTO storage.objects (bucket_id, name) VALUES ('rye-blobs', 'blobs/eee')`);
  });

  after(async () => {
    await supabase?.drop();
  });

  test("the Supabase migrations build the schema the registry's migrator builds, and it then applies nothing", async () => {
    const direct = await createScratchPostgresDatabase();
    const client = new pg.Client({ connectionString: direct.url });
    await client.connect();
    try {
      await migrate(pgSession(client));
      assert.deepEqual(await schemaOf(supabase.client), await schemaOf(client));
    } finally {
      await client.end();
      await direct.drop();
    }
    const { applied } = await migrate(pgSession(supabase.client));
    assert.deepEqual(applied, [], "every Prisma migration is recorded as applied in _prisma_migrations");
  });

  test("anon reads public items and their published versions only", async () => {
    const items = await asRole(supabase.client, "anon", {}, "SELECT name FROM items ORDER BY name");
    assert.deepEqual(items.map((r) => r.name), ["bob-public"]);
    const versions = await asRole(supabase.client, "anon", {}, "SELECT i.name, v.version, v.status FROM item_versions v JOIN items i ON i.id = v.item_id ORDER BY 1, 2");
    assert.deepEqual(versions, [{ name: "bob-public", version: "1.0.0", status: "published" }]);
    assert.deepEqual(await asRole(supabase.client, "anon", {}, "SELECT count(*)::int AS n FROM items WHERE visibility <> 'public'"), [{ n: 0 }]);
    const names = await asRole(supabase.client, "anon", {}, "SELECT name FROM namespaces ORDER BY name");
    assert.deepEqual(names.map((r) => r.name), ["acme", "alice", "bob"]);
  });

  test("anon and authenticated cannot read tokens, sessions, secrets, accounts, blobs or any other table", async () => {
    const open = new Set(["items", "item_versions", "bundles", "bundle_versions", "namespaces", "organizations", "memberships"]);
    const { rows } = await supabase.client.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`);
    const closed = rows.map((r) => r.tablename as string).filter((t) => !open.has(t));
    for (const must of ["users", "api_tokens", "web_sessions", "refresh_tokens", "authorization_codes", "device_authorizations", "identities", "webhooks", "webhook_deliveries", "blobs", "org_invitations", "_prisma_migrations"]) {
      assert.ok(closed.includes(must), `${must} is among the closed tables`);
    }
    for (const table of closed) {
      for (const [role, claims] of [["anon", {}], ["authenticated", { sub: ids.aliceAuth }]] as const) {
        await assert.rejects(asRole(supabase.client, role, claims, `SELECT * FROM "${table}" LIMIT 1`), /permission denied/, `${role} reads ${table}`);
      }
    }
    // Columns that are not granted stay closed on open tables: who owns a namespace, who published a version.
    await assert.rejects(asRole(supabase.client, "anon", {}, "SELECT user_id FROM namespaces"), /permission denied/);
    await assert.rejects(asRole(supabase.client, "anon", {}, "SELECT publisher_id FROM item_versions"), /permission denied/);
    // No writes through the REST API, not even to open tables.
    await assert.rejects(asRole(supabase.client, "authenticated", { sub: ids.aliceAuth }, "UPDATE items SET description = 'x'"), /permission denied/);
    await assert.rejects(asRole(supabase.client, "anon", {}, "INSERT INTO namespaces (id, name) VALUES (gen_random_uuid(), 'x')"), /permission denied/);
    // The helper functions are not reachable as RPC: public's functions are closed too.
    const functions = await supabase.client.query(`SELECT p.oid::regprocedure::text AS f FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace`);
    for (const { f } of functions.rows) {
      const { rows: can } = await supabase.client.query("SELECT has_function_privilege('anon', $1, 'EXECUTE') AS a, has_function_privilege('authenticated', $1, 'EXECUTE') AS b", [f]);
      assert.deepEqual(can[0], { a: false, b: false }, `${f} is executable by an API role`);
    }
  });

  test("a signed-in Supabase user sees their own and their organizations' private items, nobody else's", async () => {
    const alice = await asRole(supabase.client, "authenticated", { sub: ids.aliceAuth }, "SELECT name FROM items ORDER BY name");
    assert.deepEqual(alice.map((r) => r.name), ["acme-unlisted", "alice-private", "bob-public"]);
    const bob = await asRole(supabase.client, "authenticated", { sub: ids.bobAuth }, "SELECT name FROM items ORDER BY name");
    assert.deepEqual(bob.map((r) => r.name), ["bob-held", "bob-private", "bob-public"]);
    const bobVersions = await asRole(supabase.client, "authenticated", { sub: ids.bobAuth }, "SELECT i.name, v.version FROM item_versions v JOIN items i ON i.id = v.item_id WHERE i.name = 'bob-private' ORDER BY 2");
    assert.deepEqual(bobVersions.map((r) => r.version), ["1.0.0", "1.1.0"], "an owner sees its held versions too");
    const aliceSeesBob = await asRole(supabase.client, "authenticated", { sub: ids.aliceAuth }, "SELECT v.version FROM item_versions v JOIN items i ON i.id = v.item_id WHERE i.name LIKE 'bob-%' ORDER BY 1");
    assert.deepEqual(aliceSeesBob.map((r) => r.version), ["1.0.0"], "others see the published version of the public item only");
    const memberships = await asRole(supabase.client, "authenticated", { sub: ids.bobAuth }, "SELECT user_id FROM memberships");
    assert.deepEqual(memberships, [], "bob is in no organization and sees no one else's membership");
    assert.equal((await asRole(supabase.client, "authenticated", { sub: ids.aliceAuth }, "SELECT user_id FROM memberships")).length, 1);
  });

  test("claims that name no linked account, or an anonymous session, see what anon sees", async () => {
    for (const claims of [{ sub: ids.strangerAuth }, { sub: ids.aliceAuth, is_anonymous: true }, {}]) {
      const rows = await asRole(supabase.client, "authenticated", claims, "SELECT name FROM items ORDER BY name");
      assert.deepEqual(rows.map((r) => r.name), ["bob-public"], JSON.stringify(claims));
    }
    await supabase.client.query("UPDATE users SET disabled_at = now() WHERE id = $1", [ids.bob]);
    try {
      const rows = await asRole(supabase.client, "authenticated", { sub: ids.bobAuth }, "SELECT name FROM items ORDER BY name");
      assert.deepEqual(rows.map((r) => r.name), ["bob-public"], "a disabled account's token opens nothing");
    } finally {
      await supabase.client.query("UPDATE users SET disabled_at = NULL WHERE id = $1", [ids.bob]);
    }
  });

  test("service_role (the server-side key) is not restricted: the closed rows exist", async () => {
    const rows = await asRole(supabase.client, "service_role", {}, "SELECT count(*)::int AS n FROM items");
    assert.deepEqual(rows, [{ n: 5 }]);
  });

  test("a table a later Prisma migration adds is closed until a policy opens it", async () => {
    const prismaDir = mkdtempSync(join(tmpdir(), "rye-supabase-"));
    try {
      mkdirSync(join(prismaDir, "20990101000000_future"));
      writeFileSync(join(prismaDir, "20990101000000_future/migration.sql"), `CREATE TABLE "future_secrets" ("id" TEXT NOT NULL PRIMARY KEY, "secret" TEXT NOT NULL);\n`);
      const [future] = renderSupabaseMigrations(prismaDir);
      await supabase.client.query(future!.sql);
      await supabase.client.query(`INSERT INTO future_secrets VALUES ('1', 'shh')`);
      for (const role of ["anon", "authenticated"] as const) {
        await assert.rejects(asRole(supabase.client, role, { sub: ids.aliceAuth }, "SELECT * FROM future_secrets"), /permission denied/);
      }
      const { rows } = await supabase.client.query(`SELECT relrowsecurity FROM pg_class WHERE oid = 'public.future_secrets'::regclass`);
      assert.equal(rows[0]!.relrowsecurity, true, "row-level security is on even if a grant is added by hand later");
    } finally {
      rmSync(prismaDir, { recursive: true, force: true });
    }
  });

  test("the blob bucket exists, is private, and its objects are not listable through the Storage API", async () => {
    const { rows } = await supabase.client.query(`SELECT id, public, file_size_limit::int AS limit FROM storage.buckets`);
    assert.deepEqual(rows, [{ id: "rye-blobs", public: false, limit: 50 * 1024 * 1024 }]);
    for (const [role, claims] of [["anon", {}], ["authenticated", { sub: ids.aliceAuth }]] as const) {
      assert.deepEqual(await asRole(supabase.client, role, claims, "SELECT name FROM storage.objects WHERE bucket_id = 'rye-blobs'"), []);
    }
    const config = readFileSync(join(root, "supabase/config.toml"), "utf8");
    assert.match(config, /^\[storage\.buckets\.rye-blobs\]\npublic = false\nfile_size_limit = "50MiB"$/m, "config.toml declares the same bucket");
  });
});
