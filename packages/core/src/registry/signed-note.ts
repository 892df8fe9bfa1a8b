/**
 * C2SP signed notes with Ed25519 keys, and the C2SP tlog-checkpoint body they carry.
 *
 * A note is UTF-8 text ending in a newline, a blank line, then one line per signature:
 * `— <key name> <base64(key ID ‖ signature)>`. The key ID is the first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖
 * public key) (0x01: the Ed25519 algorithm byte); the signature covers the text including its final newline. A
 * verifier key is written `<name>+<hex key ID>+<base64(0x01 ‖ public key)>` (Go's golang.org/x/mod/sumdb/note
 * reads the same strings). A checkpoint's text is `<origin>\n<tree size>\n<base64 root hash>\n` and, optionally,
 * extension lines.
 */
import { getEd25519 } from "../crypto/ed25519.ts";
import type { KeyPair } from "../crypto/keys.ts";
import { sha256Bytes } from "../hash.ts";
import { bytesEqual, concatBytes, fromBase64, toBase64, toHex, utf8Encode } from "../text.ts";

const ALG_ED25519 = 0x01;
const SIGNATURE_PREFIX = "— ";
/** Notes are small: a checkpoint with a few dozen cosignatures stays far below. */
export const MAX_NOTE_BYTES = 1_000_000;
export const MAX_NOTE_SIGNATURES = 100;

export interface NoteVerifier {
  name: string;
  keyId: Uint8Array;
  /** Raw 32-byte Ed25519 public key. */
  publicKey: Uint8Array;
}

export interface NoteSignature {
  name: string;
  keyId: Uint8Array;
  signature: Uint8Array;
}

/** A key name: non-empty, no Unicode spaces, no `+` (it separates a verifier key's fields). */
export function isValidKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+]/u.test(name);
}

export function noteKeyId(name: string, publicKey: Uint8Array): Uint8Array {
  return sha256Bytes(concatBytes(utf8Encode(`${name}\n`), Uint8Array.of(ALG_ED25519), publicKey)).slice(0, 4);
}

type KeyIdOf = (name: string, publicKey: Uint8Array) => Uint8Array;

/**
 * `<name>+<hex key ID>+<base64(algorithm ‖ public key)>`: the verifier key of a note signer (algorithm 0x01) or of a
 * tlog cosigner (0x04, cosignature.ts), each with its own key ID.
 */
export function formatVerifierKey(name: string, algorithm: number, publicKey: Uint8Array, keyIdOf: KeyIdOf): string {
  if (!isValidKeyName(name)) throw new RangeError(`"${name}" is not a valid signed-note key name`);
  if (publicKey.length !== 32) throw new RangeError("an Ed25519 public key has 32 bytes");
  return `${name}+${toHex(keyIdOf(name, publicKey))}+${toBase64(concatBytes(Uint8Array.of(algorithm), publicKey))}`;
}

/** Parses a verifier key of `algorithm`; null when malformed, of another algorithm, or when its key ID does not match. */
export function parseVerifierKey(text: string, algorithm: number, keyIdOf: KeyIdOf): NoteVerifier | null {
  // The key is base64, which may itself hold `+`: only the first two separate fields.
  const first = text.indexOf("+");
  const second = text.indexOf("+", first + 1);
  if (first === -1 || second === -1) return null;
  const [name, hash, key] = [text.slice(0, first), text.slice(first + 1, second), text.slice(second + 1)];
  if (!isValidKeyName(name) || !/^[0-9a-f]{8}$/.test(hash)) return null;
  let raw: Uint8Array;
  try {
    raw = fromBase64(key);
  } catch {
    return null;
  }
  if (raw.length !== 33 || raw[0] !== algorithm || toBase64(raw) !== key) return null;
  const publicKey = raw.slice(1);
  const keyId = keyIdOf(name, publicKey);
  return toHex(keyId) === hash ? { name, keyId, publicKey } : null;
}

/** `<name>+<hex key ID>+<base64(0x01 ‖ public key)>`. */
export function noteVerifierKey(name: string, publicKey: Uint8Array): string {
  return formatVerifierKey(name, ALG_ED25519, publicKey, noteKeyId);
}

/** Parses a verifier key string; null when malformed, not Ed25519, or when its key ID does not match. */
export function parseNoteVerifierKey(text: string): NoteVerifier | null {
  return parseVerifierKey(text, ALG_ED25519, noteKeyId);
}

function checkText(text: string): void {
  if (!text.endsWith("\n")) throw new RangeError("a note's text ends with a newline");
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x09\x0b-\x1f\x7f]/.test(text)) throw new RangeError("a note's text has no control characters but newlines");
  if (text.includes("\n\n")) throw new RangeError("a note's text has no blank line");
}

/** Signs `text` with each key under `name` (several during a key rotation's overlap). */
export async function signNote(text: string, name: string, keys: readonly KeyPair[]): Promise<string> {
  checkText(text);
  if (!isValidKeyName(name)) throw new RangeError(`"${name}" is not a valid signed-note key name`);
  const ed = await getEd25519();
  const message = utf8Encode(text);
  const lines: string[] = [];
  for (const key of keys) {
    const signature = await ed.sign(key.seed, message);
    lines.push(`${SIGNATURE_PREFIX}${name} ${toBase64(concatBytes(noteKeyId(name, key.publicKey.raw), signature))}\n`);
  }
  return `${text}\n${lines.join("")}`;
}

export type NoteError = "NOTE_MALFORMED" | "NOTE_UNVERIFIED";

export type OpenedNote = { ok: true; text: string; verifiedBy: NoteVerifier[]; signatures: NoteSignature[] } | { ok: false; error: NoteError; reason: string };

/** Splits a note into its text and signature lines, or says why it is not a note. */
export function parseNote(note: string): { text: string; signatures: NoteSignature[] } | { reason: string } {
  if (note.length > MAX_NOTE_BYTES) return { reason: `longer than ${MAX_NOTE_BYTES} bytes` };
  const split = note.lastIndexOf("\n\n");
  if (split === -1) return { reason: "no blank line before the signatures" };
  const text = note.slice(0, split + 1);
  try {
    checkText(text);
  } catch (err) {
    return { reason: (err as Error).message };
  }
  const rest = note.slice(split + 2);
  if (!rest.endsWith("\n")) return { reason: "the signatures do not end with a newline" };
  const signatures: NoteSignature[] = [];
  for (const line of rest.slice(0, -1).split("\n")) {
    if (!line.startsWith(SIGNATURE_PREFIX)) return { reason: `"${line.slice(0, 40)}" is not a signature line` };
    const fields = line.slice(SIGNATURE_PREFIX.length).split(" ");
    if (fields.length !== 2 || !isValidKeyName(fields[0]!)) return { reason: "a signature line is not `— <name> <base64>`" };
    let bytes: Uint8Array;
    try {
      bytes = fromBase64(fields[1]!);
    } catch {
      return { reason: "a signature is not base64" };
    }
    if (bytes.length < 5) return { reason: "a signature is too short" };
    signatures.push({ name: fields[0]!, keyId: bytes.slice(0, 4), signature: bytes.slice(4) });
  }
  if (signatures.length === 0) return { reason: "no signature" };
  if (signatures.length > MAX_NOTE_SIGNATURES) return { reason: `more than ${MAX_NOTE_SIGNATURES} signatures` };
  return { text, signatures };
}

/**
 * Opens a note: well formed, and signed by at least one of `verifiers` (name and key ID match, and the signature
 * verifies). A signature by a key not among them is ignored (a cosigner this reader does not know); a signature that
 * names a known key and does not verify fails the note.
 */
export async function openNote(note: string, verifiers: readonly NoteVerifier[]): Promise<OpenedNote> {
  const parsed = parseNote(note);
  if ("reason" in parsed) return { ok: false, error: "NOTE_MALFORMED", reason: parsed.reason };
  const ed = await getEd25519();
  const message = utf8Encode(parsed.text);
  const verifiedBy: NoteVerifier[] = [];
  for (const sig of parsed.signatures) {
    const verifier = verifiers.find((v) => v.name === sig.name && bytesEqual(v.keyId, sig.keyId));
    if (!verifier) continue;
    if (sig.signature.length !== 64 || !(await ed.verify(verifier.publicKey, message, sig.signature))) {
      return { ok: false, error: "NOTE_UNVERIFIED", reason: `the signature by ${sig.name}+${toHex(sig.keyId)} does not verify` };
    }
    if (!verifiedBy.includes(verifier)) verifiedBy.push(verifier);
  }
  if (verifiedBy.length === 0) return { ok: false, error: "NOTE_UNVERIFIED", reason: "no signature by a known key" };
  return { ok: true, text: parsed.text, verifiedBy, signatures: parsed.signatures };
}

export interface Checkpoint {
  origin: string;
  size: number;
  rootHash: Uint8Array;
  /** Lines after the root hash (none in rye's checkpoints; kept when read). */
  extensions: string[];
}

export function formatCheckpoint(c: { origin: string; size: number; rootHash: Uint8Array }): string {
  if (c.origin.length === 0 || c.origin.includes("\n")) throw new RangeError("a checkpoint's origin is one non-empty line");
  if (!Number.isSafeInteger(c.size) || c.size < 0) throw new RangeError(`tree size ${c.size} is not a non-negative integer`);
  if (c.rootHash.length !== 32) throw new RangeError("a root hash has 32 bytes");
  return `${c.origin}\n${c.size}\n${toBase64(c.rootHash)}\n`;
}

/** Parses a checkpoint's text (a note's text, signatures removed); null when malformed. */
export function parseCheckpoint(text: string): Checkpoint | null {
  if (!text.endsWith("\n")) return null;
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3) return null;
  const [origin, size, root, ...extensions] = lines as [string, string, string, ...string[]];
  if (origin.length === 0 || !/^(0|[1-9][0-9]{0,15})$/.test(size) || !Number.isSafeInteger(Number(size))) return null;
  let rootHash: Uint8Array;
  try {
    rootHash = fromBase64(root);
  } catch {
    return null;
  }
  if (rootHash.length !== 32 || toBase64(rootHash) !== root) return null;
  if (extensions.some((e) => e.length === 0)) return null;
  return { origin, size: Number(size), rootHash, extensions };
}

/** The schema-less origin of a registry's log: `https://registry.example/` → `registry.example/v1/tlog`. */
export function logOrigin(registryUrl: string): string {
  const url = new URL(registryUrl);
  return `${url.host}${url.pathname.replace(/\/+$/, "")}/v1/tlog`;
}

