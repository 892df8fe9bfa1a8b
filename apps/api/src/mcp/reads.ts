/**
 * What the MCP tools read, through the same services and access checks as the HTTP routes: visibility
 * (services/access.ts canRead via findReadableItem), held versions (services/approval.ts seesHeld) and yanked
 * versions (listed, pullable by exact version, never "latest") follow the HTTP rules because they are the HTTP
 * code. Mirrors' upstream fallbacks are not asked (the MCP tools answer for this registry's own items).
 */
import { compareSemver } from "@rye/core";
import type { Principal } from "../auth/principal.ts";
import type { AppDeps } from "../services/deps.ts";
import { findReadableItem } from "../services/items.ts";
import { pullCacheKey, type PullAnswer } from "../services/pull-cache.ts";
import { resolvePull } from "../services/pull.ts";
import { canRead } from "../services/access.ts";
import { storedQualityScore } from "../services/quality.ts";
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

const VERDICTS = new Set(["ok", "review", "danger"]);
function safetyVerdict(report: unknown): "ok" | "review" | "danger" | null {
  const verdict = report && typeof report === "object" ? (report as { verdict?: unknown }).verdict : undefined;
  return typeof verdict === "string" && VERDICTS.has(verdict) ? (verdict as "ok" | "review" | "danger") : null;
}

/** GET /v1/items/{type}/{id}'s answer (routes/search.ts builds the same from the same rows). */
export async function readItemDetails(deps: AppDeps, principal: Principal | null, typeParam: string, id: string): Promise<ListVersionsOutput> {
  const { type, ref, item, seesHeld } = await findReadableItem(deps.db, principal, typeParam, id);
  // Held versions are listed (with their status) only for the namespace's owners/admins and registry admins.
  const reviewer = await seesHeld();
  const versions = await deps.db.prisma.itemVersion.findMany({
    where: { itemId: item.id, ...(reviewer ? {} : { status: "published" }) },
    select: { version: true, createdAt: true, yanked: true, yankedReason: true, contentHash: true, sizeBytes: true, logIndex: true, status: true, heldReason: true, safety: true, publisher: { select: { username: true } } },
  });
  versions.sort((a, b) => compareSemver(b.version, a.version));
  return {
    item_type: type,
    item_id: ref.id,
    namespace: item.namespace.name,
    category: item.category,
    name: item.name,
    description: item.description,
    author: item.namespace.name,
    version: item.latestVersion,
    latest_version: item.latestVersion,
    visibility: item.visibility,
    deprecated: item.deprecated,
    deprecation_message: item.deprecationMessage,
    download_count: item.downloadCount,
    tool_type: item.toolType,
    file_extension: item.fileExtension,
    created_at: item.createdAt.toISOString(),
    updated_at: item.updatedAt.toISOString(),
    quality_score: storedQualityScore(item),
    versions: versions.map((v) => ({
      version: v.version,
      created_at: v.createdAt.toISOString(),
      yanked: v.yanked,
      yanked_reason: v.yankedReason,
      content_hash: v.contentHash,
      size_bytes: v.sizeBytes,
      publisher: v.publisher.username,
      log_index: v.logIndex === null ? null : Number(v.logIndex),
      ...(reviewer ? { status: v.status, held_reason: v.heldReason } : {}),
      ...(type === "tool" ? { safety_verdict: safetyVerdict(v.safety) } : {}),
    })),
  };
}

/** A registry key's PEM by fingerprint (current or retired), or null. */
export async function registryKeyPem(deps: AppDeps, fingerprint: string): Promise<string | null> {
  const active = await deps.keyring.signer();
  if (active.publicKey.fingerprint === fingerprint) return active.publicKey.pem;
  const row = await deps.db.prisma.registryKey.findUnique({ where: { fingerprint }, select: { publicKeyPem: true } });
  return row?.publicKeyPem ?? null;
}

/** The publisher's registered key by fingerprint, or null when the publisher has no such key. */
export async function publisherKey(deps: AppDeps, username: string, fingerprint: string): Promise<{ fingerprint: string; public_key: string | null; revoked: boolean }> {
  const row = await deps.db.prisma.userKey.findFirst({ where: { fingerprint, user: { username } }, select: { publicKeyPem: true, revokedAt: true } });
  if (!row) return { fingerprint, public_key: null, revoked: false };
  return { fingerprint, public_key: row.publicKeyPem, revoked: row.revokedAt !== null };
}
