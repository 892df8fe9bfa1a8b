export default function Loading() {
  return (
    <div className="mx-auto max-w-4xl space-y-6" aria-busy="true" aria-label="Loading the publish page">
      <div className="h-9 w-64 animate-pulse rounded bg-neutral-200 dark:bg-neutral-800" />
      <div className="h-40 animate-pulse rounded-lg bg-neutral-100 dark:bg-neutral-900" />
      <div className="h-96 animate-pulse rounded-lg bg-neutral-100 dark:bg-neutral-900" />
    </div>
  );
}
