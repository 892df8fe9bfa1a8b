/**
 * The pull read path (GET /v1/pull): the answer for (type, id, version), read from the database and cached by
 * PullCache for the read generation it was read under. The cache, the generation and the download counter are
 * one `ReadPath` per process, opened with the registry and closed before its database.
 */
import { createHash } from "node:crypto";
import { extractSignature, registryIdOf, type RegistryItemType, RyeError } from "@rye/core";
import type { Database } from "@rye/db";
import type { Principal } from "../auth/principal.ts";
import type { RegistryConfig } from "../config.ts";
import type { Logger } from "../logger.ts";
import { DEFAULT_MAX_PENDING_ITEMS, DownloadCounter } from "./download-counter.ts";
import { findReadableItem } from "./items.ts";
import { type PullAnswer, PullCache } from "./pull-cache.ts";
import { openReadGeneration, type ReadGeneration } from "./read-generation.ts";

export interface ReadPath {
  generation: ReadGeneration;
  cache: PullCache;
  downloads: DownloadCounter;
  /** Writes pending download counts and stops listening; call before closing the database. */
  close(): Promise<void>;
}

export async function openReadPath(db: Database, config: RegistryConfig, logger: Logger): Promise<ReadPath> {
  const generation = await openReadGeneration(db);
  const cache = new PullCache({ maxEntries: config.reads.pullCacheEntries, maxBytes: config.reads.pullCacheBytes });
  const downloads = new DownloadCounter(db, logger, { intervalMs: config.reads.downloadFlushMs, maxPendingItems: DEFAULT_MAX_PENDING_ITEMS });
  return {
    generation,
    cache,
    downloads,
    close: async () => {
      await downloads.close();
      await generation.close();
    },
  };
}

/** A pull answer plus whether it may be cached (published versions of items that are not held). */
export interface ResolvedPull extends PullAnswer {
  cacheable: boolean;
}

/** Reads the answer for a pull from the database, with every check of an uncached pull (visibility, approval). */
export async function resolvePull(db: Database, principal: Principal | null, typeParam: string, id: string, requested: string | undefined): Promise<ResolvedPull> {
  const { type, ref, item, seesHeld } = await findReadableItem(db, principal, typeParam, id);
  // latest_version is maintained on publish, yank and delete (highest non-yanked, stable first).
  const version = requested ?? item.latestVersion;
  if (!version) throw new RyeError("ITEM_NOT_FOUND", `${type} ${ref.id} has no installable version (all are yanked)`, { hint: "Pull an explicit version with ?version=." });
  const found = await db.prisma.itemVersion.findUnique({ where: { itemId_version: { itemId: item.id, version } }, include: { publisher: { select: { username: true } } } });
  // A version held for approval (pending or rejected) exists only for those who review it.
  const row = found && (found.status === "published" || (await seesHeld())) ? found : null;
  if (!row) {
    const versions = await db.prisma.itemVersion.findMany({ where: { itemId: item.id, ...((await seesHeld()) ? {} : { status: "published" }) }, select: { version: true }, orderBy: { createdAt: "desc" }, take: 50 });
    throw new RyeError("ITEM_NOT_FOUND", `${type} ${ref.id}@${version} not found`, { details: { versions: versions.map((v) => v.version) } });
  }

  // What can change for a stored version (the item's id and state, the publisher's name), serialized per answer…
  const state = JSON.stringify({
    item_type: type,
    item_id: registryIdOf(item.namespace.name, item.category, item.name),
    namespace: item.namespace.name,
    category: item.category,
    name: item.name,
    file_extension: item.fileExtension ?? (type === "skill" ? ".yaml" : ".md"),
    author: row.publisher.username,
    yanked: row.yanked,
    yanked_reason: row.yankedReason,
    deprecated: item.deprecated,
    deprecation_message: item.deprecationMessage,
    visibility: item.visibility,
    // "published"; "pending" / "rejected" only for the namespace's owners/admins and registry admins.
    status: row.status,
  });
  // …and what never changes in normal operation. It is serialized again on every miss (not cached across read
  // generations): a row changed out of band (an operator's repair, or a tamper) bumps the generation and must be
  // served as it now is.
  const fixed = (() => {
    const signature = signatureInfo(row.content, type);
    const attestation = row.attestation as Record<string, unknown>;
    return JSON.stringify({
      version: row.version,
      content: row.content,
      signature,
      content_hash: row.contentHash,
      file_sha256: row.fileSha256,
      author_key: row.authorFingerprint ? { fingerprint: row.authorFingerprint, signature: row.authorSignature, verified: row.authorVerified } : null,
      attestation: { payload: attestation, signature: row.attestationSignature, key_fingerprint: signature.fingerprint },
      log_index: row.logIndex === null ? null : Number(row.logIndex),
      created_at: row.createdAt.toISOString(),
    });
  })();
  const published = row.status === "published";
  return {
    itemId: item.id,
    version: row.version,
    status: row.status,
    access: { visibility: item.visibility, namespaceId: item.namespaceId },
    namespaceName: item.namespace.name,
    // The content hash, plus a digest of the version's state: a yank or deprecation changes the answer, so it
    // must not be answered 304 to a client holding the earlier one.
    etag: `"${row.contentHash}.${createHash("sha256").update(state).digest("hex").slice(0, 16)}"`,
    cacheControl: item.visibility !== "public" || !published ? "private, no-cache" : requested ? "public, max-age=31536000, immutable" : "public, max-age=60, must-revalidate",
    body: Buffer.from(`${state.slice(0, -1)},${fixed.slice(1)}`),
    logIndex: row.logIndex === null ? null : Number(row.logIndex),
    cacheable: published && !item.held,
  };
}

function signatureInfo(content: string, type: RegistryItemType): { timestamp: string; hash: string; registry_username: string | null; fingerprint: string } {
  // A skill's content is its manifest, signed with the tool rule (`# rye:signed:` line).
  const extracted = extractSignature(content, type === "skill" ? "tool" : type);
  if (extracted.status !== "signed") return { timestamp: "", hash: "", fingerprint: "", registry_username: null };
  const sig = extracted.signature;
  return { timestamp: sig.timestamp, hash: sig.hash, fingerprint: sig.fingerprint, registry_username: sig.provider === "rye-registry" ? (sig.username ?? null) : null };
}
