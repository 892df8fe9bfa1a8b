/**
 * Signing in the browser with the author's Ed25519 key — the same `@rye/core` code the CLI runs
 * (`signItem`; WebCrypto Ed25519 where the browser has it, @noble/ed25519 otherwise). The private key
 * lives only in the page's memory: it is never sent anywhere and never written to localStorage,
 * sessionStorage or IndexedDB. Registering the *public* key with the account is a separate, explicit step.
 */
import { generateKeyPair, type ItemType, type KeyPair, keyPairFromPrivatePem, signItem } from "@rye/core";

export type { KeyPair } from "@rye/core";

/** Where `rye keygen` (packages/rye/src/keys/keystore.ts) keeps the key pair. */
export const CLI_PRIVATE_KEY_PATH = "~/.ai/keys/private_key.pem";
export const CLI_KEY_DIR_NOTE = "($USER_SPACE/.ai/keys/private_key.pem when USER_SPACE is set)";

/** Largest PEM we read from a file input: an Ed25519 PKCS#8 PEM is 119 bytes. */
const MAX_PEM_BYTES = 4096;

/** Reads an unencrypted Ed25519 PKCS#8 PEM (what `rye keygen` writes) into a key pair. */
export async function importPrivateKeyPem(pem: string): Promise<KeyPair> {
  if (pem.length > MAX_PEM_BYTES) throw new Error("This file is too large to be an Ed25519 private key");
  if (/BEGIN PUBLIC KEY/.test(pem)) throw new Error("This is a public key: choose private_key.pem, not public_key.pem");
  if (/BEGIN ENCRYPTED PRIVATE KEY/.test(pem)) throw new Error("Encrypted private keys are not supported: rye keys are unencrypted PKCS#8 PEM");
  return keyPairFromPrivatePem(pem);
}

/** A fresh key pair from the browser's random source. */
export function generateBrowserKey(): Promise<KeyPair> {
  return generateKeyPair();
}

/**
 * Signs the item as `rye sign` / `rye push` do: any old signature line is replaced, the type's content
 * hash is signed, JS/TS tools get a `//` comment line (hence the file extension).
 */
export async function signForPush(content: string, type: ItemType, key: KeyPair, extension: string): Promise<string> {
  const signed = await signItem(content, type, key, { path: type === "tool" ? extension : ".md" });
  return signed.content;
}

/** A download URL for the private key (revoke it with URL.revokeObjectURL after use). */
export function privateKeyDownloadUrl(key: KeyPair): string {
  return URL.createObjectURL(new Blob([key.privateKeyPem], { type: "application/x-pem-file" }));
}
