"use client";

import { useId } from "react";
import { clientApi } from "@/lib/client-api";
import { SettingStatus, useSettingEditor } from "./setting-editor";
import type { OrgRole } from "./types";
import { buttonSecondary, select } from "./ui";

/** A member's role, changeable by owners (and by admins for non-owners); the API's refusal is shown. */
export function MemberRole({ org, username, role, choices }: { org: string; username: string; role: OrgRole; choices: OrgRole[] }) {
  const id = useId();
  const { value, setValue, pending, save, problem, saved } = useSettingEditor<OrgRole>(role, async (next) => {
    await clientApi(`/v1/orgs/${encodeURIComponent(org)}/members/${encodeURIComponent(username)}`, { method: "PATCH", body: { role: next } });
    return "Role saved.";
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
      <SettingStatus problem={problem} saved={saved} title="The role was not changed" />
    </div>
  );
}
