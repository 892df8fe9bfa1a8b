"use client";

import { useActionState } from "react";
import { answerInvitationAction, type InvitationState } from "@/components/auth/actions";
import { ProblemBox, SuccessBox } from "@/components/auth/form-bits";
import type { MyInvitation } from "./types";
import { buttonPrimary, buttonSecondary } from "./ui";

/** Accept / Decline for one invitation addressed to the visitor (a server action: works without JavaScript). */
export function InvitationAnswer({ invitation }: { invitation: MyInvitation }) {
  const [state, action, pending] = useActionState<InvitationState, FormData>(answerInvitationAction, {});
  const org = invitation.org_display_name ? `${invitation.org_display_name} (${invitation.org})` : invitation.org;
  return (
    <div aria-live="polite" className="space-y-2">
      {state.declined ? (
        <SuccessBox>You declined the invitation to {org}.</SuccessBox>
      ) : (
        <>
          {state.problem ? <ProblemBox problem={state.problem} /> : null}
          <form action={action} className="flex flex-wrap gap-2">
            <input type="hidden" name="id" value={invitation.id} />
            <button type="submit" name="decision" value="accept" className={buttonPrimary} disabled={pending} aria-label={`Accept the invitation to ${invitation.org}`}>
              Accept
            </button>
            <button type="submit" name="decision" value="decline" className={buttonSecondary} disabled={pending} aria-label={`Decline the invitation to ${invitation.org}`}>
              Decline
            </button>
          </form>
        </>
      )}
    </div>
  );
}
