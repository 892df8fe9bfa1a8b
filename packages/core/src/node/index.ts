/**
 * `@rye/core/node`: faster crypto for Node processes (CLI, MCP server, registry API). Importing this
 * module is enough; browsers never load it and keep WebCrypto/noble.
 */
import type { KeyObject } from "node:crypto";
import { createRequire } from "node:module";
import type { Ed25519Provider } from "../crypto/ed25519.ts";
import { PKCS8_PREFIX, setEd25519Provider, SPKI_PREFIX } from "../crypto/ed25519.ts";
import { setSha256Implementation } from "../hash.ts";

// node:crypto is loaded on the first hash or signature, not at import: loading it (OpenSSL's bindings) costs a cold
// process ~8 ms (a sixth of `node -e ''`), and a command such as `rye search` over unsigned items never needs it.
let nodeCrypto: typeof import("node:crypto") | undefined;
const crypto = (): typeof import("node:crypto") => (nodeCrypto ??= createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto"));

function cache<T>(limit: number): (id: string, load: () => T) => T {
  const entries = new Map<string, T>();
  return (id, load) => {
    let value = entries.get(id);
    if (value === undefined) {
      value = load();
      if (entries.size >= limit) entries.delete(entries.keys().next().value!);
      entries.set(id, value);
    }
    return value;
  };
}

const publicKeys = cache<KeyObject>(512);
const privateKeys = cache<KeyObject>(16);
const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");

const privateKeyOf = (seed: Uint8Array) =>
  privateKeys(hex(seed), () => crypto().createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" }));

export const nodeEd25519: Ed25519Provider = {
  name: "node",
  async publicKeyFromSeed(seed) {
    const der = crypto().createPublicKey(privateKeyOf(seed)).export({ format: "der", type: "spki" });
    return new Uint8Array(der.subarray(SPKI_PREFIX.length));
  },
  async sign(seed, message) {
    return new Uint8Array(crypto().sign(null, message, privateKeyOf(seed)));
  },
  async verify(publicKey, message, signature) {
    if (publicKey.length !== 32 || signature.length !== 64) return false;
    try {
      const key = publicKeys(hex(publicKey), () =>
        crypto().createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: "der", type: "spki" }),
      );
      return crypto().verify(null, message, key, signature);
    } catch {
      return false;
    }
  },
};

export function installNodeCrypto(): void {
  setEd25519Provider(nodeEd25519);
  setSha256Implementation((data) => {
    const digest = crypto().createHash("sha256").update(data).digest();
    return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
  });
}

installNodeCrypto();
