import type { Ed25519Provider } from "../crypto/ed25519.ts";
import { getEd25519 } from "../crypto/ed25519.ts";
import type { KeyPair } from "../crypto/keys.ts";
import type { ItemType } from "../item-types.ts";
import { extensionOf } from "../item-types.ts";
import { normalizeNewlines, toBase64Url, utf8Encode } from "../text.ts";
import { computeContentHash } from "./content-hash.ts";
import type { SignatureInfo } from "./line.ts";
import { commentStyleFor, formatSignatureLine, formatSignatureTimestamp, insertSignatureLine } from "./line.ts";

export interface SignOptions {
  /** File name or extension; picks `//` comments for JS/TS tools. */
  path?: string;
  /** Defaults to now. */
  date?: Date;
  /** Provenance suffix, e.g. `{ provider: "rye-registry", username: "alice" }`. */
  provenance?: { provider: string; username: string };
  provider?: Ed25519Provider;
}

export interface SignedItem {
  /** The new file content (LF line endings) with exactly one signature line. */
  content: string;
  signature: SignatureInfo;
}

/** Signs the 64-char hex hash string (the message the format prescribes). */
export async function signHash(hash: string, key: Pick<KeyPair, "seed">, provider?: Ed25519Provider): Promise<string> {
  const ed = provider ?? (await getEd25519());
  return toBase64Url(await ed.sign(key.seed, utf8Encode(hash)));
}

/** Computes the type's content hash, signs it and writes the signature line in place of any old one. */
export async function signItem(rawContent: string, type: ItemType, key: KeyPair, options: SignOptions = {}): Promise<SignedItem> {
  const content = normalizeNewlines(rawContent);
  const hash = computeContentHash(content, type);
  const signature: SignatureInfo = {
    timestamp: formatSignatureTimestamp(options.date ?? new Date()),
    hash,
    signature: await signHash(hash, key, options.provider),
    fingerprint: key.publicKey.fingerprint,
  };
  if (options.provenance) {
    if (!/^[A-Za-z0-9_-]+$/.test(options.provenance.provider) || !/^[A-Za-z0-9_-]+$/.test(options.provenance.username)) {
      throw new Error("provenance provider and username must match [A-Za-z0-9_-]+");
    }
    signature.provider = options.provenance.provider;
    signature.username = options.provenance.username;
  }
  const style = commentStyleFor(type, options.path ? extensionOf(options.path) || options.path : undefined);
  return { content: insertSignatureLine(content, type, formatSignatureLine(signature, style)), signature };
}
