"use client";

import { useRouter } from "next/navigation";
import { useId, useRef, useState, useTransition } from "react";
import { ProblemBox } from "@/components/auth/form-bits";
import { ClientApiError, clientApi, type ClientApiOptions } from "@/lib/client-api";
import { buttonDanger, buttonDangerOutline, buttonSecondary } from "./ui";

/**
 * A destructive button that asks first: "Revoke" → "Revoke token ci? [Revoke] [Cancel]"; then calls
 * the API and refreshes the page's server data. The API's error (e.g. the last owner cannot leave)
 * is shown next to it.
 */
export function ConfirmAction({
  label,
  accessibleLabel,
  question,
  confirmLabel,
  path,
  options = { method: "DELETE" },
  redirectTo,
}: {
  label: string;
  /** Names what the button acts on, for screen readers ("Revoke token ci"). */
  accessibleLabel: string;
  question: string;
  confirmLabel?: string;
  path: string;
  options?: ClientApiOptions;
  /** Where to go after success (default: stay, with the page's data refreshed). */
  redirectTo?: string;
}) {
  const router = useRouter();
  const [asking, setAsking] = useState(false);
  const [problem, setProblem] = useState<{ message: string; hint?: string | undefined } | null>(null);
  const [pending, startTransition] = useTransition();
  const questionId = useId();
  const first = useRef<HTMLButtonElement>(null);

  const run = () =>
    startTransition(async () => {
      setProblem(null);
      try {
        await clientApi(path, options);
        setAsking(false);
        if (redirectTo) router.push(redirectTo);
        else router.refresh();
      } catch (err) {
        setProblem(err instanceof ClientApiError ? { message: err.message, hint: err.hint } : { message: String(err) });
      }
    });

  return (
    <div className="space-y-2">
      {asking ? (
        <div role="group" aria-labelledby={questionId} className="flex flex-wrap items-center gap-2">
          <span id={questionId} className="text-sm font-medium">
            {question}
          </span>
          <button ref={first} type="button" className={buttonDanger} onClick={run} disabled={pending}>
            {pending ? "Working…" : (confirmLabel ?? label)}
          </button>
          <button type="button" className={buttonSecondary} onClick={() => setAsking(false)} disabled={pending}>
            Cancel
          </button>
        </div>
      ) : (
        <button
          type="button"
          className={buttonDangerOutline}
          aria-label={accessibleLabel}
          onClick={() => {
            setAsking(true);
            setProblem(null);
            requestAnimationFrame(() => first.current?.focus());
          }}
        >
          {label}
        </button>
      )}
      <div aria-live="polite">{problem ? <ProblemBox problem={problem} /> : null}</div>
    </div>
  );
}
