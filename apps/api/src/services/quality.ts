/**
 * Quality and safety signals of published versions (docs/quality.md): computed at publish and stored with the
 * version; the item's stored score follows every change of its state (publish, yank, unyank, approval, deletion);
 * "recently updated" is added when read. Safety reports made under older rules are made again at start-up and by
 * `npm run registry -- signals refresh` (`refreshStaleSignals`).
 */
import type { ItemType, ParsedItem, PublishSignals, QualityReport, SafetyReport, VersionQuality } from "@rye/core";
import { parseItem, QUALITY_FACTORS, QUALITY_RECENT_DAYS, qualityReport, safetyReport, scannableToolFile, storedQualityPoints, stripSignature, versionQualitySchema, versionQuality } from "@rye/core";
import type { Database, Prisma } from "@rye/db";
import type { SafetyRules } from "./safety-rules.ts";
import { latestOf } from "./versions.ts";

type Tx = Prisma.TransactionClient;

/**
 * The score search filters and sorts by, in SQL over `items i`: stored points plus "recently updated" from the
 * newest publish date, as a share of the applicable points (the same arithmetic as @rye/core `qualityReport`).
 * Items without a stored score (skills; none published) score 0.
 */
export const QUALITY_SCORE_SQL = `COALESCE(round(100.0 * (i.quality_points + CASE WHEN i.latest_published_at > now() - interval '${QUALITY_RECENT_DAYS} days' THEN ${QUALITY_FACTORS.recent.points} ELSE 0 END) / NULLIF(i.quality_max, 0))::int, 0)`;

/** The same score from an item row, for answers that are not searches. */
export function storedQualityScore(item: { qualityPoints: number | null; qualityMax: number | null; latestPublishedAt: Date | null }, now: Date = new Date()): number | null {
  if (item.qualityPoints === null || !item.qualityMax) return null;
  const recent = item.latestPublishedAt !== null && now.getTime() - item.latestPublishedAt.getTime() < QUALITY_RECENT_DAYS * 86_400_000;
  return Math.round((100 * (item.qualityPoints + (recent ? QUALITY_FACTORS.recent.points : 0))) / item.qualityMax);
}

export interface VersionSignals {
  quality: VersionQuality;
  safety: SafetyReport | null;
  safetyRulesVersion: string | null;
}

/** A tool's safety report (null for other types); `served`: the file as served (line numbers are its lines). */
export function safetyOf(parsed: ParsedItem, served: string, rules: SafetyRules): SafetyReport | null {
  if (parsed.type !== "tool") return null;
  return safetyReport({ format: parsed.metadata.format, body: scannableToolFile(served), executorId: parsed.summary.executorId ?? null, extras: parsed.metadata.extras, config: parsed.metadata.config }, rules.rules);
}

export function versionSignals(parsed: ParsedItem, body: string, publish: PublishSignals, safety: SafetyReport | null): VersionSignals {
  return { quality: versionQuality(parsed, body, publish), safety, safetyRulesVersion: safety?.rules_version ?? null };
}

/** Stores the item's score (without "recently updated") from its versions' current state. */
export async function refreshItemQuality(tx: Tx, itemId: string): Promise<void> {
  const versions = await tx.itemVersion.findMany({ where: { itemId }, select: { version: true, yanked: true, status: true, createdAt: true, quality: true } });
  const published = versions.filter((v) => v.status === "published");
  const latest = latestOf(versions);
  const stored = published.find((v) => v.version === latest)?.quality;
  const parsed = stored ? versionQualitySchema.safeParse(stored) : null;
  const newest = published.reduce<Date | null>((at, v) => (at === null || v.createdAt > at ? v.createdAt : at), null);
  const points = parsed?.success ? storedQualityPoints(parsed.data, { publishedVersions: published.length, yankedVersions: published.filter((v) => v.yanked).length }) : null;
  await tx.item.updateMany({ where: { id: itemId }, data: { qualityPoints: points?.points ?? null, qualityMax: points?.max ?? null, latestPublishedAt: newest } });
}

/** The quality report of one version of an item (the item factors from the item's published versions). */
export async function qualityReportOf(db: Database, itemId: string, version: { version: string; quality: unknown }, now: Date = new Date()): Promise<QualityReport | null> {
  const parsed = versionQualitySchema.safeParse(version.quality);
  if (!parsed.success) return null;
  const published = await db.prisma.itemVersion.findMany({ where: { itemId, status: "published" }, select: { yanked: true, createdAt: true } });
  const newest = published.reduce<Date | null>((at, v) => (at === null || v.createdAt > at ? v.createdAt : at), null);
  return qualityReport(version.version, parsed.data, { publishedVersions: published.length, yankedVersions: published.filter((v) => v.yanked).length, latestPublishedAt: newest }, now);
}

/** Versions examined per round trip when refreshing. */
export const REFRESH_BATCH = 100;

interface StaleRow {
  id: string;
  item_id: string;
  content: string;
  author_verified: boolean;
  author_fingerprint: string | null;
  log_index: bigint | number | null;
  attestation_signature: string;
  type: ItemType;
  name: string;
  category: string;
  file_extension: string | null;
}

/** Versions whose signals refreshStaleSignals would compute (`$1`: the rules version), over `item_versions v JOIN items i`. */
const STALE_SIGNALS_WHERE = `i.type <> 'skill' AND (v.quality IS NULL OR (i.type = 'tool' AND v.safety_rules_version IS DISTINCT FROM $1::text))`;

/** True when refreshStaleSignals with `rules` has versions to look at (the start-up check). */
export async function hasStaleSignals(db: Database, rules: SafetyRules): Promise<boolean> {
  const { rows } = await db.raw.query<{ stale: boolean }>(`SELECT EXISTS (SELECT 1 FROM item_versions v JOIN items i ON i.id = v.item_id WHERE ${STALE_SIGNALS_WHERE}) AS stale`, [rules.version]);
  return rows[0]!.stale;
}

/**
 * Computes what is missing or out of date: the quality of versions that have none (published before quality
 * existed) and the safety report of every tool version whose report was made under other rules than `rules`.
 * Returns how many versions and items it updated. Idempotent: a second run with the same rules updates nothing.
 */
export async function refreshStaleSignals(db: Database, rules: SafetyRules, options: { batch?: number } = {}): Promise<{ versions: number; items: number }> {
  const batch = options.batch ?? REFRESH_BATCH;
  let after = "00000000-0000-0000-0000-000000000000";
  let versions = 0;
  const items = new Set<string>();
  for (;;) {
    const { rows } = await db.raw.query<StaleRow>(
      `SELECT v.id, v.item_id, v.content, v.author_verified, v.author_fingerprint, v.log_index, v.attestation_signature, i.type::text AS type, i.name, i.category, i.file_extension
       FROM item_versions v JOIN items i ON i.id = v.item_id
       WHERE ${STALE_SIGNALS_WHERE} AND v.id > $2::uuid
       ORDER BY v.id LIMIT $3::int`,
      [rules.version, after, batch],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      after = row.id;
      const extension = row.type === "tool" ? (row.file_extension ?? ".py") : ".md";
      const body = stripSignature(row.content, row.type);
      let parsed: ParsedItem;
      try {
        parsed = parseItem(body, row.type, { path: `${row.name}${extension}`, location: { stem: row.name, category: row.category } });
      } catch {
        continue; // a stored file that no longer parses keeps what it has; it is skipped, never retried forever (the cursor moves on)
      }
      const signals = versionSignals(
        parsed,
        body,
        { authorVerified: row.author_verified, authorFingerprint: row.author_fingerprint, logIndex: row.log_index === null ? null : Number(row.log_index), attested: row.attestation_signature !== "" },
        safetyOf(parsed, row.content, rules),
      );
      await db.prisma.itemVersion.update({
        where: { id: row.id },
        data: { quality: signals.quality as unknown as Prisma.InputJsonValue, ...(signals.safety ? { safety: signals.safety as unknown as Prisma.InputJsonValue, safetyRulesVersion: signals.safetyRulesVersion } : {}) },
      });
      versions++;
      items.add(row.item_id);
    }
  }
  for (const itemId of items) await db.prisma.$transaction((tx) => refreshItemQuality(tx, itemId));
  return { versions, items: items.size };
}
