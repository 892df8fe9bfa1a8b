"use client";

import { useRouter } from "next/navigation";
import { useId, useState, useTransition } from "react";
import { ProblemBox } from "@/components/auth/form-bits";
import { ClientApiError, clientApi } from "@/lib/client-api";
import { buttonDanger, buttonPrimary, buttonSecondary, input, labelText } from "./ui";

/**
 * Approve / Reject for one held version (POST /v1/approve|reject/{type}/{id} with the session's CSRF token). A
 * rejection asks for a reason (required, audited); an approval takes an optional note. The registry checks who may
 * decide; its refusal (FORBIDDEN, SELF_APPROVAL, CONFLICT) is shown next to the buttons.
 */
export function ApprovalActions({ type, id, version }: { type: string; id: string; version: string }) {
  const router = useRouter();
  const [mode, setMode] = useState<"idle" | "reject">("idle");
  const [reason, setReason] = useState("");
  const [problem, setProblem] = useState<{ message: string; hint?: string | undefined } | null>(null);
  const [pending, startTransition] = useTransition();
  const reasonId = useId();
  const path = (decision: "approve" | "reject") => `/v1/${decision}/${type}/${id.split("/").map(encodeURIComponent).join("/")}`;
  const what = `${id}@${version}`;

  const decide = (decision: "approve" | "reject") =>
    startTransition(async () => {
      setProblem(null);
      try {
        await clientApi(path(decision), { method: "POST", body: { version, ...(reason.trim() ? { reason: reason.trim() } : {}) } });
        setMode("idle");
        setReason("");
        router.refresh();
      } catch (err) {
        const e = ClientApiError.from(err);
        setProblem({ message: e.message, hint: e.hint });
      }
    });

  return (
    <div className="space-y-2">
      {mode === "reject" ? (
        <form
          className="space-y-2"
          onSubmit={(event) => {
            event.preventDefault();
            if (reason.trim()) decide("reject");
          }}
        >
          <label htmlFor={reasonId} className={labelText}>
            Why reject {what}? <span className="font-normal">(required, recorded in the audit log)</span>
          </label>
          <textarea id={reasonId} className={input} rows={2} maxLength={1000} required value={reason} onChange={(e) => setReason(e.target.value)} />
          <div className="flex flex-wrap gap-2">
            <button type="submit" className={buttonDanger} disabled={pending || !reason.trim()}>
              {pending ? "Working…" : "Reject"}
            </button>
            <button type="button" className={buttonSecondary} onClick={() => setMode("idle")} disabled={pending}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div className="flex flex-wrap gap-2">
          <button type="button" className={buttonPrimary} aria-label={`Approve ${what}`} onClick={() => decide("approve")} disabled={pending}>
            {pending ? "Working…" : "Approve"}
          </button>
          <button type="button" className={buttonSecondary} aria-label={`Reject ${what}`} onClick={() => setMode("reject")} disabled={pending}>
            Reject…
          </button>
        </div>
      )}
      <div aria-live="polite">{problem ? <ProblemBox problem={problem} /> : null}</div>
    </div>
  );
}
