/** Previous / next links with a position label; links keep the address shareable (the caller builds them). */
import Link from "next/link";

const LINK =
  "inline-flex items-center rounded-md border border-neutral-300 px-3 py-1.5 text-sm font-medium hover:bg-neutral-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:border-neutral-700 dark:hover:bg-neutral-900";
const DISABLED = "inline-flex items-center rounded-md border border-neutral-200 px-3 py-1.5 text-sm text-neutral-600 dark:border-neutral-800 dark:text-neutral-400";

export function Pagination({ prevHref, nextHref, label }: { prevHref?: string | undefined; nextHref?: string | undefined; label: string }) {
  if (!prevHref && !nextHref) return null;
  return (
    <nav aria-label="Pagination" className="flex items-center justify-between gap-4 pt-4">
      {prevHref ? (
        <Link href={prevHref} rel="prev" className={LINK}>
          <span aria-hidden="true">←&nbsp;</span>Previous
        </Link>
      ) : (
        <span className={DISABLED} aria-disabled="true">
          <span aria-hidden="true">←&nbsp;</span>Previous
        </span>
      )}
      <span className="text-sm text-neutral-600 dark:text-neutral-400">{label}</span>
      {nextHref ? (
        <Link href={nextHref} rel="next" className={LINK}>
          Next<span aria-hidden="true">&nbsp;→</span>
        </Link>
      ) : (
        <span className={DISABLED} aria-disabled="true">
          Next<span aria-hidden="true">&nbsp;→</span>
        </span>
      )}
    </nav>
  );
}
