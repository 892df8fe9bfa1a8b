/**
 * POST /v1/bundle/push and GET /v1/bundle/pull: happy paths, errors, security. The registry's blob store is the
 * configured default (PostgreSQL); bundles-s3.test.ts runs this same file with RYE_TEST_BLOB_STORE=s3 against a
 * real S3 protocol server.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Hono } from "hono";
import type { KeyPair, PublicKey } from "@rye/core";
import { buildManifest, extractSignature, generateKeyPair, keyResolverFrom, serializeManifest, signItem, signManifest, verifyBundle, verifyDocument, verifyItem } from "@rye/core";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";
import { startS3Server } from "../../test/s3-server.ts";
import { loadConfig } from "../config.ts";
import type { AppEnv } from "../env.ts";
import { errorHandler } from "../middleware/errors.ts";
import { rateLimit } from "../middleware/rate-limit.ts";
import { requestContext } from "../middleware/request-context.ts";
import type { BlobStore } from "../services/blob-store.ts";
import { FileSystemBlobStore } from "../services/blob-store.ts";
import type { AppDeps } from "../services/deps.ts";
import { bundleRoutes } from "./bundles.ts";

type Json = Record<string, any>;
const sha = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
const enc = (text: string) => new TextEncoder().encode(text);

/** The bundle routes behind the same middleware and error handler as app.ts. */
function bundleApp(deps: AppDeps, blobs?: BlobStore) {
  const app = new Hono<AppEnv>();
  app.use("*", requestContext({ authenticator: deps.authenticator, logger: deps.logger, trustProxy: deps.config.trustProxy }));
  app.use("/v1/*", rateLimit(deps.config.rateLimit));
  app.route("/", bundleRoutes(blobs ? { ...deps, blobs } : deps));
  app.onError(errorHandler(deps.logger));
  return async (method: string, path: string, opts: { token?: string; json?: unknown; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...opts.headers, ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) };
    if (opts.json !== undefined) headers["content-type"] = "application/json";
    const res = await app.request(path, { method, headers, ...(opts.json !== undefined ? { body: JSON.stringify(opts.json) } : {}) });
    return { res, status: res.status, body: (res.status === 304 ? {} : await res.json()) as Json };
  };
}

const directive = (name: string) =>
  `# ${name}\n\n\`\`\`xml\n<directive name="${name}" version="1.0.0">\n  <metadata>\n    <description>Do ${name}.</description>\n    <category>demo</category>\n    <author>alice</author>\n  </metadata>\n</directive>\n\`\`\`\n`;
const tool = `#!/usr/bin/env python3\n__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = None\nprint("hi")\n`;
const knowledge = "---\nid: notes\ntitle: Notes\nversion: 1.0.0\nentry_type: reference\n---\n\nSome notes.\r\nWith CRLF kept byte-exact.\n";
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0xff, 0xfe, 0x80]);

interface BundleOptions {
  version?: string;
  /** The manifest's signing key; null leaves it unsigned. */
  key?: KeyPair | null;
  manifestId?: string;
  /** Edits the manifest text after signing (tampering). */
  afterSign?: (text: string) => string;
}

let reg: TestRegistry;
let request: ReturnType<typeof bundleApp>;
let alice: TestUser;
let bob: TestUser;
let aliceToken: string;
let bobToken: string;
let aliceKey: KeyPair;
let registryKey: PublicKey;

/** A push body for `id` built like `rye bundle create`: manifest over the files, signed. */
async function bundleBody(id: string, files: Record<string, string | Uint8Array>, options: BundleOptions = {}) {
  const list = Object.entries(files).map(([path, content]) => ({ path, bytes: typeof content === "string" ? enc(content) : content }));
  let manifest = serializeManifest(buildManifest({ id: options.manifestId ?? id, version: options.version ?? "1.0.0", description: `Bundle ${id}` }, list));
  const key = options.key === undefined ? aliceKey : options.key;
  if (key) manifest = await signManifest(manifest, key);
  if (options.afterSign) manifest = options.afterSign(manifest);
  return {
    bundle_id: id,
    manifest,
    files: Object.fromEntries(
      list.map((f) => [f.path, typeof files[f.path] === "string" ? { content: files[f.path], sha256: sha(f.bytes) } : { content_base64: Buffer.from(f.bytes).toString("base64"), sha256: sha(f.bytes) }]),
    ),
  } as Json;
}

async function demoFiles(prefix = "alice/demo") {
  return {
    [`.ai/directives/${prefix}/hello.md`]: (await signItem(directive("hello"), "directive", aliceKey)).content,
    [`.ai/tools/${prefix}/greet.py`]: tool,
    [`.ai/knowledge/${prefix}/notes.md`]: knowledge,
    [`.ai/knowledge/${prefix}/logo.png`]: PNG,
  };
}

let s3: Awaited<ReturnType<typeof startS3Server>> | undefined;

before(async () => {
  s3 = process.env.RYE_TEST_BLOB_STORE === "s3" ? await startS3Server() : undefined;
  reg = await createTestRegistry(s3 ? { config: { blobs: loadConfig(s3.env).blobs } } : {});
  request = bundleApp(reg.deps);
  alice = await reg.createUser("alice");
  bob = await reg.createUser("bob");
  aliceToken = await reg.token(alice);
  bobToken = await reg.token(bob);
  aliceKey = await generateKeyPair();
  await reg.db.prisma.userKey.create({ data: { userId: alice.id, fingerprint: aliceKey.publicKey.fingerprint, publicKeyPem: aliceKey.publicKey.pem } });
  registryKey = reg.deps.keyring.current().publicKey;
});
after(async () => {
  await reg.close();
  await s3?.close();
});

describe("happy paths", () => {
  test("push stores the files, re-signs the manifest with provenance, attests and logs", async () => {
    const body = await bundleBody("alice/demo", await demoFiles());
    const r = await request("POST", "/v1/bundle/push", { token: aliceToken, json: body });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.status, "pushed");
    assert.equal(r.body.bundle_id, "alice/demo");
    assert.equal(r.body.version, "1.0.0");
    assert.equal(r.body.file_count, 4);
    const sig = extractSignature(r.body.manifest, "tool");
    assert.ok(sig.status === "signed");
    assert.equal(sig.signature.fingerprint, registryKey.fingerprint);
    assert.equal(sig.signature.provider, "rye-registry");
    assert.equal(sig.signature.username, "alice");
    assert.equal((await verifyItem(r.body.manifest, "tool", keyResolverFrom([registryKey]))).code, "OK");
    assert.ok(await verifyDocument(r.body.attestation, registryKey));
    const payload = r.body.attestation.payload;
    assert.deepEqual(payload.subject, { kind: "bundle", id: "alice/demo", version: "1.0.0" });
    assert.equal(payload.file_sha256, sha(r.body.manifest));
    assert.equal(payload.author.fingerprint, aliceKey.publicKey.fingerprint);
    assert.equal(payload.log_index, r.body.log_index);

    const row = await reg.db.prisma.bundleVersion.findFirstOrThrow({ where: { version: "1.0.0", bundle: { name: "demo" } } });
    const pngPath = ".ai/knowledge/alice/demo/logo.png";
    assert.deepEqual((row.files as Json)[pngPath], { sha256: sha(PNG), size: PNG.length, inline_signed: false });
    assert.equal((row.files as Json)[".ai/directives/alice/demo/hello.md"].inline_signed, true);
    assert.ok(await reg.deps.blobs.has(sha(PNG)));
    assert.equal(await reg.db.prisma.blob.count({ where: { sha256: sha(PNG) } }), s3 ? 0 : 1, `the files went to the ${s3 ? "bucket" : "blobs table"}`);
    const entry = await reg.db.prisma.publishLogEntry.findUniqueOrThrow({ where: { index: BigInt(r.body.log_index) } });
    assert.equal(entry.kind, "publish");
    assert.equal((entry.payload as Json).kind, "bundle");
    assert.equal(await reg.db.prisma.auditEvent.count({ where: { action: "bundle.publish", targetId: "alice/demo@1.0.0" } }), 1);
  });

  test("anonymous pull returns byte-exact files that verify client-side, with ETag and caching", async () => {
    const r = await request("GET", "/v1/bundle/pull/alice/demo?version=1.0.0");
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.author, "alice");
    assert.equal(r.res.headers.get("etag"), `"${sha(r.body.manifest)}"`);
    assert.equal(r.res.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.ok(await verifyDocument(r.body.attestation, registryKey));
    const files = new Map(Object.entries(r.body.files as Record<string, Json>).map(([p, f]) => [p, new Uint8Array(Buffer.from(f.content_base64, "base64"))]));
    assert.deepEqual(files.get(".ai/knowledge/alice/demo/logo.png"), PNG);
    assert.equal(Buffer.from(files.get(".ai/knowledge/alice/demo/notes.md")!).toString("utf8"), knowledge, "CRLF survives");
    const verification = await verifyBundle(r.body.manifest, keyResolverFrom([registryKey, aliceKey.publicKey]), async (p) => files.get(p));
    assert.equal(verification.code, "OK", JSON.stringify(verification));
    assert.equal(verification.files_ok.length, 4);

    const again = await request("GET", "/v1/bundle/pull/alice/demo?version=1.0.0", { headers: { "if-none-match": r.res.headers.get("etag")! } });
    assert.equal(again.status, 304);
  });

  test("latest is the highest non-yanked version and must be revalidated", async () => {
    const body = await bundleBody("alice/demo", await demoFiles(), { version: "1.1.0" });
    assert.equal((await request("POST", "/v1/bundle/push", { token: aliceToken, json: { ...body, version: "1.1.0" } })).status, 201);
    const latest = await request("GET", "/v1/bundle/pull/alice/demo");
    assert.equal(latest.body.version, "1.1.0");
    assert.match(latest.res.headers.get("cache-control")!, /must-revalidate/);
    await reg.db.prisma.bundleVersion.updateMany({ where: { version: "1.1.0" }, data: { yanked: true } });
    assert.equal((await request("GET", "/v1/bundle/pull/alice/demo")).body.version, "1.0.0");
    assert.equal((await request("GET", "/v1/bundle/pull/alice/demo?version=1.1.0")).body.yanked, true);
  });

  test("items already signed by the registry are accepted inline; a filesystem blob store works the same", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rye-bundle-blobs-"));
    try {
      const fsRequest = bundleApp(reg.deps, new FileSystemBlobStore(dir));
      const pulled = (await signItem(directive("fetched"), "directive", reg.deps.keyring.current(), { provenance: { provider: "rye-registry", username: "bob" } })).content;
      const unique = "only in the directory store\n";
      const body = await bundleBody("alice/mixed", { ".ai/directives/alice/mixed/fetched.md": pulled, ".ai/knowledge/alice/mixed/unique.txt": unique });
      const r = await fsRequest("POST", "/v1/bundle/push", { token: aliceToken, json: body });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const pull = await fsRequest("GET", "/v1/bundle/pull/alice/mixed");
      assert.equal(Buffer.from(pull.body.files[".ai/directives/alice/mixed/fetched.md"].content_base64, "base64").toString(), pulled);
      assert.equal(await reg.db.prisma.blob.count({ where: { sha256: sha(unique) } }), 0, "the files went to the directory");
      assert.equal(await new FileSystemBlobStore(dir).has(sha(unique)), true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("errors", () => {
  const push = async (body: Json, token = aliceToken) => request("POST", "/v1/bundle/push", { token, json: body });

  test("manifest and request must agree: id, version, file set and hashes", async () => {
    const files = { ".ai/tools/alice/e/greet.py": tool, ".ai/knowledge/alice/e/notes.md": knowledge };
    const otherId = await push(await bundleBody("alice/e", files, { manifestId: "alice/other" }));
    assert.equal(otherId.body.error.code, "BUNDLE_INVALID");
    const version = await push({ ...(await bundleBody("alice/e", files)), version: "2.0.0" });
    assert.equal(version.body.error.code, "VERSION_MISMATCH");

    const body = await bundleBody("alice/e", files);
    const missing = await push({ ...body, files: { ".ai/tools/alice/e/greet.py": body.files[".ai/tools/alice/e/greet.py"] } });
    assert.equal(missing.body.error.code, "BUNDLE_FILES_MISSING");
    assert.deepEqual(missing.body.error.details, [".ai/knowledge/alice/e/notes.md"]);
    const extra = await push({ ...body, files: { ...body.files, ".ai/tools/alice/e/extra.py": { content: tool, sha256: sha(tool) } } });
    assert.equal(extra.body.error.code, "BUNDLE_INVALID");

    const changed = `${tool}# changed\n`;
    const tampered = await push({ ...body, files: { ...body.files, ".ai/tools/alice/e/greet.py": { content: changed, sha256: sha(changed) } } });
    assert.equal(tampered.status, 400);
    assert.equal(tampered.body.error.code, "BUNDLE_FILES_TAMPERED");
    assert.match(tampered.body.error.details[0].reason, /manifest/);
    const lying = await push({ ...body, files: { ...body.files, ".ai/tools/alice/e/greet.py": { content: changed, sha256: sha(tool) } } });
    assert.equal(lying.body.error.code, "BUNDLE_FILES_TAMPERED");

    const yaml = await push({ ...body, manifest: "bundle: [unclosed" });
    assert.equal(yaml.body.error.code, "BUNDLE_INVALID");
    assert.equal(await reg.db.prisma.bundle.count({ where: { name: "e" } }), 0, "nothing was stored");
  });

  test("body shape: one of content and content_base64, strict base64, a namespaced id", async () => {
    const body = await bundleBody("alice/shape", { ".ai/tools/alice/shape/greet.py": tool });
    const both = await push({ ...body, files: { ".ai/tools/alice/shape/greet.py": { content: tool, content_base64: Buffer.from(tool).toString("base64"), sha256: sha(tool) } } });
    assert.equal(both.body.error.code, "BAD_REQUEST");
    const bad64 = await push({ ...body, files: { ".ai/tools/alice/shape/greet.py": { content_base64: "not base64!", sha256: sha(tool) } } });
    assert.equal(bad64.body.error.code, "BAD_REQUEST");
    assert.equal((await push({ bundle_id: "alice/x" })).body.error.code, "BAD_REQUEST");
    for (const id of ["demo", "Alice/demo", "alice/../bob", "alice//x"]) {
      const r = await push({ ...(await bundleBody(id, { ".ai/tools/x/greet.py": tool })) });
      assert.equal(r.body.error.code, "INVALID_ITEM_ID", id);
    }
  });

  test("a version is immutable: 409 on re-push, exactly one winner under concurrency", async () => {
    const body = await bundleBody("alice/race", { ".ai/tools/alice/race/greet.py": tool });
    const results = await Promise.all(Array.from({ length: 12 }, () => push(body)));
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 1, JSON.stringify(results.filter((r) => r.status !== 201 && r.status !== 409).map((r) => r.body)));
    assert.equal(statuses.filter((s) => s === 409).length, 11);
    assert.equal(results.find((r) => r.status === 409)!.body.error.code, "VERSION_EXISTS");
    assert.equal(await reg.db.prisma.bundleVersion.count({ where: { bundle: { name: "race" } } }), 1);
    const log = await reg.db.prisma.publishLogEntry.findMany({ orderBy: { index: "asc" } });
    assert.deepEqual(log.map((e) => Number(e.index)), log.map((_, i) => i), "the log has no gaps");
  });

  test("pull: unknown bundles and versions are 404", async () => {
    assert.equal((await request("GET", "/v1/bundle/pull/alice/nothing")).body.error.code, "NOT_FOUND");
    const version = await request("GET", "/v1/bundle/pull/alice/demo?version=9.9.9");
    assert.equal(version.status, 404);
    assert.ok(version.body.error.details.versions.includes("1.0.0"));
    assert.equal((await request("GET", "/v1/bundle/pull/demo")).body.error.code, "INVALID_ITEM_ID");
  });

  test("oversized bundles are refused with 413", async () => {
    const small = await createTestRegistry({ config: { limits: { maxItemBytes: 1000, maxJsonBodyBytes: 20_000, maxBundleBytes: 4000, maxBundleBodyBytes: 20_000 } } });
    try {
      const carol = await small.createUser("carol");
      const token = await small.token(carol);
      const key = await generateKeyPair();
      await small.db.prisma.userKey.create({ data: { userId: carol.id, fingerprint: key.publicKey.fingerprint, publicKeyPem: key.publicKey.pem } });
      const smallRequest = bundleApp(small.deps);
      const big = await bundleBody("carol/big", { ".ai/knowledge/carol/big/a.md": "x".repeat(3000), ".ai/knowledge/carol/big/b.md": "y".repeat(3000) }, { key });
      const tooBig = await smallRequest("POST", "/v1/bundle/push", { token, json: big });
      assert.equal(tooBig.status, 413);
      assert.equal(tooBig.body.error.code, "PAYLOAD_TOO_LARGE");
      const huge = await smallRequest("POST", "/v1/bundle/push", { token, json: { ...big, padding: "z".repeat(30_000) } });
      assert.equal(huge.status, 413, "the body limit stops it before parsing");
      assert.equal(await small.db.prisma.bundle.count(), 0);
    } finally {
      await small.close();
    }
  });
});

describe("security", () => {
  const push = async (body: Json, token = aliceToken) => request("POST", "/v1/bundle/push", { token, json: body });

  test("push needs a token with items:write for the bundle's namespace", async () => {
    const body = await bundleBody("alice/guarded", { ".ai/tools/alice/guarded/greet.py": tool });
    assert.equal((await request("POST", "/v1/bundle/push", { json: body })).status, 401);
    const foreign = await push(body, bobToken);
    assert.equal(foreign.status, 403);
    assert.equal((await push(body, await reg.token(alice, { scopes: ["items:read"] }))).body.error.code, "FORBIDDEN");
    assert.equal((await push(body, await reg.token(alice, { namespace: "acme" }))).status, 403);
    assert.equal((await push({ ...body, bundle_id: "nobody/guarded" })).status, 404);
  });

  test("the manifest must be signed by a key registered to the publisher", async () => {
    const files = { ".ai/tools/alice/keys/greet.py": tool };
    const unsigned = await push(await bundleBody("alice/keys", files, { key: null }));
    assert.equal(unsigned.body.error.code, "UNSIGNED");
    const stranger = await push(await bundleBody("alice/keys", files, { key: await generateKeyPair() }));
    assert.equal(stranger.status, 400);
    assert.equal(stranger.body.error.code, "UNTRUSTED_KEY");
    assert.match(stranger.body.error.hint, /[Rr]egister/);
    const bobKey = await generateKeyPair();
    await reg.db.prisma.userKey.create({ data: { userId: bob.id, fingerprint: bobKey.publicKey.fingerprint, publicKeyPem: bobKey.publicKey.pem } });
    assert.equal((await push(await bundleBody("alice/keys", files, { key: bobKey }))).body.error.code, "UNTRUSTED_KEY", "another user's key");
    const revoked = await generateKeyPair();
    await reg.db.prisma.userKey.create({ data: { userId: alice.id, fingerprint: revoked.publicKey.fingerprint, publicKeyPem: revoked.publicKey.pem, revokedAt: new Date() } });
    assert.equal((await push(await bundleBody("alice/keys", files, { key: revoked }))).body.error.code, "UNTRUSTED_KEY", "a revoked key");
    const edited = await push(await bundleBody("alice/keys", files, { afterSign: (t) => t.replace("description: Bundle alice/keys", "description: evil") }));
    assert.equal(edited.body.error.code, "INTEGRITY_MISMATCH");
    const registrySigned = await push(await bundleBody("alice/keys", files, { key: reg.deps.keyring.current() }));
    assert.equal(registrySigned.body.error.code, "UNTRUSTED_KEY", "a manifest is the publisher's statement");
  });

  test("inline-signed items must verify with the publisher's or the registry's keys", async () => {
    const forged = (await signItem(directive("forged"), "directive", await generateKeyPair())).content;
    const r = await push(await bundleBody("alice/inline", { ".ai/directives/alice/inline/forged.md": forged }));
    assert.equal(r.body.error.code, "UNTRUSTED_KEY");
    assert.equal(r.body.error.details[0].path, ".ai/directives/alice/inline/forged.md");
    const signed = (await signItem(directive("edited"), "directive", aliceKey)).content.replace("Do edited.", "Do evil.");
    const edited = await push(await bundleBody("alice/inline", { ".ai/directives/alice/inline/edited.md": signed }));
    assert.equal(edited.body.error.code, "INTEGRITY_MISMATCH");
    // The client's inline_signed flag forces verification even when the marker is not at the top.
    const body = await bundleBody("alice/inline", { ".ai/tools/alice/inline/greet.py": tool });
    const flagged = await push({ ...body, files: { ".ai/tools/alice/inline/greet.py": { ...body.files[".ai/tools/alice/inline/greet.py"], inline_signed: true } } });
    assert.equal(flagged.body.error.code, "UNSIGNED");
  });

  test("path traversal in the request or the manifest is refused", async () => {
    for (const path of ["../escape.md", ".ai/../../etc/passwd", "/etc/passwd", "a\\b.md", "C:/x.md", "a//b.md", ".ai/trusted_keys/0123456789abcdef.pem", ".ai/config/registries.yaml", ".ai/plans/alice/zip/x.md", ".ai/tools/alice/other/greet.py", "README.md"]) {
      const body = await bundleBody("alice/zip", { ".ai/tools/alice/zip/greet.py": tool });
      const r = await push({ ...body, files: { ...body.files, [path]: { content: "x", sha256: sha("x") } } });
      assert.equal(r.body.error.code, "PATH_TRAVERSAL", path);
    }
    const manifest = await signManifest(`bundle:\n  id: alice/zip\n  version: 1.0.0\n  created_at: 2026-01-01T00:00:00Z\nfiles:\n  ../../evil.sh:\n    sha256: ${sha("x")}\n    inline_signed: false\n`, aliceKey);
    const r = await push({ bundle_id: "alice/zip", manifest, files: { "../../evil.sh": { content: "x", sha256: sha("x") } } });
    assert.equal(r.body.error.code, "PATH_TRAVERSAL");
    assert.equal(await reg.db.prisma.bundle.count({ where: { name: "zip" } }), 0);
  });

  test("private bundles are invisible (404) to everyone but members", async () => {
    await reg.createOrg("acme", [{ user: alice, role: "member" }]);
    const body = await bundleBody("acme/secret", { ".ai/tools/acme/secret/greet.py": tool });
    const r = await push({ ...body, visibility: "private" });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal((await request("GET", "/v1/bundle/pull/acme/secret")).status, 404);
    assert.equal((await request("GET", "/v1/bundle/pull/acme/secret", { token: bobToken })).status, 404);
    const member = await request("GET", "/v1/bundle/pull/acme/secret?version=1.0.0", { token: aliceToken });
    assert.equal(member.status, 200);
    assert.equal(member.res.headers.get("cache-control"), "private, no-cache");
  });
});
