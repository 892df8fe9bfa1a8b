"use client";
/**
 * Signature verification in the visitor's browser: fetches the signed file and its attestation
 * (GET /v1/pull) and the registry's keys (GET /v1/keys) from this origin, then runs the CLI's checks
 * (lib/verify.ts, @rye/core) one by one. The box is server-rendered with every row in place, so results
 * fill it in without moving anything on the page.
 */
import { useCallback, useEffect, useState } from "react";
import type { ItemType } from "@rye/core";
import { CHECKS, type CheckId, type KeysAnswer, type PullAnswer, verifyPulledItem } from "@/lib/verify";

type RowState = "waiting" | "running" | "passed" | "failed" | "skipped";
interface Row {
  state: RowState;
  detail: string;
}
type Summary = { kind: "running" | "ok" | "failed" | "error"; text: string; hint?: string };

const ICON: Record<RowState, string> = { waiting: "○", running: "…", passed: "✓", failed: "✗", skipped: "–" };
const WORD: Record<RowState, string> = { waiting: "Waiting", running: "Checking", passed: "Passed", failed: "Failed", skipped: "Not run" };
const ICON_CLASS: Record<RowState, string> = {
  waiting: "border-neutral-300 text-neutral-600 dark:border-neutral-700 dark:text-neutral-400",
  running: "border-neutral-400 text-neutral-700 dark:border-neutral-500 dark:text-neutral-300",
  passed: "border-green-700 bg-green-50 text-green-800 dark:border-green-400 dark:bg-green-950 dark:text-green-300",
  failed: "border-red-700 bg-red-50 text-red-800 dark:border-red-400 dark:bg-red-950 dark:text-red-300",
  skipped: "border-neutral-300 text-neutral-600 dark:border-neutral-700 dark:text-neutral-400",
};

const initialRows = (): Record<CheckId, Row> =>
  Object.fromEntries(CHECKS.map((c) => [c.id, { state: "waiting" as RowState, detail: "" }])) as Record<CheckId, Row>;

const PROVIDER_NAMES: Record<string, string> = {
  webcrypto: "Ed25519 by your browser's WebCrypto",
  noble: "Ed25519 by @noble/ed25519 (this browser's WebCrypto has no Ed25519)",
  node: "Ed25519 by Node.js",
};

async function getJson<T>(url: string, signal: AbortSignal): Promise<T> {
  // A page view, not a download (the registry does not count it).
  const res = await fetch(url, { headers: { accept: "application/json", "x-rye-purpose": "view" }, credentials: "same-origin", cache: "no-store", signal });
  const body = (await res.json().catch(() => null)) as ({ error?: { message?: string; hint?: string } } & T) | null;
  if (!res.ok || body === null) {
    const error = new Error(body?.error?.message ?? `The registry answered ${res.status}`) as Error & { hint?: string };
    if (body?.error?.hint) error.hint = body.error.hint;
    throw error;
  }
  return body;
}

export interface VerifyPanelProps {
  type: ItemType;
  id: string;
  version: string;
  /** SHA-256 of the file the page shows. */
  fileSha256: string;
}

export function VerifyPanel({ type, id, version, fileSha256 }: VerifyPanelProps) {
  const [rows, setRows] = useState<Record<CheckId, Row>>(initialRows);
  const [summary, setSummary] = useState<Summary>({ kind: "running", text: "Verifying in your browser…" });
  const [provider, setProvider] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  const run = useCallback(
    async (signal: AbortSignal) => {
      setRows(initialRows());
      setSummary({ kind: "running", text: "Verifying in your browser…" });
      const path = id.split("/").map(encodeURIComponent).join("/");
      let pull: PullAnswer;
      let keys: KeysAnswer;
      try {
        [pull, keys] = await Promise.all([
          getJson<PullAnswer>(`/v1/pull/${type}/${path}?version=${encodeURIComponent(version)}`, signal),
          getJson<KeysAnswer>("/v1/keys", signal),
        ]);
      } catch (err) {
        if (signal.aborted) return;
        const e = err as Error & { hint?: string };
        setRows((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, { ...v, state: "skipped" }])) as Record<CheckId, Row>);
        setSummary({ kind: "error", text: `Verification failed: the signed file or the registry keys could not be fetched (${e.message})`, ...(e.hint ? { hint: e.hint } : {}) });
        return;
      }
      if (signal.aborted) return;
      setRows((r) => ({ ...r, [CHECKS[0]!.id]: { state: "running", detail: "" } }));
      const outcome = await verifyPulledItem({ type, id, version, pull, keys, expectedFileSha256: fileSha256 }, (result) => {
        if (signal.aborted) return;
        setRows((r) => {
          const next = { ...r, [result.id]: { state: result.ok ? "passed" : "failed", detail: result.detail } as Row };
          const index = CHECKS.findIndex((c) => c.id === result.id);
          const following = CHECKS[index + 1];
          if (following) next[following.id] = result.ok ? { state: "running", detail: "" } : { state: "skipped", detail: "" };
          if (!result.ok) for (const c of CHECKS.slice(index + 1)) next[c.id] = { state: "skipped", detail: "" };
          return next;
        });
      });
      if (signal.aborted) return;
      setProvider(outcome.provider);
      setSummary(
        outcome.ok
          ? { kind: "ok", text: "Verified in your browser" }
          : { kind: "failed", text: `Verification failed: ${outcome.failed?.label ?? "unknown check"}` },
      );
    },
    [type, id, version, fileSha256],
  );

  useEffect(() => {
    const controller = new AbortController();
    void run(controller.signal).catch((err: unknown) => {
      if (!controller.signal.aborted) setSummary({ kind: "error", text: `Verification failed: ${err instanceof Error ? err.message : String(err)}` });
    });
    return () => controller.abort();
  }, [run, attempt]);

  // A failed check's full reason (its row shows one truncated line).
  const reason = summary.kind === "failed" ? Object.values(rows).find((r) => r.state === "failed")?.detail : undefined;
  const summaryClass =
    summary.kind === "ok"
      ? "text-green-800 dark:text-green-300"
      : summary.kind === "running"
        ? "text-neutral-700 dark:text-neutral-300"
        : "text-red-800 dark:text-red-300";

  return (
    <section aria-labelledby="verify-heading" className="rounded-lg border border-neutral-200 p-4 dark:border-neutral-800" data-testid="verify-panel">
      <h2 id="verify-heading" className="text-base font-semibold">
        Signature verification
      </h2>
      <p className="mt-1 text-xs text-neutral-600 dark:text-neutral-400">
        Checked in your browser with the same code as the rye CLI, against the keys this registry publishes at{" "}
        <a href="/v1/keys" className="underline">/v1/keys</a>.
      </p>
      <ol className="mt-3 space-y-2" aria-live="polite" aria-label="Verification checks">
        {CHECKS.map((check, i) => {
          const row = rows[check.id];
          return (
            // Fixed height: a label of up to two lines and one status line, whatever the result.
            <li key={check.id} className="flex h-14 gap-2 overflow-hidden" data-state={row.state}>
              <span
                aria-hidden="true"
                className={`mt-0.5 flex h-5 w-5 shrink-0 items-center justify-center rounded-full border text-xs font-bold ${ICON_CLASS[row.state]}`}
              >
                {ICON[row.state]}
              </span>
              <div className="min-w-0 flex-1">
                <p className="line-clamp-2 text-sm leading-5">
                  <span className="sr-only">Check {i + 1}: </span>
                  {check.label}
                </p>
                <p className="truncate text-xs leading-4 text-neutral-600 dark:text-neutral-400" title={row.detail || undefined}>
                  <span className="font-medium text-neutral-800 dark:text-neutral-200">{WORD[row.state]}</span>
                  {row.detail ? `: ${row.detail}` : ""}
                </p>
              </div>
            </li>
          );
        })}
      </ol>
      {/* Room for the summary and a failure's reason, reserved from the start. */}
      <div className="mt-3 min-h-20 border-t border-neutral-200 pt-3 dark:border-neutral-800">
        <p role="status" className={`text-sm font-semibold ${summaryClass}`} data-testid="verify-summary">
          <span aria-hidden="true">{summary.kind === "ok" ? "✓ " : summary.kind === "running" ? "" : "✗ "}</span>
          {summary.text}
        </p>
        {reason ? <p className="mt-1 text-xs break-words text-neutral-700 dark:text-neutral-300">{reason}</p> : null}
        {summary.hint ? <p className="mt-1 text-xs text-neutral-600 dark:text-neutral-400">{summary.hint}</p> : null}
      </div>
      <div className="mt-2 flex min-h-7 flex-wrap items-center justify-between gap-2">
        <p className="text-xs text-neutral-600 dark:text-neutral-400">{provider ? PROVIDER_NAMES[provider] ?? provider : "\u00a0"}</p>
        {summary.kind === "failed" || summary.kind === "error" ? (
          <button
            type="button"
            onClick={() => setAttempt((n) => n + 1)}
            className="rounded-md border border-neutral-300 px-2 py-1 text-xs hover:bg-neutral-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:border-neutral-700 dark:hover:bg-neutral-800"
          >
            Verify again
          </button>
        ) : null}
      </div>
    </section>
  );
}
