"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useId, useState, useTransition } from "react";
import { CopyButton } from "@/components/copy-button";
import { Field, ProblemBox } from "@/components/auth/form-bits";
import { ClientApiError, clientApi } from "@/lib/client-api";
import type { CreatedInvitation, OrgRole } from "./types";
import { buttonPrimary, buttonSecondary, card, help, labelText, select } from "./ui";

/**
 * Invites a user by username (or an email address): POST /v1/orgs/{name}/invitations. The answer's
 * secret becomes a link to /invitations that is shown once; a user invited by name also finds the
 * invitation under Settings → Organizations.
 */
export function InviteForm({ org, roles }: { org: string; roles: OrgRole[] }) {
  const router = useRouter();
  const id = useId();
  const [problem, setProblem] = useState<ClientApiError | null>(null);
  const [created, setCreated] = useState<{ invitation: CreatedInvitation; link: string } | null>(null);
  const [pending, startTransition] = useTransition();
  const fields = problem?.fieldErrors() ?? {};

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const who = String(form.get("who") ?? "").trim();
    const role = String(form.get("role") ?? "member");
    startTransition(async () => {
      setProblem(null);
      try {
        const invitation = await clientApi<CreatedInvitation>(`/v1/orgs/${encodeURIComponent(org)}/invitations`, {
          method: "POST",
          body: who.includes("@") ? { email: who, role } : { username: who, role },
        });
        setCreated({ invitation, link: `${window.location.origin}/invitations?token=${encodeURIComponent(invitation.token)}` });
        formElement.reset();
        router.refresh();
      } catch (err) {
        setProblem(ClientApiError.from(err));
      }
    });
  }

  return (
    <div className="space-y-4">
      <div aria-live="polite">
        {created ? (
          <div className={`${card} space-y-2 border-brand-500/60 bg-brand-50 dark:border-brand-600 dark:bg-neutral-900`}>
            <p className="font-medium">
              Invited {created.invitation.username ?? created.invitation.email} as {created.invitation.role}.
            </p>
            <p className="text-sm">
              {created.invitation.username
                ? `${created.invitation.username} sees the invitation under Settings → Organizations. You can also send this link (shown once):`
                : "Send this link to the person (shown once); they accept it once signed in with that email address, verified:"}
            </p>
            <div className="flex flex-wrap items-center gap-2">
              <code className="min-w-0 flex-1 break-all rounded bg-white px-2 py-1.5 font-mono text-xs dark:bg-neutral-950" data-testid="invitation-link">
                {created.link}
              </code>
              <CopyButton text={created.link} label="Copy invitation link" />
            </div>
            <button type="button" className={buttonSecondary} onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        ) : null}
      </div>
      <form onSubmit={submit} className="space-y-4">
        <div aria-live="polite">{problem ? <ProblemBox problem={problem} title="Nobody was invited" /> : null}</div>
        <div className="grid gap-4 sm:grid-cols-[1fr_auto]">
          <Field
            id={`${id}-who`}
            name="who"
            label="Username or email"
            required
            maxLength={300}
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            errors={fields.username ?? fields.email}
          />
          <div className="space-y-1">
            <label htmlFor={`${id}-role`} className={labelText}>
              Role
            </label>
            <select id={`${id}-role`} name="role" defaultValue="member" className={`${select} w-full py-2`}>
              {roles.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </div>
        </div>
        <p className={help}>Members publish under {org}; admins also manage members, invitations and CI tokens; owners also manage owners.</p>
        <button type="submit" className={buttonPrimary} disabled={pending}>
          {pending ? "Inviting…" : "Invite"}
        </button>
      </form>
    </div>
  );
}
