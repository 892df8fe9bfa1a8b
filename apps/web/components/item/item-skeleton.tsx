/** Placeholder of a content block while it streams in. */
export function ContentSkeleton({ lines, label }: { lines: number; label: string }) {
  return (
    <div aria-busy="true" className="space-y-2 rounded-md border border-neutral-200 p-3 dark:border-neutral-800">
      <p className="sr-only" role="status">{label}</p>
      {Array.from({ length: lines }, (_, i) => (
        <div key={i} className="h-4 animate-pulse rounded bg-neutral-200 dark:bg-neutral-800" style={{ width: `${40 + ((i * 37) % 55)}%` }} />
      ))}
    </div>
  );
}
