"use client";
/** Start, check, remove a namespace verification claim (routes/verifications.ts) with the session's CSRF token. */
import { useRouter } from "next/navigation";
import { useId, useState, useTransition } from "react";
import { ProblemBox } from "@/components/auth/form-bits";
import { buttonDangerOutline, buttonPrimary, buttonSecondary, help, input, labelText } from "@/components/settings/ui";
import { ClientApiError, clientApi } from "@/lib/client-api";

type Problem = { message: string; hint?: string | undefined } | null;
const claimsPath = (org: string) => `/v1/orgs/${encodeURIComponent(org)}/verifications`;

function useCall() {
  const router = useRouter();
  const [problem, setProblem] = useState<Problem>(null);
  const [pending, startTransition] = useTransition();
  const run = (path: string, init: { method: "POST" | "DELETE"; body?: unknown }, then?: () => void) =>
    startTransition(async () => {
      setProblem(null);
      try {
        await clientApi(path, init);
        then?.();
        router.refresh();
      } catch (err) {
        const e = ClientApiError.from(err);
        setProblem({ message: `${e.code ? `${e.code}: ` : ""}${e.message}`, hint: e.hint });
      }
    });
  return { run, problem, pending };
}

export function StartVerificationForm({ org }: { org: string }) {
  const { run, problem, pending } = useCall();
  const [kind, setKind] = useState<"dns" | "github">("dns");
  const [subject, setSubject] = useState("");
  const subjectId = useId();
  return (
    <form
      className="space-y-3"
      onSubmit={(event) => {
        event.preventDefault();
        run(claimsPath(org), { method: "POST", body: { kind, subject: subject.trim() } }, () => setSubject(""));
      }}
    >
      <fieldset className="flex flex-wrap gap-4">
        <legend className={labelText}>What to verify</legend>
        <label className="inline-flex items-center gap-2 text-sm">
          <input type="radio" name="kind" checked={kind === "dns"} onChange={() => setKind("dns")} /> A domain (DNS TXT record)
        </label>
        <label className="inline-flex items-center gap-2 text-sm">
          <input type="radio" name="kind" checked={kind === "github"} onChange={() => setKind("github")} /> A GitHub organization
        </label>
      </fieldset>
      <div className="space-y-1">
        <label htmlFor={subjectId} className={labelText}>
          {kind === "dns" ? "Domain" : "GitHub organization"}
        </label>
        <input id={subjectId} className={input} required maxLength={253} placeholder={kind === "dns" ? "acme.com" : "acme"} value={subject} onChange={(e) => setSubject(e.target.value)} />
      </div>
      <button type="submit" className={buttonPrimary} disabled={pending}>
        {pending ? "Starting…" : "Start verification"}
      </button>
      <div aria-live="polite">{problem ? <ProblemBox problem={problem} /> : null}</div>
    </form>
  );
}

export function VerificationActions({ org, id, label, kind, status }: { org: string; id: string; label: string; kind: "dns" | "github"; status: string }) {
  const { run, problem, pending } = useCall();
  const [confirming, setConfirming] = useState(false);
  const path = `${claimsPath(org)}/${encodeURIComponent(id)}`;
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap gap-2">
        {kind === "dns" ? (
          <button type="button" className={buttonSecondary} disabled={pending} aria-label={`Check ${label} now`} onClick={() => run(`${path}/check`, { method: "POST" })}>
            {pending ? "Checking…" : status === "verified" ? "Re-check now" : "Check now"}
          </button>
        ) : null}
        {confirming ? (
          <>
            <button type="button" className={buttonDangerOutline} disabled={pending} onClick={() => run(path, { method: "DELETE" })}>
              Remove for good
            </button>
            <button type="button" className={buttonSecondary} onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" className={buttonDangerOutline} disabled={pending} aria-label={`Remove the claim on ${label}`} onClick={() => setConfirming(true)}>
            Remove…
          </button>
        )}
      </div>
      {status === "verified" && kind === "dns" ? <p className={help}>Keep the TXT record: the registry re-checks it regularly, and a missing record removes the badge.</p> : null}
      <div aria-live="polite">{problem ? <ProblemBox problem={problem} /> : null}</div>
    </div>
  );
}
