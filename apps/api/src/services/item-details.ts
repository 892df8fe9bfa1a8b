/**
 * An item's page of versions (GET /v1/items/{type}/{id}, and the remote MCP server's `list_versions`): its metadata and
 * every version the caller may see, newest first. Versions held for approval are listed, with their status, only for
 * the namespace's owners and admins and registry admins.
 */
import { compareSemver, type ItemDetails } from "@rye/core";
import type { Database } from "@rye/db";
import type { findReadableItem } from "./items.ts";
import { storedQualityScore } from "./quality.ts";

const VERDICTS = new Set(["ok", "review", "danger"]);
/** The verdict of a stored safety report, or null without one. */
function safetyVerdict(report: unknown): "ok" | "review" | "danger" | null {
  const verdict = report && typeof report === "object" ? (report as { verdict?: unknown }).verdict : undefined;
  return typeof verdict === "string" && VERDICTS.has(verdict) ? (verdict as "ok" | "review" | "danger") : null;
}

export async function itemDetailsOf(db: Database, found: Awaited<ReturnType<typeof findReadableItem>>): Promise<ItemDetails> {
  const { type, ref, item, seesHeld } = found;
  const reviewer = await seesHeld();
  const versions = await db.prisma.itemVersion.findMany({
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
