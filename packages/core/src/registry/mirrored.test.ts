import assert from "node:assert/strict";
import { test } from "node:test";
import { generateKeyPair, type KeyPair } from "../crypto/keys.ts";
import { RyeError } from "../errors.ts";
import { sha256Hex } from "../hash.ts";
import { signItem } from "../signature/sign.ts";
import { ATTESTATION_TYPE } from "./attestation.ts";
import { mirroredSectionSchema, verifyMirroredSection, verifyRegistryCopy } from "./mirrored.ts";
import { documentDigest, signDocument } from "./signed-document.ts";

const ID = "alice/notes/guide";
const FILE = "---\nname: guide\nversion: 1.0.0\n---\n\nBody of the guide.\n";

/** A registry's copy of the guide: re-signed by `key` with the publisher's provenance, and attested. */
async function copyBy(key: KeyPair, extra: Record<string, unknown> = {}) {
  const signed = await signItem(FILE, "knowledge", key, { provenance: { provider: "rye-registry", username: "alice" } });
  const payload = {
    _type: ATTESTATION_TYPE,
    registry: "https://registry.example",
    subject: { kind: "item", item_type: "knowledge", id: ID, version: "1.0.0" },
    file_sha256: sha256Hex(signed.content),
    content_hash: signed.signature.hash,
    author: null,
    publisher: "alice",
    published_at: "2026-11-25T00:00:00.000Z",
    log_index: 3,
    ...extra,
  };
  return { type: "knowledge" as const, id: ID, version: "1.0.0", content: signed.content, attestation: await signDocument(payload, key) };
}

const refused = (code: string, pattern: RegExp) => (err: unknown) => err instanceof RyeError && err.code === code && pattern.test(err.message);

test("a registry copy verifies with its key, and only with a pinned one", async () => {
  const upstream = await generateKeyPair();
  const other = await generateKeyPair();
  const copy = await copyBy(upstream);
  const verified = await verifyRegistryCopy(copy, [other.publicKey, upstream.publicKey]);
  assert.equal(verified.key.fingerprint, upstream.publicKey.fingerprint);
  assert.equal(verified.publisher, "alice");
  await assert.rejects(verifyRegistryCopy(copy, [other.publicKey]), refused("UNTRUSTED_KEY", /not pinned/));
});

test("tampered content, relabelled subjects, a forged attestation and a missing provenance are refused", async () => {
  const key = await generateKeyPair();
  const copy = await copyBy(key);
  const keys = [key.publicKey];
  await assert.rejects(verifyRegistryCopy({ ...copy, content: copy.content.replace("Body", "BODY") }, keys), refused("INTEGRITY_MISMATCH", /changed after signing/));
  await assert.rejects(verifyRegistryCopy({ ...copy, version: "1.0.1" }, keys), refused("INTEGRITY_MISMATCH", /is about knowledge alice\/notes\/guide@1\.0\.0/));
  await assert.rejects(verifyRegistryCopy({ ...copy, id: "alice/notes/other" }, keys), refused("INTEGRITY_MISMATCH", /is about/));
  const forged = { ...copy.attestation, payload: { ...(copy.attestation.payload as object), publisher: "mallory" } };
  await assert.rejects(verifyRegistryCopy({ ...copy, attestation: forged }, keys), refused("BAD_SIGNATURE", /does not verify/));
  const lying = await copyBy(key, { publisher: "mallory" });
  await assert.rejects(verifyRegistryCopy(lying, keys), refused("INTEGRITY_MISMATCH", /names publisher mallory/));
  const noProvenance = await signItem(FILE, "knowledge", key);
  await assert.rejects(verifyRegistryCopy({ ...copy, content: noProvenance.content }, keys), refused("BAD_SIGNATURE", /provenance/));
});

test("the mirrored section verifies with the upstream key and must be the one the mirror countersigned", async () => {
  const upstreamKey = await generateKeyPair();
  const mirrorKey = await generateKeyPair();
  const upstream = await copyBy(upstreamKey);
  const upstreamVerified = await verifyRegistryCopy(upstream, [upstreamKey.publicKey]);
  const mirrorOf = { registry: "https://registry.example", key_fingerprint: upstreamKey.publicKey.fingerprint, attestation_digest: documentDigest(upstream.attestation), file_sha256: sha256Hex(upstream.content), log_index: 3 };
  const ours = await copyBy(mirrorKey, { registry: "https://mirror.example", mirror_of: mirrorOf, log_index: 0 });
  const section = mirroredSectionSchema.parse({ upstream: "https://registry.example", fetched_at: "2026-11-25T00:00:00.000Z", content: upstream.content, file_sha256: sha256Hex(upstream.content), attestation: upstream.attestation, log_index: 3 });
  const item = { type: "knowledge" as const, id: ID, version: "1.0.0", contentHash: upstreamVerified.contentHash, mirrorAttestation: ours.attestation };
  assert.equal((await verifyMirroredSection(item, section, [upstreamKey.publicKey])).key.fingerprint, upstreamKey.publicKey.fingerprint);
  await assert.rejects(verifyMirroredSection(item, section, [mirrorKey.publicKey]), refused("UNTRUSTED_KEY", /not pinned/));
  // Another genuine upstream attestation of the very same file than the one countersigned (signed anew, the file
  // would carry another signing time whenever a second passed between the two signatures).
  const other = await signDocument({ ...(upstream.attestation.payload as object), log_index: 4 }, upstreamKey);
  await assert.rejects(verifyMirroredSection(item, { ...section, attestation: other }, [upstreamKey.publicKey]), refused("INTEGRITY_MISMATCH", /another upstream attestation/));
  const unsigned = await copyBy(mirrorKey);
  await assert.rejects(verifyMirroredSection({ ...item, mirrorAttestation: unsigned.attestation }, section, [upstreamKey.publicKey]), refused("INTEGRITY_MISMATCH", /no mirror_of/));
  await assert.rejects(verifyMirroredSection({ ...item, contentHash: "0".repeat(64) }, section, [upstreamKey.publicKey]), refused("INTEGRITY_MISMATCH", /differ in content/));
});
