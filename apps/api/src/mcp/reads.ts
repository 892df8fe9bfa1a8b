/**
 * What the MCP tools read, through the same services and access checks as the HTTP routes: visibility
 * (services/access.ts canRead via findReadableItem), held versions (services/approval.ts seesHeld) and yanked
 * versions (listed, pullable by exact version, never "latest") follow the HTTP rules because they are the HTTP
 * code. Mirrors' upstream fallbacks are not asked (the MCP tools answer for this registry's own items).
 */
import type { Principal } from "../auth/principal.ts";
import type { AppDeps } from "../services/deps.ts";
import { findReadableItem } from "../services/items.ts";
import { pullCacheKey, type PullAnswer } from "../services/pull-cache.ts";
import { resolvePull } from "../services/pull.ts";
import { canRead } from "../services/access.ts";
import { itemDetailsOf } from "../services/item-details.ts";
import type { ListVersionsOutput } from "./schemas.ts";

/**
 * GET /v1/pull's answer for (type, id, version), from the process's pull cache when it holds it for the current
 * read generation (as the route reads it: a cached private answer only for callers who pass the same check),
 * else read and cached. No download is counted: an MCP read is a look, not an install.
 */
export async function readPull(deps: AppDeps, principal: Principal | null, type: string, id: string, version: string | undefined): Promise<PullAnswer> {
  const key = pullCacheKey(type, id, version);
  const generation = await deps.reads.generation.current();
  let answer = deps.reads.cache.get(key, generation);
  if (answer && (answer.mirrored || (answer.access.visibility === "private" && !(await canRead(deps.db, principal, answer.access, answer.namespaceName))))) answer = undefined;
  if (answer) return answer;
  const resolved = await resolvePull(deps.db, principal, type, id, version);
  if (resolved.cacheable) deps.reads.cache.set(key, generation, resolved);
  return resolved;
}

/** GET /v1/items/{type}/{id}'s answer, from the same service as the route. */
export async function readItemDetails(deps: AppDeps, principal: Principal | null, typeParam: string, id: string): Promise<ListVersionsOutput> {
  return await itemDetailsOf(deps.db, await findReadableItem(deps.db, principal, typeParam, id));
}

/** Registry key PEMs by fingerprint: a fingerprint names one key forever, so a PEM found once is kept. */
const KEY_PEMS = new Map<string, string>();
const MAX_KEY_PEMS = 256;

/** A registry key's PEM by fingerprint (current or retired), or null. */
export async function registryKeyPem(deps: AppDeps, fingerprint: string): Promise<string | null> {
  const kept = KEY_PEMS.get(fingerprint);
  if (kept) return kept;
  const row = await deps.db.prisma.registryKey.findUnique({ where: { fingerprint }, select: { publicKeyPem: true } });
  const pem = row?.publicKeyPem ?? ((await deps.keyring.signer()).publicKey.fingerprint === fingerprint ? (await deps.keyring.signer()).publicKey.pem : null);
  if (pem && KEY_PEMS.size < MAX_KEY_PEMS) KEY_PEMS.set(fingerprint, pem);
  return pem;
}

/** The publisher's registered key by fingerprint, or null when the publisher has no such key. */
export async function publisherKey(deps: AppDeps, username: string, fingerprint: string): Promise<{ fingerprint: string; public_key: string | null; revoked: boolean }> {
  const row = await deps.db.prisma.userKey.findFirst({ where: { fingerprint, user: { username } }, select: { publicKeyPem: true, revokedAt: true } });
  if (!row) return { fingerprint, public_key: null, revoked: false };
  return { fingerprint, public_key: row.publicKeyPem, revoked: row.revokedAt !== null };
}
