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
import { allSkipped, CheckList, getViewJson, type Row, SummaryBlock, type VerifySummary, waitingRows, withResult } from "../verify/check-rows";

const initialRows = () => waitingRows(CHECKS.map((c) => c.id));

const PROVIDER_NAMES: Record<string, string> = {
  webcrypto: "Ed25519 by your browser's WebCrypto",
  noble: "Ed25519 by @noble/ed25519 (this browser's WebCrypto has no Ed25519)",
  node: "Ed25519 by Node.js",
};

export interface VerifyPanelProps {
  type: ItemType;
  id: string;
  version: string;
  /** SHA-256 of the file the page shows. */
  fileSha256: string;
}

export function VerifyPanel({ type, id, version, fileSha256 }: VerifyPanelProps) {
  const [rows, setRows] = useState<Record<CheckId, Row>>(initialRows);
  const [summary, setSummary] = useState<VerifySummary>({ kind: "running", text: "Verifying in your browser…" });
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
          getViewJson<PullAnswer>(`/v1/pull/${type}/${path}?version=${encodeURIComponent(version)}`, signal),
          getViewJson<KeysAnswer>("/v1/keys", signal),
        ]);
      } catch (err) {
        if (signal.aborted) return;
        const e = err as Error & { hint?: string };
        setRows(allSkipped);
        setSummary({ kind: "error", text: `Verification failed: the signed file or the registry keys could not be fetched (${e.message})`, ...(e.hint ? { hint: e.hint } : {}) });
        return;
      }
      if (signal.aborted) return;
      setRows((r) => ({ ...r, [CHECKS[0]!.id]: { state: "running", detail: "" } }));
      const outcome = await verifyPulledItem({ type, id, version, pull, keys, expectedFileSha256: fileSha256 }, (result) => {
        if (signal.aborted) return;
        setRows((r) => withResult(r, CHECKS, result));
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

  return (
    <section aria-labelledby="verify-heading" className="rounded-lg border border-neutral-200 p-4 dark:border-neutral-800" data-testid="verify-panel">
      <h2 id="verify-heading" className="text-base font-semibold">
        Signature verification
      </h2>
      <p className="mt-1 text-xs text-neutral-600 dark:text-neutral-400">
        Checked in your browser with the same code as the rye CLI, against the keys this registry publishes at{" "}
        <a href="/v1/keys" className="underline">/v1/keys</a>.
      </p>
      <CheckList checks={CHECKS} rows={rows} live />
      <SummaryBlock summary={summary} rows={Object.values(rows)} testId="verify-summary" />
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
