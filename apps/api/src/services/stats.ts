/**
 * GET /v1/stats: counts over public items only (the same answer for every caller, so it can be cached
 * and shared): items per type, namespaces with at least one public item, and the downloads of public
 * items. Private and unlisted items, and items with no approved version yet (held), never count, whoever asks. One aggregate query (a sequential scan
 * of `items`: 100 000 items take tens of milliseconds), cached in-process for `STATS_TTL_MS`, computed
 * once for concurrent callers.
 *
 * Invalidation across processes: with a read generation (services/read-generation.ts, moved by every commit
 * that changes items, versions or namespaces, by any process) the cached value is also dropped as soon as the
 * generation moves, so a publish, yank, delete or visibility change made through another process shows in the
 * next answer instead of after the TTL. Downloads do not move the generation: they are at most the TTL old.
 */
import type { RegistryStats } from "@rye/core";
import type { Database } from "@rye/db";

export const STATS_TTL_MS = 5_000;

interface StatsRow {
  directive: bigint | number;
  tool: bigint | number;
  knowledge: bigint | number;
  skill: bigint | number;
  namespaces: bigint | number;
  downloads: bigint | number | string | null;
}

export async function computeStats(db: Database, now: Date = new Date()): Promise<RegistryStats> {
  const { rows } = await db.raw.query<StatsRow>(`
    SELECT count(*) FILTER (WHERE type = 'directive') AS directive,
           count(*) FILTER (WHERE type = 'tool') AS tool,
           count(*) FILTER (WHERE type = 'knowledge') AS knowledge,
           count(*) FILTER (WHERE type = 'skill') AS skill,
           count(DISTINCT namespace_id) AS namespaces,
           COALESCE(sum(download_count), 0)::int8 AS downloads
    FROM items WHERE visibility = 'public' AND NOT held`);
  const row = rows[0];
  const directive = Number(row?.directive ?? 0);
  const tool = Number(row?.tool ?? 0);
  const knowledge = Number(row?.knowledge ?? 0);
  const skill = Number(row?.skill ?? 0);
  return {
    items: { total: directive + tool + knowledge + skill, directive, tool, knowledge, skill },
    namespaces: Number(row?.namespaces ?? 0),
    downloads: Number(row?.downloads ?? 0),
    generated_at: now.toISOString(),
  };
}

/** The stats of one database, recomputed at most once per `ttlMs`; concurrent callers share one query. */
export class StatsCache {
  private value: RegistryStats | null = null;
  private expires = 0;
  private valueGeneration: bigint | null = null;
  private pending: Promise<RegistryStats> | null = null;

  constructor(
    private readonly db: Database,
    private readonly ttlMs: number = STATS_TTL_MS,
    private readonly clock: () => number = Date.now,
    /** The read generation; unset → the TTL alone decides. */
    private readonly generation?: () => Promise<bigint>,
  ) {}

  async get(): Promise<RegistryStats> {
    const generation = this.generation ? await this.generation() : null;
    if (this.value && this.clock() < this.expires && generation === this.valueGeneration) return this.value;
    // Read under `generation`: a change committed after it moves the generation again and is recomputed then.
    this.pending ??= computeStats(this.db, new Date(this.clock()))
      .then((stats) => {
        this.value = stats;
        this.expires = this.clock() + this.ttlMs;
        this.valueGeneration = generation;
        return stats;
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  /** Seconds the current value stays fresh (for Cache-Control). */
  remainingSeconds(): number {
    return Math.max(0, Math.ceil((this.expires - this.clock()) / 1000));
  }
}
