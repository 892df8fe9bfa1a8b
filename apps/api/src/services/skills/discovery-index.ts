/**
 * The Agent Skills discovery index (schema 0.2.0, as the `skills` CLI reads it): one entry per public skill —
 * its latest non-yanked version, or one pinned version — with `skill-md` entries for one-file skills and
 * `archive` entries (.tar.gz) for the rest. Each entry also carries a `rye` object (clients ignore unknown
 * fields) with what a rye-aware client needs to verify it: the registry, id, version, the signed manifest's
 * address and digest, the author's and the registry's key fingerprints and the attestation's address.
 */
import { extractSignature, parseSkillManifest, RyeError, sha256Hex } from "@rye/core";
import type { Database } from "@rye/db";
import { Prisma } from "@rye/db";
import { artifactsOf } from "./stored.ts";

export const AGENT_SKILLS_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
/** An index lists at most this many skills (the oldest first; a namespace index is the way to more). */
export const MAX_INDEX_ENTRIES = 2000;

export interface IndexEntry {
  name: string;
  type: "skill-md" | "archive";
  description: string;
  url: string;
  digest: string;
  version: string;
  rye: Record<string, unknown>;
}

export interface DiscoveryIndex {
  $schema: typeof AGENT_SKILLS_SCHEMA;
  skills: IndexEntry[];
}

/** Where a version's artifacts live (absolute paths on the registry's origin). */
export function artifactPaths(namespace: string, name: string, version: string) {
  const dir = `/${namespace}/.well-known/agent-skills/${name}/${version}`;
  return { dir, skillMd: `${dir}/SKILL.md`, tarGz: `${dir}/${name}-${version}.tar.gz`, zip: `${dir}/${name}-${version}.zip` };
}

/** What an entry is built from (a mirror builds entries of its cached upstream skills too: services/upstream). */
export interface IndexRow {
  namespace: string;
  name: string;
  description: string;
  deprecated: boolean;
  deprecationMessage: string | null;
  version: { version: string; fileSha256: string; authorFingerprint: string | null; skillArtifacts: unknown; review: { risk: string; findings: number } | null; logIndex: bigint | null; publisher: string };
  /** From the signed manifest (see manifestFacts). */
  facts: ManifestFacts;
}
type Row = IndexRow;

/** What an entry needs from a version's signed manifest: its own description and the registry key that signed it. */
interface ManifestFacts {
  description: string;
  registryFingerprint: string | null;
}

/**
 * Parsing a manifest (YAML) is the index's one costly step per entry (~0.3 ms: 2 000 entries took ~0.6 s). A
 * version's content never changes and its file_sha256 names it, so the facts are remembered by that digest (a
 * bounded map, oldest out first) and the content is only fetched for versions not seen yet.
 */
const MAX_REMEMBERED = 20_000;
const remembered = new Map<string, ManifestFacts>();

export function manifestFacts(fileSha256: string, content: string): ManifestFacts {
  const known = remembered.get(fileSha256);
  if (known) return known;
  const signature = extractSignature(content, "tool");
  const facts = { description: parseSkillManifest(content).skill.description, registryFingerprint: signature.status === "signed" ? signature.signature.fingerprint : null };
  // Only content that hashes to its digest is remembered under it (a row is never trusted to name other bytes).
  if (sha256Hex(content) === fileSha256) {
    if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
    remembered.set(fileSha256, facts);
  }
  return facts;
}

/** The review's risk and finding count for an index entry (the findings themselves are on the pull endpoint). */
function reviewOf(value: unknown): { risk: string; findings: number } | null {
  const r = value as { risk?: unknown; findings?: unknown } | null;
  if (!r || typeof r.risk !== "string" || !Array.isArray(r.findings)) return null;
  return { risk: r.risk, findings: r.findings.length };
}

/**
 * Artifact URLs are relative to the index (as the discovery schema resolves them), so an index works behind any
 * host name, CDN or path prefix: `toRoot` climbs from the index's folder to the origin's root.
 */
export function entryOf(row: Row, registryUrl: string, toRoot: string): IndexEntry {
  const base = registryUrl.replace(/\/+$/, "");
  const v = row.version;
  const artifacts = artifactsOf(v.skillArtifacts);
  const paths = artifactPaths(row.namespace, row.name, v.version);
  const api = `${base}/v1/skills/${row.namespace}/${row.name}?version=${encodeURIComponent(v.version)}`;
  const oneFile = artifacts.skill_md !== undefined;
  return {
    name: row.name,
    type: oneFile ? "skill-md" : "archive",
    // The version's own description (its signed manifest's, from its SKILL.md), not the item's latest one.
    description: (row.facts.description || row.description).slice(0, 1024),
    url: toRoot + (oneFile ? paths.skillMd : paths.tarGz).slice(1),
    digest: `sha256:${oneFile ? artifacts.skill_md!.sha256 : artifacts.tar_gz.sha256}`,
    version: v.version,
    rye: {
      registry: base,
      id: `${row.namespace}/${row.name}`,
      version: v.version,
      publisher: v.publisher,
      manifest_url: api,
      manifest_sha256: v.fileSha256,
      attestation_url: api,
      author_fingerprint: v.authorFingerprint,
      registry_fingerprint: row.facts.registryFingerprint,
      log_index: v.logIndex === null ? null : Number(v.logIndex),
      archives: {
        tar_gz: { url: toRoot + paths.tarGz.slice(1), digest: `sha256:${artifacts.tar_gz.sha256}` },
        zip: { url: toRoot + paths.zip.slice(1), digest: `sha256:${artifacts.zip.sha256}` },
      },
      ...(row.deprecated ? { deprecated: row.deprecationMessage ?? true } : {}),
      ...(v.review ? { review: v.review } : {}),
    },
  };
}

/** One listed skill and the version its entry describes (without the manifest's text). */
interface ListedRow {
  itemId: string;
  name: string;
  description: string;
  deprecated: boolean;
  deprecationMessage: string | null;
  namespace: string;
  versionId: string;
  version: string;
  fileSha256: string;
  authorFingerprint: string | null;
  skillArtifacts: unknown;
  reviewRisk: unknown;
  reviewFindings: number | null;
  logIndex: bigint | null;
  publisher: string;
}

/**
 * The latest versions of the listed skills in one query (items ⋈ their latest version ⋈ publisher), oldest item
 * first. The review's findings stay in the database: the index only carries their count.
 */
async function latestRows(db: Database, scope: { namespace?: string; skill?: string }, maxEntries: number): Promise<ListedRow[]> {
  const visibility = scope.skill !== undefined ? Prisma.sql`i.visibility IN ('public'::visibility, 'unlisted'::visibility)` : Prisma.sql`i.visibility = 'public'::visibility`;
  const inNamespace = scope.namespace !== undefined ? Prisma.sql`AND n.name = ${scope.namespace.toLowerCase()}` : Prisma.empty;
  const named = scope.skill !== undefined ? Prisma.sql`AND i.name = ${scope.skill}` : Prisma.empty;
  const rows = await db.prisma.$queryRaw<ListedRow[]>`
    SELECT i.id AS "itemId", i.name, i.description, i.deprecated, i.deprecation_message AS "deprecationMessage", n.name AS namespace,
           v.id AS "versionId", v.version, v.file_sha256 AS "fileSha256", v.author_fingerprint AS "authorFingerprint",
           v.skill_artifacts AS "skillArtifacts", v.review -> 'risk' AS "reviewRisk",
           CASE WHEN jsonb_typeof(v.review -> 'findings') = 'array' THEN jsonb_array_length(v.review -> 'findings') END AS "reviewFindings",
           v.log_index AS "logIndex", u.username AS publisher
    FROM items i
    JOIN namespaces n ON n.id = i.namespace_id
    JOIN item_versions v ON v.item_id = i.id AND v.version = i.latest_version
    JOIN users u ON u.id = v.publisher_id
    -- Held items (no approved version yet) and versions held for approval are in no index (services/approval.ts).
    WHERE i.type = 'skill'::item_type AND NOT i.held AND v.status = 'published'::version_status AND ${visibility} ${inNamespace} ${named}
    ORDER BY i.created_at ASC, i.id ASC
    LIMIT ${maxEntries}`;
  return rows.map((r) => ({ ...r, reviewFindings: r.reviewFindings === null ? null : Number(r.reviewFindings) }));
}

/** One skill's pinned version (a yanked version stays reachable by its explicit version, as in pulls). */
async function pinnedRows(db: Database, scope: { namespace?: string; skill?: string; version: string }): Promise<ListedRow[]> {
  const items = await db.prisma.item.findMany({
    where: {
      type: "skill",
      visibility: scope.skill !== undefined ? { in: ["public", "unlisted"] } : "public",
      ...(scope.namespace !== undefined ? { namespace: { name: scope.namespace.toLowerCase() } } : {}),
      ...(scope.skill !== undefined ? { name: scope.skill } : {}),
      held: false,
      // A pinned version held for approval (or rejected) is not found.
      versions: { some: { version: scope.version, status: "published" } },
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: MAX_INDEX_ENTRIES,
    select: {
      id: true,
      name: true,
      description: true,
      deprecated: true,
      deprecationMessage: true,
      namespace: { select: { name: true } },
      versions: {
        where: { version: scope.version, status: "published" },
        select: { id: true, version: true, fileSha256: true, authorFingerprint: true, skillArtifacts: true, review: true, logIndex: true, publisher: { select: { username: true } } },
      },
    },
  });
  return items.flatMap((i) =>
    i.versions.map((v) => {
      const review = reviewOf(v.review);
      return {
        itemId: i.id,
        name: i.name,
        description: i.description,
        deprecated: i.deprecated,
        deprecationMessage: i.deprecationMessage,
        namespace: i.namespace.name,
        versionId: v.id,
        version: v.version,
        fileSha256: v.fileSha256,
        authorFingerprint: v.authorFingerprint,
        skillArtifacts: v.skillArtifacts,
        reviewRisk: review?.risk ?? null,
        reviewFindings: review?.findings ?? null,
        logIndex: v.logIndex,
        publisher: v.publisher.username,
      };
    }),
  );
}

/**
 * The index of public skills: all of them (`namespace` undefined) or one namespace's; `skill` narrows to one
 * public or unlisted skill, and `version` pins it (a yanked version stays reachable by its explicit version, as in pulls).
 * Names must be unique within an index (they are install folders): in the root index the oldest skill of a name wins.
 */
export async function buildDiscoveryIndex(
  db: Database,
  registryUrl: string,
  scope: { namespace?: string; skill?: string; version?: string },
  maxEntries = MAX_INDEX_ENTRIES,
): Promise<DiscoveryIndex | null> {
  if (scope.namespace !== undefined) {
    const ns = await db.prisma.namespace.findUnique({ where: { name: scope.namespace.toLowerCase() }, select: { id: true } });
    if (!ns) return null;
  }
  const rows = scope.version === undefined ? await latestRows(db, scope, maxEntries) : (await pinnedRows(db, { ...scope, version: scope.version })).slice(0, maxEntries);
  if (rows.length === 0) return scope.skill !== undefined ? null : { $schema: AGENT_SKILLS_SCHEMA, skills: [] };
  // The manifests' text only for versions whose facts are not remembered yet.
  const facts = new Map<string, ManifestFacts>();
  const unknown: string[] = [];
  for (const r of rows) {
    const known = remembered.get(r.fileSha256);
    if (known) facts.set(r.versionId, known);
    else unknown.push(r.versionId);
  }
  for (let i = 0; i < unknown.length; i += 1000) {
    const batch = await db.prisma.itemVersion.findMany({ where: { id: { in: unknown.slice(i, i + 1000) } }, select: { id: true, content: true, fileSha256: true } });
    for (const v of batch) facts.set(v.id, manifestFacts(v.fileSha256, v.content));
  }
  const seen = new Set<string>();
  const skills: IndexEntry[] = [];
  for (const r of rows) {
    if (seen.has(r.name)) continue;
    seen.add(r.name);
    const known = facts.get(r.versionId);
    if (!known) continue; // deleted since the first query
    skills.push(
      entryOf(
        {
          namespace: r.namespace,
          name: r.name,
          description: r.description,
          deprecated: r.deprecated,
          deprecationMessage: r.deprecationMessage,
          version: {
            version: r.version,
            fileSha256: r.fileSha256,
            authorFingerprint: r.authorFingerprint,
            skillArtifacts: r.skillArtifacts,
            review: typeof r.reviewRisk === "string" && r.reviewFindings !== null ? { risk: r.reviewRisk, findings: r.reviewFindings } : null,
            logIndex: r.logIndex,
            publisher: r.publisher,
          },
          facts: known,
        },
        registryUrl,
        toRootOf(scope),
      ),
    );
  }
  skills.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { $schema: AGENT_SKILLS_SCHEMA, skills };
}

/** From an index's folder to the origin's root: /.well-known/agent-skills/ → "../../"; /<ns>/… → "../../../"; /<ns>/<skill>/… → "../../../../". */
export function toRootOf(scope: { namespace?: string; skill?: string }): string {
  return "../".repeat(2 + (scope.namespace !== undefined ? 1 : 0) + (scope.skill !== undefined ? 1 : 0));
}

export function indexNotFound(what: string): RyeError {
  return new RyeError("NOT_FOUND", `No agent-skills index for ${what}`, { hint: "Indexes list public skills: /.well-known/agent-skills/index.json, /<namespace>/.well-known/agent-skills/index.json." });
}
