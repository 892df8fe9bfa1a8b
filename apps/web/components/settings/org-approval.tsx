"use client";

import { useId } from "react";
import { clientApi } from "@/lib/client-api";
import { SettingStatus, useSettingEditor } from "./setting-editor";
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
  const id = useId();
  const { value, setValue, pending, save, problem, saved } = useSettingEditor<Mode>(mode, async (next) => {
    const answer = (await clientApi(`/v1/orgs/${encodeURIComponent(org)}/approval`, { method: "PATCH", body: { mode: next } })) as { effective_mode?: string } | undefined;
    return `Saved: ${answer?.effective_mode ?? next} applies to ${org}.`;
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
      <SettingStatus problem={problem} saved={saved} title="The setting was not changed" />
    </div>
  );
}
