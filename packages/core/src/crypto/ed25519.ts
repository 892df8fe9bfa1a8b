/**
 * Ed25519 behind one small interface: WebCrypto where the platform has Ed25519 (Node ≥ 20, current
 * browsers), @noble/ed25519 otherwise. Keys are raw bytes: a 32-byte seed and a 32-byte public key.
 */
import * as noble from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import { concatBytes, fromBase64Url, fromHex, toHex } from "../text.ts";

noble.hashes.sha512 = sha512;

export interface Ed25519Provider {
  readonly name: "webcrypto" | "noble" | "node";
  publicKeyFromSeed(seed: Uint8Array): Promise<Uint8Array>;
  sign(seed: Uint8Array, message: Uint8Array): Promise<Uint8Array>;
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean>;
}

/** DER prefixes of an Ed25519 PKCS#8 private key (version 0) and SubjectPublicKeyInfo. */
export const PKCS8_PREFIX = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);
export const SPKI_PREFIX = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);

export function randomSeed(): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(32));
}

export const nobleEd25519: Ed25519Provider = {
  name: "noble",
  async publicKeyFromSeed(seed) {
    return noble.getPublicKey(seed);
  },
  async sign(seed, message) {
    return noble.sign(message, seed);
  },
  async verify(publicKey, message, signature) {
    try {
      return noble.verify(signature, message, publicKey);
    } catch {
      return false;
    }
  },
};

/** Imported keys are cached: importing costs about as much as verifying. */
class KeyCache {
  private readonly entries = new Map<string, Promise<CryptoKey>>();
  constructor(private readonly limit: number) {}

  get(id: string, load: () => Promise<CryptoKey>): Promise<CryptoKey> {
    let entry = this.entries.get(id);
    if (entry) {
      this.entries.delete(id);
      this.entries.set(id, entry);
      return entry;
    }
    entry = load();
    entry.catch(() => this.entries.delete(id));
    this.entries.set(id, entry);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }
}

function webCryptoProvider(subtle: SubtleCrypto): Ed25519Provider {
  const algorithm = { name: "Ed25519" };
  const publicKeys = new KeyCache(512);
  const privateKeys = new KeyCache(16);
  const importPrivate = (seed: Uint8Array) =>
    privateKeys.get(toHex(seed), () =>
      subtle.importKey("pkcs8", concatBytes(PKCS8_PREFIX, seed) as BufferSource, algorithm, true, ["sign"]),
    );
  return {
    name: "webcrypto",
    async publicKeyFromSeed(seed) {
      const jwk = await subtle.exportKey("jwk", await importPrivate(seed));
      if (!jwk.x) throw new Error("WebCrypto did not export the Ed25519 public key");
      const padded = jwk.x + "=".repeat((4 - (jwk.x.length % 4)) % 4);
      return fromBase64Url(padded);
    },
    async sign(seed, message) {
      return new Uint8Array(await subtle.sign(algorithm, await importPrivate(seed), message as BufferSource));
    },
    async verify(publicKey, message, signature) {
      if (publicKey.length !== 32 || signature.length !== 64) return false;
      try {
        const key = await publicKeys.get(toHex(publicKey), () =>
          subtle.importKey("raw", publicKey as BufferSource, algorithm, true, ["verify"]),
        );
        return await subtle.verify(algorithm, key, signature as BufferSource, message as BufferSource);
      } catch {
        return false;
      }
    },
  };
}

/** RFC 8032 §7.1 test 1: proves that the platform's Ed25519 really works before trusting it. */
const PROBE = {
  seed: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
  publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
  signature:
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
};

async function probeWebCrypto(): Promise<Ed25519Provider | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  try {
    const provider = webCryptoProvider(subtle);
    const ok = await provider.verify(fromHex(PROBE.publicKey), new Uint8Array(0), fromHex(PROBE.signature));
    const derived = toHex(await provider.publicKeyFromSeed(fromHex(PROBE.seed)));
    return ok && derived === PROBE.publicKey ? provider : null;
  } catch {
    return null;
  }
}

let selected: Promise<Ed25519Provider> | undefined;

/** Replaces the probed provider (Node installs node:crypto through `@rye/core/node`). */
export function setEd25519Provider(provider: Ed25519Provider): void {
  selected = Promise.resolve(provider);
}

/** The fastest working provider on this platform (probed once). */
export function getEd25519(): Promise<Ed25519Provider> {
  selected ??= probeWebCrypto().then((p) => p ?? nobleEd25519);
  return selected;
}

/** A WebCrypto provider if this platform supports Ed25519 there, else null. For tests and benchmarks. */
export function webCryptoEd25519(): Promise<Ed25519Provider | null> {
  return probeWebCrypto();
}
