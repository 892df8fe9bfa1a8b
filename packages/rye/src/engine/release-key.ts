/**
 * The rye release key signs the system bundle. Its public key ships with the package and is trusted
 * for items of the system space only: it vouches for files already inside the installed package.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { PublicKey } from "@rye/core";
import { publicKeyFromPem } from "@rye/core";

export const RELEASE_PUBLIC_KEY_PATH = fileURLToPath(new URL("../../release/release_public_key.pem", import.meta.url));

let cached: PublicKey | undefined;

export function releasePublicKey(): PublicKey {
  cached ??= publicKeyFromPem(readFileSync(RELEASE_PUBLIC_KEY_PATH, "utf8"));
  return cached;
}
