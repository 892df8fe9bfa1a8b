"use client";

import { buttonSecondary } from "@/components/settings/ui";

/** A settings page could not load (the registry failed or is unreachable). */
export default function SettingsError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="space-y-3">
      <h1 className="text-2xl font-semibold">Settings could not be loaded</h1>
      <p>The registry did not answer as expected. Your tokens, keys and organizations are unchanged.</p>
      {error.digest ? <p className="text-sm text-neutral-600 dark:text-neutral-400">Reference: {error.digest}</p> : null}
      <button type="button" onClick={reset} className={buttonSecondary}>
        Try again
      </button>
    </div>
  );
}
