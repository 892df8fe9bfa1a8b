/**
 * The two checks every registry answer must pass, shared by item pulls (pull.ts) and bundle transfers
 * (bundle-transfer.ts):
 * - `verifyRegistrySignature`: the inline signature line verifies with a pinned registry key and
 *   carries the `|rye-registry@<publisher>` provenance;
 * - `verifyAttestation`: the publish attestation is signed by a pinned key and is about exactly what was
 *   asked for and served (subject, whole-file SHA-256, content hash, publisher).
 */
import type { z } from "zod";
import type { attestationShape } from "./answers.ts";
import type { ItemType, PublicKey, PublishAttestation, SignedDocument } from "@rye/core";
import { extractSignature, keyResolverFrom, publishAttestationSchema, RyeError, sha256Hex, verifyDocument, verifyItem } from "@rye/core";
import type { RegistryKeyResult } from "./key-pinning.ts";
import { assertSignedByPinned } from "./key-pinning.ts";

const ALTERED_HINT = "The registry or the network altered it. Do not use it; retry on a trusted network or report it to the registry's operators.";

/** INTEGRITY_MISMATCH: the answer is not about what was asked for, or does not match itself. */
export function mismatch(what: string, label: string, url: string, details?: unknown): RyeError {
  return new RyeError("INTEGRITY_MISMATCH", `The answer of ${url} for ${label} does not match: ${what}; nothing was written`, {
    hint: ALTERED_HINT,
    ...(details !== undefined ? { details } : {}),
  });
}

export interface RegistrySignature {
  /** The key the signature verified with. */
  key: PublicKey;
  /** The inline signature's content hash. */
  hash: string;
  /** `<publisher>` of the provenance. */
  publisher: string;
}

/**
 * Verifies `content` (an item, or a bundle manifest as `tool`) with the pinned registry key (or a
 * retired one) and requires the registry provenance. `label` names it in errors.
 */
export async function verifyRegistrySignature(content: string, type: ItemType, pinned: RegistryKeyResult, label: string): Promise<RegistrySignature> {
  const url = pinned.url;
  const extracted = extractSignature(content, type);
  if (extracted.status !== "signed") {
    throw new RyeError("BAD_SIGNATURE", `${label} from ${url} carries no registry signature; nothing was written`, { hint: `Registry answers are always signed by the registry. ${ALTERED_HINT}` });
  }
  const sig = extracted.signature;
  const key = assertSignedByPinned(pinned, sig.fingerprint);
  const verified = await verifyItem(content, type, keyResolverFrom([key]));
  if (!verified.ok) {
    throw new RyeError(verified.code === "OK" ? "BAD_SIGNATURE" : verified.code, `${label} from ${url} failed verification: ${verified.message}; nothing was written`, {
      hint: ALTERED_HINT,
      details: { fingerprint: sig.fingerprint, code: verified.code },
    });
  }
  if (sig.provider !== "rye-registry" || !sig.username) {
    throw new RyeError("BAD_SIGNATURE", `${label} from ${url} is signed by the registry key but lacks the rye-registry@<publisher> provenance; nothing was written`);
  }
  return { key, hash: verified.contentHash ?? sig.hash, publisher: sig.username };
}


export interface AttestationSubject {
  kind: "item" | "bundle";
  item_type?: ItemType;
  id: string;
  version: string;
}

/**
 * Verifies a publish attestation with a pinned key and checks that it is about exactly `subject` and
 * the served bytes. Returns the document as signed (zod would drop unknown fields from its digest).
 */
export async function verifyAttestation(
  raw: z.infer<typeof attestationShape>,
  pinned: RegistryKeyResult,
  expected: { subject: AttestationSubject; served: string; signature: RegistrySignature; label: string },
): Promise<SignedDocument<PublishAttestation>> {
  const { label } = expected;
  const url = pinned.url;
  const doc = { payload: raw.payload, signature: raw.signature, key_fingerprint: raw.key_fingerprint ? raw.key_fingerprint : pinned.key.fingerprint } as SignedDocument<unknown>;
  const key = assertSignedByPinned(pinned, doc.key_fingerprint);
  if (!(await verifyDocument(doc, key))) {
    throw new RyeError("BAD_SIGNATURE", `The publish attestation of ${label} does not verify with the pinned key ${key.fingerprint} of ${url}; nothing was written`, { hint: ALTERED_HINT });
  }
  const parsed = publishAttestationSchema.safeParse(doc.payload);
  if (!parsed.success) throw mismatch("the attestation payload is malformed", label, url);
  const p = parsed.data;
  const want = expected.subject;
  if (p.subject.kind !== want.kind || p.subject.id !== want.id || p.subject.version !== want.version || (want.kind === "item" && p.subject.item_type !== want.item_type)) {
    const about = `${p.subject.kind === "item" ? (p.subject.item_type ?? "item") : "bundle"} ${p.subject.id}@${p.subject.version}`;
    throw mismatch(`its attestation is about ${about}, not ${want.kind === "item" ? want.item_type : "bundle"} ${want.id}@${want.version}`, label, url, { subject: p.subject });
  }
  const fileSha256 = sha256Hex(expected.served);
  if (p.file_sha256 !== fileSha256) throw mismatch(`the attestation's file_sha256 ${p.file_sha256} is not the served file's ${fileSha256}`, label, url);
  if (p.content_hash !== expected.signature.hash) throw mismatch(`the attestation's content_hash ${p.content_hash} is not the signature's ${expected.signature.hash}`, label, url);
  if (p.publisher !== expected.signature.publisher) throw mismatch(`the attestation names publisher ${p.publisher}, the signature ${expected.signature.publisher}`, label, url);
  return doc as SignedDocument<PublishAttestation>;
}
