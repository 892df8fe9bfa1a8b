/**
 * /skill/{namespace}/{name}[?version=]: an Agent Skill. Its SKILL.md rendered (the file the registry serves at the
 * discovery path), the frontmatter with `allowed-tools` up front, the file tree with scripts marked (`?file=path`
 * shows one file as highlighted text), its versions and the per-file changes between two (`?diff=a...b`; the
 * compare form's `?from=a&to=b` redirects there), the publish-time review's findings, the registry's signature,
 * a verification of the manifest and every file in the visitor's browser, and the install commands for the
 * `skills` CLI and rye (GET /v1/skills/{ns}/{name}, versions from GET /v1/items/skill/{ns}/{name}).
 * Private skills are shown to members only (the session is forwarded); others get the same 404 as a missing one.
 */
import type { Metadata } from "next";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { allowedTools, type ItemDetails, itemDetailsSchema, parseSkillMd, skillNameProblem } from "@rye/core";
import { CopyButton } from "@/components/copy-button";
import { itemHref } from "@/components/item/data";
import { VersionsList } from "@/components/item/versions";
import { SkillDiff, type SkillFileEntry, SkillFileTree, SkillFileView } from "@/components/skill/skill-files";
import { SkillVerifyPanel } from "@/components/skill/skill-verify-panel";
import { ApiError, apiBaseUrl, apiOrNull, publicBaseUrl, visitorHeaders } from "@/lib/api";
import { apiParsedOrNull } from "@/lib/contracts";
import { parseDiffRange } from "@/lib/diff";
import { MarkdownView } from "@/lib/markdown";

export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ id: string[] }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

interface Finding {
  rule: string;
  /** The attack family (absent on reviews stored before families). */
  family?: string;
  risk: "low" | "medium" | "high";
  path: string;
  line: number;
  excerpt: string;
  message: string;
}

interface SkillView {
  item_id: string;
  namespace: string;
  name: string;
  version: string;
  description: string;
  files: SkillFileEntry[];
  author: string;
  author_key: { fingerprint: string; verified: boolean } | null;
  attestation: { key_fingerprint: string | null };
  log_index: number | null;
  review: { risk: "none" | "low" | "medium" | "high"; findings: Finding[]; truncated: boolean } | null;
  yanked: boolean;
  yanked_reason: string | null;
  deprecated: boolean;
  deprecation_message: string | null;
  visibility: "public" | "unlisted" | "private";
  /** pending / rejected: shown only to the namespace's owners/admins and registry admins. */
  status?: "published" | "pending" | "rejected";
  created_at: string;
}

const NAMESPACE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const VERSION = /^[0-9A-Za-z.+-]{1,64}$/;

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** One version of a skill (`version` undefined: the latest), with the files' bytes when `files`. */
const getSkill = cache(async (ns: string, name: string, version: string | undefined, files: boolean): Promise<SkillView | null> => {
  const query = new URLSearchParams();
  if (version) query.set("version", version);
  if (files) query.set("files", "1");
  const search = query.toString();
  try {
    return await apiOrNull<SkillView>(`/v1/skills/${ns}/${name}${search ? `?${search}` : ""}`, { session: true });
  } catch (err) {
    // 400: a version the registry cannot even look up, which is "not found" for a page.
    if (err instanceof ApiError && err.status === 400) return null;
    throw err;
  }
});

/** The skill's metadata and versions (the generic item details, highest version first). */
const getSkillDetails = cache(async (id: string): Promise<ItemDetails | null> => apiParsedOrNull(itemDetailsSchema, `/v1/items/skill/${id}`, { session: true }).catch(() => null));

async function load(props: Props): Promise<{ skill: SkillView; skillMd: string | null; ns: string; name: string; version: string | undefined } | null> {
  const { id } = await props.params;
  const search = await props.searchParams;
  const parts = id.map((p) => decodeURIComponent(p));
  if (parts.length !== 2 || !NAMESPACE.test(parts[0]!) || skillNameProblem(parts[1]!) !== null) return null;
  const requested = first(search.version);
  const version = typeof requested === "string" && VERSION.test(requested) ? requested : undefined;
  if (requested !== undefined && !version) return null;
  const [ns, name] = parts as [string, string];
  // The files' bytes only when the page shows one of them.
  const skill = await getSkill(ns, name, version, first(search.file) !== undefined);
  if (!skill) return null;
  // SKILL.md as agents get it (discovery path), with the visitor's session for private skills.
  const res = await fetch(`${apiBaseUrl()}/${ns}/.well-known/agent-skills/${name}/${encodeURIComponent(skill.version)}/SKILL.md`, { headers: await visitorHeaders({ cookie: true }), cache: "no-store" });
  const skillMd = res.ok ? await res.text() : null;
  return { skill, skillMd, ns, name, version };
}

export async function generateMetadata(props: Props): Promise<Metadata> {
  const loaded = await load(props).catch(() => null);
  if (!loaded) return { title: "Not found", robots: { index: false } };
  const { skill } = loaded;
  return { title: `${skill.item_id} (skill)`, description: skill.description.slice(0, 300), ...(skill.visibility !== "public" ? { robots: { index: false } } : {}) };
}

const RISK_STYLE: Record<string, string> = {
  none: "bg-emerald-50 text-emerald-900 ring-emerald-200 dark:bg-emerald-950 dark:text-emerald-200 dark:ring-emerald-800",
  low: "bg-slate-50 text-slate-800 ring-slate-200 dark:bg-slate-900 dark:text-slate-200 dark:ring-slate-700",
  medium: "bg-amber-50 text-amber-900 ring-amber-200 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-800",
  high: "bg-red-50 text-red-900 ring-red-200 dark:bg-red-950 dark:text-red-200 dark:ring-red-800",
};

function Command({ text, label }: { text: string; label: string }) {
  return (
    <div className="flex items-center gap-2">
      <code className="min-w-0 flex-1 overflow-x-auto rounded-md bg-slate-100 px-3 py-2 font-mono text-sm text-slate-900 dark:bg-slate-800 dark:text-slate-100">{text}</code>
      <CopyButton text={text} label={label} />
    </div>
  );
}

/** The changes between two versions, file by file (each version's files with their bytes). */
async function ChangesView({ ns, name, details, range }: { ns: string; name: string; details: ItemDetails | null; range: { from: string; to: string } | null }) {
  if (!range) return <p className="text-sm">Choose two versions to compare in the versions list.</p>;
  const known = new Set((details?.versions ?? []).map((v) => v.version));
  const missing = [range.from, range.to].filter((v) => !known.has(v));
  if (missing.length) {
    return (
      <p role="note" className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100">
        Cannot compare these versions: {missing.join(" and ")} {missing.length === 1 ? "is not a version" : "are not versions"} of {ns}/{name}.
      </p>
    );
  }
  const [a, b] = await Promise.all([getSkill(ns, name, range.from, true), getSkill(ns, name, range.to, true)]);
  if (!a || !b) return <p className="text-sm">One of the versions could not be read.</p>;
  return <SkillDiff from={range.from} to={range.to} before={a.files} after={b.files} />;
}

export default async function SkillPage(props: Props) {
  const search = await props.searchParams;
  const from = first(search.from);
  const to = first(search.to);
  if (from && to) {
    const { id } = await props.params;
    redirect(itemHref("skill", id.map((p) => decodeURIComponent(p)).join("/"), { diff: `${from}...${to}` }));
  }
  const loaded = await load(props);
  if (!loaded) notFound();
  const { skill, skillMd, ns, name } = loaded;
  const details = await getSkillDetails(skill.item_id);
  const diffParam = first(search.diff);
  const range = parseDiffRange(diffParam);
  const selectedPath = first(search.file) ?? null;
  const selected = selectedPath ? (skill.files.find((f) => f.path === selectedPath) ?? null) : null;
  const versionQuery = loaded.version;
  const parsed = skillMd ? parseSkillMd(skillMd) : null;
  const front = parsed?.frontmatter ?? null;
  const tools = front ? allowedTools(front) : [];
  const base = (await publicBaseUrl()).replace(/\/+$/, "");
  const review = skill.review;
  return (
    <div className="w-full">
      <p className="text-sm text-slate-600 dark:text-slate-300">
        Skill ·{" "}
        <Link href={`/${skill.namespace}`} className="text-brand-700 hover:underline dark:text-brand-300">
          {skill.namespace}
        </Link>
      </p>
      <h1 className="mt-1 text-3xl font-semibold break-words">{skill.name}</h1>
      <p className="mt-2 text-slate-700 dark:text-slate-200">{skill.description}</p>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-300">
        Version {skill.version} · published by {skill.author} · {skill.visibility}
      </p>
      {skill.status === "pending" || skill.status === "rejected" ? (
        <p role="status" className="mt-4 rounded-md bg-amber-50 p-3 text-amber-900 dark:bg-amber-950 dark:text-amber-100">
          Version {skill.version} {skill.status === "pending" ? "is held for approval" : "was rejected"}: nobody but the namespace&apos;s owners and admins and the
          registry&apos;s administrators can see it. <Link href="/settings/approvals" className="underline">Approvals</Link>
        </p>
      ) : null}
      {skill.yanked ? (
        <p role="status" className="mt-4 rounded-md bg-red-50 p-3 text-red-900 dark:bg-red-950 dark:text-red-100">
          Version {skill.version} was yanked{skill.yanked_reason ? `: ${skill.yanked_reason}` : ""}.
        </p>
      ) : null}
      {skill.deprecated ? (
        <p role="status" className="mt-4 rounded-md bg-amber-50 p-3 text-amber-900 dark:bg-amber-950 dark:text-amber-100">
          Deprecated{skill.deprecation_message ? `: ${skill.deprecation_message}` : ""}.
        </p>
      ) : null}

      <div className="mt-6 grid gap-6 md:grid-cols-3">
        <div className="min-w-0 md:col-span-2">
          <section aria-labelledby="allowed-tools" className="rounded-lg border border-slate-200 p-4 dark:border-slate-700">
            <h2 id="allowed-tools" className="text-lg font-semibold">
              Allowed tools
            </h2>
            {tools.length > 0 ? (
              <ul className="mt-2 flex flex-wrap gap-2">
                {tools.map((t) => (
                  <li key={t}>
                    <code className="rounded bg-slate-100 px-2 py-1 font-mono text-sm dark:bg-slate-800">{t}</code>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="mt-2 text-sm text-slate-700 dark:text-slate-200">This skill declares no allowed-tools: the agent asks before using any tool.</p>
            )}
            {front?.license || front?.compatibility ? (
              <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
                {front.license ? (
                  <>
                    <dt className="font-medium">License</dt>
                    <dd>{front.license}</dd>
                  </>
                ) : null}
                {front.compatibility ? (
                  <>
                    <dt className="font-medium">Compatibility</dt>
                    <dd>{front.compatibility}</dd>
                  </>
                ) : null}
              </dl>
            ) : null}
          </section>

          {diffParam !== undefined ? (
            <section aria-labelledby="changes" className="mt-6">
              <h2 id="changes" className="text-lg font-semibold">
                {range ? `Changes from ${range.from} to ${range.to}` : "Changes"}
              </h2>
              <div className="mt-3">
                <ChangesView ns={ns} name={name} details={details} range={range} />
              </div>
            </section>
          ) : null}

          <section aria-labelledby="skill-md" className="mt-6">
            <h2 id="skill-md" className="text-lg font-semibold">
              SKILL.md
            </h2>
            {parsed ? <MarkdownView source={parsed.body} className="mt-3" /> : <p className="mt-2">SKILL.md could not be loaded.</p>}
          </section>

          <section aria-labelledby="files" className="mt-6">
            <h2 id="files" className="text-lg font-semibold">
              Files ({skill.files.length})
            </h2>
            <p className="mt-1 text-sm text-neutral-700 dark:text-neutral-300">Scripts are marked: an agent using this skill may run them. Choose a file to read it.</p>
            <div className="mt-3">
              <SkillFileTree id={skill.item_id} version={versionQuery} files={skill.files} selected={selected?.path ?? null} />
            </div>
            {selectedPath !== null ? (
              <div id="file-view" className="mt-4">
                {selected ? <SkillFileView file={selected} version={skill.version} /> : <p className="text-sm">This version has no file {selectedPath}.</p>}
              </div>
            ) : null}
          </section>

          {details && details.versions.length > 0 ? (
            <section aria-labelledby="versions" className="mt-6">
              <h2 id="versions" className="text-lg font-semibold">
                Versions ({details.versions.length})
              </h2>
              <div className="mt-3">
                <VersionsList type="skill" details={details} current={skill.version} />
              </div>
            </section>
          ) : null}
        </div>

        <aside className="min-w-0 space-y-6">
          <section aria-labelledby="install">
            <h2 id="install" className="text-lg font-semibold">
              Install
            </h2>
            <div className="mt-2 space-y-2">
              {/* The skill's own index: from the namespace's (`-s name`), the skills CLI downloads every skill it lists. */}
              <Command text={`npx skills add ${base}/${skill.namespace}/${skill.name}`} label="Copy skills CLI install command" />
              <Command text={`npx -y ryeos skill add ${skill.item_id}`} label="Copy rye install command" />
            </div>
          </section>

          <section aria-labelledby="review">
            <h2 id="review" className="text-lg font-semibold">
              Review
            </h2>
            {review ? (
              <>
                <p className="mt-2">
                  <span className={`rounded-full px-2 py-0.5 text-sm font-medium ring-1 ${RISK_STYLE[review.risk]}`}>{review.risk === "none" ? "Nothing flagged" : `${review.risk} risk`}</span>
                </p>
                {review.findings.length > 0 ? (
                  <ul className="mt-2 space-y-2 text-sm">
                    {review.findings.map((f, i) => (
                      <li key={`${f.path}:${f.line}:${f.rule}:${i}`} className="rounded-md border border-slate-200 p-2 dark:border-slate-700">
                        <span className="font-medium">{f.risk}</span>: {f.message}
                        {f.family ? ` (${f.family})` : ""} ·{" "}
                        <code className="font-mono">
                          {f.path}:{f.line}
                        </code>
                        <pre className="mt-1 overflow-x-auto whitespace-pre-wrap break-words font-mono text-xs text-slate-700 dark:text-slate-300">{f.excerpt}</pre>
                      </li>
                    ))}
                  </ul>
                ) : null}
              </>
            ) : (
              <p className="mt-2 text-sm">This version was published before reviews.</p>
            )}
          </section>

          <section aria-labelledby="provenance">
            <h2 id="provenance" className="text-lg font-semibold">
              Signatures
            </h2>
            <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
              <dt className="font-medium">Author key</dt>
              <dd className="font-mono break-all">{skill.author_key ? skill.author_key.fingerprint : "—"}</dd>
              <dt className="font-medium">Registry key</dt>
              <dd className="font-mono break-all">{skill.attestation.key_fingerprint ?? "—"}</dd>
              <dt className="font-medium">Log entry</dt>
              <dd>{skill.log_index ?? "—"}</dd>
            </dl>
          </section>

          <SkillVerifyPanel namespace={skill.namespace} name={skill.name} version={skill.version} paths={skill.files.map((f) => f.path).sort()} />
        </aside>
      </div>
    </div>
  );
}
