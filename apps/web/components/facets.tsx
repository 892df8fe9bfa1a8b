/**
 * Facet filters as links (no script needed, every state is a shareable address): each value shows its
 * count and toggles its filter. The caller computes the addresses.
 */
import Link from "next/link";

export interface FacetOption {
  value: string;
  label?: string;
  count: number;
  href: string;
  selected: boolean;
}

export interface FacetGroup {
  key: string;
  title: string;
  options: FacetOption[];
}

const number = new Intl.NumberFormat("en");

/** `idPrefix` keeps ids unique when the filters render twice (a mobile disclosure and a desktop sidebar). */
export function Facets({ groups, clearHref, idPrefix = "facet" }: { groups: FacetGroup[]; clearHref?: string | undefined; idPrefix?: string }) {
  const shown = groups.filter((g) => g.options.length > 0);
  return (
    <div className="space-y-5 text-sm">
      {clearHref ? (
        <Link href={clearHref} className="inline-block rounded-sm text-brand-700 underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:text-brand-300">
          Clear all filters
        </Link>
      ) : null}
      {shown.length === 0 ? <p className="text-neutral-600 dark:text-neutral-400">No filters for these results.</p> : null}
      {shown.map((group) => (
        <section key={group.key} aria-labelledby={`${idPrefix}-${group.key}`}>
          <h3 id={`${idPrefix}-${group.key}`} className="mb-1.5 text-xs font-semibold uppercase tracking-wide text-neutral-600 dark:text-neutral-400">
            {group.title}
          </h3>
          <ul className="space-y-0.5">
            {group.options.map((option) => (
              <li key={option.value}>
                <Link
                  href={option.href}
                  aria-current={option.selected ? "true" : undefined}
                  className={`flex items-center gap-2 rounded-md px-2 py-1 hover:bg-neutral-100 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-brand-600 dark:hover:bg-neutral-900 ${option.selected ? "font-semibold" : ""}`}
                >
                  <span
                    aria-hidden="true"
                    className={`inline-flex h-3.5 w-3.5 shrink-0 items-center justify-center rounded-sm border text-[10px] leading-none ${option.selected ? "border-brand-700 bg-brand-700 text-white dark:border-brand-300 dark:bg-brand-300 dark:text-neutral-950" : "border-neutral-400 dark:border-neutral-600"}`}
                  >
                    {option.selected ? "✓" : ""}
                  </span>
                  <span className="min-w-0 flex-1 truncate">{option.label ?? option.value}</span>
                  <span className="tabular-nums text-xs text-neutral-600 dark:text-neutral-400">{number.format(option.count)}</span>
                  {option.selected ? <span className="sr-only">(selected; select to remove this filter)</span> : null}
                </Link>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
