"use client";
/**
 * A skill's verification in the visitor's browser, like items' VerifyPanel: fetches the skill with its files
 * (GET /v1/skills/{ns}/{name}?version=&files=1) and the registry's keys (GET /v1/keys) from this origin, then runs
 * the checks `rye skill add` runs (lib/skill-verify.ts, @rye/core) and shows one result per file. The box is
 * server-rendered with every row in place (the page knows the file list), so results fill it in without moving
 * anything. Files are only hashed here, never run or rendered.
 */
import { useCallback, useEffect, useState } from "react";
import type { KeysAnswer } from "@/lib/verify";
import { SKILL_CHECKS, type SkillAnswer, type SkillCheckId, type SkillFileResult, verifySkillAnswer } from "@/lib/skill-verify";

type RowState = "waiting" | "running" | "passed" | "failed" | "skipped";
interface Row {
  state: RowState;
  detail: string;
}
type Summary = { kind: "running" | "ok" | "failed" | "error"; text: string };

const ICON: Record<RowState, string> = { waiting: "○", running: "…", passed: "✓", failed: "✗", skipped: "–" };
const WORD: Record<RowState, string> = { waiting: "Waiting", running: "Checking", passed: "Passed", failed: "Failed", skipped: "Not run" };
const ICON_CLASS: Record<RowState, string> = {
  waiting: "border-neutral-300 text-neutral-600 dark:border-neutral-700 dark:text-neutral-400",
  running: "border-neutral-400 text-neutral-700 dark:border-neutral-500 dark:text-neutral-300",
  passed: "border-green-700 bg-green-50 text-green-800 dark:border-green-400 dark:bg-green-950 dark:text-green-300",
  failed: "border-red-700 bg-red-50 text-red-800 dark:border-red-400 dark:bg-red-950 dark:text-red-300",
  skipped: "border-neutral-300 text-neutral-600 dark:border-neutral-700 dark:text-neutral-400",
};

const initialRows = (): Record<SkillCheckId, Row> =>
  Object.fromEntries(SKILL_CHECKS.map((c) => [c.id, { state: "waiting" as RowState, detail: "" }])) as Record<SkillCheckId, Row>;
const initialFiles = (paths: readonly string[]): Record<string, Row> => Object.fromEntries(paths.map((p) => [p, { state: "waiting" as RowState, detail: "" }]));

async function getJson<T>(url: string, signal: AbortSignal): Promise<T> {
  const res = await fetch(url, { headers: { accept: "application/json", "x-rye-purpose": "view" }, credentials: "same-origin", cache: "no-store", signal });
  const body = (await res.json().catch(() => null)) as ({ error?: { message?: string } } & T) | null;
  if (!res.ok || body === null) throw new Error(body?.error?.message ?? `The registry answered ${res.status}`);
  return body;
}

function StateIcon({ state }: { state: RowState }) {
  return (
    <span aria-hidden="true" className={`mt-0.5 flex h-5 w-5 shrink-0 items-center justify-center rounded-full border text-xs font-bold ${ICON_CLASS[state]}`}>
      {ICON[state]}
    </span>
  );
}

export interface SkillVerifyPanelProps {
  namespace: string;
  name: string;
  version: string;
  /** The files the page lists (from the signed manifest), in order. */
  paths: string[];
}

export function SkillVerifyPanel({ namespace, name, version, paths }: SkillVerifyPanelProps) {
  const [rows, setRows] = useState<Record<SkillCheckId, Row>>(initialRows);
  const [files, setFiles] = useState<Record<string, Row>>(() => initialFiles(paths));
  const [summary, setSummary] = useState<Summary>({ kind: "running", text: "Verifying in your browser…" });
  const [attempt, setAttempt] = useState(0);
  const pathKey = paths.join("\n");

  const run = useCallback(
    async (signal: AbortSignal) => {
      const listed = pathKey ? pathKey.split("\n") : [];
      setRows(initialRows());
      setFiles(initialFiles(listed));
      setSummary({ kind: "running", text: "Verifying in your browser…" });
      let answer: SkillAnswer;
      let keys: KeysAnswer;
      try {
        [answer, keys] = await Promise.all([
          getJson<SkillAnswer>(`/v1/skills/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}?version=${encodeURIComponent(version)}&files=1`, signal),
          getJson<KeysAnswer>("/v1/keys", signal),
        ]);
      } catch (err) {
        if (signal.aborted) return;
        setRows((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, { ...v, state: "skipped" }])) as Record<SkillCheckId, Row>);
        setFiles((f) => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, { ...v, state: "skipped" }])));
        setSummary({ kind: "error", text: `Verification failed: the skill or the registry keys could not be fetched (${err instanceof Error ? err.message : String(err)})` });
        return;
      }
      if (signal.aborted) return;
      setRows((r) => ({ ...r, [SKILL_CHECKS[0]!.id]: { state: "running", detail: "" } }));
      const outcome = await verifySkillAnswer({ id: `${namespace}/${name}`, name, version, answer, keys }, (result, fileResults?: SkillFileResult[]) => {
        if (signal.aborted) return;
        setRows((r) => {
          const next = { ...r, [result.id]: { state: result.ok ? "passed" : "failed", detail: result.detail } as Row };
          const index = SKILL_CHECKS.findIndex((c) => c.id === result.id);
          const following = SKILL_CHECKS[index + 1];
          if (following) next[following.id] = result.ok ? { state: "running", detail: "" } : { state: "skipped", detail: "" };
          if (!result.ok) for (const c of SKILL_CHECKS.slice(index + 1)) next[c.id] = { state: "skipped", detail: "" };
          return next;
        });
        if (result.id === "files" || !result.ok) {
          setFiles((current) => {
            const next: Record<string, Row> = Object.fromEntries(Object.keys(current).map((p) => [p, { state: "skipped" as RowState, detail: "" }]));
            for (const f of fileResults ?? []) next[f.path] = { state: f.ok ? "passed" : "failed", detail: f.detail };
            return next;
          });
        }
      });
      if (signal.aborted) return;
      setSummary(outcome.ok ? { kind: "ok", text: "Verified in your browser" } : { kind: "failed", text: `Verification failed: ${outcome.failed?.label ?? "unknown check"}` });
    },
    [namespace, name, version, pathKey],
  );

  useEffect(() => {
    const controller = new AbortController();
    void run(controller.signal).catch((err: unknown) => {
      if (!controller.signal.aborted) setSummary({ kind: "error", text: `Verification failed: ${err instanceof Error ? err.message : String(err)}` });
    });
    return () => controller.abort();
  }, [run, attempt]);

  const reason = summary.kind === "failed" ? Object.values(rows).find((r) => r.state === "failed")?.detail : undefined;
  const summaryClass = summary.kind === "ok" ? "text-green-800 dark:text-green-300" : summary.kind === "running" ? "text-neutral-700 dark:text-neutral-300" : "text-red-800 dark:text-red-300";

  return (
    <section aria-labelledby="skill-verify-heading" className="rounded-lg border border-neutral-200 p-4 dark:border-neutral-800" data-testid="skill-verify-panel">
      <h2 id="skill-verify-heading" className="text-base font-semibold">
        Signature verification
      </h2>
      <p className="mt-1 text-xs text-neutral-600 dark:text-neutral-400">
        Checked in your browser with the same code as the rye CLI, against the keys this registry publishes at{" "}
        <a href="/v1/keys" className="underline">
          /v1/keys
        </a>
        .
      </p>
      <ol className="mt-3 space-y-2" aria-label="Verification checks">
        {SKILL_CHECKS.map((check, i) => {
          const row = rows[check.id];
          return (
            <li key={check.id} className="flex h-14 gap-2 overflow-hidden" data-state={row.state}>
              <StateIcon state={row.state} />
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
      <h3 className="mt-3 text-sm font-semibold">Files</h3>
      <ul className="mt-2 space-y-1" aria-label="Files verified">
        {Object.entries(files).map(([path, row]) => (
          <li key={path} className="flex gap-2" data-testid="verify-file" data-path={path} data-state={row.state}>
            <StateIcon state={row.state} />
            <div className="min-w-0 flex-1">
              <p className="truncate font-mono text-xs leading-5" title={path}>
                {path}
              </p>
              <p className="truncate text-xs leading-4 text-neutral-600 dark:text-neutral-400" title={row.detail || undefined}>
                <span className="font-medium text-neutral-800 dark:text-neutral-200">{WORD[row.state]}</span>
                {row.detail ? `: ${row.detail}` : ""}
              </p>
            </div>
          </li>
        ))}
      </ul>
      <div className="mt-3 min-h-20 border-t border-neutral-200 pt-3 dark:border-neutral-800">
        <p role="status" className={`text-sm font-semibold ${summaryClass}`} data-testid="skill-verify-summary">
          <span aria-hidden="true">{summary.kind === "ok" ? "✓ " : summary.kind === "running" ? "" : "✗ "}</span>
          {summary.text}
        </p>
        {reason ? <p className="mt-1 text-xs break-words text-neutral-700 dark:text-neutral-300">{reason}</p> : null}
      </div>
      {summary.kind === "failed" || summary.kind === "error" ? (
        <button
          type="button"
          onClick={() => setAttempt((n) => n + 1)}
          className="mt-2 rounded-md border border-neutral-300 px-2 py-1 text-xs hover:bg-neutral-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:border-neutral-700 dark:hover:bg-neutral-800"
        >
          Verify again
        </button>
      ) : null}
    </section>
  );
}
