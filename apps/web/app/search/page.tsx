import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { searchResponseSchema, type SearchFacets, type SearchResponse, type SearchSort } from "@rye/core";
import { Facets, type FacetGroup } from "@/components/facets";
import { ItemCard } from "@/components/item-card";
import { Pagination } from "@/components/pagination";
import { SearchResultsSkeleton } from "@/components/search-skeleton";
import { ApiError } from "@/lib/api";
import { apiParsed } from "@/lib/contracts";
import { apiSearchPath, FILTER_KEYS, hasFilters, isItemType, PAGE_SIZE, pageLinks, parseSearchState, searchHref, type FilterKey, type RawSearchParams, type SearchState } from "./params";

export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<RawSearchParams> };

function describe(state: SearchState): string {
  const parts = [state.type ? `${state.type} items` : "items"];
  if (state.namespace) parts.push(`in ${state.namespace}`);
  if (state.category) parts.push(`under ${state.category}`);
  if (state.tool_type) parts.push(`of tool type ${state.tool_type}`);
  return parts.join(" ");
}

export async function generateMetadata({ searchParams }: Props): Promise<Metadata> {
  const state = parseSearchState(await searchParams);
  const title = state.q ? `“${state.q}” – search` : hasFilters(state) ? `Browse ${describe(state)}` : "Browse items";
  const description = state.q ? `Signed ${describe(state)} matching “${state.q}” on the rye registry.` : `Signed ${describe(state)} on the rye registry: directives, tools and knowledge for AI agents.`;
  return {
    title,
    description,
    openGraph: { title, description, type: "website", url: searchHref(state, { page: state.page, cursor: state.cursor }) },
    // Result pages change all the time; the plain listing is what search engines should keep.
    robots: state.q || state.page > 1 ? { index: false, follow: true } : undefined,
  };
}

const SORTS: { value: SearchSort; label: string }[] = [
  { value: "relevance", label: "Best match" },
  { value: "recent", label: "Recently updated" },
  { value: "downloads", label: "Most pulled" },
  { value: "quality", label: "Best quality" },
];

export default async function SearchPage({ searchParams }: Props) {
  const state = parseSearchState(await searchParams);
  const path = apiSearchPath(state);
  return (
    <div className="space-y-6">
      <div className="space-y-3">
        <h1 className="text-2xl font-semibold tracking-tight">{state.q ? "Search results" : "Browse the registry"}</h1>
        <form action="/search" method="get" role="search" aria-label="Search the registry" className="flex flex-col gap-2 sm:flex-row sm:items-end">
          <div className="flex-1">
            <label htmlFor="search-q" className="mb-1 block text-sm font-medium">
              Search directives, tools and knowledge
            </label>
            <input
              id="search-q"
              name="q"
              type="search"
              defaultValue={state.q}
              maxLength={256}
              placeholder='e.g. http client, "file system", kubernetes -helm'
              className="w-full rounded-md border border-neutral-400 bg-white px-3 py-2 text-base placeholder:text-neutral-500 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 dark:border-neutral-600 dark:bg-neutral-900 dark:placeholder:text-neutral-400"
            />
          </div>
          {FILTER_KEYS.map((key) => (state[key] ? <input key={key} type="hidden" name={key} value={state[key]} /> : null))}
          {state.sort ? <input type="hidden" name="sort" value={state.sort} /> : null}
          <button type="submit" className="rounded-md bg-brand-700 px-4 py-2 font-medium text-white hover:bg-brand-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600">
            Search
          </button>
        </form>
        {hasFilters(state) ? (
          <p className="text-sm text-neutral-600 dark:text-neutral-400">
            Searching {describe(state)}. The filters stay when you search again;{" "}
            <Link href={searchHref(state, { type: undefined, namespace: undefined, category: undefined, tool_type: undefined })} className="underline">
              search everything
            </Link>
            .
          </p>
        ) : null}
      </div>
      {/* Tall enough that the footer stays below the fold while results stream in (no layout shift). */}
      <div className="min-h-[80vh]">
        <Suspense key={path} fallback={<SearchResultsSkeleton />}>
          <SearchResults state={state} path={path} />
        </Suspense>
      </div>
    </div>
  );
}

async function SearchResults({ state, path }: { state: SearchState; path: string }) {
  let data: SearchResponse;
  try {
    data = await apiParsed(searchResponseSchema, path, { session: true });
  } catch (err) {
    // A request the registry refuses (a bad filter, a query too long, a stale cursor) is the visitor's to fix.
    if (err instanceof ApiError && err.status === 400) return <SearchRefused state={state} message={err.message} hint={err.hint} />;
    throw err;
  }
  const facets = facetGroups(state, data.facets);
  const links = pageLinks(state, data.next_cursor);
  const pages = Math.max(1, Math.ceil(data.total / PAGE_SIZE));
  const first = (state.page - 1) * PAGE_SIZE + 1;
  const range = data.results.length > 0 ? `${first}–${first + data.results.length - 1} of ` : "";
  const clearHref = hasFilters(state) ? searchHref(state, { type: undefined, namespace: undefined, category: undefined, tool_type: undefined }) : undefined;
  const count = `${data.total_estimated ? "about " : ""}${new Intl.NumberFormat("en").format(data.total)}`;
  return (
    <div className="grid gap-6 lg:grid-cols-[15rem_minmax(0,1fr)]">
      <nav aria-label="Filters" className="lg:row-span-2">
        <details className="rounded-md border border-neutral-200 p-3 lg:hidden dark:border-neutral-800">
          <summary className="cursor-pointer text-sm font-medium">Filters{hasFilters(state) ? " (active)" : ""}</summary>
          <div className="pt-3">
            <Facets groups={facets} clearHref={clearHref} idPrefix="facet-m" />
          </div>
        </details>
        <div className="hidden lg:block">
          <h2 className="sr-only">Filters</h2>
          <Facets groups={facets} clearHref={clearHref} idPrefix="facet" />
        </div>
      </nav>
      <section aria-labelledby="results-heading" className="min-w-0">
        <div className="flex flex-wrap items-center justify-between gap-3 border-b border-neutral-200 pb-3 dark:border-neutral-800">
          <h2 id="results-heading" className="text-sm text-neutral-700 dark:text-neutral-300">
            <span role="status" aria-live="polite">
              {range}
              <strong className="font-semibold text-neutral-900 dark:text-neutral-100">{count}</strong> {data.total === 1 ? "result" : "results"}
              {state.q ? (
                <>
                  {" "}
                  for <q className="font-medium text-neutral-900 dark:text-neutral-100">{state.q}</q>
                </>
              ) : null}
            </span>
          </h2>
          <SortLinks state={state} effective={data.sort} />
        </div>
        {data.results.length === 0 ? (
          data.total > 0 ? (
            <div className="py-8 text-sm">
              <p>There are no results on this page.</p>
              <p className="mt-2">
                <Link href={searchHref(state, { page: 1, cursor: undefined })} className="underline">
                  Go to the first page
                </Link>
              </p>
            </div>
          ) : (
            <EmptyState state={state} facets={data.facets} />
          )
        ) : (
          <>
            <ol className="divide-y divide-neutral-200 dark:divide-neutral-800">
              {data.results.map((item) => (
                <li key={`${item.item_type}/${item.item_id}`}>
                  <ItemCard item={item} headingLevel={3} />
                </li>
              ))}
            </ol>
            <Pagination prevHref={links.prev} nextHref={links.next} label={`Page ${state.page} of ${new Intl.NumberFormat("en").format(pages)}`} />
          </>
        )}
      </section>
    </div>
  );
}

function SortLinks({ state, effective }: { state: SearchState; effective: SearchSort }) {
  // Without a query there is nothing to rank by relevance.
  const options = state.q ? SORTS : SORTS.filter((s) => s.value !== "relevance");
  return (
    <nav aria-label="Sort" className="flex flex-wrap items-center gap-1 text-sm">
      <span className="mr-1 text-neutral-600 dark:text-neutral-400">Sort:</span>
      {options.map((option) => {
        const active = option.value === effective;
        return (
          <Link
            key={option.value}
            href={searchHref(state, { sort: option.value })}
            aria-current={active ? "true" : undefined}
            className={`whitespace-nowrap rounded-md px-2 py-1 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 ${active ? "bg-neutral-900 font-medium text-white dark:bg-neutral-100 dark:text-neutral-900" : "hover:bg-neutral-100 dark:hover:bg-neutral-900"}`}
          >
            {option.label}
          </Link>
        );
      })}
    </nav>
  );
}

const FACET_TITLES: Record<FilterKey, string> = { type: "Type", namespace: "Namespace", category: "Category", tool_type: "Tool type" };
const FACET_FIELDS: Record<FilterKey, keyof SearchFacets> = { type: "item_type", namespace: "namespace", category: "category", tool_type: "tool_type" };

function facetGroups(state: SearchState, facets: SearchFacets | undefined): FacetGroup[] {
  if (!facets) return [];
  return FILTER_KEYS.map((key) => {
    const current = state[key];
    const values = facets[FACET_FIELDS[key]];
    const options = values.map(({ value, count }) => ({
      value,
      count,
      selected: key === "category" ? false : value === current,
      href: searchHref(state, { [key]: value === current ? undefined : value }),
    }));
    if (key === "category" && current) {
      // Categories drill down: the selected one first (select to go up a level), then its children.
      const parent = current.includes("/") ? current.slice(0, current.lastIndexOf("/")) : undefined;
      const total = values.reduce((n, v) => n + v.count, 0);
      options.unshift({ value: current, count: total, selected: true, href: searchHref(state, { category: parent }) });
    } else if (current && !options.some((o) => o.selected)) {
      options.unshift({ value: current, count: 0, selected: true, href: searchHref(state, { [key]: undefined }) });
    }
    return { key, title: FACET_TITLES[key], options };
  });
}

function EmptyState({ state, facets }: { state: SearchState; facets: SearchFacets | undefined }) {
  const removals = FILTER_KEYS.filter((key) => state[key]).map((key) => ({ key, href: searchHref(state, { [key]: undefined }), label: `${FACET_TITLES[key].toLowerCase()} “${state[key]}”` }));
  const words = state.q.split(/\s+/).filter(Boolean);
  return (
    <div className="space-y-4 py-8">
      <p className="text-lg font-medium">{state.q ? <>No items match <q>{state.q}</q>{hasFilters(state) ? " with these filters" : ""}.</> : "No items here yet."}</p>
      <ul className="list-disc space-y-1.5 pl-5 text-sm text-neutral-700 dark:text-neutral-300">
        {removals.map((r) => (
          <li key={r.key}>
            <Link href={r.href} className="underline">
              Remove the {r.label} filter
            </Link>
          </li>
        ))}
        {state.type && !isItemType(state.type) ? <li>Types are directive, tool and knowledge.</li> : null}
        {words.length > 1 ? (
          <li>
            Every word must match: try fewer words, or either of them with{" "}
            <Link href={searchHref(state, { q: words.join(" OR ") })} className="font-mono underline">
              {words.slice(0, 3).join(" OR ")}
              {words.length > 3 ? " …" : ""}
            </Link>
          </li>
        ) : null}
        {state.q ? <li>Check the spelling, or try a shorter or more general word.</li> : null}
        {state.q || hasFilters(state) ? (
          <li>
            <Link href="/search" className="underline">
              Browse everything
            </Link>{" "}
            or look at{" "}
            <Link href="/search?sort=downloads" className="underline">
              the most pulled items
            </Link>
            .
          </li>
        ) : (
          <li>
            <Link href="/publish" className="underline">
              Publish the first item
            </Link>
            .
          </li>
        )}
      </ul>
      {facets && Object.values(facets).some((values) => values.length > 0) ? (
        <p className="text-sm text-neutral-600 dark:text-neutral-400">Other filter values have matches: see the filters.</p>
      ) : null}
    </div>
  );
}

function SearchRefused({ state, message, hint }: { state: SearchState; message: string; hint?: string | undefined }) {
  return (
    <div role="alert" className="space-y-2 rounded-md border border-red-300 bg-red-50 p-4 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
      <p className="font-medium">{message}</p>
      {hint ? <p>{hint}</p> : null}
      <p>
        <Link href={searchHref({ q: state.q, page: 1 })} className="underline">
          Search “{state.q || "everything"}” without filters
        </Link>
      </p>
    </div>
  );
}
