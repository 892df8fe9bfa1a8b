/**
 * Registry documents (publish attestations, key rotation statements, log checkpoints) are canonical JSON
 * signed with Ed25519 by a registry key: `{ payload, signature, key_fingerprint }`.
 */
import { canonicalJson } from "../canonical-json.ts";
import { getEd25519 } from "../crypto/ed25519.ts";
import type { KeyPair, PublicKey } from "../crypto/keys.ts";
import { sha256Hex } from "../hash.ts";
import { fromBase64Url, toBase64Url, utf8Encode } from "../text.ts";

export interface SignedDocument<T> {
  payload: T;
  /** Padded base64url Ed25519 signature over the UTF-8 canonical JSON of `payload`. */
  signature: string;
  key_fingerprint: string;
}

export async function signDocument<T>(payload: T, key: KeyPair): Promise<SignedDocument<T>> {
  const ed = await getEd25519();
  const signature = toBase64Url(await ed.sign(key.seed, utf8Encode(canonicalJson(payload))));
  return { payload, signature, key_fingerprint: key.publicKey.fingerprint };
}

/** True when `doc` is signed by `key` (and names it). Never throws. */
export async function verifyDocument(doc: SignedDocument<unknown>, key: PublicKey): Promise<boolean> {
  if (!doc || doc.key_fingerprint !== key.fingerprint || typeof doc.signature !== "string") return false;
  try {
    const bytes = fromBase64Url(doc.signature);
    if (bytes.length !== 64) return false;
    return await (await getEd25519()).verify(key.raw, utf8Encode(canonicalJson(doc.payload)), bytes);
  } catch {
    return false;
  }
}

/** SHA-256 hex of a signed document's canonical form: what lockfiles record as the attestation digest. */
export function documentDigest(doc: SignedDocument<unknown>): string {
  return sha256Hex(canonicalJson(doc));
}
