/**
 * `npm run registry -- blobs migrate --to s3`: the operator command on a real database (PostgreSQL when
 * DATABASE_URL is set, else an embedded one in a data directory) and a real S3 protocol server. Proves the dry run
 * writes nothing, a run copies every blob and reads each back, a second run uploads nothing, a run stopped midway
 * (or one meeting a corrupted copy) is finished by running again, a failing store stops the run with a clear error
 * and deletes nothing, source rows go only with --delete-source on a registry already reading S3, and a corrupted
 * source row is reported and kept.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { openDatabase, type Database } from "@rye/db";
import { createScratchPostgresDatabase } from "@rye/db/testing";
import { type FaultyS3Proxy, startFaultyS3Proxy, startS3Server } from "../../test/s3-server.ts";
import { loadConfig, type S3Settings } from "../config.ts";
import { PostgresBlobStore } from "../services/blob-store.ts";
import type { BlobMigrationReport } from "../services/blob-migration.ts";
import { S3BlobStore } from "../services/s3-blob-store.ts";
import { runRegistryCli } from "./registry-cli.ts";

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const N = 23;

let s3: Awaited<ReturnType<typeof startS3Server>>;
let proxy: FaultyS3Proxy;
let settings: S3Settings;
let dataDir: string;
let scratch: { url: string; drop(): Promise<void> } | undefined;
/** The registry's environment: the blob store is still PostgreSQL; the S3 settings are there for the migration. */
let env: NodeJS.ProcessEnv;
let blobs: Uint8Array[];

async function withDb<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(scratch ? { databaseUrl: scratch.url } : { dataDir });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; report?: BlobMigrationReport }> {
  const lines: string[] = [];
  const code = await runRegistryCli(["blobs", "migrate", "--to", "s3", ...args], { ...env, ...extraEnv }, (s) => lines.push(s));
  const out = lines.join("\n");
  const json = lines.find((l) => l.startsWith("{"));
  return { code, out, ...(json ? { report: JSON.parse(json) as BlobMigrationReport } : {}) };
}

/** Uploads seen by the proxy while `fn` ran. */
async function puts(fn: () => Promise<unknown>): Promise<number> {
  const start = proxy.requests.length;
  await fn();
  return proxy.requests.slice(start).filter((r) => r.method === "PUT").length;
}

before(async () => {
  s3 = await startS3Server();
  proxy = await startFaultyS3Proxy(s3.endpoint);
  dataDir = await mkdtemp(join(tmpdir(), "rye-blob-migrate-"));
  scratch = process.env.DATABASE_URL ? await createScratchPostgresDatabase() : undefined;
  const { RYE_BLOB_STORE: _store, ...s3Vars } = s3.env;
  env = { ...s3Vars, RYE_S3_ENDPOINT: proxy.endpoint, RYE_S3_MAX_ATTEMPTS: "2", RYE_DATA_DIR: dataDir, RYE_LOG_LEVEL: "silent", ...(scratch ? { DATABASE_URL: scratch.url } : {}) };
  settings = loadConfig(env).blobs.s3!;
  blobs = Array.from({ length: N }, (_, i) => randomBytes(100 + i * 37));
  blobs.push(new Uint8Array(0));
  await withDb(async (db) => {
    const store = new PostgresBlobStore(db);
    for (const bytes of blobs) await store.put(bytes);
  });
});
after(async () => {
  await proxy.close();
  await s3.close();
  await scratch?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

const totalBytes = () => blobs.reduce((sum, b) => sum + b.length, 0);

test("the migration needs the S3 settings and a valid target", async () => {
  const lines: string[] = [];
  const code = await runRegistryCli(["blobs", "migrate", "--to", "s3"], { RYE_DATA_DIR: dataDir, RYE_LOG_LEVEL: "silent" }, (s) => lines.push(s));
  assert.equal(code, 1);
  assert.match(lines.join("\n"), /error\[BAD_REQUEST\].*S3 store's settings\nhint: Set RYE_S3_BUCKET/s);
  assert.equal((await cli(["--batch-size", "0"])).code, 1);
  assert.equal(await runRegistryCli(["blobs", "migrate", "--to", "gcs"], env, () => undefined), 2, "only s3 is a target");
});

test("a dry run counts what it would copy and writes nothing", async () => {
  const r = await cli(["--dry-run"]);
  assert.equal(r.code, 0, r.out);
  assert.deepEqual(r.report, { dry_run: true, scanned: N + 1, scanned_bytes: totalBytes(), copied: N + 1, copied_bytes: totalBytes(), already_present: 0, repaired: 0, verified: 0, deleted: 0, deleted_bytes: 0, failed: [] });
  const store = new S3BlobStore(settings);
  for (const bytes of blobs) assert.equal(await store.has(sha(bytes)), false);
  store.close();
});

test("a failing store stops the run with a clear error; nothing is deleted", async () => {
  proxy.setMode("fail");
  try {
    const r = await cli(["--delete-source"], { RYE_BLOB_STORE: "s3" });
    assert.equal(r.code, 1);
    assert.match(r.out, /error\[UNAVAILABLE\]: The blob store .* failed: .*HTTP 500/);
    assert.doesNotMatch(r.out, /\n\s+at /);
  } finally {
    proxy.setMode("pass");
  }
  assert.equal(await withDb((db) => db.prisma.blob.count()), N + 1);
});

test("a run stopped midway is finished by running again: copies what is missing, repairs a bad copy, uploads nothing twice", async () => {
  // A previous run got through the first 5 blobs; one of them was damaged in the bucket since.
  const store = new S3BlobStore(settings);
  const sorted = [...blobs].sort((a, b) => sha(a).localeCompare(sha(b)));
  for (const bytes of sorted.slice(0, 5)) await store.put(bytes);
  const bucket = new S3Client({ region: settings.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: settings.credentials! });
  const damaged = sorted[2]!;
  await bucket.send(new PutObjectCommand({ Bucket: s3.bucket, Key: store.keyOf(sha(damaged)), Body: new TextEncoder().encode("bit rot") }));
  bucket.destroy();

  let r!: Awaited<ReturnType<typeof cli>>;
  const uploads = await puts(async () => (r = await cli(["--batch-size", "4", "--concurrency", "3"])));
  assert.equal(r.code, 0, r.out);
  assert.deepEqual(r.report, { dry_run: false, scanned: N + 1, scanned_bytes: totalBytes(), copied: N + 1 - 5, copied_bytes: sorted.slice(5).reduce((s, b) => s + b.length, 0), already_present: 4, repaired: 1, verified: N + 1, deleted: 0, deleted_bytes: 0, failed: [] });
  assert.equal(uploads, N + 1 - 5 + 1, "the missing ones and the repaired one");
  assert.match(r.out, /… 4 blobs .* scanned/, "progress per page");
  for (const bytes of blobs) assert.deepEqual(new Uint8Array((await store.get(sha(bytes)))!), new Uint8Array(bytes), "every copy reads back verified");
  assert.equal(await withDb((db) => db.prisma.blob.count()), N + 1, "the source rows stay without --delete-source");

  const again = await puts(async () => (r = await cli([])));
  assert.equal(r.code, 0, r.out);
  assert.equal(again, 0, "idempotent: a second run uploads nothing");
  assert.equal(r.report!.already_present, N + 1);
  assert.equal(r.report!.verified, N + 1);
  store.close();
});

test("--delete-source is refused while the registry reads PostgreSQL, and deletes only verified rows once it reads S3", async () => {
  const refused = await cli(["--delete-source"]);
  assert.equal(refused.code, 1);
  assert.match(refused.out, /error\[BAD_REQUEST\].*still reads from PostgreSQL/);
  assert.equal(await withDb((db) => db.prisma.blob.count()), N + 1);

  // A row whose bytes no longer match its name: reported, never copied, never deleted.
  const corrupt = { sha256: sha(new TextEncoder().encode("the original")), content: new TextEncoder().encode("what the row holds now") };
  await withDb((db) => db.prisma.blob.create({ data: { sha256: corrupt.sha256, size: corrupt.content.length, content: corrupt.content } }));

  const r = await cli(["--delete-source"], { RYE_BLOB_STORE: "s3" });
  assert.equal(r.code, 1, "a blob was left behind");
  assert.equal(r.report!.deleted, N + 1);
  assert.equal(r.report!.deleted_bytes, totalBytes());
  assert.deepEqual(r.report!.failed, [{ sha256: corrupt.sha256, reason: "the source row is corrupted: its bytes hash differently; left in place" }]);
  assert.match(r.out, /error\[INTERNAL\]: 1 blob\(s\) were not migrated/);
  assert.deepEqual(await withDb((db) => db.prisma.blob.findMany({ select: { sha256: true } })), [{ sha256: corrupt.sha256 }]);
  const store = new S3BlobStore(settings);
  assert.equal(await store.has(corrupt.sha256), false);
  for (const bytes of blobs) assert.deepEqual(new Uint8Array((await store.get(sha(bytes)))!), new Uint8Array(bytes));
  store.close();
});
