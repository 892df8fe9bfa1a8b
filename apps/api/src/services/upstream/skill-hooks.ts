/**
 * The skill routes' side of the mirror (GET /v1/skills, the agent-skills indexes and artifacts): when the local
 * registry does not hold a skill and its namespace is not one of this registry's, the answer comes from the
 * upstream's verified, countersigned copy (services/upstream/mirror-skills.ts), shaped exactly like a local answer
 * plus `mirrored` (the upstream's manifest and attestation, unchanged). A local namespace never goes upstream.
 */
import type { Context } from "hono";
import { extractSignature, isSemver, RyeError, skillNameProblem } from "@rye/core";
import type { AppEnv } from "../../env.ts";
import type { BlobStore } from "../blob-store.ts";
import { AGENT_SKILLS_SCHEMA, artifactPaths, type DiscoveryIndex, entryOf, type IndexEntry, manifestFacts, MAX_INDEX_ENTRIES, toRootOf } from "../skills/discovery-index.ts";
import { skillPullContents } from "../skills/pull-contents.ts";
import { artifactsOf, requiredBlob, storedManifest } from "../skills/stored.ts";
import { MIRROR_HOPS_HEADER, mirrorHops } from "./client.ts";
import type { MirroredRow } from "./countersign.ts";
import type { Mirror } from "./mirror.ts";
import type { UpstreamIndexEntry } from "./mirror-skills.ts";

/** True when a local skill lookup that failed with `err` should be answered by the mirror. */
export async function skillGoesUpstream(mirror: Mirror | undefined, err: unknown, namespace: string): Promise<boolean> {
  return !!mirror && err instanceof RyeError && err.code === "ITEM_NOT_FOUND" && !(await mirror.ownsNamespace(namespace));
}

const hopsOf = (c: Context<AppEnv>) => mirrorHops(c.req.header(MIRROR_HOPS_HEADER));

function notModified(c: Context<AppEnv>, etag: string): boolean {
  return c.req.header("if-none-match")?.split(",").map((s) => s.trim()).includes(etag) ?? false;
}

/** GET /v1/skills/{ns}/{name} of an upstream skill: the local answer's shape, this registry's signatures, `mirrored`. */
export async function serveMirroredSkill(c: Context<AppEnv>, mirror: Mirror, ctx: { blobs: BlobStore; publicUrl: string }, req: { namespace: string; name: string; version: string | undefined; withFiles: boolean }): Promise<Response> {
  const { row, source } = await mirror.skills.skill(req.namespace.toLowerCase(), req.name, req.version, { hops: hopsOf(c), fresh: true });
  const etag = `"${row.fileSha256}${req.withFiles ? "-files" : ""}"`;
  c.header("ETag", etag);
  c.header("Vary", "Authorization");
  c.header("Cache-Control", req.version !== undefined ? "public, max-age=31536000, immutable" : "public, max-age=60, must-revalidate");
  c.header("X-Rye-Mirror", source);
  if (notModified(c, etag)) return c.body(null, 304);
  const name = skillName(row);
  const contents = await skillPullContents(ctx.blobs, ctx.publicUrl, { content: row.content, skillArtifacts: row.skillArtifacts, namespace: row.namespace, name, version: row.version }, req.withFiles);
  const attestation = row.attestation as Record<string, unknown>;
  const signature = extractSignature(row.content, "tool");
  c.set("pullLogIndex", Number(row.logIndex));
  return c.json({
    item_type: "skill",
    item_id: row.itemId,
    namespace: row.namespace,
    name,
    version: row.version,
    description: contents.description,
    manifest: row.content,
    manifest_sha256: row.fileSha256,
    files: contents.files,
    artifacts: contents.artifacts,
    author: row.publisher,
    // The author's signature as the upstream recorded and attested it.
    author_key: (attestation.author as { fingerprint: string; signature: string; verified: boolean } | null) ?? null,
    attestation: { payload: attestation, signature: row.attestationSignature, key_fingerprint: signature.status === "signed" ? signature.signature.fingerprint : row.attestationKey },
    log_index: Number(row.logIndex),
    review: null,
    yanked: row.yanked,
    yanked_reason: null,
    deprecated: row.deprecated,
    deprecation_message: row.deprecationMessage,
    visibility: "public",
    status: "published",
    created_at: row.fetchedAt.toISOString(),
    mirrored: mirroredSection(row, mirror.upstreamUrl),
  });
}

/** The upstream's manifest and signed attestation exactly as fetched (verifiable with the upstream's key). */
function mirroredSection(row: MirroredRow, upstreamUrl: string) {
  const attestation = row.attestation as { mirror_of: { file_sha256: string } };
  return {
    upstream: upstreamUrl,
    fetched_at: row.fetchedAt.toISOString(),
    content: row.upstreamContent,
    file_sha256: attestation.mirror_of.file_sha256,
    attestation: row.upstreamAttestation,
    log_index: row.upstreamLogIndex === null ? null : Number(row.upstreamLogIndex),
  };
}

function skillName(row: MirroredRow): string {
  return row.itemId.slice(row.itemId.indexOf("/") + 1);
}

/** The discovery-index entry of a cached upstream skill, its artifacts on this registry's origin. */
function entryOfRow(row: MirroredRow, registryUrl: string, scope: { namespace?: string; skill?: string }): IndexEntry {
  const attestation = row.attestation as { author?: { fingerprint?: string } | null };
  return entryOf(
    {
      namespace: row.namespace,
      name: skillName(row),
      description: row.description,
      deprecated: row.deprecated,
      deprecationMessage: row.deprecationMessage,
      version: {
        version: row.version,
        fileSha256: row.fileSha256,
        authorFingerprint: attestation.author?.fingerprint ?? null,
        skillArtifacts: row.skillArtifacts,
        review: null,
        logIndex: row.logIndex,
        publisher: row.publisher,
      },
      facts: manifestFacts(row.fileSha256, row.content),
    },
    registryUrl,
    toRootOf(scope),
  );
}

const byName = (a: IndexEntry, b: IndexEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The index of an upstream namespace or skill (the caller checked the namespace is not local), its entries pointing
 * at this registry's copies; null when the upstream has no such namespace or skill.
 */
export async function mirroredIndex(c: Context<AppEnv>, mirror: Mirror, registryUrl: string, scope: { namespace: string; skill?: string; version?: string }): Promise<DiscoveryIndex | null> {
  const namespace = scope.namespace.toLowerCase();
  let rows: MirroredRow[];
  if (scope.skill !== undefined) {
    try {
      rows = [(await mirror.skills.skill(namespace, scope.skill, scope.version, { hops: hopsOf(c), fresh: false })).row];
    } catch (err) {
      if (err instanceof RyeError && err.code === "ITEM_NOT_FOUND") return null;
      throw err;
    }
  } else {
    const listing = await mirror.skills.namespaceListing(namespace, hopsOf(c));
    if (listing === null) return null;
    const entries = [...listing.held.map((r) => entryOfRow(r, registryUrl, scope)), ...listing.listed.flatMap((e) => listedEntry(e, namespace, registryUrl, mirror.upstreamUrl))];
    return { $schema: AGENT_SKILLS_SCHEMA, skills: entries.sort(byName) };
  }
  return { $schema: AGENT_SKILLS_SCHEMA, skills: rows.map((r) => entryOfRow(r, registryUrl, scope)).sort(byName) };
}

/**
 * A namespace-index entry of an upstream version not fetched yet: the upstream's entry, kept only when its URL is
 * this version's artifact on the same relative path (so it resolves to this registry, which fetches and verifies the
 * version when the artifact is asked for); its digest is the upstream's, which the archives built here reproduce.
 */
function listedEntry(e: UpstreamIndexEntry, namespace: string, registryUrl: string, upstreamUrl: string): IndexEntry[] {
  if (skillNameProblem(e.name) !== null || !isSemver(e.version)) return [];
  const paths = artifactPaths(namespace, e.name, e.version);
  const expected = toRootOf({ namespace }) + (e.type === "skill-md" ? paths.skillMd : paths.tarGz).slice(1);
  if (e.url !== expected) return [];
  const base = registryUrl.replace(/\/+$/, "");
  const api = `${base}/v1/skills/${namespace}/${e.name}?version=${encodeURIComponent(e.version)}`;
  return [{ name: e.name, type: e.type, description: e.description.slice(0, 1024), url: e.url, digest: e.digest, version: e.version, rye: { registry: base, id: `${namespace}/${e.name}`, version: e.version, manifest_url: api, attestation_url: api, mirrored_from: upstreamUrl } }];
}

/**
 * The root index of a mirror: its own skills, then the upstream skills it holds (the latest version cached of each),
 * a name listed once (local first). The upstream's whole root index is not fetched: that would copy the public
 * registry on one request; an upstream namespace's index (`/<namespace>/.well-known/…`) lists all of its skills.
 */
export async function withHeldUpstreamSkills(local: DiscoveryIndex, mirror: Mirror, registryUrl: string): Promise<DiscoveryIndex> {
  const room = MAX_INDEX_ENTRIES - local.skills.length;
  if (room <= 0) return local;
  const names = new Set(local.skills.map((s) => s.name));
  const rows = await mirror.skills.heldLatestRows(MAX_INDEX_ENTRIES);
  const owned = new Set<string>();
  for (const ns of new Set(rows.map((r) => r.namespace))) if (await mirror.ownsNamespace(ns)) owned.add(ns);
  const added: IndexEntry[] = [];
  for (const row of rows) {
    if (added.length >= room) break;
    const name = skillName(row);
    if (names.has(name) || owned.has(row.namespace)) continue;
    names.add(name);
    added.push(entryOfRow(row, registryUrl, {}));
  }
  return added.length === 0 ? local : { ...local, skills: [...local.skills, ...added].sort(byName) };
}

/** An artifact (SKILL.md, .tar.gz, .zip) of a cached upstream skill version; fetched first when not cached. */
export async function serveMirroredArtifact(c: Context<AppEnv>, mirror: Mirror, blobs: BlobStore, req: { namespace: string; name: string; version: string; file: string }): Promise<Response> {
  const { row, source } = await mirror.skills.skill(req.namespace.toLowerCase(), req.name, req.version, { hops: hopsOf(c), fresh: false });
  const artifacts = artifactsOf(row.skillArtifacts);
  const base = `${req.name}-${row.version}`;
  const skillMd = storedManifest(row.content).files["SKILL.md"]?.sha256;
  const pick =
    req.file === "SKILL.md" ? { sha256: skillMd ?? "", type: "text/markdown; charset=utf-8" }
    : req.file === `${base}.tar.gz` ? { sha256: artifacts.tar_gz.sha256, type: "application/gzip" }
    : req.file === `${base}.zip` ? { sha256: artifacts.zip.sha256, type: "application/zip" }
    : null;
  if (!pick || !pick.sha256) {
    throw new RyeError("NOT_FOUND", `No artifact ${JSON.stringify(req.file)} for skill ${row.itemId}@${row.version}`, { hint: `Artifacts are SKILL.md, ${base}.tar.gz and ${base}.zip.` });
  }
  const etag = `"${pick.sha256}"`;
  c.header("ETag", etag);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Content-Security-Policy", "default-src 'none'; sandbox");
  if (req.file !== "SKILL.md") c.header("Content-Disposition", `attachment; filename="${req.file}"`);
  c.header("Access-Control-Allow-Origin", "*");
  c.header("Access-Control-Expose-Headers", "ETag, Content-Length");
  c.header("Cache-Control", "public, max-age=31536000, immutable");
  c.header("X-Rye-Mirror", source);
  if (notModified(c, etag)) return c.body(null, 304);
  const bytes = await requiredBlob(blobs, pick.sha256);
  return c.body(new Uint8Array(bytes), 200, { "Content-Type": pick.type, "Content-Length": String(bytes.length) });
}
