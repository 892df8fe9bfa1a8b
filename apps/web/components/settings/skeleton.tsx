/** Placeholder cards while a settings section loads (the heading above it is already there: no layout shift). */
export function SectionSkeleton({ cards = 2 }: { cards?: number }) {
  return (
    <div className="space-y-4" aria-busy="true">
      <p className="sr-only" role="status">
        Loading…
      </p>
      {Array.from({ length: cards }, (_, i) => (
        <div key={i} className="h-28 animate-pulse rounded-lg border border-neutral-200 bg-neutral-100 dark:border-neutral-800 dark:bg-neutral-900" />
      ))}
    </div>
  );
}
