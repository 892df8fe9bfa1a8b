"use client";

import { useId } from "react";
import { clientApi } from "@/lib/client-api";
import { SettingStatus, useSettingEditor } from "./setting-editor";
import { buttonSecondary } from "./ui";

/**
 * Whether remote MCP clients (the registry's /mcp, third-party apps signed in with OAuth) see an organization's private
 * items (PATCH /v1/orgs/{name}/remote-mcp), for its owners and admins.
 */
export function OrgRemoteMcp({ org, allowed }: { org: string; allowed: boolean }) {
  const id = useId();
  const { value, setValue, pending, save, problem, saved } = useSettingEditor(allowed, async (next) => {
    const answer = (await clientApi(`/v1/orgs/${encodeURIComponent(org)}/remote-mcp`, { method: "PATCH", body: { allowed: next } })) as { allowed?: boolean } | undefined;
    return answer?.allowed === false ? `Saved: remote MCP clients no longer see ${org}'s private items.` : `Saved: remote MCP clients of ${org}'s members see its private items.`;
  });

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        <input id={`${id}-allowed`} type="checkbox" className="h-4 w-4" checked={value} onChange={(e) => setValue(e.target.checked)} disabled={pending} />
        <label htmlFor={`${id}-allowed`} className="text-sm font-medium">
          Remote MCP clients may read {org}&apos;s private items
        </label>
        <button type="button" className={buttonSecondary} onClick={save} disabled={pending || value === allowed} aria-label="Save the remote MCP setting">
          {pending ? "Saving…" : "Save"}
        </button>
      </div>
      <SettingStatus problem={problem} saved={saved} title="The setting was not changed" />
    </div>
  );
}
