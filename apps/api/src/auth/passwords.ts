/**
 * Local-account passwords: scrypt (RFC 7914) from node:crypto, stored as
 * `scrypt$<log2 N>$<r>$<p>$<salt b64url>$<hash b64url>` so parameters can be raised later
 * (`needsRehash`), and the password rules a new password must meet.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

export const SCRYPT_LOG_N = 15;
export const SCRYPT_R = 8;
export const SCRYPT_P = 1;
export const SALT_BYTES = 16;
export const KEY_BYTES = 32;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

/** Bounds on parameters read back from storage, so a corrupted row cannot make verification exhaust memory or time. */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;
const MAX_P = 16;

interface ScryptParams {
  logN: number;
  r: number;
  p: number;
}

interface StoredHash extends ScryptParams {
  salt: Buffer;
  hash: Buffer;
}

const CURRENT: ScryptParams = { logN: SCRYPT_LOG_N, r: SCRYPT_R, p: SCRYPT_P };

function derive(password: string, salt: Buffer, keyBytes: number, { logN, r, p }: ScryptParams): Promise<Buffer> {
  const N = 2 ** logN;
  // scrypt needs 128·N·r bytes for V plus 128·r·p for B; twice that leaves headroom (64 MiB today).
  const options: ScryptOptions = { N, r, p, maxmem: 2 * 128 * N * r * p + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    // NFC: the same password typed on different systems (composed vs decomposed accents) must match.
    scrypt(password.normalize("NFC"), salt, keyBytes, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function parse(stored: string): StoredHash | null {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [logN, r, p] = parts.slice(1, 4).map((s) => (/^\d{1,3}$/.test(s ?? "") ? Number(s) : NaN)) as [number, number, number];
  if (!(logN >= 1 && r >= 1 && p >= 1 && p <= MAX_P && 128 * 2 ** logN * r <= MAX_SCRYPT_MEMORY)) return null;
  const salt = Buffer.from(parts[4]!, "base64url");
  const hash = Buffer.from(parts[5]!, "base64url");
  if (salt.length === 0 || hash.length < 16) return null;
  return { logN, r, p, salt, hash };
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, KEY_BYTES, CURRENT);
  return ["scrypt", SCRYPT_LOG_N, SCRYPT_R, SCRYPT_P, salt.toString("base64url"), hash.toString("base64url")].join("$");
}

let dummyHash: Promise<string> | undefined;

/**
 * True when `password` matches `stored`. With no stored hash (unknown account, identity-provider-only
 * account) a throwaway hash is checked instead, so the answer takes as long as for a real account.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = stored === null ? null : parse(stored);
  if (!parsed) {
    await verifyPassword(password, await (dummyHash ??= hashPassword(randomBytes(16).toString("hex"))));
    return false;
  }
  const candidate = await derive(password, parsed.salt, parsed.hash.length, parsed);
  return timingSafeEqual(candidate, parsed.hash);
}

/** True when `stored` was made with other parameters than today's (rehash after a successful sign-in). */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  if (!parsed) return true;
  return parsed.logN !== SCRYPT_LOG_N || parsed.r !== SCRYPT_R || parsed.p !== SCRYPT_P || parsed.salt.length !== SALT_BYTES || parsed.hash.length !== KEY_BYTES;
}

/** What is wrong with a new password (empty when it is acceptable). Lengths count characters, not bytes. */
export function passwordProblems(password: string, account: { username: string; email: string }): string[] {
  const problems: string[] = [];
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) problems.push(`Passwords need at least ${PASSWORD_MIN_LENGTH} characters`);
  if (length > PASSWORD_MAX_LENGTH) problems.push(`Passwords may have at most ${PASSWORD_MAX_LENGTH} characters`);
  const folded = password.trim().toLowerCase();
  if (folded === account.username.toLowerCase()) problems.push("The password must not be your username");
  if (folded === account.email.trim().toLowerCase()) problems.push("The password must not be your email address");
  return problems;
}
