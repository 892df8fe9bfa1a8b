/**
 * The item page shared by /directive/…, /tool/… and /knowledge/… (app/<type>/[...id]/page.tsx):
 * header and status banners, the content (rendered markdown or highlighted source), the source and
 * version-diff views, what the item declares, its versions, how to use it, its provenance and a
 * signature verification that runs in the visitor's browser.
 *
 * URLs: `?version=x.y.z` shows that version, `?tab=source` the raw file, `?diff=a...b` the changes
 * between two versions (`?from=a&to=b`, what the compare form sends, redirects there).
 */
import type { Metadata } from "next";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import type { ReactNode } from "react";
import type { ItemDetails, ItemType, ParsedItem, PullResponse } from "@rye/core";
import { stripSignature } from "@rye/core";
import { ManageLink } from "@/components/manage/manage-link";
import { lineDiff, parseDiffRange } from "@/lib/diff";
import { MarkdownView } from "@/lib/markdown";
import { getExecutorChain, getItemDetails, getPulled, itemHref, itemIdFromSegments, parsePulled, pickVersion } from "./data";
import { DiffView } from "./diff-view";
import { DirectiveDetails, KnowledgeDetails, Section, ToolDetails } from "./item-details";
import { DownloadsPanel } from "./downloads-panel";
import { RelationsPanel } from "./relations-panel";
import { QualityPanel } from "./quality-panel";
import { InstallPanel, ProvenancePanel } from "./side-panels";
import { SourceView } from "./source-view";
import { VerifyPanel } from "./verify-panel";
import { VersionsList } from "./versions";
import { VerifiedBadges } from "@/components/verification/verified-badges";

export interface ItemRouteProps {
  params: Promise<{ id: string[] }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

const TYPE_LABEL: Record<ItemType, string> = { directive: "Directive", tool: "Tool", knowledge: "Knowledge" };
const TYPE_PLURAL: Record<ItemType, string> = { directive: "Directives", tool: "Tools", knowledge: "Knowledge" };

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

export async function itemMetadata(type: ItemType, props: ItemRouteProps): Promise<Metadata> {
  const id = itemIdFromSegments((await props.params).id);
  const details = id ? await getItemDetails(type, id) : null;
  if (!id || !details) return { title: "Not found", robots: { index: false } };
  const title = `${details.item_id} (${type})`;
  const description = details.description || `${TYPE_LABEL[type]} ${details.item_id}, signed and verifiable, on the rye registry.`;
  const url = itemHref(type, details.item_id);
  return {
    title,
    description,
    alternates: { canonical: url },
    openGraph: { title, description, type: "article", url },
    twitter: { card: "summary", title, description },
    ...(details.visibility !== "public" ? { robots: { index: false, follow: false } } : {}),
  };
}

function Badge({ children, tone = "neutral" }: { children: ReactNode; tone?: "neutral" | "red" | "amber" | "brand" }) {
  const tones = {
    neutral: "border-neutral-300 text-neutral-700 dark:border-neutral-700 dark:text-neutral-300",
    red: "border-red-700 text-red-800 dark:border-red-400 dark:text-red-300",
    amber: "border-amber-700 text-amber-900 dark:border-amber-400 dark:text-amber-200",
    brand: "border-brand-700 text-brand-700 dark:border-brand-300 dark:text-brand-300",
  };
  return <span className={`inline-flex items-center rounded-full border px-2 py-0.5 text-xs font-medium ${tones[tone]}`}>{children}</span>;
}

function Banner({ tone, title, children }: { tone: "red" | "amber" | "neutral"; title: string; children?: ReactNode }) {
  const tones = {
    red: "border-red-700 bg-red-50 text-red-900 dark:border-red-400 dark:bg-red-950 dark:text-red-100",
    amber: "border-amber-700 bg-amber-50 text-amber-950 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-100",
    neutral: "border-neutral-300 bg-neutral-50 text-neutral-900 dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100",
  };
  return (
    <div className={`rounded-md border-l-4 px-4 py-3 text-sm ${tones[tone]}`} role="note">
      <p className="font-semibold">{title}</p>
      {children ? <div className="mt-1">{children}</div> : null}
    </div>
  );
}

function Tabs({ tabs, active }: { tabs: { key: string; label: string; href: string }[]; active: string }) {
  return (
    <nav aria-label="Item views" className="border-b border-neutral-200 dark:border-neutral-800">
      <ul className="-mb-px flex gap-1">
        {tabs.map((tab) => (
          <li key={tab.key}>
            <Link
              href={tab.href}
              aria-current={tab.key === active ? "page" : undefined}
              scroll={false}
              className={`inline-block border-b-2 px-3 py-2 text-sm font-medium ${tab.key === active ? "border-brand-600 text-neutral-900 dark:border-brand-300 dark:text-neutral-100" : "border-transparent text-neutral-600 hover:text-neutral-900 dark:text-neutral-400 dark:hover:text-neutral-100"}`}
            >
              {tab.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Markdown of a directive or knowledge file, without its signature line (and a knowledge entry's frontmatter). */
function markdownOf(pull: PullResponse, parsed: ParsedItem | null): string {
  if (parsed?.type === "knowledge") return parsed.metadata.body;
  try {
    return stripSignature(pull.content, pull.item_type === "skill" ? "tool" : pull.item_type);
  } catch {
    return pull.content;
  }
}

async function ChangesView({ type, details, range }: { type: ItemType; details: ItemDetails; range: { from: string; to: string } | null }) {
  if (!range) return <p className="text-sm">Choose two versions to compare below.</p>;
  const known = new Set(details.versions.map((v) => v.version));
  const missing = [range.from, range.to].filter((v) => !known.has(v));
  if (missing.length) {
    return (
      <Banner tone="amber" title="Cannot compare these versions">
        {missing.join(" and ")} {missing.length === 1 ? "is not a version" : "are not versions"} of {details.item_id}. Pick versions from the list below.
      </Banner>
    );
  }
  const [a, b] = await Promise.all([getPulled(type, details.item_id, range.from), getPulled(type, details.item_id, range.to)]);
  if (!a || !b) return <Banner tone="amber" title="Cannot compare these versions">One of the versions could not be read.</Banner>;
  return (
    <div className="space-y-2">
      <h2 className="text-lg font-semibold">
        Changes from {range.from} to {range.to}
      </h2>
      <DiffView diff={lineDiff(a.content, b.content)} from={range.from} to={range.to} fileName={`${details.name}${b.file_extension}`} />
    </div>
  );
}

async function ToolDetailsWithChain({ parsed }: { parsed: Extract<ParsedItem, { type: "tool" }> }) {
  const chain = await getExecutorChain(parsed.summary.executorId ?? null);
  return <ToolDetails parsed={parsed} chain={chain} />;
}

/**
 * The page renders in one piece (no loading.tsx, no Suspense): every not-found decision (unknown item,
 * private item, unknown version) is taken before anything is sent, so the answer really is a 404 (a
 * route-level loading.tsx sends the 200 status with its skeleton before the page can decide), and
 * nothing streams in later to push the page around. The whole page takes a few loopback API calls
 * (tens of milliseconds); only the browser verification fills in afterwards, inside its fixed box.
 */
export async function ItemPage({ type, ...props }: ItemRouteProps & { type: ItemType }) {
  const [params, search] = await Promise.all([props.params, props.searchParams]);
  const id = itemIdFromSegments(params.id);
  if (!id) notFound();
  const from = first(search.from);
  const to = first(search.to);
  if (from && to) redirect(itemHref(type, id, { diff: `${from}...${to}` }));

  const details = await getItemDetails(type, id);
  if (!details) notFound();
  const version = pickVersion(details, first(search.version));
  if (!version) notFound();
  const pull = await getPulled(type, details.item_id, version);
  if (!pull) notFound();
  const parsed = parsePulled(pull);
  const row = details.versions.find((v) => v.version === version);
  const isLatest = version === details.latest_version;
  const diffParam = first(search.diff);
  const range = parseDiffRange(diffParam);
  const tab = diffParam !== undefined ? "changes" : first(search.tab) === "source" || type === "tool" ? "source" : "content";
  const versionQuery = first(search.version) ? version : undefined;
  const previous = details.versions[details.versions.findIndex((v) => v.version === version) + 1];

  const tabs = [
    ...(type === "tool" ? [] : [{ key: "content", label: "Content", href: itemHref(type, details.item_id, { version: versionQuery }) }]),
    { key: "source", label: "Source", href: itemHref(type, details.item_id, { version: versionQuery, ...(type === "tool" ? {} : { tab: "source" }) }) },
    ...(previous || diffParam !== undefined
      ? [{ key: "changes", label: "Changes", href: itemHref(type, details.item_id, { diff: previous ? `${previous.version}...${version}` : diffParam }) }]
      : []),
  ];
  const fileName = `${details.name}${pull.file_extension}`;
  const summary = parsed?.summary;
  const facts: [string, ReactNode][] = [
    ["Type", TYPE_LABEL[type]],
    ["Version", <span key="v" className="font-mono">{version}{isLatest ? " (latest)" : ""}</span>],
    ["Category", details.category || "—"],
    ["Namespace", <Link key="n" href={`/${details.namespace}`} className="underline">{details.namespace}</Link>],
    ...(summary?.author ? ([["Author", summary.author]] as [string, ReactNode][]) : []),
    ["Publisher", row?.publisher ?? pull.author],
    ...(summary?.toolType || details.tool_type ? ([["Tool type", summary?.toolType ?? details.tool_type]] as [string, ReactNode][]) : []),
    ...(type === "tool" ? ([["Executor", summary?.executorId ? <code key="e" className="font-mono text-xs">{summary.executorId}</code> : "none (primitive)"]] as [string, ReactNode][]) : []),
    ["Visibility", details.visibility],
    ["Downloads", details.download_count.toLocaleString("en")],
    ["Published", <time key="p" dateTime={pull.created_at}>{pull.created_at.slice(0, 10)}</time>],
  ];

  return (
    <article className="space-y-6">
      <nav aria-label="Breadcrumb" className="text-sm text-neutral-600 dark:text-neutral-400">
        <ol className="flex flex-wrap items-center gap-1">
          <li>
            <Link href={`/search?type=${type}`} className="hover:underline">
              {TYPE_PLURAL[type]}
            </Link>
            <span aria-hidden="true"> /</span>
          </li>
          <li>
            <Link href={`/${details.namespace}`} className="hover:underline">
              {details.namespace}
            </Link>
            <span aria-hidden="true"> /</span>
          </li>
          {details.category ? (
            <li>
              {details.category}
              <span aria-hidden="true"> /</span>
            </li>
          ) : null}
          <li aria-current="page" className="font-medium text-neutral-900 dark:text-neutral-100">
            {details.name}
          </li>
        </ol>
      </nav>

      <header className="space-y-3">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="break-all text-2xl font-semibold tracking-tight sm:text-3xl">{details.name}</h1>
          <Badge tone="brand">{TYPE_LABEL[type]}</Badge>
          <Badge>
            <span className="sr-only">Version </span>
            {version}
          </Badge>
          {details.visibility !== "public" ? <Badge tone="amber">{details.visibility === "private" ? "Private" : "Unlisted"}</Badge> : null}
          {details.deprecated ? <Badge tone="red">Deprecated</Badge> : null}
          {row?.yanked ? <Badge tone="red">Yanked</Badge> : null}
          <VerifiedBadges namespace={details.namespace} />
          <span className="ml-auto">
            <ManageLink type={type} id={details.item_id} namespace={details.namespace} />
          </span>
        </div>
        <p className="font-mono text-sm break-all text-neutral-600 dark:text-neutral-400">{details.item_id}</p>
        {details.description ? <p className="max-w-3xl text-neutral-800 dark:text-neutral-200">{details.description}</p> : null}
        {details.deprecated ? (
          <Banner tone="red" title="This item is deprecated">
            {details.deprecation_message ?? "Its publisher no longer recommends it."}
          </Banner>
        ) : null}
        {row?.status === "pending" || row?.status === "rejected" ? (
          <Banner tone="amber" title={`Version ${version} ${row.status === "pending" ? "is held for approval" : "was rejected"}`}>
            Nobody but the namespace&apos;s owners and admins and the registry&apos;s administrators can see it. See <Link href="/settings/approvals">Approvals</Link>.
          </Banner>
        ) : null}
        {row?.yanked ? (
          <Banner tone="red" title={`Version ${version} was yanked`}>
            {row.yanked_reason ? `Reason: ${row.yanked_reason}. ` : ""}It is no longer installed by default; it stays pullable by its exact version.
          </Banner>
        ) : null}
        {!isLatest && details.latest_version ? (
          <Banner tone="neutral" title={`You are viewing version ${version}`}>
            The latest version is{" "}
            <Link href={itemHref(type, details.item_id)} className="underline">
              {details.latest_version}
            </Link>
            .
          </Banner>
        ) : null}
      </header>

      <div className="grid gap-8 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <div className="min-w-0 space-y-8">
          <div className="space-y-4">
            <Tabs tabs={tabs} active={tab} />
            {tab === "changes" ? (
              <ChangesView type={type} details={details} range={range} />
            ) : tab === "source" ? (
              <SourceView content={pull.content} extension={pull.file_extension} label={`Source of ${fileName}, version ${version}`} />
            ) : (
              <MarkdownView source={markdownOf(pull, parsed)} />
            )}
          </div>

          {parsed?.type === "directive" ? <DirectiveDetails parsed={parsed} /> : null}
          {parsed?.type === "tool" ? <ToolDetailsWithChain parsed={parsed} /> : null}
          {parsed?.type === "knowledge" ? <KnowledgeDetails parsed={parsed} /> : null}
          {!parsed ? <p className="text-sm text-neutral-700 dark:text-neutral-300">The file could not be parsed as a {type}: its metadata is not shown.</p> : null}
          <RelationsPanel type={type} id={details.item_id} version={version} />

          <Section id="versions-heading" title={`Versions (${details.versions.length})`}>
            <VersionsList type={type} details={details} current={version} />
          </Section>
        </div>

        <aside className="min-w-0 space-y-4" aria-label="About this item">
          <section aria-labelledby="facts-heading" className="rounded-lg border border-neutral-200 p-4 dark:border-neutral-800">
            <h2 id="facts-heading" className="text-base font-semibold">
              Details
            </h2>
            <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1 text-sm">
              {facts.map(([k, v]) => (
                <div key={k} className="contents">
                  <dt className="text-neutral-600 dark:text-neutral-400">{k}</dt>
                  <dd className="min-w-0 break-words">{v}</dd>
                </div>
              ))}
            </dl>
          </section>
          <InstallPanel type={type} id={details.item_id} version={version} latest={isLatest} />
          <DownloadsPanel type={type} id={details.item_id} />
          <QualityPanel type={type} id={details.item_id} version={version} />
          <ProvenancePanel pull={pull} />
          <VerifyPanel type={type} id={details.item_id} version={version} fileSha256={pull.file_sha256} />
        </aside>
      </div>
    </article>
  );
}
