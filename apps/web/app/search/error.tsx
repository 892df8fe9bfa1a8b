"use client";

import Link from "next/link";
import { useEffect } from "react";

export default function SearchError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <div role="alert" className="space-y-3">
      <h1 className="text-2xl font-semibold">Search is unavailable</h1>
      <p className="text-neutral-700 dark:text-neutral-300">The registry did not answer the search. It may be restarting; try again in a moment.</p>
      {error.digest ? <p className="text-sm text-neutral-600 dark:text-neutral-400">Reference: <code>{error.digest}</code></p> : null}
      <div className="flex gap-3">
        <button type="button" onClick={reset} className="rounded-md bg-brand-700 px-4 py-2 font-medium text-white hover:bg-brand-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600">
          Try again
        </button>
        <Link href="/" className="rounded-md border border-neutral-300 px-4 py-2 dark:border-neutral-700">
          Home
        </Link>
      </div>
    </div>
  );
}
