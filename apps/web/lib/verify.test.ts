/** The browser's verification steps, on items signed and attested the way the registry does it. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { KeyPair } from "@rye/core";
import { ATTESTATION_TYPE, generateKeyPair, getEd25519, nobleEd25519, setEd25519Provider, sha256Hex, signDocument, signItem, webCryptoEd25519 } from "@rye/core";
import { CHECKS, type CheckResult, type KeysAnswer, type PullAnswer, verifyPulledItem } from "./verify.ts";

const ID = "alice/notes/hello";
const VERSION = "1.2.0";
const SOURCE = "---\nid: hello\ntitle: Hello\nversion: 1.2.0\nentry_type: reference\ncategory: notes\n---\n\nHello **world**.\n";

let registry: KeyPair;
let other: KeyPair;

async function published(options: { content?: string; username?: string | null; key?: KeyPair; subject?: Partial<{ id: string; version: string; item_type: string }>; publisher?: string } = {}) {
  const key = options.key ?? registry;
  const username = options.username === undefined ? "alice" : options.username;
  const signed = await signItem(options.content ?? SOURCE, "knowledge", key, username ? { provenance: { provider: "rye-registry", username } } : {});
  const payload = {
    _type: ATTESTATION_TYPE,
    registry: "http://registry.test",
    subject: { kind: "item", item_type: "knowledge", id: ID, version: VERSION, ...options.subject },
    file_sha256: sha256Hex(signed.content),
    content_hash: signed.signature.hash,
    author: null,
    publisher: options.publisher ?? username ?? "alice",
    published_at: "2026-11-21T00:00:00.000Z",
    log_index: 7,
  };
  const attestation = await signDocument(payload, key);
  const pull: PullAnswer = { item_type: "knowledge", item_id: ID, version: VERSION, content: signed.content, attestation };
  return pull;
}

function keysOf(...entries: { key: KeyPair; revoked?: boolean }[]): KeysAnswer {
  return {
    active: entries[0]!.key.publicKey.fingerprint,
    keys: entries.map((e, i) => ({ fingerprint: e.key.publicKey.fingerprint, public_key: e.key.publicKey.pem, revoked_at: e.revoked ? "2026-11-20T00:00:00.000Z" : null, active: i === 0 })),
  };
}

async function run(pull: PullAnswer, keys: KeysAnswer = keysOf({ key: registry }), expectedFileSha256?: string) {
  const seen: CheckResult[] = [];
  const outcome = await verifyPulledItem({ type: "knowledge", id: ID, version: VERSION, pull, keys, ...(expectedFileSha256 ? { expectedFileSha256 } : {}) }, (r) => seen.push(r));
  assert.deepEqual(seen, outcome.results, "every result is reported as it is known, in order");
  return outcome;
}

before(async () => {
  registry = await generateKeyPair();
  other = await generateKeyPair();
});

describe("a genuine item", () => {
  test("passes every check, in order, including the page comparison", async () => {
    const pull = await published();
    const outcome = await run(pull, undefined, sha256Hex(pull.content as string));
    assert.equal(outcome.ok, true, JSON.stringify(outcome.results));
    assert.deepEqual(outcome.results.map((r) => r.id), CHECKS.map((c) => c.id));
    assert.match(outcome.results[1]!.detail, /active key/);
    assert.match(outcome.results[2]!.detail, /rye-registry@alice/);
  });

  test("without a page copy the page comparison is left out", async () => {
    const outcome = await run(await published());
    assert.equal(outcome.ok, true);
    assert.equal(outcome.results.length, CHECKS.length - 1);
  });

  test("a key the registry still publishes (rotated, not revoked) is accepted", async () => {
    const outcome = await run(await published({ key: other }), keysOf({ key: registry }, { key: other }));
    assert.equal(outcome.ok, true, JSON.stringify(outcome.results));
    assert.match(outcome.results[1]!.detail, /published key/);
  });

  describe("with @noble/ed25519 (browsers without WebCrypto Ed25519)", () => {
    before(() => setEd25519Provider(nobleEd25519));
    after(async () => setEd25519Provider((await webCryptoEd25519()) ?? nobleEd25519));
    test("the same checks pass, and the provider is reported", async () => {
      const outcome = await run(await published());
      assert.equal(outcome.ok, true);
      assert.equal(outcome.provider, "noble");
    });
  });

  test("core picks WebCrypto when the platform's Ed25519 passes the probe", async () => {
    const probed = await webCryptoEd25519();
    if (probed) assert.equal(probed.name, "webcrypto");
    assert.ok(["webcrypto", "noble", "node"].includes((await getEd25519()).name));
  });
});

describe("tampering is caught by the right check, and the run stops there", () => {
  const failsAt = async (pull: PullAnswer, id: string, pattern: RegExp, keys?: KeysAnswer, expected?: string) => {
    const outcome = await run(pull, keys, expected);
    assert.equal(outcome.ok, false);
    assert.equal(outcome.failed?.id, id, JSON.stringify(outcome.results));
    assert.equal(outcome.results.at(-1)!.id, id);
    assert.ok(outcome.results.slice(0, -1).every((r) => r.ok));
    assert.match(outcome.results.at(-1)!.detail, pattern);
  };

  test("content changed after signing", async () => {
    const pull = await published();
    await failsAt({ ...pull, content: (pull.content as string).replace("world", "w0rld") }, "content-hash", /changed after signing/);
  });
  test("no signature line", async () => {
    await failsAt({ ...(await published()), content: SOURCE }, "content-hash", /no rye:signed line/);
  });
  test("another item served", async () => {
    await failsAt({ ...(await published()), version: "9.9.9" }, "content-hash", /answered with/);
  });
  test("a key the registry does not publish", async () => {
    await failsAt(await published({ key: other }), "registry-signature", /does not publish/);
  });
  test("a revoked key", async () => {
    await failsAt(await published(), "registry-signature", /revoked/, keysOf({ key: registry, revoked: true }));
  });
  test("a forged signature under the registry's fingerprint", async () => {
    const pull = await published();
    const forged = await signItem(SOURCE, "knowledge", other, { provenance: { provider: "rye-registry", username: "alice" } });
    const swapped = forged.content.replace(other.publicKey.fingerprint, registry.publicKey.fingerprint);
    await failsAt({ ...pull, content: swapped }, "registry-signature", /signature verification failed/i);
  });
  test("no rye-registry provenance", async () => {
    await failsAt(await published({ username: null }), "provenance", /lacks the rye-registry/);
  });
  test("an attestation with a bad signature", async () => {
    const pull = await published();
    const att = pull.attestation!;
    await failsAt({ ...pull, attestation: { ...att, payload: { ...(att.payload as object), log_index: 8 } } }, "attestation-signature", /does not verify/);
  });
  test("no attestation", async () => {
    await failsAt({ ...(await published()), attestation: null }, "attestation-signature", /no publish attestation/);
  });
  test("an attestation about another version", async () => {
    await failsAt(await published({ subject: { version: "1.0.0" } }), "attestation-subject", /about knowledge alice\/notes\/hello@1\.0\.0/);
  });
  test("an attestation naming another publisher", async () => {
    await failsAt(await published({ publisher: "mallory" }), "attestation-subject", /publisher mallory/);
  });
  test("the page showed another file", async () => {
    await failsAt(await published(), "page-match", /page shows a file/, undefined, "0".repeat(64));
  });
});
