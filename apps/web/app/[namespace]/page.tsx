/**
 * /{namespace}: a user's or an organization's page. Its items (public ones, plus private ones the
 * visitor may see: the session is forwarded) from GET /v1/search?namespace=, filterable by type and
 * paged by cursor; for organizations, the members and their roles when the visitor is a member
 * (GET /v1/namespaces/{name} shows members to members only).
 */
import type { Metadata } from "next";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import type { ItemType, SearchResponse } from "@rye/core";
import { isItemType, searchResponseSchema } from "@rye/core";
import { itemHref } from "@/components/item/data";
import { ApiError, apiOrNull } from "@/lib/api";
import { apiParsed } from "@/lib/contracts";
import { VerifiedBadges } from "@/components/verification/verified-badges";

export const dynamic = "force-dynamic";

interface NamespaceView {
  name: string;
  kind: "user" | "org";
  display_name: string;
  created_at: string;
  item_count: number;
  viewer_role: "owner" | "admin" | "member" | null;
  members: { username: string; role: "owner" | "admin" | "member"; joined_at: string }[] | null;
}

interface Props {
  params: Promise<{ namespace: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

const NAME = /^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/;
const PAGE_SIZE = 20;
const TYPE_LABELS: Record<ItemType, string> = { directive: "Directives", tool: "Tools", knowledge: "Knowledge" };
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

async function loadNamespace(raw: string): Promise<NamespaceView | null> {
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    return null;
  }
  if (name.length < 2 || name.length > 39 || !NAME.test(name)) return null;
  return apiOrNull<NamespaceView>(`/v1/namespaces/${encodeURIComponent(name.toLowerCase())}`, { session: true });
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const ns = await loadNamespace((await params).namespace).catch(() => null);
  if (!ns) return { title: "Not found", robots: { index: false } };
  const who = ns.display_name ? `${ns.display_name} (${ns.name})` : ns.name;
  const description = `${ns.kind === "org" ? "Organization" : "User"} ${ns.name} on the rye registry: ${ns.item_count} signed ${ns.item_count === 1 ? "item" : "items"}.`;
  return { title: who, description, alternates: { canonical: `/${ns.name}` }, openGraph: { title: who, description, type: "profile", url: `/${ns.name}` } };
}

function pageHref(name: string, query: { type?: string | undefined; cursor?: string | undefined }): string {
  const params = new URLSearchParams();
  if (query.type) params.set("type", query.type);
  if (query.cursor) params.set("cursor", query.cursor);
  const s = params.toString();
  return `/${name}${s ? `?${s}` : ""}`;
}

/** The namespace's items, newest first. Rendered with the page (no streaming: nothing shifts, and a 404 is a real 404). */
async function NamespaceItems({ ns, type, cursor }: { ns: NamespaceView; type: ItemType | undefined; cursor: string | undefined }) {
  const query = new URLSearchParams({ namespace: ns.name, limit: String(PAGE_SIZE), sort: "recent" });
  if (type) query.set("item_type", type);
  if (cursor && cursor.length <= 512) query.set("cursor", cursor);
  let items: SearchResponse;
  try {
    items = await apiParsed(searchResponseSchema, `/v1/search?${query}`, { session: true });
  } catch (err) {
    if (cursor && err instanceof ApiError && err.status === 400) {
      return (
        <p className="text-sm">
          This page link is no longer valid.{" "}
          <Link href={pageHref(ns.name, { type })} className="underline">
            Start from the first page
          </Link>
          .
        </p>
      );
    }
    throw err;
  }
  return (
    <>
      <p className="text-sm text-neutral-600 dark:text-neutral-400" aria-live="polite">
        {items.total} {items.total === 1 ? "item" : "items"}
        {type ? ` of type ${type}` : ""}, recently updated first
      </p>
      {items.results.length === 0 ? (
        <div className="rounded-md border border-dashed border-neutral-300 p-6 text-center dark:border-neutral-700">
          <p className="font-medium">{cursor ? "No more items." : type ? `No ${TYPE_LABELS[type].toLowerCase()} here yet.` : "No items published here yet."}</p>
          {ns.viewer_role && !cursor ? (
            <p className="mt-2 text-sm">
              <Link href="/publish" className="underline">
                Publish an item
              </Link>{" "}
              or push one with <code className="font-mono text-xs">npx ryeos push</code>.
            </p>
          ) : null}
        </div>
      ) : (
        <ul className="divide-y divide-neutral-200 dark:divide-neutral-800">
          {items.results.map((item) => (
            <li key={`${item.item_type}/${item.item_id}`} className="space-y-1 py-4">
              <div className="flex flex-wrap items-center gap-2">
                <h3 className="min-w-0 text-base font-semibold break-all">
                  <Link href={itemHref(item.item_type, item.item_id)} className="text-brand-700 underline-offset-2 hover:underline dark:text-brand-300">
                    {item.item_id}
                  </Link>
                </h3>
                <span className="rounded-full border border-neutral-300 px-2 text-xs text-neutral-700 dark:border-neutral-700 dark:text-neutral-300">{item.item_type}</span>
                {item.version ? <span className="font-mono text-xs text-neutral-600 dark:text-neutral-400">v{item.version}</span> : null}
                {item.visibility !== "public" ? (
                  <span className="rounded-full border border-amber-700 px-2 text-xs text-amber-900 dark:border-amber-400 dark:text-amber-200">{item.visibility}</span>
                ) : null}
                {item.deprecated ? <span className="rounded-full border border-red-700 px-2 text-xs text-red-800 dark:border-red-400 dark:text-red-300">deprecated</span> : null}
              </div>
              {item.description ? <p className="text-sm text-neutral-700 dark:text-neutral-300">{item.description}</p> : null}
              <p className="text-xs text-neutral-600 dark:text-neutral-400">
                {item.tool_type ? `${item.tool_type} · ` : ""}
                {item.download_count.toLocaleString("en")} {item.download_count === 1 ? "pull" : "pulls"} · updated <time dateTime={item.updated_at}>{item.updated_at.slice(0, 10)}</time>
              </p>
            </li>
          ))}
        </ul>
      )}
      {cursor || items.next_cursor ? (
        <nav aria-label="Pages" className="flex justify-between text-sm">
          {cursor ? (
            <Link href={pageHref(ns.name, { type })} className="underline">
              First page
            </Link>
          ) : (
            <span />
          )}
          {items.next_cursor ? (
            <Link href={pageHref(ns.name, { type, cursor: items.next_cursor })} className="underline">
              Next page
            </Link>
          ) : null}
        </nav>
      ) : null}
    </>
  );
}

export default async function NamespacePage({ params, searchParams }: Props) {
  const [{ namespace: raw }, search] = await Promise.all([params, searchParams]);
  const ns = await loadNamespace(raw);
  if (!ns) notFound();
  if (raw !== ns.name) redirect(`/${ns.name}`);
  const typeParam = first(search.type);
  const type = typeParam && isItemType(typeParam) ? typeParam : undefined;
  const cursor = first(search.cursor);
  const kindLabel = ns.kind === "org" ? "Organization" : "User";
  const joined = ns.created_at.slice(0, 10);

  return (
    <div className="space-y-8">
      <header className="space-y-2">
        <p className="text-sm text-neutral-600 dark:text-neutral-400">{kindLabel}</p>
        <h1 className="text-2xl font-semibold tracking-tight break-all sm:text-3xl">{ns.display_name || ns.name}</h1>
        <VerifiedBadges namespace={ns.name} />
        <p className="text-sm text-neutral-700 dark:text-neutral-300">
          <span className="font-mono">{ns.name}</span>
          <span aria-hidden="true"> · </span>
          {ns.item_count} {ns.item_count === 1 ? "item" : "items"}
          <span aria-hidden="true"> · </span>
          {ns.kind === "org" ? "created" : "joined"} <time dateTime={ns.created_at}>{joined}</time>
          {ns.viewer_role ? (
            <>
              <span aria-hidden="true"> · </span>
              {ns.kind === "org" ? `you are ${ns.viewer_role === "admin" ? "an" : "a"} ${ns.viewer_role}` : "this is you"}
            </>
          ) : null}
        </p>
      </header>

      <div className={ns.kind === "org" ? "grid gap-8 lg:grid-cols-[minmax(0,1fr)_18rem]" : ""}>
        <section aria-labelledby="items-heading" className="min-w-0 space-y-4">
          <h2 id="items-heading" className="text-xl font-semibold">
            Items
          </h2>
          <nav aria-label="Filter by type">
            <ul className="flex flex-wrap gap-2">
              {[undefined, ...(Object.keys(TYPE_LABELS) as ItemType[])].map((t) => (
                <li key={t ?? "all"}>
                  <Link
                    href={pageHref(ns.name, { type: t })}
                    aria-current={t === type ? "page" : undefined}
                    className={`inline-block rounded-full border px-3 py-1 text-sm ${t === type ? "border-brand-700 bg-brand-700 text-white dark:border-brand-300 dark:bg-brand-300 dark:text-neutral-950" : "border-neutral-300 hover:bg-neutral-100 dark:border-neutral-700 dark:hover:bg-neutral-900"}`}
                  >
                    {t ? TYPE_LABELS[t] : "All"}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <NamespaceItems ns={ns} type={type} cursor={cursor} />
        </section>

        {ns.kind === "org" ? (
          <section aria-labelledby="members-heading" className="space-y-3">
            <h2 id="members-heading" className="text-xl font-semibold">
              Members
            </h2>
            {ns.members ? (
              <ul className="divide-y divide-neutral-200 rounded-md border border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800">
                {ns.members.map((m) => (
                  <li key={m.username} className="flex items-center justify-between gap-2 px-4 py-2 text-sm">
                    <Link href={`/${m.username}`} className="underline-offset-2 hover:underline">
                      {m.username}
                    </Link>
                    <span className="text-xs text-neutral-600 dark:text-neutral-400">{m.role}</span>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="text-sm text-neutral-700 dark:text-neutral-300">The member list is visible to members of {ns.name} only.</p>
            )}
          </section>
        ) : null}
      </div>
    </div>
  );
}
