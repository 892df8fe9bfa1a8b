/**
 * The local cache of pulled registry items: an ordinary user-space item file
 * `$USER_SPACE/.ai/<type folder>/<namespace>/<category>/<name><ext>`, written atomically after
 * verification (a failed or partial download leaves nothing behind).
 *
 * Every verified pull is also kept, immutable, in a content-addressed store
 * `$USER_SPACE/.ai/cache/registry/<file sha256>/<name><ext>`. The user-space file is shared by all
 * projects, so when another project moves it to another version (or pulls the id from another
 * registry), a project whose lock pins different bytes is served its pinned copy from the store.
 *
 * Registry keys never enter the global trust store. Instead `withRegistryTrust` wraps the engine's
 * verifier (see there, and docs/trust.md).
 */
import { readFile, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import type { ItemType, PublicKey, VerifyResult } from "@rye/core";
import { extensionsFor, extractSignature, keyResolverFrom, sha256Hex, TYPE_FOLDERS, verifyItem } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { assertWritableInside } from "../spaces/spaces.ts";
import { userAiDir } from "../spaces/paths.ts";
import { getRegistryPin, pinnedKeyFor } from "./key-pinning.ts";
import { readProjectLock } from "./project-lock.ts";
import type { VerifiedPull } from "./pull.ts";

export function cachedItemPath(type: ItemType, id: string, extension: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(userAiDir(env), TYPE_FOLDERS[type], `${id}${extension}`);
}

const SHA256_RE = /^[0-9a-f]{64}$/;

/** Where the store keeps the pulled file whose SHA-256 is `fileSha256`. */
export function storedPullPath(fileSha256: string, id: string, extension: string, env: NodeJS.ProcessEnv = process.env): string {
  if (!SHA256_RE.test(fileSha256)) throw new Error(`not a sha256: ${fileSha256}`);
  return join(userAiDir(env), "cache", "registry", fileSha256, `${basename(id)}${extension}`);
}

/** The stored pull with this SHA-256, when present and intact (its bytes are re-hashed), else undefined. */
export async function readStoredPull(fileSha256: string, id: string, extension: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const path = storedPullPath(fileSha256, id, extension, env);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    return undefined;
  }
  return sha256Hex(bytes) === fileSha256 ? path : undefined;
}

/**
 * Writes a verified pull into the user space (atomic: temp file + fsync + rename). Files of the same
 * item with another extension (an older cached version) are removed so they cannot shadow it.
 */
export async function writeCachedItem(pull: VerifiedPull, options: { env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const env = options.env ?? process.env;
  const root = userAiDir(env);
  const path = cachedItemPath(pull.type, pull.id, pull.file_extension, env);
  const stored = storedPullPath(pull.file_sha256, pull.id, pull.file_extension, env);
  await assertWritableInside(root, stored);
  await assertWritableInside(root, path);
  if (!(await readStoredPull(pull.file_sha256, pull.id, pull.file_extension, env))) await writeFileAtomic(stored, pull.content, { mode: 0o444, dirMode: 0o755 });
  await writeFileAtomic(path, pull.content, { mode: 0o644, dirMode: 0o755 });
  for (const ext of extensionsFor(pull.type)) {
    if (ext !== pull.file_extension) await rm(cachedItemPath(pull.type, pull.id, ext, env), { force: true });
  }
  return path;
}

/**
 * The key of `registry` with `fingerprint` according to its pin (no network): the pinned key or a
 * retired one (rotated out, not revoked), its PEM re-hashed to the fingerprint; or why there is none.
 */
async function pinnedRegistryKey(registry: string, fingerprint: string, env: NodeJS.ProcessEnv): Promise<{ key: PublicKey; retired: boolean } | { why: string }> {
  const pin = await getRegistryPin(registry, env);
  if (!pin) return { why: `no key of ${registry} is pinned` };
  const known = pinnedKeyFor(pin, fingerprint);
  if (!known) return { why: `${fingerprint} is neither the pinned key of ${registry} (${pin.fingerprint}) nor one it rotated away from` };
  if ("revoked" in known) {
    return { why: `the key ${fingerprint} of ${registry} was revoked at ${known.revoked.revoked_at}${known.revoked.reason ? ` (${known.revoked.reason})` : ""}` };
  }
  return known;
}

/**
 * The registry trust rule for a signature the trust store does not know (`base`: the engine verifier's
 * UNTRUSTED_KEY result; withRegistryTrust, registry-trust.ts, decides when it applies).
 */
export async function verifyWithRegistryPin(base: VerifyResult, content: string, type: ItemType, options: { projectPath: string; env: NodeJS.ProcessEnv }): Promise<VerifyResult> {
  const extracted = extractSignature(content, type);
  const fromRegistry = extracted.status === "signed" && extracted.signature.provider === "rye-registry";
  if (!fromRegistry) return base;
  let lock;
  try {
    lock = await readProjectLock(options.projectPath);
  } catch {
    return base; // a damaged lock grants nothing
  }
  const fileSha256 = sha256Hex(content);
  const entry = lock.items.find((e) => e.type === type && e.content_hash === base.contentHash && e.key_fingerprint === base.fingerprint && e.file_sha256 === fileSha256);
  if (!entry) {
    // A registry item this project has not pinned (pulled for another project, or an edited copy).
    return { ...base, message: `${base.message}: a registry item (published by ${extracted.signature.username}) that this project's .ai/rye.lock does not pin; load it once with the registry reachable to verify and pin it here, or pull it with \`rye pull\`` };
  }
  const found = await pinnedRegistryKey(entry.registry, entry.key_fingerprint, options.env).catch((err: unknown) => ({ why: err instanceof Error ? err.message : String(err) }));
  if (!("key" in found)) {
    return { ...base, message: `${base.message}: pinned by the project lock to ${entry.registry}, but ${found.why} (run \`rye update ${entry.id}\`)` };
  }
  const result = await verifyItem(content, type, keyResolverFrom([found.key]));
  const which = found.retired ? `the retired key ${found.key.fingerprint}` : "the pinned key";
  return result.ok ? { ...result, message: `Signature verified with ${which} of ${entry.registry}` } : result;
}

