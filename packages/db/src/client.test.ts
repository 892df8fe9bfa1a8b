import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import pg from "pg";
import { type Database, openDatabase } from "./client.ts";
import { DataDirInUseError } from "./data-dir-lock.ts";
import { Prisma } from "./generated/prisma/client.ts";
import { openTestDatabase, skipWithoutPostgres } from "./testing.ts";

const hash = (c: string) => c.repeat(64);

/** One pass over what the registry relies on; identical for both backends. */
async function exercise(db: Database): Promise<void> {
  const { prisma, raw } = db;
  const alice = await prisma.user.create({ data: { username: "alice", email: "alice@example.org" } });
  const ns = await prisma.namespace.create({ data: { name: "alice", userId: alice.id } });
  const item = await prisma.item.create({
    data: {
      type: "tool",
      namespaceId: ns.id,
      category: "text/format",
      name: "markdown-linter",
      description: "Checks markdown files for style problems",
      toolType: "python",
      fileExtension: ".py",
    },
  });
  assert.equal(item.visibility, "public");
  assert.equal(item.downloadCount, 0);

  const version = (v: string, logIndex: bigint) => ({
    itemId: item.id,
    version: v,
    major: Number(v.split(".")[0]),
    minor: Number(v.split(".")[1]),
    patch: Number(v.split(".")[2]),
    content: `# rye:signed:...\nprint("${v}")\n`,
    contentHash: hash("a"),
    fileSha256: hash("b"),
    sizeBytes: 42,
    publisherId: alice.id,
    attestation: { item: "alice/text/format/markdown-linter", version: v, nested: { ok: true } },
    attestationSignature: "sig",
    logIndex,
  });
  await prisma.itemVersion.create({ data: version("1.0.0", 9_007_199_254_740_993n) });
  await prisma.itemVersion.create({ data: version("1.10.0", 2n) });

  // The same version twice violates the unique (item_id, version) index.
  await assert.rejects(prisma.itemVersion.create({ data: version("1.0.0", 3n) }), (error: unknown) => {
    assert.ok(error instanceof Prisma.PrismaClientKnownRequestError);
    assert.equal(error.code, "P2002");
    return true;
  });

  const loaded = await prisma.item.findUniqueOrThrow({
    where: { id: item.id },
    include: { versions: { orderBy: [{ major: "desc" }, { minor: "desc" }, { patch: "desc" }] } },
  });
  assert.deepEqual(
    loaded.versions.map((v) => v.version),
    ["1.10.0", "1.0.0"],
  );
  assert.equal(loaded.versions[1]?.logIndex, 9_007_199_254_740_993n, "BigInt survives beyond 2^53");
  assert.deepEqual(loaded.versions[0]?.attestation, {
    item: "alice/text/format/markdown-linter",
    version: "1.10.0",
    nested: { ok: true },
  });

  // A namespace must belong to exactly one user or organization (hand-written CHECK constraint).
  await assert.rejects(prisma.namespace.create({ data: { name: "nobody" } }));

  const content = new Uint8Array([0, 1, 2, 250, 255]);
  await prisma.blob.create({ data: { sha256: hash("c"), size: content.length, content } });
  const blob = await prisma.blob.findUniqueOrThrow({ where: { sha256: hash("c") } });
  assert.deepEqual(new Uint8Array(blob.content), content);

  const token = await prisma.apiToken.create({
    data: { userId: alice.id, name: "ci", tokenHash: hash("d"), scopes: ["publish", "read"] },
  });
  assert.deepEqual(token.scopes, ["publish", "read"]);

  // Interactive transactions roll back on error.
  await assert.rejects(
    prisma.$transaction(async (tx) => {
      await tx.user.create({ data: { username: "ghost" } });
      throw new Error("abort");
    }),
  );
  assert.equal(await prisma.user.count({ where: { username: "ghost" } }), 0);

  // Full-text search: the application maintains the weighted search document.
  await raw.query(
    `UPDATE items SET search_document =
       setweight(to_tsvector('simple', $1), 'A') || setweight(to_tsvector('english', $2), 'B')
     WHERE id = $3::uuid`,
    [item.name.replaceAll("-", " "), item.description, item.id],
  );
  const found = await raw.query<{ name: string; rank: number }>(
    `SELECT name, ts_rank(search_document, query) AS rank
       FROM items, to_tsquery('english', $1) AS query
      WHERE search_document @@ query
      ORDER BY rank DESC`,
    ["markdown & problem:*"],
  );
  assert.deepEqual(
    found.rows.map((r) => r.name),
    ["markdown-linter"],
  );
  assert.ok(found.rows[0]!.rank > 0);
  assert.equal((await raw.query(`SELECT 1 FROM items WHERE search_document @@ to_tsquery('english', 'python')`)).rows.length, 0);

  // Fuzzy matching with pg_trgm, tolerant of typos.
  const fuzzy = await raw.query<{ name: string; score: number }>(
    `SELECT name, similarity(name, $1) AS score FROM items WHERE name % $1 ORDER BY score DESC`,
    ["markdwn-lintr"],
  );
  assert.equal(fuzzy.rows[0]?.name, "markdown-linter");
  assert.ok(fuzzy.rows[0]!.score > 0.3 && fuzzy.rows[0]!.score < 1);

  const counted = await raw.query<{ n: bigint }>(`SELECT count(*) AS n FROM item_versions`);
  assert.equal(counted.rows[0]?.n, 2n, "int8 comes back as bigint on every backend");
}

describe("database client", () => {
  test("CRUD, constraints and search through Prisma on PGlite", async () => {
    const db = await openTestDatabase("pglite");
    try {
      assert.equal(db.kind, "pglite");
      await exercise(db);
    } finally {
      await db.close();
    }
  });

  test("CRUD, constraints and search through Prisma on PostgreSQL", { skip: skipWithoutPostgres() }, async () => {
    const db = await openTestDatabase("postgres");
    try {
      assert.equal(db.kind, "postgres");
      await exercise(db);
    } finally {
      await db.close();
    }
  });

  test("test databases are isolated and dropped on close (PostgreSQL)", { skip: skipWithoutPostgres() }, async () => {
    const [a, b] = await Promise.all([openTestDatabase("postgres"), openTestDatabase("postgres")]);
    await a.prisma.user.create({ data: { username: "only-in-a" } });
    assert.equal(await b.prisma.user.count(), 0);
    const { rows } = await a.raw.query<{ name: string }>("SELECT current_database() AS name");
    await Promise.all([a.close(), b.close()]);
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      const left = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [rows[0]?.name]);
      assert.equal(left.rowCount, 0);
    } finally {
      await admin.end();
    }
  });

  test("a PGlite data directory is created, migrated once, locked while open and reopened", async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), "rye-data-"));
    try {
      let started = performance.now();
      const first = await openDatabase({ dataDir }); // dataDir wins over $DATABASE_URL
      t.diagnostic(`fresh PGlite open + migrate: ${Math.round(performance.now() - started)} ms`);
      assert.equal(first.kind, "pglite");
      await first.prisma.organization.create({ data: { name: "acme" } });
      // PGlite is single-process: a second opener gets a clear error instead of losing writes.
      await assert.rejects(openDatabase({ dataDir, lockWaitMs: 200 }), DataDirInUseError);
      await first.close();
      // A lock left behind by a process that died is taken over.
      writeFileSync(join(dataDir, "pglite.lock"), String(spawnSync(process.execPath, ["-e", ""]).pid));

      const logged: string[] = [];
      started = performance.now();
      const second = await openDatabase({ dataDir, log: (m) => logged.push(m) });
      t.diagnostic(`PGlite reopen (migrations up to date): ${Math.round(performance.now() - started)} ms`);
      try {
        assert.deepEqual(logged, [], "nothing left to migrate");
        assert.equal((await second.prisma.organization.findFirstOrThrow()).name, "acme");
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
