import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { clientCommand, mcpServerEntry, registryStatsSchema, searchResponseSchema, type RegistryStats, type SearchResult } from "@rye/core";
import { CopyButton } from "@/components/copy-button";
import { ItemCard } from "@/components/item-card";
import { publicBaseUrl } from "@/lib/api";
import { apiParsed } from "@/lib/contracts";

export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: { absolute: "rye registry — signed directives, tools and knowledge for AI agents" },
  description: "Search, verify and pull Ed25519-signed directives, tools and knowledge for AI agents. Every item is signed by its author and re-signed by the registry.",
  openGraph: {
    title: "rye registry",
    description: "Signed directives, tools and knowledge for AI agents: search them here, pull and verify them with rye.",
    type: "website",
    url: "/",
  },
};

const number = new Intl.NumberFormat("en");

/** A section that failed to load says so instead of taking the whole page down. */
type Loaded<T> = { ok: true; value: T } | { ok: false; message: string };
async function load<T>(pending: Promise<T>): Promise<Loaded<T>> {
  try {
    return { ok: true, value: await pending };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : "The registry did not answer" };
  }
}

export default async function HomePage() {
  const [stats, recent, popular, base] = await Promise.all([
    load(apiParsed(registryStatsSchema, "/v1/stats")),
    load(apiParsed(searchResponseSchema, "/v1/search?sort=recent&limit=6")),
    load(apiParsed(searchResponseSchema, "/v1/search?sort=downloads&limit=6")),
    publicBaseUrl(),
  ]);
  const login = clientCommand(`login --registry ${base}`);
  // The block README.md documents for Claude Desktop and Cursor, pointed at this registry.
  const mcp = JSON.stringify({ mcpServers: { rye: mcpServerEntry("/path/to/project", { RYE_REGISTRY_URL: base }) } }, null, 2);
  return (
    <div className="space-y-14">
      <section aria-labelledby="hero-heading" className="space-y-6 pt-4">
        <div className="space-y-4">
          <h1 id="hero-heading" className="max-w-3xl text-3xl font-semibold tracking-tight sm:text-5xl">
            Signed building blocks for AI agents
          </h1>
          <p className="max-w-2xl text-lg text-neutral-700 dark:text-neutral-300">
            rye is a registry of <strong className="font-semibold">directives</strong> (instructions for an LLM), <strong className="font-semibold">tools</strong> (executables run through a verified
            chain) and <strong className="font-semibold">knowledge</strong> (markdown documents). Every item is Ed25519-signed by its author and re-signed by this registry; your agent pulls,
            verifies and pins them on demand.
          </p>
        </div>
        <form action="/search" method="get" role="search" aria-label="Search the registry" className="flex max-w-2xl flex-col gap-2 sm:flex-row sm:items-end">
          <div className="flex-1">
            <label htmlFor="home-search" className="mb-1 block text-sm font-medium">
              Search the registry
            </label>
            <input
              id="home-search"
              name="q"
              type="search"
              maxLength={256}
              placeholder="e.g. file system, http, code review"
              className="w-full rounded-md border border-neutral-400 bg-white px-3 py-2 text-base placeholder:text-neutral-500 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 dark:border-neutral-600 dark:bg-neutral-900 dark:placeholder:text-neutral-400"
            />
          </div>
          <button type="submit" className="rounded-md bg-brand-700 px-4 py-2 font-medium text-white hover:bg-brand-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600">
            Search
          </button>
        </form>
        <StatsPanel stats={stats} />
      </section>

      <div className="grid gap-10 md:grid-cols-2">
        <ItemList id="recent" title="Recently published" more="/search?sort=recent" moreLabel="All recent items" loaded={recent} empty="Nothing is published yet." />
        <ItemList
          id="popular"
          title="Most pulled"
          more="/search?sort=downloads"
          moreLabel="All items by pulls"
          loaded={popular.ok ? { ok: true, value: { ...popular.value, results: popular.value.results.filter((item) => item.download_count > 0) } } : popular}
          empty="Nothing has been pulled yet."
        />
      </div>

      <section aria-labelledby="start-heading" className="space-y-6">
        <h2 id="start-heading" className="text-2xl font-semibold tracking-tight">
          Get started
        </h2>
        <div className="grid gap-6 lg:grid-cols-2">
          <Snippet
            id="login"
            title="Sign in from your terminal"
            text={login}
            copyLabel="Copy the login command"
            note={
              <>
                Opens this site to confirm a device code, then stores a token for this registry. Then <code className="font-mono">{clientCommand("push")}</code> publishes and{" "}
                <code className="font-mono">{clientCommand("load")}</code> pulls verified items.
              </>
            }
          />
          <Snippet
            id="mcp"
            title="Give your agent the registry (MCP)"
            text={mcp}
            copyLabel="Copy the MCP configuration"
            note={
              <>
                For Claude Desktop (<code className="font-mono">claude_desktop_config.json</code>) and Cursor (<code className="font-mono">.cursor/mcp.json</code>): <code className="font-mono">{clientCommand("mcp")}</code>{" "}
                serves <code className="font-mono">search</code>, <code className="font-mono">load</code>, <code className="font-mono">execute</code> and <code className="font-mono">sign</code> over
                stdio; set <code className="font-mono">cwd</code> to your project.
              </>
            }
          />
        </div>
      </section>
    </div>
  );
}

function StatsPanel({ stats }: { stats: Loaded<RegistryStats> }) {
  if (!stats.ok) {
    return <p className="text-sm text-neutral-600 dark:text-neutral-400">Counts are unavailable right now ({stats.message}).</p>;
  }
  const { items, namespaces, downloads } = stats.value;
  const entries: { label: string; value: number; href?: string }[] = [
    { label: items.directive === 1 ? "directive" : "directives", value: items.directive, href: "/search?type=directive" },
    { label: items.tool === 1 ? "tool" : "tools", value: items.tool, href: "/search?type=tool" },
    { label: "knowledge items", value: items.knowledge, href: "/search?type=knowledge" },
    { label: namespaces === 1 ? "publisher" : "publishers", value: namespaces },
    { label: downloads === 1 ? "pull" : "total pulls", value: downloads },
  ];
  return (
    <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5">
      {entries.map((entry) => (
        <div key={entry.label} className="flex flex-col rounded-lg border border-neutral-200 px-4 py-3 dark:border-neutral-800">
          <dt className="text-sm text-neutral-600 dark:text-neutral-400">
            {entry.href ? (
              <Link href={entry.href} className="hover:underline focus-visible:outline-2 focus-visible:outline-brand-600">
                {entry.label}
              </Link>
            ) : (
              entry.label
            )}
          </dt>
          <dd className="order-first text-2xl font-semibold tabular-nums">{number.format(entry.value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function ItemList({ id, title, more, moreLabel, loaded, empty }: { id: string; title: string; more: string; moreLabel: string; loaded: Loaded<{ results: SearchResult[] }>; empty: string }) {
  return (
    <section aria-labelledby={`${id}-heading`} className="min-w-0">
      <div className="flex items-baseline justify-between gap-3 border-b border-neutral-200 pb-2 dark:border-neutral-800">
        <h2 id={`${id}-heading`} className="text-xl font-semibold">
          {title}
        </h2>
        <Link href={more} className="text-sm text-brand-700 hover:underline dark:text-brand-300">
          {moreLabel}
          <span aria-hidden="true"> →</span>
        </Link>
      </div>
      {!loaded.ok ? (
        <p className="py-4 text-sm text-neutral-600 dark:text-neutral-400">Could not load this list: {loaded.message}</p>
      ) : loaded.value.results.length === 0 ? (
        <p className="py-4 text-sm text-neutral-600 dark:text-neutral-400">{empty}</p>
      ) : (
        <ul className="divide-y divide-neutral-200 dark:divide-neutral-800">
          {loaded.value.results.map((item) => (
            <li key={`${item.item_type}/${item.item_id}`}>
              <ItemCard item={item} headingLevel={3} compact />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Snippet({ id, title, text, copyLabel, note }: { id: string; title: string; text: string; copyLabel: string; note: ReactNode }) {
  return (
    <section aria-labelledby={`${id}-heading`} className="min-w-0 space-y-2">
      <div className="flex items-center justify-between gap-3">
        <h3 id={`${id}-heading`} className="font-semibold">
          {title}
        </h3>
        <CopyButton text={text} label={copyLabel} />
      </div>
      <pre className="overflow-x-auto rounded-md bg-neutral-100 p-3 text-sm dark:bg-neutral-900" tabIndex={0}>
        <code className="font-mono">{text}</code>
      </pre>
      <p className="text-sm text-neutral-600 dark:text-neutral-400">{note}</p>
    </section>
  );
}
