/** Placeholder of the search results (same outline as the real ones, so nothing jumps when they arrive). */
export function SearchResultsSkeleton({ rows = 6 }: { rows?: number }) {
  return (
    <div className="grid gap-6 lg:grid-cols-[15rem_minmax(0,1fr)]" aria-busy="true">
      <div className="hidden space-y-5 lg:block" aria-hidden="true">
        {[4, 5, 4].map((n, g) => (
          <div key={g} className="space-y-2">
            <div className="h-3 w-20 rounded bg-neutral-200 dark:bg-neutral-800" />
            {Array.from({ length: n }, (_, i) => (
              <div key={i} className="h-5 rounded bg-neutral-100 dark:bg-neutral-900" />
            ))}
          </div>
        ))}
      </div>
      <div className="min-w-0">
        <div className="flex items-center justify-between border-b border-neutral-200 pb-3 dark:border-neutral-800">
          <p role="status" className="text-sm text-neutral-600 dark:text-neutral-400">
            Searching…
          </p>
          <div className="h-7 w-56 rounded bg-neutral-100 dark:bg-neutral-900" aria-hidden="true" />
        </div>
        <ul className="divide-y divide-neutral-200 dark:divide-neutral-800" aria-hidden="true">
          {Array.from({ length: rows }, (_, i) => (
            <li key={i} className="animate-pulse space-y-2 py-4 motion-reduce:animate-none">
              <div className="h-5 w-2/3 rounded bg-neutral-200 dark:bg-neutral-800" />
              <div className="h-4 w-full rounded bg-neutral-100 dark:bg-neutral-900" />
              <div className="h-3 w-1/2 rounded bg-neutral-100 dark:bg-neutral-900" />
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
