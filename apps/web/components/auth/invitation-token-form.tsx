"use client";

import { useActionState } from "react";
import { buttonPrimary } from "@/components/settings/ui";
import { acceptInvitationTokenAction, type InvitationState } from "./actions";
import { ProblemBox } from "./form-bits";

/** Accepts the invitation of a `/invitations?token=…` link (a server action: works without JavaScript). */
export function InvitationTokenForm({ token }: { token: string }) {
  const [state, action, pending] = useActionState<InvitationState, FormData>(acceptInvitationTokenAction, {});
  return (
    <form action={action} className="space-y-4">
      <input type="hidden" name="token" value={token} />
      <div aria-live="polite">{state.problem ? <ProblemBox problem={state.problem} title="The invitation could not be accepted" /> : null}</div>
      <button type="submit" className={buttonPrimary} disabled={pending}>
        {pending ? "Joining…" : "Accept the invitation"}
      </button>
    </form>
  );
}
