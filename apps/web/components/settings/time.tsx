/** Dates as people read them, the same on the server and in the browser (UTC, no hydration mismatch). */
const FORMAT = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZone: "UTC" });

export function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${FORMAT.format(date)} UTC`;
}

/** "in 3 days", "5 minutes ago" relative to `now`. */
export function relativeTo(iso: string, now: number): string {
  const ms = new Date(iso).getTime() - now;
  const abs = Math.abs(ms);
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ["year", 365 * 86_400_000],
    ["month", 30 * 86_400_000],
    ["day", 86_400_000],
    ["hour", 3_600_000],
    ["minute", 60_000],
  ];
  const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
  for (const [unit, size] of units) if (abs >= size) return rtf.format(Math.round(ms / size), unit);
  return ms < 0 ? "just now" : "in less than a minute";
}

export function Time({ iso, relative = false, now }: { iso: string; relative?: boolean; now?: number }) {
  return (
    <time dateTime={iso} title={formatDate(iso)}>
      {relative && now !== undefined ? relativeTo(iso, now) : formatDate(iso)}
    </time>
  );
}
