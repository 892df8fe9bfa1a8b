/**
 * C2SP tlog-cosignature v1 with Ed25519 (https://c2sp.org/tlog-cosignature@v1.0.0): a witness's statement that,
 * as of a time, the checkpoint is the largest consistent tree it has seen of that log.
 *
 * A cosignature is a signed-note signature line `— <name> base64(key ID ‖ uint64 BE timestamp ‖ Ed25519 signature)`.
 * The key ID is the first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x04 ‖ public key) (0x04: the cosignature/v1 algorithm
 * byte, so a cosigner key never passes for a log key, whose byte is 0x01). The signed message is
 * `cosignature/v1\ntime <timestamp>\n` followed by the checkpoint's note text (with its final newline, without
 * signatures). A witness verifier key is written `<name>+<hex key ID>+<base64(0x04 ‖ public key)>` (signed-note
 * vkey convention).
 */
import { getEd25519 } from "../crypto/ed25519.ts";
import type { KeyPair } from "../crypto/keys.ts";
import { sha256Bytes } from "../hash.ts";
import { bytesEqual, concatBytes, fromBase64, toBase64, toHex, utf8Encode } from "../text.ts";
import { formatVerifierKey, isValidKeyName, parseNote, parseVerifierKey } from "./signed-note.ts";

export const ALG_COSIGNATURE_V1 = 0x04;
/** The spec caps a timestamp at 2^63 − 1; rye also keeps it a safe integer (seconds: far beyond any real date). */
export const MAX_COSIGNATURE_TIMESTAMP = Number.MAX_SAFE_INTEGER;
const SIGNATURE_PREFIX = "— ";

export interface CosignerVerifier {
  name: string;
  keyId: Uint8Array;
  /** Raw 32-byte Ed25519 public key. */
  publicKey: Uint8Array;
}

export interface Cosignature {
  name: string;
  keyId: Uint8Array;
  /** POSIX seconds. */
  timestamp: number;
  signature: Uint8Array;
}

export function cosignerKeyId(name: string, publicKey: Uint8Array): Uint8Array {
  return sha256Bytes(concatBytes(utf8Encode(`${name}\n`), Uint8Array.of(ALG_COSIGNATURE_V1), publicKey)).slice(0, 4);
}

/** `<name>+<hex key ID>+<base64(0x04 ‖ public key)>`. */
export function cosignerVerifierKey(name: string, publicKey: Uint8Array): string {
  return formatVerifierKey(name, ALG_COSIGNATURE_V1, publicKey, cosignerKeyId);
}

/** Parses a witness verifier key; null when malformed, not a cosignature/v1 Ed25519 key, or when its key ID does not match. */
export function parseCosignerVerifierKey(text: string): CosignerVerifier | null {
  return parseVerifierKey(text, ALG_COSIGNATURE_V1, cosignerKeyId);
}

/** The bytes a cosignature signs: `cosignature/v1\ntime <t>\n` ‖ the checkpoint's note text. */
export function cosignedMessage(checkpointText: string, timestamp: number): Uint8Array {
  if (!checkpointText.endsWith("\n")) throw new RangeError("a checkpoint's text ends with a newline");
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RangeError(`timestamp ${timestamp} is not a non-negative integer`);
  return utf8Encode(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`);
}

function uint64be(value: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(value));
  return out;
}

/** The cosignature line (with its newline) of `key`, named `name`, over the checkpoint text, at `timestamp` (POSIX seconds). */
export async function signCosignature(checkpointText: string, name: string, key: KeyPair, timestamp: number): Promise<string> {
  if (!isValidKeyName(name)) throw new RangeError(`"${name}" is not a valid signed-note key name`);
  const ed = await getEd25519();
  const signature = await ed.sign(key.seed, cosignedMessage(checkpointText, timestamp));
  return `${SIGNATURE_PREFIX}${name} ${toBase64(concatBytes(cosignerKeyId(name, key.publicKey.raw), uint64be(timestamp), signature))}\n`;
}

/** A signature's bytes after the key ID, read as `timestamped_signature`; null when not 8 + 64 bytes or beyond the timestamp cap. */
export function parseTimestampedSignature(bytes: Uint8Array): { timestamp: number; signature: Uint8Array } | null {
  if (bytes.length !== 8 + 64) return null;
  const timestamp = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0);
  if (timestamp > BigInt(MAX_COSIGNATURE_TIMESTAMP)) return null;
  return { timestamp: Number(timestamp), signature: bytes.slice(8) };
}

/**
 * How far past the verifier's clock a cosignature's timestamp may be and still count. tlog-cosignature: "verifiers MAY
 * reject cosignatures with timestamps in the future"; a witness's clock and a client's drift apart, so a little is
 * allowed, and no more: a cosignature dated ahead says nothing true "as of" a time that has not come.
 */
export const COSIGNATURE_MAX_FUTURE_SKEW_SECONDS = 600;

/** The latest timestamp (POSIX seconds) a cosignature may carry to count at `nowMs` (default: this clock). */
export function latestCosignatureTime(nowMs: number = Date.now(), skewSeconds: number = COSIGNATURE_MAX_FUTURE_SKEW_SECONDS): number {
  return Math.floor(nowMs / 1000) + skewSeconds;
}

export interface VerifiedCosignature {
  verifier: CosignerVerifier;
  /** POSIX seconds. */
  timestamp: number;
}

/**
 * Every cosignature line of `verifiers` on a note that verifies, in the note's order (a verifier may have several). A
 * line by another name or key ID is ignored; one that names a known witness and does not verify is left out. The
 * note's own log signature is not checked here.
 */
export async function verifiedCosignatureLines(note: string, verifiers: readonly CosignerVerifier[]): Promise<VerifiedCosignature[]> {
  const parsed = parseNote(note);
  if ("reason" in parsed) return [];
  const ed = await getEd25519();
  const found: VerifiedCosignature[] = [];
  for (const sig of parsed.signatures) {
    const verifier = verifiers.find((v) => v.name === sig.name && bytesEqual(v.keyId, sig.keyId));
    if (!verifier) continue;
    const stamped = parseTimestampedSignature(sig.signature);
    if (!stamped) continue;
    if (await ed.verify(verifier.publicKey, cosignedMessage(parsed.text, stamped.timestamp), stamped.signature)) found.push({ verifier, timestamp: stamped.timestamp });
  }
  return found;
}

/**
 * The cosignatures of `verifiers` on a note that verify, one per verifier (its first). With `notAfter` (POSIX
 * seconds: `latestCosignatureTime()`), a line dated later does not count.
 */
export async function verifiedCosignatures(note: string, verifiers: readonly CosignerVerifier[], options: { notAfter?: number } = {}): Promise<VerifiedCosignature[]> {
  const found: VerifiedCosignature[] = [];
  for (const line of await verifiedCosignatureLines(note, verifiers)) {
    if (options.notAfter !== undefined && line.timestamp > options.notAfter) continue;
    if (!found.some((f) => f.verifier === line.verifier)) found.push(line);
  }
  return found;
}

/** Parses one cosignature line (`— <name> <base64>`, newline optional); null when it is not one. */
export function parseCosignatureLine(line: string): Cosignature | null {
  const text = line.endsWith("\n") ? line.slice(0, -1) : line;
  if (!text.startsWith(SIGNATURE_PREFIX) || text.includes("\n")) return null;
  const fields = text.slice(SIGNATURE_PREFIX.length).split(" ");
  if (fields.length !== 2 || !isValidKeyName(fields[0]!)) return null;
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(fields[1]!);
  } catch {
    return null;
  }
  if (bytes.length < 4) return null;
  const stamped = parseTimestampedSignature(bytes.slice(4));
  return stamped ? { name: fields[0]!, keyId: bytes.slice(0, 4), ...stamped } : null;
}
