/**
 * Download statistics of one item: downloads per UTC day over the last `days` days (every day present, zeros
 * included, oldest first) and per version over the same window. Counted by services/download-counter.ts, so
 * figures lag the pulls by at most one flush interval.
 */
import type { Database } from "@rye/db";

export const MAX_STATS_DAYS = 365;
export const DEFAULT_STATS_DAYS = 30;

export interface DownloadStats {
  since: string;
  until: string;
  total: number;
  days: { date: string; downloads: number }[];
  versions: { version: string; downloads: number }[];
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

export async function downloadStats(db: Database, itemId: string, days: number, now = new Date()): Promise<DownloadStats> {
  const until = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const since = new Date(until.getTime() - (days - 1) * 86_400_000);
  const [perDay, perVersion] = await Promise.all([
    db.raw.query<{ day: string; n: number }>(
      "SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(count)::int AS n FROM download_days WHERE item_id = $1 AND day >= $2::date GROUP BY day",
      [itemId, isoDay(since)],
    ),
    db.raw.query<{ version: string; n: number }>(
      "SELECT version, sum(count)::int AS n FROM download_days WHERE item_id = $1 AND day >= $2::date GROUP BY version ORDER BY n DESC, version LIMIT 100",
      [itemId, isoDay(since)],
    ),
  ]);
  const byDay = new Map(perDay.rows.map((r) => [r.day, Number(r.n)]));
  const series = Array.from({ length: days }, (_, i) => {
    const date = isoDay(new Date(since.getTime() + i * 86_400_000));
    return { date, downloads: byDay.get(date) ?? 0 };
  });
  return {
    since: isoDay(since),
    until: isoDay(until),
    total: series.reduce((sum, d) => sum + d.downloads, 0),
    days: series,
    versions: perVersion.rows.map((r) => ({ version: r.version, downloads: Number(r.n) })),
  };
}
