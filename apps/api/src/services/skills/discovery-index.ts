/**
 * The Agent Skills discovery index (schema 0.2.0, as the `skills` CLI reads it): one entry per public skill —
 * its latest non-yanked version, or one pinned version — with `skill-md` entries for one-file skills and
 * `archive` entries (.tar.gz) for the rest. Each entry also carries a `rye` object (clients ignore unknown
 * fields) with what a rye-aware client needs to verify it: the registry, id, version, the signed manifest's
 * address and digest, the author's and the registry's key fingerprints and the attestation's address.
 */
import { extractSignature, parseSkillManifest, RyeError } from "@rye/core";
import type { Database } from "@rye/db";
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

interface Row {
  namespace: string;
  name: string;
  description: string;
  deprecated: boolean;
  deprecationMessage: string | null;
  version: { version: string; content: string; fileSha256: string; authorFingerprint: string | null; skillArtifacts: unknown; review: unknown; logIndex: bigint | null; publisher: string };
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
function entryOf(row: Row, registryUrl: string, toRoot: string): IndexEntry {
  const base = registryUrl.replace(/\/+$/, "");
  const v = row.version;
  const artifacts = artifactsOf(v.skillArtifacts);
  const paths = artifactPaths(row.namespace, row.name, v.version);
  const signature = extractSignature(v.content, "tool");
  const api = `${base}/v1/skills/${row.namespace}/${row.name}?version=${encodeURIComponent(v.version)}`;
  const oneFile = artifacts.skill_md !== undefined;
  return {
    name: row.name,
    type: oneFile ? "skill-md" : "archive",
    // The version's own description (its signed manifest's, from its SKILL.md), not the item's latest one.
    description: (parseSkillManifest(v.content).skill.description || row.description).slice(0, 1024),
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
      registry_fingerprint: signature.status === "signed" ? signature.signature.fingerprint : null,
      log_index: v.logIndex === null ? null : Number(v.logIndex),
      archives: {
        tar_gz: { url: toRoot + paths.tarGz.slice(1), digest: `sha256:${artifacts.tar_gz.sha256}` },
        zip: { url: toRoot + paths.zip.slice(1), digest: `sha256:${artifacts.zip.sha256}` },
      },
      ...(row.deprecated ? { deprecated: row.deprecationMessage ?? true } : {}),
      ...(reviewOf(v.review) ? { review: reviewOf(v.review) } : {}),
    },
  };
}

const versionSelect = { version: true, content: true, fileSha256: true, authorFingerprint: true, skillArtifacts: true, review: true, logIndex: true, publisher: { select: { username: true } } } as const;

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
  const items = await db.prisma.item.findMany({
    where: {
      type: "skill",
      // An item with no approved version yet is in no index (services/approval.ts).
      held: false,
      // Unlisted skills are reachable by name (their own index), never listed with others.
      visibility: scope.skill !== undefined ? { in: ["public", "unlisted"] } : "public",
      ...(scope.version === undefined ? { latestVersion: { not: null } } : {}),
      ...(scope.namespace !== undefined ? { namespace: { name: scope.namespace.toLowerCase() } } : {}),
      ...(scope.skill !== undefined ? { name: scope.skill } : {}),
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: maxEntries,
    select: { id: true, name: true, description: true, deprecated: true, deprecationMessage: true, latestVersion: true, namespace: { select: { name: true } } },
  });
  if (items.length === 0) return scope.skill !== undefined ? null : { $schema: AGENT_SKILLS_SCHEMA, skills: [] };
  const versions = await db.prisma.itemVersion.findMany({
    // Only published versions: a pinned version held for approval is not found ("latest" never is one).
    where: { status: "published", OR: items.map((i) => ({ itemId: i.id, version: scope.version ?? i.latestVersion! })) },
    select: { itemId: true, ...versionSelect },
  });
  const byItem = new Map(versions.map((v) => [v.itemId, v]));
  const seen = new Set<string>();
  const skills: IndexEntry[] = [];
  for (const item of items) {
    const v = byItem.get(item.id);
    if (!v || seen.has(item.name)) continue;
    seen.add(item.name);
    skills.push(
      entryOf(
        { namespace: item.namespace.name, name: item.name, description: item.description, deprecated: item.deprecated, deprecationMessage: item.deprecationMessage, version: { ...v, publisher: v.publisher.username } },
        registryUrl,
        // /.well-known/agent-skills/ → "../../"; /<ns>/… → "../../../"; /<ns>/<skill>/… → "../../../../".
        "../".repeat(2 + (scope.namespace !== undefined ? 1 : 0) + (scope.skill !== undefined ? 1 : 0)),
      ),
    );
  }
  if (skills.length === 0 && scope.skill !== undefined) return null;
  skills.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { $schema: AGENT_SKILLS_SCHEMA, skills };
}

export function indexNotFound(what: string): RyeError {
  return new RyeError("NOT_FOUND", `No agent-skills index for ${what}`, { hint: "Indexes list public skills: /.well-known/agent-skills/index.json, /<namespace>/.well-known/agent-skills/index.json." });
}
