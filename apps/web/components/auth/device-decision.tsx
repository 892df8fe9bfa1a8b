"use client";

import Link from "next/link";
import { useActionState } from "react";
import { buttonPrimary, buttonSecondary, link } from "@/components/settings/ui";
import { deviceDecisionAction, type DeviceState } from "./actions";
import { ProblemBox } from "./form-bits";

/** Approve / Deny for one pending device sign-in (a server action: works without JavaScript). */
export function DeviceDecision({ userCode, clientName }: { userCode: string; clientName: string }) {
  const [state, action, pending] = useActionState<DeviceState, FormData>(deviceDecisionAction, {});
  return (
    <div className="space-y-4">
      <div aria-live="polite">
        {state.problem ? (
          <div className="space-y-2">
            <ProblemBox problem={state.problem} title="Could not record your answer" />
            <p className="text-sm">
              <Link href="/device" className={link}>
                Enter another code
              </Link>
            </p>
          </div>
        ) : null}
      </div>
      <form action={action} className="flex flex-wrap gap-3">
        <input type="hidden" name="user_code" value={userCode} />
        <button type="submit" name="decision" value="approve" className={buttonPrimary} disabled={pending}>
          {pending ? "Saving…" : `Approve ${clientName}`}
        </button>
        <button type="submit" name="decision" value="deny" className={buttonSecondary} disabled={pending}>
          Deny
        </button>
      </form>
    </div>
  );
}
