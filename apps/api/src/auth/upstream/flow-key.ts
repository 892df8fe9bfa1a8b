/**
 * The key of the sign-in flow cookie. It must be the same in every process of one registry (the
 * callback may reach another process than the start), so a per-process random secret will not do:
 * - `RYE_COOKIE_SECRET` when set (at least 32 characters; all processes get the same value), else
 * - derived from the registry signing key's seed, which every process of a registry already shares
 *   (`<data dir>/keys/private_key.pem` or `RYE_REGISTRY_PRIVATE_KEY`).
 * Either way HKDF-SHA256 with a purpose label turns it into a 256-bit AES-GCM key, so the cookie key
 * reveals nothing about the signing key. Rotating the registry key only fails sign-ins in flight.
 */
import { hkdfSync } from "node:crypto";
import type { RegistryKeyring } from "../../keys/keyring.ts";

const INFO = "rye upstream sign-in flow cookie v1";

export function deriveFlowKey(secret: string | Uint8Array): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "rye-registry", INFO, 32));
}

/** A function returning the current flow-cookie key (re-derived only when the registry key rotates). */
export function flowKeySource(cookieSecret: string | undefined, keyring: Pick<RegistryKeyring, "signer">): () => Promise<Buffer> {
  if (cookieSecret !== undefined) {
    const key = deriveFlowKey(cookieSecret);
    return () => Promise.resolve(key);
  }
  let cached: { seed: Uint8Array; key: Buffer } | null = null;
  return async () => {
    const { seed } = await keyring.signer();
    if (cached?.seed !== seed) cached = { seed, key: deriveFlowKey(seed) };
    return cached.key;
  };
}
