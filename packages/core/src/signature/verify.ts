import type { Ed25519Provider } from "../crypto/ed25519.ts";
import { getEd25519 } from "../crypto/ed25519.ts";
import type { PublicKey } from "../crypto/keys.ts";
import { fingerprintOfPem } from "../crypto/keys.ts";
import { RyeError } from "../errors.ts";
import type { ItemType } from "../item-types.ts";
import { fromBase64Url, utf8Encode } from "../text.ts";
import { computeContentHash } from "./content-hash.ts";
import type { SignatureInfo } from "./line.ts";
import { extractSignature } from "./line.ts";

export const VERIFY_CODES = ["OK", "UNSIGNED", "INTEGRITY_MISMATCH", "UNTRUSTED_KEY", "BAD_SIGNATURE", "MALFORMED_SIGNATURE"] as const;
export type VerifyCode = (typeof VERIFY_CODES)[number];

export interface VerifyResult {
  ok: boolean;
  code: VerifyCode;
  message: string;
  /** Hash recomputed from the content (absent when it cannot be computed). */
  contentHash?: string;
  /** HASH field of the signature line. */
  embeddedHash?: string;
  fingerprint?: string;
  signature?: SignatureInfo;
}

/** Where verification finds public keys by fingerprint. */
export interface KeyResolver {
  resolve(fingerprint: string): PublicKey | undefined | Promise<PublicKey | undefined>;
}

export function keyResolverFrom(keys: Iterable<PublicKey>): KeyResolver {
  const byFingerprint = new Map<string, PublicKey>();
  for (const key of keys) byFingerprint.set(key.fingerprint, key);
  return { resolve: (fp) => byFingerprint.get(fp) };
}

export interface VerifyOptions {
  provider?: Ed25519Provider;
}

/**
 * Checks an item's signature line against its content and the trusted keys. Never throws for bad
 * input: every failure is a typed result.
 */
export async function verifyItem(rawContent: string, type: ItemType, keys: KeyResolver, options: VerifyOptions = {}): Promise<VerifyResult> {
  const extracted = extractSignature(rawContent, type);
  if (extracted.status === "unsigned") return { ok: false, code: "UNSIGNED", message: "The item has no signature line" };
  if (extracted.status === "legacy") {
    return { ok: false, code: "UNSIGNED", message: "Legacy rye:validated lines are not signatures; sign the item" };
  }
  if (extracted.status === "malformed") {
    return { ok: false, code: "MALFORMED_SIGNATURE", message: `Malformed signature line: ${extracted.reason}` };
  }
  const sig = extracted.signature;
  const base = { embeddedHash: sig.hash, fingerprint: sig.fingerprint, signature: sig };

  let contentHash: string;
  try {
    contentHash = computeContentHash(rawContent, type);
  } catch (err) {
    const message = err instanceof RyeError ? err.message : String(err);
    return { ok: false, code: "INTEGRITY_MISMATCH", message: `Cannot compute the content hash: ${message}`, ...base };
  }
  const withHash = { ...base, contentHash };
  if (contentHash !== sig.hash) {
    return {
      ok: false,
      code: "INTEGRITY_MISMATCH",
      message: `Content changed after signing (expected ${sig.hash.slice(0, 16)}…, got ${contentHash.slice(0, 16)}…)`,
      ...withHash,
    };
  }

  const key = await keys.resolve(sig.fingerprint);
  // A trust store entry only counts when its PEM really hashes to the fingerprint (the original trusted file names).
  if (!key || fingerprintOfPem(key.pem) !== sig.fingerprint) {
    return { ok: false, code: "UNTRUSTED_KEY", message: `Untrusted key ${sig.fingerprint}`, ...withHash };
  }

  let signatureBytes: Uint8Array;
  try {
    signatureBytes = fromBase64Url(sig.signature);
  } catch {
    return { ok: false, code: "MALFORMED_SIGNATURE", message: "The signature is not padded base64url", ...withHash };
  }
  if (signatureBytes.length !== 64) {
    return { ok: false, code: "MALFORMED_SIGNATURE", message: "An Ed25519 signature has 64 bytes", ...withHash };
  }
  const ed = options.provider ?? (await getEd25519());
  const valid = await ed.verify(key.raw, utf8Encode(sig.hash), signatureBytes);
  if (!valid) return { ok: false, code: "BAD_SIGNATURE", message: "Ed25519 signature verification failed", ...withHash };
  return { ok: true, code: "OK", message: "Signature verified", ...withHash };
}
