"use client";

import { useRouter } from "next/navigation";
import { useId, useState, useTransition } from "react";
import { ProblemBox } from "@/components/auth/form-bits";
import { ClientApiError, clientApi } from "@/lib/client-api";
import { buttonSecondary, select } from "./ui";

type Mode = "off" | "flagged" | "all";

const LABELS: Record<Mode, string> = {
  off: "The registry's setting",
  flagged: "Hold flagged versions",
  all: "Hold every version",
};

/**
 * An organization's own approval setting (PATCH /v1/orgs/{name}/approval), for its owners: it can only make the
 * registry's stricter; the API answers with the setting that applies.
 */
export function OrgApproval({ org, mode }: { org: string; mode: Mode }) {
  const router = useRouter();
  const id = useId();
  const [value, setValue] = useState<Mode>(mode);
  const [problem, setProblem] = useState<ClientApiError | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  const save = () =>
    startTransition(async () => {
      setProblem(null);
      setSaved(null);
      try {
        const answer = (await clientApi(`/v1/orgs/${encodeURIComponent(org)}/approval`, { method: "PATCH", body: { mode: value } })) as { effective_mode?: string } | undefined;
        setSaved(`Saved: ${answer?.effective_mode ?? value} applies to ${org}.`);
        router.refresh();
      } catch (err) {
        setProblem(ClientApiError.from(err));
        setValue(mode);
      }
    });

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor={`${id}-mode`} className="text-sm font-medium">
          Approval of new versions
        </label>
        <select id={`${id}-mode`} className={select} value={value} onChange={(e) => setValue(e.target.value as Mode)} disabled={pending}>
          {(Object.keys(LABELS) as Mode[]).map((m) => (
            <option key={m} value={m}>
              {LABELS[m]}
            </option>
          ))}
        </select>
        <button type="button" className={buttonSecondary} onClick={save} disabled={pending || value === mode} aria-label="Save the approval setting">
          {pending ? "Saving…" : "Save"}
        </button>
      </div>
      <div aria-live="polite">{problem ? <ProblemBox problem={problem} title="The setting was not changed" /> : saved ? <p className="text-sm">{saved}</p> : null}</div>
    </div>
  );
}
