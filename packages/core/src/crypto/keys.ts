/**
 * Ed25519 keys as rye stores them: PKCS#8 PEM private keys and SPKI PEM public keys, byte-identical
 * to Python `cryptography` and Node's exports; fingerprint = first 16 hex of SHA-256 over the PEM bytes.
 */
import { RyeError } from "../errors.ts";
import { sha256Hex } from "../hash.ts";
import { bytesEqual, concatBytes, fromBase64, toBase64 } from "../text.ts";
import { getEd25519, PKCS8_PREFIX, randomSeed, SPKI_PREFIX } from "./ed25519.ts";

export interface PublicKey {
  /** Raw 32-byte Ed25519 public key. */
  raw: Uint8Array;
  /** SPKI PEM exactly as stored (the fingerprint is computed over these bytes). */
  pem: string;
  fingerprint: string;
}

export interface KeyPair {
  /** Raw 32-byte seed. */
  seed: Uint8Array;
  privateKeyPem: string;
  publicKey: PublicKey;
}

function toPem(label: string, der: Uint8Array): string {
  const b64 = toBase64(der);
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

function fromPem(label: string, pem: string): Uint8Array {
  const m = new RegExp(`^-----BEGIN ${label}-----\\r?\\n([A-Za-z0-9+/=\\r\\n]+?)\\r?\\n?-----END ${label}-----\\r?\\n?$`).exec(
    pem.trim() + "\n",
  );
  if (!m) throw new RyeError("INVALID_KEY", `Not a ${label} PEM block`);
  try {
    return fromBase64(m[1]!.replace(/[\r\n]/g, ""));
  } catch {
    throw new RyeError("INVALID_KEY", `The ${label} PEM block is not valid base64`);
  }
}

const fingerprintMemo = new Map<string, string>();

export function fingerprintOfPem(pem: string): string {
  let fp = fingerprintMemo.get(pem);
  if (fp === undefined) {
    fp = sha256Hex(pem).slice(0, 16);
    if (fingerprintMemo.size >= 256) fingerprintMemo.delete(fingerprintMemo.keys().next().value!);
    fingerprintMemo.set(pem, fp);
  }
  return fp;
}

export function publicKeyToPem(raw: Uint8Array): string {
  if (raw.length !== 32) throw new RyeError("INVALID_KEY", "An Ed25519 public key has 32 bytes");
  return toPem("PUBLIC KEY", concatBytes(SPKI_PREFIX, raw));
}

/** Parses an SPKI PEM; the fingerprint is taken over the PEM text as given. */
export function publicKeyFromPem(pem: string): PublicKey {
  const der = fromPem("PUBLIC KEY", pem);
  if (der.length !== 44 || !bytesEqual(der.subarray(0, 12), SPKI_PREFIX)) {
    throw new RyeError("INVALID_KEY", "The public key is not an Ed25519 SubjectPublicKeyInfo");
  }
  return { raw: der.slice(12), pem, fingerprint: fingerprintOfPem(pem) };
}

export function privateKeyToPem(seed: Uint8Array): string {
  if (seed.length !== 32) throw new RyeError("INVALID_KEY", "An Ed25519 private key seed has 32 bytes");
  return toPem("PRIVATE KEY", concatBytes(PKCS8_PREFIX, seed));
}

export function seedFromPrivatePem(pem: string): Uint8Array {
  const der = fromPem("PRIVATE KEY", pem);
  if (der.length !== 48 || !bytesEqual(der.subarray(0, 16), PKCS8_PREFIX)) {
    throw new RyeError("INVALID_KEY", "The private key is not an unencrypted Ed25519 PKCS#8 key");
  }
  return der.slice(16);
}

export async function keyPairFromSeed(seed: Uint8Array): Promise<KeyPair> {
  const raw = await (await getEd25519()).publicKeyFromSeed(seed);
  const pem = publicKeyToPem(raw);
  return { seed, privateKeyPem: privateKeyToPem(seed), publicKey: { raw, pem, fingerprint: fingerprintOfPem(pem) } };
}

export async function keyPairFromPrivatePem(pem: string): Promise<KeyPair> {
  return keyPairFromSeed(seedFromPrivatePem(pem));
}

export async function generateKeyPair(): Promise<KeyPair> {
  return keyPairFromSeed(randomSeed());
}
