"use client";

export default function PublishError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="mx-auto max-w-2xl space-y-3">
      <h1 className="text-2xl font-semibold">The publish page could not load</h1>
      <p className="text-neutral-700 dark:text-neutral-300">{error.message || "The registry did not answer."}</p>
      <button type="button" onClick={reset} className="rounded-md border border-neutral-300 px-3 py-1.5 text-sm font-medium dark:border-neutral-700">
        Try again
      </button>
    </div>
  );
}
