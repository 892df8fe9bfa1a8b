"use client";

import { useRouter } from "next/navigation";
import { useId, useState, useTransition } from "react";
import { ProblemBox } from "@/components/auth/form-bits";
import { ClientApiError, clientApi } from "@/lib/client-api";
import type { OrgRole } from "./types";
import { buttonSecondary, select } from "./ui";

/** A member's role, changeable by owners (and by admins for non-owners); the API's refusal is shown. */
export function MemberRole({ org, username, role, choices }: { org: string; username: string; role: OrgRole; choices: OrgRole[] }) {
  const router = useRouter();
  const id = useId();
  const [value, setValue] = useState<OrgRole>(role);
  const [problem, setProblem] = useState<ClientApiError | null>(null);
  const [saved, setSaved] = useState(false);
  const [pending, startTransition] = useTransition();

  const save = () =>
    startTransition(async () => {
      setProblem(null);
      setSaved(false);
      try {
        await clientApi(`/v1/orgs/${encodeURIComponent(org)}/members/${encodeURIComponent(username)}`, { method: "PATCH", body: { role: value } });
        setSaved(true);
        router.refresh();
      } catch (err) {
        setProblem(ClientApiError.from(err));
        setValue(role);
      }
    });

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor={`${id}-role`} className="sr-only">
          Role of {username}
        </label>
        <select id={`${id}-role`} className={select} value={value} onChange={(e) => setValue(e.target.value as OrgRole)} disabled={pending}>
          {choices.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        <button type="button" className={buttonSecondary} onClick={save} disabled={pending || value === role} aria-label={`Save the role of ${username}`}>
          {pending ? "Saving…" : "Save"}
        </button>
      </div>
      <div aria-live="polite">
        {problem ? <ProblemBox problem={problem} title="The role was not changed" /> : saved ? <p className="text-sm">Role saved.</p> : null}
      </div>
    </div>
  );
}
