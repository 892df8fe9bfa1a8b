/** The browser's verification of a registry skill, on skills signed and attested the way the registry does it. */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { KeyPair, SkillFile } from "@rye/core";
import { ATTESTATION_TYPE, buildSkillManifest, generateKeyPair, serializeSkillManifest, sha256Hex, signDocument, signItem } from "@rye/core";
import type { KeysAnswer } from "./verify.ts";
import { SKILL_CHECKS, type SkillAnswer, type SkillCheckResult, verifySkillAnswer } from "./skill-verify.ts";

const ID = "alice/pdf";
const VERSION = "1.1.0";
const enc = (text: string) => new TextEncoder().encode(text);
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

const FILES: SkillFile[] = [
  { path: "SKILL.md", bytes: enc(`---\nname: pdf\ndescription: PDF tools.\nmetadata:\n  version: "${VERSION}"\n---\n\n# PDF\n`) },
  { path: "scripts/extract.py", bytes: enc("print('hi')\n"), executable: true },
  { path: "assets/logo.png", bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]) },
];

let registry: KeyPair;
let other: KeyPair;

async function published(options: { key?: KeyPair; subject?: Partial<{ id: string; version: string; item_type: string }>; username?: string } = {}): Promise<SkillAnswer> {
  const key = options.key ?? registry;
  const signed = await signItem(serializeSkillManifest(buildSkillManifest(FILES)), "tool", key, { path: "manifest.yaml", provenance: { provider: "rye-registry", username: options.username ?? "alice" } });
  const payload = {
    _type: ATTESTATION_TYPE,
    registry: "http://registry.test",
    subject: { kind: "item", item_type: "skill", id: ID, version: VERSION, ...options.subject },
    file_sha256: sha256Hex(signed.content),
    content_hash: signed.signature.hash,
    author: null,
    publisher: "alice",
    published_at: "2026-11-25T00:00:00.000Z",
    log_index: 3,
  };
  const attestation = await signDocument(payload, key);
  return {
    item_id: ID,
    version: VERSION,
    manifest: signed.content,
    files: FILES.map((f) => ({ path: f.path, sha256: sha256Hex(f.bytes), executable: f.executable === true, content_base64: b64(f.bytes) })),
    attestation,
  };
}

const keys = (): KeysAnswer => ({ active: registry.publicKey.fingerprint, keys: [{ fingerprint: registry.publicKey.fingerprint, public_key: registry.publicKey.pem, revoked_at: null, active: true }] });

async function run(answer: SkillAnswer) {
  const seen: SkillCheckResult[] = [];
  const outcome = await verifySkillAnswer({ id: ID, name: "pdf", version: VERSION, answer, keys: keys() }, (r) => seen.push(r));
  assert.deepEqual(seen, outcome.results);
  return outcome;
}

before(async () => {
  registry = await generateKeyPair();
  other = await generateKeyPair();
});

describe("a genuine skill", () => {
  test("passes every check, with one passing result per file", async () => {
    const outcome = await run(await published());
    assert.equal(outcome.ok, true, JSON.stringify(outcome.results));
    assert.deepEqual(outcome.results.map((r) => r.id), SKILL_CHECKS.map((c) => c.id));
    assert.deepEqual(outcome.files.map((f) => [f.path, f.ok]), [["SKILL.md", true], ["assets/logo.png", true], ["scripts/extract.py", true]]);
  });
});

describe("tampering is caught", () => {
  test("a changed file fails that file (the others still pass) and the files check", async () => {
    const answer = await published();
    const files = (answer.files as { path: string; content_base64: string }[]).map((f) => (f.path === "scripts/extract.py" ? { ...f, content_base64: b64(enc("import os\n")) } : f));
    const outcome = await run({ ...answer, files });
    assert.equal(outcome.ok, false);
    assert.equal(outcome.failed?.id, "files");
    assert.deepEqual(outcome.files.map((f) => [f.path, f.ok]), [["SKILL.md", true], ["assets/logo.png", true], ["scripts/extract.py", false]]);
  });
  test("a missing and an unsigned extra file", async () => {
    const answer = await published();
    const files = (answer.files as { path: string }[]).filter((f) => f.path !== "assets/logo.png").concat([{ path: "scripts/evil.sh", sha256: "0".repeat(64), executable: true, content_base64: b64(enc("rm -rf ~\n")) } as never]);
    const outcome = await run({ ...answer, files });
    assert.equal(outcome.failed?.id, "files");
    const byPath = Object.fromEntries(outcome.files.map((f) => [f.path, f]));
    assert.match(byPath["assets/logo.png"]!.detail, /not served/);
    assert.match(byPath["scripts/evil.sh"]!.detail, /not in the signed manifest/);
  });
  test("an edited manifest fails its signature", async () => {
    const answer = await published();
    const outcome = await run({ ...answer, manifest: (answer.manifest as string).replace("PDF tools.", "Harmless.") });
    assert.equal(outcome.failed?.id, "manifest-signature");
    assert.deepEqual(outcome.files, []);
  });
  test("a key the registry does not publish", async () => {
    const outcome = await run(await published({ key: other }));
    assert.equal(outcome.failed?.id, "manifest-signature");
    assert.match(outcome.results.at(-1)!.detail, /does not publish/);
  });
  test("an attestation about another version", async () => {
    const outcome = await run(await published({ subject: { version: "9.9.9" } }));
    assert.equal(outcome.failed?.id, "attestation-subject");
  });
  test("another skill answered", async () => {
    const outcome = await run({ ...(await published()), item_id: "alice/other" });
    assert.equal(outcome.failed?.id, "manifest-signature");
  });
});
