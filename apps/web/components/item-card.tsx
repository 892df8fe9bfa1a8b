/**
 * One registry item in a list (search results, the home page, profiles): name linking to its page,
 * type, version, description, author, signed badge, deprecated / private markers, pulls, quality score and date.
 * `headingLevel` keeps the page's heading outline (h2 under the page's h1, h3 under a section's h2).
 */
import Link from "next/link";
import type { SearchResult } from "@rye/core";

const TYPE_STYLES: Record<SearchResult["item_type"], string> = {
  directive: "bg-sky-50 text-sky-800 ring-sky-200 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-800",
  tool: "bg-violet-50 text-violet-800 ring-violet-200 dark:bg-violet-950 dark:text-violet-200 dark:ring-violet-800",
  knowledge: "bg-amber-50 text-amber-900 ring-amber-200 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-800",
  skill: "bg-emerald-50 text-emerald-900 ring-emerald-200 dark:bg-emerald-950 dark:text-emerald-200 dark:ring-emerald-800",
};

const number = new Intl.NumberFormat("en");

export const itemHref = (item: Pick<SearchResult, "item_type" | "item_id">) => `/${item.item_type}/${item.item_id.split("/").map(encodeURIComponent).join("/")}`;

export function TypeBadge({ type }: { type: SearchResult["item_type"] }) {
  return <span className={`inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${TYPE_STYLES[type]}`}>{type}</span>;
}

/** Every item the registry serves is re-signed with the registry key for its publisher. */
export function SignedBadge({ author }: { author: string }) {
  return (
    <span
      className="inline-flex items-center gap-1 rounded bg-brand-50 px-1.5 py-0.5 text-xs font-medium text-brand-700 ring-1 ring-inset ring-brand-100 dark:bg-brand-700/25 dark:text-brand-300 dark:ring-brand-700"
      title={`Ed25519-signed; the registry re-signed it for ${author}`}
    >
      <svg aria-hidden="true" viewBox="0 0 16 16" className="h-3 w-3 fill-current">
        <path d="M8 1 2.5 3v4.2c0 3.3 2.3 6.3 5.5 7.3 3.2-1 5.5-4 5.5-7.3V3L8 1Zm2.9 4.9-3.5 3.9a.6.6 0 0 1-.9 0L4.9 8.2l.9-.9 1.2 1.2 3-3.4.9.8Z" />
      </svg>
      signed<span className="sr-only">, registry-signed for {author}</span>
    </span>
  );
}

export function ItemCard({ item, headingLevel = 2, compact = false }: { item: SearchResult; headingLevel?: 2 | 3; compact?: boolean }) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  return (
    <article className="min-w-0 py-4">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <Heading className="min-w-0 break-words text-base font-semibold">
          <Link href={itemHref(item)} className="rounded-sm text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:text-brand-300">
            {item.item_id}
          </Link>
        </Heading>
        <TypeBadge type={item.item_type} />
        {item.version ? <span className="font-mono text-xs text-neutral-600 dark:text-neutral-400">v{item.version}</span> : null}
        {item.deprecated ? (
          <span className="rounded bg-red-50 px-1.5 py-0.5 text-xs font-medium text-red-800 ring-1 ring-inset ring-red-200 dark:bg-red-950 dark:text-red-200 dark:ring-red-800">deprecated</span>
        ) : null}
        {item.visibility !== "public" ? (
          <span className="rounded bg-neutral-100 px-1.5 py-0.5 text-xs font-medium text-neutral-800 ring-1 ring-inset ring-neutral-300 dark:bg-neutral-800 dark:text-neutral-200 dark:ring-neutral-700">{item.visibility}</span>
        ) : null}
      </div>
      <p className={`mt-1 text-sm text-neutral-700 dark:text-neutral-300 ${compact ? "line-clamp-2" : ""}`}>
        {item.description || <span className="italic text-neutral-600 dark:text-neutral-400">No description</span>}
      </p>
      <p className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-neutral-600 dark:text-neutral-400">
        <span>
          by <span className="font-medium text-neutral-800 dark:text-neutral-200">{item.author}</span>
        </span>
        <SignedBadge author={item.author} />
        {item.tool_type ? <span>{item.tool_type}</span> : null}
        <span>
          {number.format(item.download_count)} {item.download_count === 1 ? "pull" : "pulls"}
        </span>
        {item.quality_score !== undefined && item.item_type !== "skill" ? <span title="Quality score, 0 to 100 (see the item page)">quality {item.quality_score}</span> : null}
        <span>
          updated <time dateTime={item.updated_at}>{item.updated_at.slice(0, 10)}</time>
        </span>
      </p>
    </article>
  );
}
