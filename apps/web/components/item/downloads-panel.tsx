/** The item page's download statistics: a bar per day for the last 30 days (GET /v1/downloads) and the top versions. */
import type { ItemType } from "@rye/core";
import { apiOrNull } from "@/lib/api";

interface DownloadStats {
  since: string;
  until: string;
  total: number;
  days: { date: string; downloads: number }[];
  versions: { version: string; downloads: number }[];
}

const box = "rounded-lg border border-neutral-200 p-4 dark:border-neutral-800";
const WIDTH = 240;
const HEIGHT = 48;

const encodeId = (id: string) => id.split("/").map(encodeURIComponent).join("/");

export async function DownloadsPanel({ type, id }: { type: ItemType; id: string }) {
  const stats = await apiOrNull<DownloadStats>(`/v1/downloads/${type}/${encodeId(id)}?days=30`, { session: true });
  if (!stats) return null;
  const peak = Math.max(1, ...stats.days.map((d) => d.downloads));
  const step = WIDTH / stats.days.length;
  const summary = `${stats.total.toLocaleString("en")} download${stats.total === 1 ? "" : "s"} in the last ${stats.days.length} days`;
  return (
    <section aria-labelledby="downloads-heading" className={`${box} space-y-2`}>
      <h2 id="downloads-heading" className="text-base font-semibold">
        Downloads
      </h2>
      <p className="text-sm">{summary}</p>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} className="h-12 w-full text-brand-700 dark:text-brand-300" role="img" aria-label={`Downloads per day from ${stats.since} to ${stats.until}, at most ${peak} a day`}>
        {stats.days.map((d, i) => {
          const h = d.downloads === 0 ? 1 : Math.max(2, (d.downloads / peak) * HEIGHT);
          return (
            <rect key={d.date} x={i * step + 0.5} y={HEIGHT - h} width={Math.max(1, step - 1)} height={h} fill="currentColor" opacity={d.downloads === 0 ? 0.25 : 1}>
              <title>{`${d.date}: ${d.downloads}`}</title>
            </rect>
          );
        })}
      </svg>
      {stats.versions.length > 0 ? (
        <table className="w-full text-left text-xs">
          <caption className="sr-only">Downloads per version in the last {stats.days.length} days</caption>
          <thead>
            <tr>
              <th scope="col" className="font-medium">Version</th>
              <th scope="col" className="text-right font-medium">Downloads</th>
            </tr>
          </thead>
          <tbody>
            {stats.versions.slice(0, 5).map((v) => (
              <tr key={v.version}>
                <td className="font-mono">{v.version}</td>
                <td className="text-right tabular-nums">{v.downloads.toLocaleString("en")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
