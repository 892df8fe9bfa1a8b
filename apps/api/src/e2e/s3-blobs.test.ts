/**
 * The API as a process with RYE_BLOB_STORE=s3 against a real S3 protocol server (test/s3-server.ts), over real
 * HTTP: a bundle pushed is stored in the bucket (not the table) and pulled byte-exact; with the store stopped a
 * pull is a 503 with a hint and the process keeps serving; a process configured for S3 without a bucket refuses
 * to start with a clear message.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { openDatabase } from "@rye/db";
import { createScratchPostgresDatabase } from "@rye/db/testing";
import { pushBundle, signUpPublisher } from "../../test/bundle-publisher.ts";
import { freePort } from "../../test/free-port.ts";
import { startS3Server } from "../../test/s3-server.ts";
import { loadConfig } from "../config.ts";
import { S3BlobStore } from "../services/s3-blob-store.ts";

const API = fileURLToPath(new URL("..", import.meta.url));
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function startApi(env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ["--import", "tsx", join(API, "main.ts")], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
}

test("bundles go to the bucket and come back through the HTTP API; a stopped store is a 503, not a crash", { timeout: 180_000 }, async () => {
  const s3 = await startS3Server();
  const dataDir = await mkdtemp(join(tmpdir(), "rye-s3-api-"));
  const scratch = process.env.DATABASE_URL ? await createScratchPostgresDatabase() : undefined;
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, ...s3.env, PORT: String(port), RYE_DATA_DIR: dataDir, RYE_LOG_LEVEL: "warn", RYE_S3_MAX_ATTEMPTS: "2" };
  if (scratch) env.DATABASE_URL = scratch.url;
  else delete env.DATABASE_URL;
  const api = startApi(env);
  const url = `http://127.0.0.1:${port}`;
  try {
    const deadline = Date.now() + 90_000;
    while (!(await fetch(`${url}/health`).then((r) => r.ok, () => false))) {
      assert.ok(Date.now() < deadline && api.child.exitCode === null, `the API did not start: ${api.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const publisher = await signUpPublisher(url, "stella");
    const files = {
      ".ai/knowledge/stella/kit/notes.md": new TextEncoder().encode("---\nid: notes\ntitle: Notes\nversion: 1.0.0\nentry_type: reference\n---\n\nIn a bucket.\r\n"),
      ".ai/knowledge/stella/kit/data.bin": new Uint8Array(randomBytes(64 * 1024)),
    };
    const pushed = await pushBundle(url, publisher, "stella/kit", "1.0.0", files);
    assert.equal(pushed.file_count, 2);

    const store = new S3BlobStore(loadConfig(s3.env).blobs.s3!);
    for (const bytes of Object.values(files)) assert.equal(await store.has(sha(bytes)), true, "the file is in the bucket");
    store.close();
    if (scratch) {
      const db = await openDatabase({ databaseUrl: scratch.url });
      assert.equal(await db.prisma.blob.count(), 0, "and not in the blobs table");
      await db.close();
    }

    const pull = await fetch(`${url}/v1/bundle/pull/stella/kit?version=1.0.0`);
    assert.equal(pull.status, 200);
    const body = (await pull.json()) as { files: Record<string, { content_base64: string; sha256: string }> };
    for (const [path, bytes] of Object.entries(files)) {
      assert.deepEqual(new Uint8Array(Buffer.from(body.files[path]!.content_base64, "base64")), bytes, path);
      assert.equal(body.files[path]!.sha256, sha(bytes));
    }

    await s3.close();
    const down = await fetch(`${url}/v1/bundle/pull/stella/kit?version=1.0.0`);
    assert.equal(down.status, 503);
    const envelope = (await down.json()) as { error: { code: string; message: string; hint: string; details: { reason: string } } };
    assert.equal(envelope.error.code, "UNAVAILABLE");
    assert.equal(envelope.error.details.reason, "unreachable");
    assert.match(envelope.error.hint, /RYE_S3_ENDPOINT/);
    assert.doesNotMatch(JSON.stringify(envelope), /\n\s+at |S3RVER/);
    assert.equal((await fetch(`${url}/health`)).status, 200, "the process keeps serving");
    assert.equal(api.child.exitCode, null);
  } finally {
    await stop(api.child);
    await s3.close();
    await scratch?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("RYE_BLOB_STORE=s3 without a bucket: the process refuses to start and says what is missing", { timeout: 60_000 }, async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "rye-s3-api-"));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(await freePort()), RYE_DATA_DIR: dataDir, RYE_BLOB_STORE: "s3" };
  delete env.DATABASE_URL;
  const api = startApi(env);
  try {
    const [code] = (await once(api.child, "exit")) as [number];
    assert.equal(code, 1);
    assert.match(api.output(), /error\[BAD_REQUEST\]: Invalid registry configuration: RYE_BLOB_STORE=s3 needs RYE_S3_BUCKET\nhint: Name the bucket/);
  } finally {
    await stop(api.child);
    await rm(dataDir, { recursive: true, force: true });
  }
});
