/**
 * The rye release key signs the system bundle. Its public key ships with the package and is trusted
 * for items of the system space only: it vouches for files already inside the installed package.
 */
import { readFileSync } from "node:fs";
import type { PublicKey } from "@rye/core";
import { publicKeyFromPem } from "@rye/core";
import { LAYOUT } from "../package-layout.ts";

export const RELEASE_PUBLIC_KEY_PATH = LAYOUT.releasePublicKeyPath;

let cached: PublicKey | undefined;

export function releasePublicKey(): PublicKey {
  cached ??= publicKeyFromPem(readFileSync(RELEASE_PUBLIC_KEY_PATH, "utf8"));
  return cached;
}
