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
import { allSkipped, CheckList, getViewJson, type Row, RowStatus, StateIcon, SummaryBlock, type VerifySummary, waitingRows, withResult } from "../verify/check-rows";

const initialRows = () => waitingRows(SKILL_CHECKS.map((c) => c.id));

export interface SkillVerifyPanelProps {
  namespace: string;
  name: string;
  version: string;
  /** The files the page lists (from the signed manifest), in order. */
  paths: string[];
}

export function SkillVerifyPanel({ namespace, name, version, paths }: SkillVerifyPanelProps) {
  const [rows, setRows] = useState<Record<SkillCheckId, Row>>(initialRows);
  const [files, setFiles] = useState<Record<string, Row>>(() => waitingRows(paths));
  const [summary, setSummary] = useState<VerifySummary>({ kind: "running", text: "Verifying in your browser…" });
  const [attempt, setAttempt] = useState(0);
  const pathKey = paths.join("\n");

  const run = useCallback(
    async (signal: AbortSignal) => {
      const listed = pathKey ? pathKey.split("\n") : [];
      setRows(initialRows());
      setFiles(waitingRows(listed));
      setSummary({ kind: "running", text: "Verifying in your browser…" });
      let answer: SkillAnswer;
      let keys: KeysAnswer;
      try {
        [answer, keys] = await Promise.all([
          getViewJson<SkillAnswer>(`/v1/skills/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}?version=${encodeURIComponent(version)}&files=1`, signal),
          getViewJson<KeysAnswer>("/v1/keys", signal),
        ]);
      } catch (err) {
        if (signal.aborted) return;
        setRows(allSkipped);
        setFiles(allSkipped);
        setSummary({ kind: "error", text: `Verification failed: the skill or the registry keys could not be fetched (${err instanceof Error ? err.message : String(err)})` });
        return;
      }
      if (signal.aborted) return;
      setRows((r) => ({ ...r, [SKILL_CHECKS[0]!.id]: { state: "running", detail: "" } }));
      const outcome = await verifySkillAnswer({ id: `${namespace}/${name}`, name, version, answer, keys }, (result, fileResults?: SkillFileResult[]) => {
        if (signal.aborted) return;
        setRows((r) => withResult(r, SKILL_CHECKS, result));
        if (result.id === "files" || !result.ok) {
          setFiles((current) => {
            const next: Record<string, Row> = Object.fromEntries(Object.keys(current).map((p) => [p, { state: "skipped" as const, detail: "" }]));
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
      <CheckList checks={SKILL_CHECKS} rows={rows} />
      <h3 className="mt-3 text-sm font-semibold">Files</h3>
      <ul className="mt-2 space-y-1" aria-label="Files verified">
        {Object.entries(files).map(([path, row]) => (
          <li key={path} className="flex gap-2" data-testid="verify-file" data-path={path} data-state={row.state}>
            <StateIcon state={row.state} />
            <div className="min-w-0 flex-1">
              <p className="truncate font-mono text-xs leading-5" title={path}>
                {path}
              </p>
              <RowStatus row={row} />
            </div>
          </li>
        ))}
      </ul>
      <SummaryBlock summary={summary} rows={Object.values(rows)} testId="skill-verify-summary" />
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
