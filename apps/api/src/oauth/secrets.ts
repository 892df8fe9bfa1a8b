/** Opaque OAuth secrets (device codes, authorization codes, refresh tokens): 32 random bytes, stored as SHA-256. */
import { randomBytes } from "node:crypto";

export { hashToken as hashSecret } from "../auth/api-tokens.ts";

export function newSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** Secrets are base64url of 32 bytes; anything much longer is not ours (and not worth hashing). */
export function plausibleSecret(value: string): boolean {
  return value.length > 0 && value.length <= 128;
}
