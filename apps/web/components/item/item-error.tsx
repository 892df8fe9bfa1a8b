"use client";
/** The error boundary of item and namespace pages: the registry could not be reached or answered badly. */
import { useEffect } from "react";

export function PageError({ error, reset, what }: { error: Error & { digest?: string }; reset: () => void; what: string }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <div className="space-y-3" role="alert">
      <h1 className="text-2xl font-semibold">This {what} could not be loaded</h1>
      <p className="text-neutral-700 dark:text-neutral-300">The registry did not answer as expected. It may be restarting or overloaded; try again in a moment.</p>
      {error.digest ? <p className="text-xs text-neutral-600 dark:text-neutral-400">Reference: {error.digest}</p> : null}
      <button
        type="button"
        onClick={reset}
        className="rounded-md bg-brand-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-brand-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
      >
        Try again
      </button>
    </div>
  );
}
