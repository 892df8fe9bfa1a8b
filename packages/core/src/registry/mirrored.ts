/**
 * Registry answers checked against a set of registry keys, and the format a mirroring registry serves them in
 * (docs/mirroring.md).
 *
 * A mirror serves an upstream item re-signed with its own key and with its own publish attestation, so a client
 * that pinned the mirror verifies it like any item of that registry. The attestation's payload carries `mirror_of`
 * (the upstream registry, its key and the digest of its attestation): the mirror's countersignature over the
 * upstream's statement. The answer also carries the upstream's file and attestation untouched under `mirrored`,
 * so a client that knows the upstream key can verify the item as the upstream published it.
 */
import { z } from "zod";
import type { PublicKey } from "../crypto/keys.ts";
import { RyeError } from "../errors.ts";
import { sha256Hex } from "../hash.ts";
import type { ItemType } from "../item-types.ts";
import type { RegistryItemType } from "../registry-types.ts";
import { extractSignature } from "../signature/line.ts";
import { keyResolverFrom, verifyItem } from "../signature/verify.ts";
import { type PublishAttestation, publishAttestationSchema } from "./attestation.ts";
import { documentDigest, type SignedDocument, verifyDocument } from "./signed-document.ts";

/** How answers carry a signed document (`key_fingerprint` names the key). */
export const signedDocumentShape = z.object({ payload: z.unknown(), signature: z.string(), key_fingerprint: z.string() });

/** The mirror's countersignature: the `mirror_of` field of the mirror's publish attestation. */
export const mirrorOfSchema = z.object({
  registry: z.string(),
  key_fingerprint: z.string(),
  attestation_digest: z.string().regex(/^[0-9a-f]{64}$/),
  file_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  log_index: z.number().int().nonnegative(),
});
export type MirrorOf = z.infer<typeof mirrorOfSchema>;

/** The `mirrored` section of a pull answer: the upstream's file and attestation exactly as the upstream served them. */
export const mirroredSectionSchema = z.object({
  upstream: z.string(),
  fetched_at: z.string(),
  content: z.string(),
  file_sha256: z.string(),
  attestation: signedDocumentShape,
  log_index: z.number().int().nonnegative().nullable(),
});
export type MirroredSection = z.infer<typeof mirroredSectionSchema>;

export interface RegistryCopy {
  /** A skill's or a bundle's file is its registry-signed manifest, signed in the tool format. */
  type: RegistryItemType | "bundle";
  id: string;
  version: string;
  /** The file as the registry serves it (its inline signature line included). */
  content: string;
  attestation: SignedDocument<unknown>;
}

export interface VerifiedCopy {
  contentHash: string;
  fileSha256: string;
  publisher: string;
  /** The registry key the item and its attestation verified with. */
  key: PublicKey;
  attestation: SignedDocument<PublishAttestation>;
}

function refuse(code: "BAD_SIGNATURE" | "UNTRUSTED_KEY" | "INTEGRITY_MISMATCH", message: string, details?: unknown): RyeError {
  return new RyeError(code, message, details === undefined ? {} : { details });
}

/**
 * Checks a registry's copy of `type id@version` with `keys` (the registry keys one trusts): the inline signature
 * verifies with one of them and carries `|rye-registry@<publisher>`; the attestation is signed by one of them and is
 * about exactly this file (subject, whole-file SHA-256, content hash, publisher). Throws BAD_SIGNATURE,
 * UNTRUSTED_KEY or INTEGRITY_MISMATCH.
 */
export async function verifyRegistryCopy(copy: RegistryCopy, keys: readonly PublicKey[]): Promise<VerifiedCopy> {
  const label = `${copy.type} ${copy.id}@${copy.version}`;
  const signedAs: ItemType = copy.type === "skill" || copy.type === "bundle" ? "tool" : copy.type;
  const extracted = extractSignature(copy.content, signedAs);
  if (extracted.status !== "signed") throw refuse("BAD_SIGNATURE", `${label} carries no registry signature`);
  const sig = extracted.signature;
  const key = keys.find((k) => k.fingerprint === sig.fingerprint);
  if (!key) throw refuse("UNTRUSTED_KEY", `${label} is signed by key ${sig.fingerprint}, which is not pinned`, { fingerprint: sig.fingerprint, pinned: keys.map((k) => k.fingerprint) });
  const verified = await verifyItem(copy.content, signedAs, keyResolverFrom([key]));
  if (!verified.ok) throw refuse(verified.code === "INTEGRITY_MISMATCH" ? "INTEGRITY_MISMATCH" : "BAD_SIGNATURE", `${label}: ${verified.message}`, { code: verified.code });
  if (sig.provider !== "rye-registry" || !sig.username) throw refuse("BAD_SIGNATURE", `${label} lacks the rye-registry@<publisher> provenance`);

  const attestationKey = keys.find((k) => k.fingerprint === copy.attestation.key_fingerprint);
  if (!attestationKey) throw refuse("UNTRUSTED_KEY", `The attestation of ${label} is signed by key ${copy.attestation.key_fingerprint}, which is not pinned`);
  if (!(await verifyDocument(copy.attestation, attestationKey))) throw refuse("BAD_SIGNATURE", `The attestation of ${label} does not verify with key ${attestationKey.fingerprint}`);
  const parsed = publishAttestationSchema.safeParse(copy.attestation.payload);
  if (!parsed.success) throw refuse("INTEGRITY_MISMATCH", `The attestation of ${label} is malformed`);
  const p = parsed.data;
  const aboutType = copy.type === "bundle" ? p.subject.kind === "bundle" : p.subject.kind === "item" && p.subject.item_type === copy.type;
  if (!aboutType || p.subject.id !== copy.id || p.subject.version !== copy.version) {
    throw refuse("INTEGRITY_MISMATCH", `The attestation of ${label} is about ${p.subject.item_type ?? p.subject.kind} ${p.subject.id}@${p.subject.version}`, { subject: p.subject });
  }
  const fileSha256 = sha256Hex(copy.content);
  if (p.file_sha256 !== fileSha256) throw refuse("INTEGRITY_MISMATCH", `The attestation of ${label} names file_sha256 ${p.file_sha256}, the file is ${fileSha256}`);
  const contentHash = verified.contentHash ?? sig.hash;
  if (p.content_hash !== contentHash) throw refuse("INTEGRITY_MISMATCH", `The attestation of ${label} names content_hash ${p.content_hash}, the signature ${contentHash}`);
  if (p.publisher !== sig.username) throw refuse("INTEGRITY_MISMATCH", `The attestation of ${label} names publisher ${p.publisher}, the signature ${sig.username}`);
  return { contentHash, fileSha256, publisher: sig.username, key, attestation: copy.attestation as SignedDocument<PublishAttestation> };
}

/**
 * The upstream half of a mirrored answer, for a client that trusts the upstream's keys: the `mirrored` file and
 * attestation verify with `upstreamKeys`, the mirror's attestation (already verified with the mirror's key by the
 * caller) countersigns exactly that upstream attestation, and both files have the same content hash.
 */
export async function verifyMirroredSection(
  item: { type: RegistryItemType | "bundle"; id: string; version: string; contentHash: string; mirrorAttestation: SignedDocument<unknown> },
  section: MirroredSection,
  upstreamKeys: readonly PublicKey[],
): Promise<VerifiedCopy> {
  const upstream = await verifyRegistryCopy({ type: item.type, id: item.id, version: item.version, content: section.content, attestation: section.attestation }, upstreamKeys);
  const mirrorOf = mirrorOfSchema.safeParse((item.mirrorAttestation.payload as { mirror_of?: unknown } | null)?.mirror_of);
  if (!mirrorOf.success) throw refuse("INTEGRITY_MISMATCH", "The mirror's attestation carries no mirror_of countersignature");
  if (mirrorOf.data.attestation_digest !== documentDigest(section.attestation)) throw refuse("INTEGRITY_MISMATCH", "The mirror's countersignature is about another upstream attestation");
  if (mirrorOf.data.registry !== section.upstream || mirrorOf.data.key_fingerprint !== upstream.key.fingerprint) throw refuse("INTEGRITY_MISMATCH", "The mirror's countersignature names another upstream registry or key");
  if (upstream.contentHash !== item.contentHash) throw refuse("INTEGRITY_MISMATCH", "The mirror's file and the upstream's file differ in content");
  return upstream;
}
