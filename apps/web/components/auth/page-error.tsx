"use client";

import { buttonSecondary } from "@/components/settings/ui";

/** The error state of the sign-in, device and invitation pages: the registry failed or is unreachable. */
export function PageError({ title, error, reset }: { title: string; error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="mx-auto w-full max-w-xl space-y-3">
      <h1 className="text-2xl font-semibold">{title}</h1>
      <p>The registry did not answer as expected. Nothing was changed; try again in a moment.</p>
      {error.digest ? <p className="text-sm text-neutral-600 dark:text-neutral-400">Reference: {error.digest}</p> : null}
      <button type="button" onClick={reset} className={buttonSecondary}>
        Try again
      </button>
    </div>
  );
}
