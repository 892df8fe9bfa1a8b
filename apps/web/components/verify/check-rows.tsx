/**
 * What the item and skill verification panels share: a row's state, its icon and status line, the list of checks
 * (fixed height per row, so results fill the box in without moving anything), the summary block, and the fetch of
 * a registry answer as a page view.
 */
export type RowState = "waiting" | "running" | "passed" | "failed" | "skipped";
export interface Row {
  state: RowState;
  detail: string;
}
export type VerifySummary = { kind: "running" | "ok" | "failed" | "error"; text: string; hint?: string };

const ICON: Record<RowState, string> = { waiting: "○", running: "…", passed: "✓", failed: "✗", skipped: "–" };
const WORD: Record<RowState, string> = { waiting: "Waiting", running: "Checking", passed: "Passed", failed: "Failed", skipped: "Not run" };
const ICON_CLASS: Record<RowState, string> = {
  waiting: "border-neutral-300 text-neutral-600 dark:border-neutral-700 dark:text-neutral-400",
  running: "border-neutral-400 text-neutral-700 dark:border-neutral-500 dark:text-neutral-300",
  passed: "border-green-700 bg-green-50 text-green-800 dark:border-green-400 dark:bg-green-950 dark:text-green-300",
  failed: "border-red-700 bg-red-50 text-red-800 dark:border-red-400 dark:bg-red-950 dark:text-red-300",
  skipped: "border-neutral-300 text-neutral-600 dark:border-neutral-700 dark:text-neutral-400",
};

/** Every key waiting. */
export function waitingRows<K extends string>(keys: readonly K[]): Record<K, Row> {
  return Object.fromEntries(keys.map((k) => [k, { state: "waiting" as RowState, detail: "" }])) as Record<K, Row>;
}

export function StateIcon({ state }: { state: RowState }) {
  return (
    <span aria-hidden="true" className={`mt-0.5 flex h-5 w-5 shrink-0 items-center justify-center rounded-full border text-xs font-bold ${ICON_CLASS[state]}`}>
      {ICON[state]}
    </span>
  );
}

/** The state in words (not colour only), and the detail truncated to one line (in full on hover). */
export function RowStatus({ row }: { row: Row }) {
  return (
    <p className="truncate text-xs leading-4 text-neutral-600 dark:text-neutral-400" title={row.detail || undefined}>
      <span className="font-medium text-neutral-800 dark:text-neutral-200">{WORD[row.state]}</span>
      {row.detail ? `: ${row.detail}` : ""}
    </p>
  );
}

export function CheckList<K extends string>({ checks, rows, live }: { checks: readonly { id: K; label: string }[]; rows: Record<K, Row>; live?: boolean }) {
  return (
    <ol className="mt-3 space-y-2" aria-live={live ? "polite" : undefined} aria-label="Verification checks">
      {checks.map((check, i) => {
        const row = rows[check.id];
        return (
          // Fixed height: a label of up to two lines and one status line, whatever the result.
          <li key={check.id} className="flex h-14 gap-2 overflow-hidden" data-state={row.state}>
            <StateIcon state={row.state} />
            <div className="min-w-0 flex-1">
              <p className="line-clamp-2 text-sm leading-5">
                <span className="sr-only">Check {i + 1}: </span>
                {check.label}
              </p>
              <RowStatus row={row} />
            </div>
          </li>
        );
      })}
    </ol>
  );
}

/** The summary, a failed check's full reason (its row shows one truncated line) and a hint, in room reserved from the start. */
export function SummaryBlock({ summary, rows, testId }: { summary: VerifySummary; rows: readonly Row[]; testId: string }) {
  const reason = summary.kind === "failed" ? rows.find((r) => r.state === "failed")?.detail : undefined;
  const summaryClass = summary.kind === "ok" ? "text-green-800 dark:text-green-300" : summary.kind === "running" ? "text-neutral-700 dark:text-neutral-300" : "text-red-800 dark:text-red-300";
  return (
    <div className="mt-3 min-h-20 border-t border-neutral-200 pt-3 dark:border-neutral-800">
      <p role="status" className={`text-sm font-semibold ${summaryClass}`} data-testid={testId}>
        <span aria-hidden="true">{summary.kind === "ok" ? "✓ " : summary.kind === "running" ? "" : "✗ "}</span>
        {summary.text}
      </p>
      {reason ? <p className="mt-1 text-xs break-words text-neutral-700 dark:text-neutral-300">{reason}</p> : null}
      {summary.hint ? <p className="mt-1 text-xs text-neutral-600 dark:text-neutral-400">{summary.hint}</p> : null}
    </div>
  );
}

/** GET a registry answer from this origin as a page view (the registry does not count it as a download). */
export async function getViewJson<T>(url: string, signal: AbortSignal): Promise<T> {
  const res = await fetch(url, { headers: { accept: "application/json", "x-rye-purpose": "view" }, credentials: "same-origin", cache: "no-store", signal });
  const body = (await res.json().catch(() => null)) as ({ error?: { message?: string; hint?: string } } & T) | null;
  if (!res.ok || body === null) {
    const error = new Error(body?.error?.message ?? `The registry answered ${res.status}`) as Error & { hint?: string };
    if (body?.error?.hint) error.hint = body.error.hint;
    throw error;
  }
  return body;
}

/** Every row skipped (nothing could be checked). */
export function allSkipped<K extends string>(rows: Record<K, Row>): Record<K, Row> {
  return Object.fromEntries(Object.entries<Row>(rows).map(([k, v]) => [k, { ...v, state: "skipped" }])) as Record<K, Row>;
}

/** One check's result: its row passed or failed; the next one running after a pass, every later one skipped after a failure. */
export function withResult<K extends string>(rows: Record<K, Row>, checks: readonly { id: K }[], result: { id: K; ok: boolean; detail: string }): Record<K, Row> {
  const next: Record<K, Row> = { ...rows, [result.id]: { state: result.ok ? "passed" : "failed", detail: result.detail } };
  const index = checks.findIndex((c) => c.id === result.id);
  const following = checks[index + 1];
  if (following) next[following.id] = result.ok ? { state: "running", detail: "" } : { state: "skipped", detail: "" };
  if (!result.ok) for (const c of checks.slice(index + 1)) next[c.id] = { state: "skipped", detail: "" };
  return next;
}
