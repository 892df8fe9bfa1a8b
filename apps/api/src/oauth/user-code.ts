/**
 * RFC 8628 §6.1 user codes: 8 letters from an alphabet without vowels (no words) and without
 * look-alikes (no 0/O, 1/I/L, 5/S… since there are no digits), shown as `XXXX-XXXX`. 20^8 ≈ 2^34.6.
 * Input is case-insensitive and the dash (and spaces) optional. Stored normalised (8 letters).
 */
import { randomInt } from "node:crypto";

export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
export const USER_CODE_LENGTH = 8;

export function generateUserCode(): string {
  let code = "";
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** The stored form of what a person typed, or null when it cannot be a user code. */
export function normalizeUserCode(input: string): string | null {
  if (input.length > 32) return null;
  const code = input.toUpperCase().replace(/[\s-]/g, "");
  if (code.length !== USER_CODE_LENGTH) return null;
  for (const ch of code) if (!USER_CODE_ALPHABET.includes(ch)) return null;
  return code;
}

export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}
