/** POST /v1/push and GET /v1/pull: happy paths, errors, security. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { canonicalJson, computeContentHash, extractSignature, generateKeyPair, keyResolverFrom, publicKeyFromPem, sha256Hex, signItem, verifyDocument, verifyItem } from "@rye/core";
import { postgresAvailable } from "@rye/db/testing";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";

const directive = (name: string, version = "1.0.0", category = "tools") => `# ${name}\n\n\`\`\`xml\n<directive name="${name}" version="${version}">\n  <metadata>\n    <description>Do ${name}.</description>\n    <category>${category}</category>\n    <author>alice</author>\n  </metadata>\n</directive>\n\`\`\`\n`;
const knowledge = (id: string, version = "1.0.0") => `---\nid: ${id}\ntitle: ${id}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\nBody of ${id}.\n`;
const yamlTool = (version = "1.0.0") => `version: "${version}"\ntool_type: http\nexecutor_id: rye/core/primitives/http_client\ncategory: web\ndescription: "Fetch"\nconfig:\n  url: "{url}"\n`;

// The repository layer behaves the same on PostgreSQL and the embedded PGlite: run everything on both.
for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
describe(`items on ${kind}`, () => {
  let reg: TestRegistry;
  let alice: TestUser;
  let bob: TestUser;
  let aliceToken: string;
  let bobToken: string;
  type Json = Record<string, any>;

  async function push(token: string | undefined, body: Json): Promise<{ status: number; body: Json }> {
    const res = await reg.request("POST", "/v1/push", { token, json: body });
    return { status: res.status, body: (await res.json()) as Json };
  }

  before(async () => {
    reg = await createTestRegistry({ kind });
    alice = await reg.createUser("alice");
    bob = await reg.createUser("bob");
    aliceToken = await reg.token(alice);
    bobToken = await reg.token(bob);
  });
  after(() => reg.close());

  describe("happy paths", () => {
    test("all three types push, are re-signed by the registry with provenance, attested and logged", async () => {
      const results = [
        await push(aliceToken, { item_type: "directive", item_id: "alice/tools/deploy", content: directive("deploy"), version: "1.0.0" }),
        await push(aliceToken, { item_type: "knowledge", item_id: "alice/notes/facts", content: knowledge("facts"), version: "1.0.0" }),
        await push(aliceToken, { item_type: "tool", item_id: "alice/web/fetch", content: yamlTool(), version: "1.0.0", file_extension: ".yaml" }),
      ];
      const registryKey = publicKeyFromPem(await (await reg.request("GET", "/v1/public-key")).text());
      for (const [i, r] of results.entries()) {
        assert.equal(r.status, 201, JSON.stringify(r.body));
        assert.equal(r.body.status, "published");
        const type = (["directive", "knowledge", "tool"] as const)[i]!;
        const sig = extractSignature(r.body.signed_content, type);
        assert.ok(sig.status === "signed");
        assert.equal(sig.signature.provider, "rye-registry");
        assert.equal(sig.signature.username, "alice");
        assert.equal(sig.signature.fingerprint, registryKey.fingerprint);
        assert.equal((await verifyItem(r.body.signed_content, type, keyResolverFrom([registryKey]))).code, "OK");
        assert.ok(await verifyDocument(r.body.attestation, registryKey));
        assert.equal(r.body.attestation.payload.content_hash, computeContentHash(r.body.signed_content, type));
        assert.equal(r.body.log_index, i);
      }
    });

    test("pulls count as downloads, page views (X-Rye-Purpose: view) and HEAD do not", async () => {
      assert.equal((await push(aliceToken, { item_type: "knowledge", item_id: "alice/notes/counted", content: knowledge("counted"), version: "1.0.0" })).status, 201);
      const count = async () => (await reg.db.prisma.item.findFirstOrThrow({ where: { name: "counted" } })).downloadCount;
      for (let i = 0; i < 3; i++) assert.equal((await reg.request("GET", "/v1/pull/knowledge/alice/notes/counted", { headers: { "x-rye-purpose": "view" } })).status, 200);
      assert.equal((await reg.request("HEAD", "/v1/pull/knowledge/alice/notes/counted")).status, 200, "HEAD is no download");
      assert.equal((await reg.request("GET", "/v1/pull/knowledge/alice/notes/counted")).status, 200);
      // Counted in memory, written in batches (pull-read-path.test.ts covers the flush): write them now.
      await reg.deps.reads.downloads.flush();
      assert.equal(await count(), 1);
    });

    test("pull returns the signed content with ETag, immutable caching for explicit versions and 304s", async () => {
      await push(aliceToken, { item_type: "directive", item_id: "alice/tools/deploy", content: directive("deploy", "1.1.0"), version: "1.1.0" });
      const latest = await reg.request("GET", "/v1/pull/directive/alice/tools/deploy");
      assert.equal(latest.status, 200);
      const body = (await latest.json()) as Json;
      assert.equal(body.version, "1.1.0");
      assert.equal(body.item_id, "alice/tools/deploy");
      assert.equal(body.author, "alice");
      const servingKey = ((await (await reg.request("GET", "/v1/keys")).json()) as Json).active;
      assert.equal(body.signature.fingerprint, servingKey);
      assert.equal(body.signature.registry_username, "alice");
      assert.match(body.signature.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      assert.equal(body.attestation.key_fingerprint, servingKey);
      // The content hash, then a digest of the version's state (a yank or deprecation changes the ETag).
      assert.match(latest.headers.get("etag")!, new RegExp(`^"${body.content_hash}\\.[0-9a-f]{16}"$`));
      assert.match(latest.headers.get("cache-control")!, /must-revalidate/);
      const pinned = await reg.request("GET", "/v1/pull/directive/alice/tools/deploy?version=1.0.0");
      assert.equal(pinned.headers.get("cache-control"), "public, max-age=31536000, immutable");
      assert.equal(((await pinned.json()) as Json).version, "1.0.0");
      const again = await reg.request("GET", "/v1/pull/directive/alice/tools/deploy?version=1.0.0", { headers: { "if-none-match": pinned.headers.get("etag")! } });
      assert.equal(again.status, 304);
    });

    test("an author signature from a registered key is checked and recorded", async () => {
      const key = await generateKeyPair();
      await reg.db.prisma.userKey.create({ data: { userId: alice.id, fingerprint: key.publicKey.fingerprint, publicKeyPem: key.publicKey.pem } });
      const signed = (await signItem(knowledge("signed_note"), "knowledge", key)).content;
      const r = await push(aliceToken, { item_type: "knowledge", item_id: "alice/notes/signed_note", content: signed, version: "1.0.0" });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.deepEqual(r.body.attestation.payload.author, { fingerprint: key.publicKey.fingerprint, signature: extractSignature(signed, "knowledge").status === "signed" ? (extractSignature(signed, "knowledge") as any).signature.signature : "", verified: true });
      const pulled = (await (await reg.request("GET", "/v1/pull/knowledge/alice/notes/signed_note")).json()) as Json;
      assert.equal(pulled.author_key.fingerprint, key.publicKey.fingerprint);
    });

    test("a public publish entry names the author key and the pushing token; a private one stays a digest of the subject alone", async () => {
      const key = await generateKeyPair();
      await reg.db.prisma.userKey.create({ data: { userId: alice.id, fingerprint: key.publicKey.fingerprint, publicKeyPem: key.publicKey.pem } });
      const tokenRow = await reg.db.prisma.apiToken.findFirstOrThrow({ where: { userId: alice.id } });
      const entry = async (index: number) => (await reg.db.prisma.publishLogEntry.findUniqueOrThrow({ where: { index: BigInt(index) } })).payload as Json;
      const signed = await push(aliceToken, { item_type: "knowledge", item_id: "alice/notes/attributed", content: (await signItem(knowledge("attributed"), "knowledge", key)).content, version: "1.0.0" });
      assert.equal(signed.status, 201, JSON.stringify(signed.body));
      const logged = await entry(signed.body.log_index);
      assert.equal(logged.author_key, key.publicKey.fingerprint);
      assert.deepEqual(logged.credential, { via: "token", token_id: tokenRow.id });
      assert.equal(logged.publisher, "alice");
      assert.ok(!JSON.stringify(logged).includes(aliceToken), "never the secret");
      const unsigned = await push(aliceToken, { item_type: "knowledge", item_id: "alice/notes/unattributed", content: knowledge("unattributed"), version: "1.0.0" });
      assert.equal((await entry(unsigned.body.log_index)).author_key, null);
      const hidden = await push(aliceToken, { item_type: "knowledge", item_id: "alice/notes/hidden", content: knowledge("hidden"), version: "1.0.0", metadata: { visibility: "private" } });
      const digest = await entry(hidden.body.log_index);
      assert.deepEqual(Object.keys(digest).sort(), ["kind", "private", "subject_digest"]);
      const subject = { kind: "item", item_type: "knowledge", id: "alice/notes/hidden", version: "1.0.0", file_sha256: hidden.body.attestation.payload.file_sha256, content_hash: hidden.body.attestation.payload.content_hash, publisher: "alice" };
      assert.equal(digest.subject_digest, sha256Hex(canonicalJson(subject)), "the digest covers the subject only, as a puller recomputes it");
    });
  });

  describe("errors", () => {
    test("validation, version mismatch, duplicates and bad bodies have codes", async () => {
      const invalid = await push(aliceToken, { item_type: "directive", item_id: "alice/tools/Bad-Name", content: directive("Bad-Name"), version: "1.0.0" });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.error.code, "VALIDATION_FAILED");
      assert.ok(invalid.body.error.details.some((d: Json) => d.field === "name"));
      const wrongCategory = await push(aliceToken, { item_type: "directive", item_id: "alice/other/deploy", content: directive("deploy"), version: "1.0.0" });
      assert.equal(wrongCategory.body.error.code, "VALIDATION_FAILED");
      const mismatch = await push(aliceToken, { item_type: "knowledge", item_id: "alice/notes/facts", content: knowledge("facts", "2.0.0"), version: "2.0.1" });
      assert.equal(mismatch.body.error.code, "VERSION_MISMATCH");
      const dup = await push(aliceToken, { item_type: "knowledge", item_id: "alice/notes/facts", content: knowledge("facts"), version: "1.0.0" });
      assert.equal(dup.status, 409);
      assert.equal(dup.body.error.code, "VERSION_EXISTS");
      const garbage = await reg.request("POST", "/v1/push", { token: aliceToken, body: "{not json", headers: { "content-type": "application/json" } });
      assert.equal(garbage.status, 400);
      assert.equal(((await garbage.json()) as Json).error.code, "BAD_REQUEST");
      const shape = await push(aliceToken, { item_type: "widget", item_id: "x", content: "" });
      assert.equal(shape.body.error.code, "BAD_REQUEST");
      assert.ok(shape.body.error.details.length >= 3);
    });

    test("pull: unknown items, versions and types", async () => {
      assert.equal((await reg.request("GET", "/v1/pull/directive/alice/tools/nothing")).status, 404);
      const version = await reg.request("GET", "/v1/pull/directive/alice/tools/deploy?version=9.9.9");
      assert.equal(((await version.json()) as Json).error.code, "ITEM_NOT_FOUND");
      const type = await reg.request("GET", "/v1/pull/widget/alice/tools/deploy");
      assert.equal(((await type.json()) as Json).error.code, "INVALID_ITEM_TYPE");
      const short = await reg.request("GET", "/v1/pull/directive/alice");
      assert.equal(((await short.json()) as Json).error.code, "INVALID_ITEM_ID");
    });

    test("oversized items are refused with 413 before anything is stored", async () => {
      const small = await createTestRegistry({ config: { limits: { maxItemBytes: 1000, maxJsonBodyBytes: 20_000, maxBundleBytes: 1, maxBundleBodyBytes: 1 } } });
      try {
        const u = await small.createUser("carol");
        const t = await small.token(u);
        const big = knowledge("big").replace("Body of big.", "x".repeat(5000));
        const res = await small.request("POST", "/v1/push", { token: t, json: { item_type: "knowledge", item_id: "carol/notes/big", content: big, version: "1.0.0" } });
        assert.equal(res.status, 413);
        assert.equal(((await res.json()) as Json).error.code, "PAYLOAD_TOO_LARGE");
        const huge = await small.request("POST", "/v1/push", { token: t, json: { item_type: "knowledge", item_id: "carol/notes/big", content: "y".repeat(50_000), version: "1.0.0" } });
        assert.equal(huge.status, 413, "the body limit stops it before parsing");
        assert.equal(await small.db.prisma.item.count(), 0);
      } finally {
        await small.close();
      }
    });
  });

  describe("security", () => {
    test("push needs a token with items:write for a namespace the caller belongs to", async () => {
      const body = { item_type: "knowledge", item_id: "alice/notes/intrusion", content: knowledge("intrusion"), version: "1.0.0" };
      assert.equal((await push(undefined, body)).status, 401);
      const foreign = await push(bobToken, body);
      assert.equal(foreign.status, 403);
      assert.equal(foreign.body.error.code, "FORBIDDEN");
      const readOnly = await reg.token(alice, { scopes: ["items:read"] });
      assert.equal((await push(readOnly, body)).body.error.code, "FORBIDDEN");
      const expired = await reg.token(alice, { expiresAt: new Date(Date.now() - 1000) });
      assert.equal((await push(expired, body)).status, 401);
      const revoked = await reg.token(alice, { revoked: true });
      assert.equal((await push(revoked, body)).status, 401);
      const restricted = await reg.token(alice, { namespace: "acme" });
      assert.equal((await push(restricted, body)).status, 403);
      assert.equal((await reg.request("GET", "/v1/pull/knowledge/alice/notes/intrusion")).status, 404);
    });

    test("the caller is checked before the body: no credential is a 401 and a read-only token a 403, whatever is sent", async () => {
      const readOnly = await reg.token(alice, { scopes: ["items:read"] });
      for (const [path, json] of [["/v1/push", { item_type: "widget" }], ["/v1/bundle/push", { files: 1 }], ["/v1/skills/push", {}]] as const) {
        const anonymous = await reg.request("POST", path, { json });
        assert.equal(anonymous.status, 401, path);
        assert.equal(((await anonymous.json()) as Json).error.code, "UNAUTHORIZED", path);
        const weak = await reg.request("POST", path, { token: readOnly, json });
        assert.equal(weak.status, 403, path);
        assert.equal(((await weak.json()) as Json).error.code, "FORBIDDEN", path);
      }
    });

    test("a body that is not JSON, or sent as another media type, is a 400 BAD_REQUEST with a hint, on every push route", async () => {
      const token = await reg.token(alice);
      for (const path of ["/v1/push", "/v1/bundle/push", "/v1/skills/push"]) {
        for (const [body, type] of [["{not json", "application/json"], ['{"item_type":"knowledge"}', "text/plain"]] as const) {
          const res = await reg.request("POST", path, { token, body, headers: { "content-type": type } });
          assert.equal(res.status, 400, `${path} ${type}`);
          const { error } = (await res.json()) as Json;
          assert.equal(error.code, "BAD_REQUEST", `${path} ${type}`);
          assert.equal(error.hint, "Send a JSON object with Content-Type: application/json.", `${path} ${type}: ${error.message}`);
        }
      }
    });

    test("a signature from a key not registered to the publisher is refused", async () => {
      const stranger = await generateKeyPair();
      const signed = (await signItem(knowledge("forged"), "knowledge", stranger)).content;
      const r = await push(aliceToken, { item_type: "knowledge", item_id: "alice/notes/forged", content: signed, version: "1.0.0" });
      assert.equal(r.body.error.code, "UNTRUSTED_KEY");
    });

    test("private items are invisible (404) to everyone but members", async () => {
      await reg.createOrg("acme", [{ user: alice, role: "owner" }]);
      const r = await push(aliceToken, { item_type: "knowledge", item_id: "acme/notes/secret", content: knowledge("secret"), version: "1.0.0", metadata: { visibility: "private" } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal((await reg.request("GET", "/v1/pull/knowledge/acme/notes/secret")).status, 404);
      assert.equal((await reg.request("GET", "/v1/pull/knowledge/acme/notes/secret", { token: bobToken })).status, 404);
      const member = await reg.request("GET", "/v1/pull/knowledge/acme/notes/secret", { token: aliceToken });
      assert.equal(member.status, 200);
      assert.equal(member.headers.get("cache-control"), "private, no-cache");
      // The public log does not reveal the private id either.
      const entry = await reg.db.prisma.publishLogEntry.findUniqueOrThrow({ where: { index: BigInt(r.body.log_index) } });
      assert.ok(!JSON.stringify(entry.payload).includes("secret"), JSON.stringify(entry.payload));
      assert.equal((entry.payload as { private?: boolean }).private, true);
    });

    test("hostile ids are rejected, never interpreted", async () => {
      for (const id of ["alice/../bob/x/y", "alice/notes/%00", "../../etc/passwd", "alice/notes/x'; DROP TABLE items;--"]) {
        const res = await reg.request("GET", `/v1/pull/knowledge/${id}`);
        assert.ok([400, 404].includes(res.status), `${id}: ${res.status}`);
      }
      const sql = await push(aliceToken, { item_type: "knowledge", item_id: "alice/notes/x'; DROP TABLE items;--", content: knowledge("x"), version: "1.0.0" });
      assert.equal(sql.body.error.code, "INVALID_ITEM_ID");
      assert.ok((await reg.db.prisma.item.count()) > 0);
    });
  });

  test("50 concurrent pushes of one id@version: exactly one 201, the rest 409, one row", async () => {
    const body = { item_type: "knowledge", item_id: "alice/notes/race", content: knowledge("race"), version: "1.0.0" };
    const results = await Promise.all(Array.from({ length: 50 }, () => push(aliceToken, body)));
    const statuses = results.map((r) => r.status).sort();
    assert.equal(statuses.filter((s) => s === 201).length, 1, JSON.stringify(results.filter((r) => r.status !== 201 && r.status !== 409).map((r) => r.body)));
    assert.equal(statuses.filter((s) => s === 409).length, 49, JSON.stringify(results.filter((r) => r.status !== 201 && r.status !== 409).map((r) => [r.status, r.body]).slice(0, 3)));
    const item = await reg.db.prisma.item.findFirst({ where: { name: "race" }, include: { versions: true } });
    assert.equal(item!.versions.length, 1);
    const log = await reg.db.prisma.publishLogEntry.findMany({ orderBy: { index: "asc" } });
    assert.deepEqual(log.map((e) => Number(e.index)), log.map((_, i) => i), "the log has no gaps");
  });

});
}
