import { sha256 } from "@noble/hashes/sha2.js";
import { toHex, utf8Encode } from "./text.ts";

type Sha256 = (data: Uint8Array) => Uint8Array;

/** Pure-JS SHA-256 by default; Node installs node:crypto through `@rye/core/node` (about 4× faster). */
let sha256Impl: Sha256 = sha256;

export function setSha256Implementation(impl: Sha256): void {
  sha256Impl = impl;
}

/** Lowercase hex SHA-256 of a string's UTF-8 bytes, or of raw bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return toHex(sha256Impl(typeof data === "string" ? utf8Encode(data) : data));
}

export function sha256Bytes(data: string | Uint8Array): Uint8Array {
  return sha256Impl(typeof data === "string" ? utf8Encode(data) : data);
}

/**
 * Lowercase hex SHA-256 by the pure-JS implementation, whichever one is installed: for a short string on a
 * cold path (a file name), where loading node:crypto would cost a process more than the hashing.
 */
export function sha256HexPortable(data: string): string {
  return toHex(sha256(utf8Encode(data)));
}
