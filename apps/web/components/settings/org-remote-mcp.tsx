"use client";

import { useRouter } from "next/navigation";
import { useId, useState, useTransition } from "react";
import { ProblemBox } from "@/components/auth/form-bits";
import { ClientApiError, clientApi } from "@/lib/client-api";
import { buttonSecondary } from "./ui";

/**
 * Whether remote MCP clients (the registry's /mcp, third-party apps signed in with OAuth) see an organization's private
 * items (PATCH /v1/orgs/{name}/remote-mcp), for its owners and admins.
 */
export function OrgRemoteMcp({ org, allowed }: { org: string; allowed: boolean }) {
  const router = useRouter();
  const id = useId();
  const [value, setValue] = useState(allowed);
  const [problem, setProblem] = useState<ClientApiError | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  const save = () =>
    startTransition(async () => {
      setProblem(null);
      setSaved(null);
      try {
        const answer = (await clientApi(`/v1/orgs/${encodeURIComponent(org)}/remote-mcp`, { method: "PATCH", body: { allowed: value } })) as { allowed?: boolean } | undefined;
        setSaved(answer?.allowed === false ? `Saved: remote MCP clients no longer see ${org}'s private items.` : `Saved: remote MCP clients of ${org}'s members see its private items.`);
        router.refresh();
      } catch (err) {
        setProblem(ClientApiError.from(err));
        setValue(allowed);
      }
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
      <div aria-live="polite">{problem ? <ProblemBox problem={problem} title="The setting was not changed" /> : saved ? <p className="text-sm">{saved}</p> : null}</div>
    </div>
  );
}
