/**
 * The S3 blob store against a real S3 protocol server (s3rver), and through a proxy that makes it fail or hang:
 * idempotent puts cost one HEAD, every failure is a clear UNAVAILABLE with its reason after exactly the configured
 * attempts, a failed put leaves nothing behind, a hanging store ends at the configured timeout, and the
 * configuration refuses incomplete settings. Then a bundle push and pull through the app on a failing store.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { buildManifest, generateKeyPair, RyeError, serializeManifest, signManifest } from "@rye/core";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";
import { type FaultyS3Proxy, startFaultyS3Proxy, startS3Server } from "../../test/s3-server.ts";
import { loadConfig, type S3Settings } from "../config.ts";
import { S3BlobStore } from "./s3-blob-store.ts";

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const bytesOf = (text: string) => new TextEncoder().encode(text);

let s3: Awaited<ReturnType<typeof startS3Server>>;
let proxy: FaultyS3Proxy;
/** The store through the proxy: 2 attempts of at most 400 ms each. */
let settings: S3Settings;

before(async () => {
  s3 = await startS3Server();
  proxy = await startFaultyS3Proxy(s3.endpoint);
  settings = loadConfig({ ...s3.env, RYE_S3_ENDPOINT: proxy.endpoint, RYE_S3_TIMEOUT_MS: "400", RYE_S3_CONNECT_TIMEOUT_MS: "400", RYE_S3_MAX_ATTEMPTS: "2" }).blobs.s3!;
});
after(async () => {
  await proxy.close();
  await s3.close();
});

/** Requests the proxy saw while `fn` ran. */
async function seen(fn: () => Promise<unknown>): Promise<{ method: string; path: string }[]> {
  const start = proxy.requests.length;
  await fn();
  return proxy.requests.slice(start).map(({ method, path }) => ({ method, path: path.replace(/\?.*$/, "") }));
}

function unavailable(reason: string, operation?: string) {
  return (err: unknown) => {
    assert.ok(err instanceof RyeError, `a RyeError, not ${String(err)}`);
    assert.equal(err.code, "UNAVAILABLE");
    assert.equal(err.status, 503);
    assert.equal((err.details as { reason: string }).reason, reason, err.message);
    if (operation) assert.equal((err.details as { operation: string }).operation, operation);
    assert.ok(err.hint.length > 0);
    assert.doesNotMatch(`${err.message} ${err.hint}`, /S3RVER|\n\s+at /, "neither the secret nor a stack trace");
    return true;
  };
}

describe("healthy store", () => {
  test("objects live at <prefix><aa>/<sha256>; a second put of the same bytes is one HEAD and no upload", async () => {
    proxy.setMode("pass");
    const store = new S3BlobStore(settings);
    const bytes = bytesOf("content-addressed");
    const key = `/${s3.bucket}/blobs/${sha(bytes).slice(0, 2)}/${sha(bytes)}`;
    assert.deepEqual(await seen(() => store.put(bytes)), [
      { method: "HEAD", path: key },
      { method: "PUT", path: key },
    ]);
    assert.deepEqual(await seen(() => store.put(bytes)), [{ method: "HEAD", path: key }]);
    assert.equal(store.keyOf(sha(bytes)), `blobs/${sha(bytes).slice(0, 2)}/${sha(bytes)}`);
    store.close();
  });

  test("the client is made by the first operation (the SDK loads on use): a new store sends nothing, then reads and writes", async () => {
    proxy.setMode("pass");
    const bytes = bytesOf("first use");
    const idle = new S3BlobStore(settings);
    idle.close(); // never used: nothing to close, nothing sent
    const store = new S3BlobStore(settings);
    assert.deepEqual(await seen(async () => {}), []);
    assert.equal(await store.get(sha(bytes)), null);
    assert.equal(await store.put(bytes), sha(bytes));
    assert.deepEqual(await store.get(sha(bytes)), bytes);
    store.close();
  });

  test("a custom prefix (or none) places the keys", () => {
    const none = new S3BlobStore({ ...settings, prefix: "" });
    assert.equal(none.keyOf("ab".padEnd(64, "0")), `ab/${"ab".padEnd(64, "0")}`);
    const custom = new S3BlobStore(loadConfig({ ...s3.env, RYE_S3_PREFIX: "registry/blobs/" }).blobs.s3!);
    assert.equal(custom.keyOf("cd".padEnd(64, "1")), `registry/blobs/cd/${"cd".padEnd(64, "1")}`);
    none.close();
    custom.close();
  });
});

describe("failing store", () => {
  test("HTTP 500s: a clear 503 after exactly the configured attempts, and the failed put left nothing", async () => {
    const store = new S3BlobStore(settings);
    const bytes = bytesOf("never stored: the store is failing");
    proxy.setMode("fail");
    const requests = await seen(() => assert.rejects(store.put(bytes), unavailable("server_error", "put")));
    assert.deepEqual(requests.map((r) => r.method), ["HEAD", "HEAD"], "2 attempts (RYE_S3_MAX_ATTEMPTS), then the error");
    await assert.rejects(store.get(sha(bytes)), unavailable("server_error", "get"));
    proxy.setMode("pass");
    assert.equal(await store.has(sha(bytes)), false, "no partial object");
    assert.equal(await store.get(sha(bytes)), null);
    store.close();
  });

  test("the upload itself failing leaves no object either", async () => {
    const store = new S3BlobStore(settings);
    const bytes = bytesOf("the PUT fails");
    proxy.setMode("fail");
    const requests = await seen(() => assert.rejects(store.replace(bytes), unavailable("server_error", "put")));
    assert.deepEqual(requests.map((r) => r.method), ["PUT", "PUT"]);
    proxy.setMode("pass");
    assert.equal(await store.has(sha(bytes)), false);
    store.close();
  });

  test("a stopped store is unreachable: a 503 naming the endpoint, not a stack trace", async () => {
    const gone = await startS3Server();
    const store = new S3BlobStore(loadConfig({ ...gone.env, RYE_S3_MAX_ATTEMPTS: "2" }).blobs.s3!);
    assert.equal(await store.has("0".repeat(64)), false);
    await gone.close();
    await assert.rejects(store.put(bytesOf("after the store stopped")), (err) => {
      unavailable("unreachable", "put")(err);
      assert.match((err as RyeError).message, new RegExp(gone.endpoint.replace(/[.:/]/g, "\\$&")));
      return true;
    });
    store.close();
  });

  test("a hanging store ends at the configured timeout, attempt by attempt", async () => {
    const store = new S3BlobStore(settings);
    proxy.setMode("hang");
    const requests = await seen(() =>
      assert.rejects(store.get("ab".padEnd(64, "c")), (err) => {
        unavailable("timeout", "get")(err);
        assert.match((err as RyeError).message, /within 400 ms \(2 attempts\)/);
        assert.match((err as RyeError).hint, /RYE_S3_TIMEOUT_MS/);
        return true;
      }),
    );
    assert.equal(requests.length, 2, "each of the 2 attempts timed out");
    proxy.setMode("pass");
    store.close();
  });

  test("wrong credentials and a missing bucket say so", async () => {
    // s3rver checks the access key id (V4 signatures themselves it does not verify).
    const wrongKey = new S3BlobStore({ ...settings, endpoint: s3.endpoint, credentials: { accessKeyId: "NOT-A-KEY", secretAccessKey: "not-the-secret" } });
    await assert.rejects(wrongKey.put(bytesOf("x")), unavailable("access_denied"));
    const noBucket = new S3BlobStore({ ...settings, endpoint: s3.endpoint, bucket: "no-such-bucket" });
    await assert.rejects(noBucket.get("ab".padEnd(64, "0")), (err) => {
      unavailable("no_such_bucket")(err);
      assert.match((err as RyeError).hint, /RYE_S3_BUCKET/);
      return true;
    });
    wrongKey.close();
    noBucket.close();
  });
});

describe("configuration", () => {
  test("postgres is the default; s3 needs a bucket; keys come in pairs; limits are bounded", () => {
    assert.equal(loadConfig({}).blobs.store, "postgres");
    assert.equal(loadConfig({}).blobs.s3, undefined);
    const full = loadConfig(s3.env).blobs;
    assert.equal(full.store, "s3");
    assert.deepEqual({ ...full.s3, credentials: undefined }, {
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      region: "us-east-1",
      credentials: undefined,
      forcePathStyle: true,
      prefix: "blobs/",
      connectTimeoutMs: 3000,
      timeoutMs: 10_000,
      maxAttempts: 3,
    });
    assert.equal(loadConfig({ RYE_S3_BUCKET: "b" }).blobs.store, "postgres", "settings alone do not switch the store (the migration reads them)");
    const refused = (env: NodeJS.ProcessEnv, pattern: RegExp) =>
      assert.throws(() => loadConfig(env), (err) => err instanceof RyeError && err.code === "BAD_REQUEST" && pattern.test(err.message));
    refused({ RYE_BLOB_STORE: "s3" }, /RYE_S3_BUCKET/);
    refused({ RYE_BLOB_STORE: "minio" }, /RYE_BLOB_STORE/);
    refused({ RYE_S3_BUCKET: "b", RYE_S3_ACCESS_KEY_ID: "k" }, /together/);
    refused({ RYE_S3_BUCKET: "b", RYE_S3_MAX_ATTEMPTS: "11" }, /RYE_S3_MAX_ATTEMPTS/);
    refused({ RYE_S3_BUCKET: "b", RYE_S3_TIMEOUT_MS: "0" }, /RYE_S3_TIMEOUT_MS/);
    refused({ RYE_S3_BUCKET: "b", RYE_S3_PREFIX: "no-slash" }, /RYE_S3_PREFIX/);
    refused({ RYE_S3_BUCKET: "b", RYE_S3_PREFIX: "../x/" }, /RYE_S3_PREFIX/);
    refused({ RYE_S3_BUCKET: "b", RYE_S3_ENDPOINT: "not a url" }, /RYE_S3_ENDPOINT/);
  });
});

describe("the API on a failing store", () => {
  let reg: TestRegistry;
  before(async () => {
    reg = await createTestRegistry({ config: { blobs: { store: "s3", s3: settings } } });
  });
  after(() => reg.close());

  test("a bundle push answers 503 UNAVAILABLE with a hint and writes no row; once the store is back it goes through and pulls", async () => {
    const user = await reg.createUser("sally");
    const token = await reg.token(user);
    const key = await generateKeyPair();
    await reg.db.prisma.userKey.create({ data: { userId: user.id, fingerprint: key.publicKey.fingerprint, publicKeyPem: key.publicKey.pem } });
    const content = "---\nid: notes\ntitle: Notes\nversion: 1.0.0\nentry_type: reference\n---\n\nKept in the bucket.\n";
    const path = ".ai/knowledge/sally/kit/notes.md";
    const manifest = await signManifest(serializeManifest(buildManifest({ id: "sally/kit", version: "1.0.0", description: "Kit" }, [{ path, bytes: bytesOf(content) }])), key);
    const body = { bundle_id: "sally/kit", manifest, files: { [path]: { content, sha256: sha(bytesOf(content)) } } };

    proxy.setMode("fail");
    const refused = await reg.request("POST", "/v1/bundle/push", { token, json: body });
    const envelope = (await refused.json()) as { error: { code: string; message: string; hint: string; details: { reason: string } } };
    assert.equal(refused.status, 503);
    assert.equal(envelope.error.code, "UNAVAILABLE");
    assert.equal(envelope.error.details.reason, "server_error");
    assert.match(envelope.error.message, /blob store/);
    assert.doesNotMatch(JSON.stringify(envelope), /\n\s+at |S3RVER/);
    assert.equal(await reg.db.prisma.bundle.count(), 0, "no bundle row");
    assert.equal(await reg.db.prisma.bundleVersion.count(), 0, "no version row");
    assert.equal(await reg.db.prisma.publishLogEntry.count({ where: { kind: "publish" } }), 0, "nothing logged");

    proxy.setMode("pass");
    const pushed = await reg.request("POST", "/v1/bundle/push", { token, json: body });
    assert.equal(pushed.status, 201, await pushed.clone().text());
    assert.equal(await reg.db.prisma.blob.count(), 0, "the file is in the bucket, not the table");

    proxy.setMode("hang");
    const slow = await reg.request("GET", "/v1/bundle/pull/sally/kit?version=1.0.0");
    assert.equal(slow.status, 503);
    assert.equal(((await slow.json()) as { error: { details: { reason: string } } }).error.details.reason, "timeout");
    proxy.setMode("pass");
    const pulled = await reg.request("GET", "/v1/bundle/pull/sally/kit?version=1.0.0");
    assert.equal(pulled.status, 200);
    const files = ((await pulled.json()) as { files: Record<string, { content_base64: string }> }).files;
    assert.equal(Buffer.from(files[path]!.content_base64, "base64").toString("utf8"), content);
  });
});
