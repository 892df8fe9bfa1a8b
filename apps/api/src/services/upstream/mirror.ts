/**
 * The mirror of an upstream registry (RYE_UPSTREAM_URL, docs/mirroring.md). Routes call it only for what the local
 * registry does not hold, and only for names outside every local namespace: a namespace this registry owns is never
 * looked up upstream, so private organization items and their names stay here.
 *
 * - pull: a cached version is served from the database without asking the upstream; anything else is fetched (with
 *   a deadline), verified against the pinned upstream key, countersigned, cached, then served. Without a version,
 *   the upstream names the latest; when it cannot be reached, the highest cached version is served instead.
 * - item (versions page): the upstream's metadata, or what the cache holds when the upstream is down.
 * - search: the upstream's hits for the first page, under their own short deadline, after local hits.
 */
import { createHash } from "node:crypto";
import { compareSemver, extensionsFor, extractSignature, ITEM_TYPES, type ItemType, maxSemver, parseRegistryRef, RyeError, type SearchResponse, type SearchResult, searchResultSchema, verifyRegistryCopy } from "@rye/core";
import type { Database } from "@rye/db";
import { z } from "zod";
import type { RegistryKeyring } from "../../keys/keyring.ts";
import type { Logger } from "../../logger.ts";
import { UpstreamClient } from "./client.ts";
import type { MirrorConfig } from "./config.ts";
import { cacheUpstreamVersion, type MirroredRow, type UpstreamVersion } from "./countersign.ts";
import { UpstreamKeys, untrusted } from "./keys.ts";
import { namesStayLocal } from "./privacy.ts";
import type { BlobStore } from "../blob-store.ts";
import { SkillMirror } from "./mirror-skills.ts";
import { BundleMirror } from "./mirror-bundles.ts";
import type { MirrorContext } from "./context.ts";
import type { MirrorSource } from "./source.ts";

const upstreamPullSchema = z.object({
  item_type: z.enum(ITEM_TYPES),
  item_id: z.string().max(256),
  version: z.string().max(256),
  content: z.string(),
  file_extension: z.string().max(16).optional(),
  description: z.string().max(10_000).optional(),
  attestation: z.object({ payload: z.unknown(), signature: z.string().max(512), key_fingerprint: z.string().max(64) }),
  log_index: z.number().int().nonnegative().nullable().optional(),
  yanked: z.boolean().optional(),
  deprecated: z.boolean().optional(),
  deprecation_message: z.string().max(10_000).nullable().optional(),
});

const upstreamItemSchema = z
  .object({
    item_type: z.string(),
    item_id: z.string(),
    versions: z.array(z.object({ version: z.string() }).passthrough()).max(10_000),
  })
  .passthrough();

const upstreamSearchSchema = z.object({ results: z.array(z.unknown()).max(1000) }).passthrough();

export type { MirrorSource };

export interface MirrorPullAnswer {
  body: Buffer;
  etag: string;
  cacheControl: string;
  source: MirrorSource;
}

export class Mirror {
  readonly upstreamUrl: string;
  private readonly client: UpstreamClient;
  private readonly keys: UpstreamKeys;
  /** Agent Skills of the upstream (services/upstream/mirror-skills.ts), on the same client and pinned keys. */
  readonly skills: SkillMirror;
  /** Bundles of the upstream (services/upstream/mirror-bundles.ts). */
  readonly bundles: BundleMirror;

  constructor(
    private readonly db: Database,
    private readonly config: MirrorConfig,
    private readonly keyring: RegistryKeyring,
    private readonly registryUrl: string,
    private readonly logger: Logger,
    blobs: BlobStore,
  ) {
    this.upstreamUrl = config.upstreamUrl;
    this.client = new UpstreamClient(config);
    this.keys = new UpstreamKeys(db, config, this.client);
    const context: MirrorContext = { db, config, upstreamUrl: this.upstreamUrl, client: this.client, keys: this.keys, keyring, registryUrl, blobs, logger };
    this.skills = new SkillMirror(context);
    this.bundles = new BundleMirror(context);
  }

  /** True when `namespace` exists here: its names are never looked up upstream. */
  async ownsNamespace(namespace: string): Promise<boolean> {
    return (await this.db.prisma.namespace.count({ where: { name: namespace.toLowerCase() } })) > 0;
  }

  /** The answer for a pull of an item this registry does not hold (the caller checked the namespace is not local). */
  async pull(type: ItemType, id: string, requested: string | undefined, hops = 0): Promise<MirrorPullAnswer> {
    const ref = parseRegistryRef(type, id);
    const where = { upstreamUrl: this.upstreamUrl, itemType: type, itemId: ref.id };
    if (requested) {
      const cached = await this.db.prisma.mirroredVersion.findUnique({ where: { upstreamUrl_itemType_itemId_version: { ...where, version: requested } } });
      if (cached) return servePull(cached, true, "cache", this.upstreamUrl);
    }
    let answer;
    try {
      answer = await this.client.getJson(pullPath(type, ref.id, requested), this.config.timeoutMs, hops);
    } catch (err) {
      if (!(err instanceof RyeError) || err.code !== "UPSTREAM_UNAVAILABLE") throw err;
      // Held under another type only: not this type, as far as the mirror can tell (a client without --type asks
      // every type and must not fail on the ones the item is not).
      const otherType = await this.db.prisma.mirroredVersion.findFirst({ where: { upstreamUrl: this.upstreamUrl, itemId: ref.id, itemType: { not: type } }, select: { itemType: true } });
      if (otherType && !(await this.db.prisma.mirroredVersion.count({ where }))) {
        throw new RyeError("ITEM_NOT_FOUND", `${type} ${ref.id} is not cached here (the upstream is unavailable; the mirror holds ${otherType.itemType} ${ref.id})`, { hint: `Pull it as a ${otherType.itemType}.` });
      }
      if (requested) throw err;
      // Unversioned pull, upstream down: the highest version held, when there is one.
      const held = await this.db.prisma.mirroredVersion.findMany({ where: { ...where, yanked: false }, select: { version: true } });
      const latest = maxSemver(held.map((v) => v.version));
      if (!latest) throw new RyeError("UPSTREAM_UNAVAILABLE", `${type} ${ref.id} is not cached here and ${err.message.replace(/^The upstream/, "the upstream")}`, { hint: err.hint });
      this.logger.log("warn", `mirror: upstream unavailable, serving cached ${type} ${ref.id}@${latest}`);
      const row = await this.db.prisma.mirroredVersion.findUniqueOrThrow({ where: { upstreamUrl_itemType_itemId_version: { ...where, version: latest } } });
      return servePull(row, false, "stale", this.upstreamUrl);
    }
    if (answer.status === 404) throw new RyeError("ITEM_NOT_FOUND", `${type} ${ref.id}${requested ? `@${requested}` : ""} not found here or at the upstream registry`, { hint: "Check the id, or sign in if it is private." });
    const parsed = upstreamPullSchema.safeParse(answer.body);
    if (!parsed.success) throw untrusted(this.upstreamUrl, `its pull answer for ${type} ${ref.id} is malformed`);
    const body = parsed.data;
    if (body.item_type !== type || body.item_id !== ref.id || (requested !== undefined && body.version !== requested)) {
      throw untrusted(this.upstreamUrl, `asked for ${type} ${ref.id}${requested ? `@${requested}` : ""}, it answered ${body.item_type} ${body.item_id}@${body.version}`);
    }
    const known = await this.db.prisma.mirroredVersion.findUnique({ where: { upstreamUrl_itemType_itemId_version: { ...where, version: body.version } } });
    if (known) return servePull(known, requested !== undefined, "cache", this.upstreamUrl);

    const extension = (body.file_extension ?? (type === "tool" ? "" : ".md")).toLowerCase();
    if (!(extensionsFor(type) as readonly string[]).includes(extension)) throw untrusted(this.upstreamUrl, `it serves ${type} ${ref.id} with the unsupported extension ${JSON.stringify(extension)}`);
    const upstream: UpstreamVersion = {
      upstreamUrl: this.upstreamUrl,
      type,
      id: ref.id,
      namespace: ref.namespace,
      version: body.version,
      fileExtension: extension,
      content: body.content,
      attestation: body.attestation,
      logIndex: body.log_index ?? null,
      description: body.description ?? "",
      yanked: body.yanked ?? false,
      deprecated: body.deprecated ?? false,
      deprecationMessage: body.deprecation_message ?? null,
    };
    const keys = await this.keys.trusted(hops);
    let verified;
    try {
      verified = await verifyRegistryCopy({ type, id: ref.id, version: body.version, content: body.content, attestation: body.attestation }, keys);
    } catch (err) {
      if (!(err instanceof RyeError)) throw err;
      this.logger.log("warn", `mirror: refused ${type} ${ref.id}@${body.version} from ${this.upstreamUrl}: ${err.code} ${err.message}`);
      throw untrusted(this.upstreamUrl, err.message, { reason: err.code, ...(err.details && typeof err.details === "object" ? err.details : {}) });
    }
    if (typeof body.log_index === "number" && body.log_index !== verified.attestation.payload.log_index) throw untrusted(this.upstreamUrl, "the announced log index is not its attestation's");
    const row = await cacheUpstreamVersion(this.db, this.registryUrl, await this.keyring.signer(), upstream, verified);
    return servePull(row, requested !== undefined, "upstream", this.upstreamUrl);
  }

  /** Metadata and versions of an upstream item (GET /v1/items); the cached versions when the upstream is down. */
  async item(type: ItemType, id: string, hops = 0): Promise<Record<string, unknown>> {
    const ref = parseRegistryRef(type, id);
    try {
      const answer = await this.client.getJson(`/v1/items/${type}/${encodeId(ref.id)}`, this.config.timeoutMs, hops);
      if (answer.status === 404) throw new RyeError("ITEM_NOT_FOUND", `${type} ${ref.id} not found here or at the upstream registry`, { hint: "Check the id, or sign in if it is private." });
      const parsed = upstreamItemSchema.safeParse(answer.body);
      if (!parsed.success || parsed.data.item_type !== type || parsed.data.item_id !== ref.id) throw untrusted(this.upstreamUrl, `its item answer for ${type} ${ref.id} is malformed`);
      return { ...parsed.data, mirrored_from: this.upstreamUrl };
    } catch (err) {
      if (!(err instanceof RyeError) || err.code !== "UPSTREAM_UNAVAILABLE") throw err;
      const rows = await this.db.prisma.mirroredVersion.findMany({ where: { upstreamUrl: this.upstreamUrl, itemType: type, itemId: ref.id } });
      if (rows.length === 0) throw err;
      rows.sort((a, b) => compareSemver(b.version, a.version));
      const latest = maxSemver(rows.filter((r) => !r.yanked).map((r) => r.version)) ?? null;
      const newest = rows.find((r) => r.version === latest) ?? rows[0]!;
      const fetched = rows.map((r) => r.fetchedAt.getTime());
      return {
        item_type: type,
        item_id: ref.id,
        namespace: ref.namespace,
        category: ref.category,
        name: ref.name,
        description: newest.description,
        author: ref.namespace,
        version: latest,
        latest_version: latest,
        visibility: "public",
        deprecated: newest.deprecated,
        deprecation_message: newest.deprecationMessage,
        download_count: 0,
        tool_type: null,
        file_extension: newest.fileExtension,
        created_at: new Date(Math.min(...fetched)).toISOString(),
        updated_at: new Date(Math.max(...fetched)).toISOString(),
        versions: rows.map((r) => ({ version: r.version, created_at: r.fetchedAt.toISOString(), yanked: r.yanked, yanked_reason: null, content_hash: r.contentHash, size_bytes: Buffer.byteLength(r.content), publisher: r.publisher, log_index: Number(r.logIndex) })),
        mirrored_from: this.upstreamUrl,
        upstream_unavailable: true,
      };
    }
  }

  /**
   * Local results first, then the upstream's hits for the same query (first page only), deduplicated by type and
   * id, never in a local namespace, up to `limit`. The upstream is not asked when the query or the namespace
   * filter names something local (services/upstream/privacy.ts), nor past its deadline: then local hits stand alone.
   */
  async mergeSearch(local: SearchResponse, q: { query: string; itemType?: string | undefined; namespace?: string | undefined; category?: string | undefined; toolType?: string | undefined; limit: number; firstPage: boolean }, hops = 0): Promise<SearchResponse> {
    if (!q.firstPage || local.results.length >= q.limit) return local;
    if (await namesStayLocal(this.db, q.query, q.namespace)) return local;
    const params = new URLSearchParams({ query: q.query, limit: String(q.limit) });
    if (q.itemType) params.set("item_type", q.itemType);
    if (q.namespace) params.set("namespace", q.namespace);
    if (q.category) params.set("category", q.category);
    if (q.toolType) params.set("tool_type", q.toolType);
    let hits: SearchResult[];
    try {
      const answer = await this.client.getJson(`/v1/search?${params}`, this.config.searchTimeoutMs, hops);
      const parsed = upstreamSearchSchema.safeParse(answer.body);
      if (answer.status !== 200 || !parsed.success) return { ...local, upstream: "unavailable" };
      hits = parsed.data.results.flatMap((r) => {
        const one = searchResultSchema.safeParse(r);
        return one.success && one.data.visibility === "public" ? [one.data] : [];
      });
    } catch (err) {
      if (err instanceof RyeError && err.code === "UPSTREAM_UNAVAILABLE") return { ...local, upstream: "unavailable" };
      throw err;
    }
    const seen = new Set(local.results.map((r) => `${r.item_type} ${r.item_id}`));
    const namespaces = [...new Set(hits.map((h) => h.namespace.toLowerCase()))];
    const owned = new Set((await this.db.prisma.namespace.findMany({ where: { name: { in: namespaces } }, select: { name: true } })).map((n) => n.name));
    const merged = [...local.results];
    let added = 0;
    for (const hit of hits) {
      if (merged.length >= q.limit) break;
      const key = `${hit.item_type} ${hit.item_id}`;
      if (seen.has(key) || owned.has(hit.namespace.toLowerCase())) continue;
      seen.add(key);
      merged.push({ ...hit, mirrored_from: this.upstreamUrl });
      added++;
    }
    return { ...local, results: merged, total: local.total + added, upstream: "ok" };
  }
}

function encodeId(id: string): string {
  return id.split("/").map(encodeURIComponent).join("/");
}

function pullPath(type: ItemType, id: string, version: string | undefined): string {
  return `/v1/pull/${type}/${encodeId(id)}${version ? `?version=${encodeURIComponent(version)}` : ""}`;
}

/** The pull answer of a cached version: this registry's signed file and attestation, the upstream's under `mirrored`. */
function servePull(row: MirroredRow, pinnedVersion: boolean, source: MirrorSource, upstreamUrl: string): MirrorPullAnswer {
  const ref = parseRegistryRef(row.itemType as ItemType, row.itemId);
  const attestation = row.attestation as Record<string, unknown>;
  const signed = extractSignatureInfo(row.content, row.itemType as ItemType);
  const upstreamAttestation = row.upstreamAttestation as { payload: unknown; signature: string; key_fingerprint: string };
  const body = {
    item_type: row.itemType,
    item_id: row.itemId,
    namespace: ref.namespace,
    category: ref.category,
    name: ref.name,
    file_extension: row.fileExtension,
    author: row.publisher,
    yanked: row.yanked,
    yanked_reason: null,
    deprecated: row.deprecated,
    deprecation_message: row.deprecationMessage,
    visibility: "public",
    status: "published",
    version: row.version,
    content: row.content,
    signature: signed,
    content_hash: row.contentHash,
    file_sha256: row.fileSha256,
    // The author's signature as the upstream recorded and attested it.
    author_key: (attestation.author as { fingerprint: string; signature: string; verified: boolean } | null) ?? null,
    attestation: { payload: attestation, signature: row.attestationSignature, key_fingerprint: row.attestationKey },
    log_index: Number(row.logIndex),
    created_at: row.fetchedAt.toISOString(),
    mirrored: {
      upstream: upstreamUrl,
      fetched_at: row.fetchedAt.toISOString(),
      content: row.upstreamContent,
      file_sha256: (attestation.mirror_of as { file_sha256: string }).file_sha256,
      attestation: upstreamAttestation,
      log_index: row.upstreamLogIndex === null ? null : Number(row.upstreamLogIndex),
    },
  };
  const state = createHash("sha256").update(JSON.stringify([row.yanked, row.deprecated, row.deprecationMessage])).digest("hex").slice(0, 16);
  return {
    body: Buffer.from(JSON.stringify(body)),
    etag: `"${row.contentHash}.${state}"`,
    cacheControl: pinnedVersion ? "public, max-age=31536000, immutable" : "public, max-age=60, must-revalidate",
    source,
  };
}

function extractSignatureInfo(content: string, type: ItemType): { timestamp: string; hash: string; registry_username: string | null; fingerprint: string } {
  const extracted = extractSignature(content, type);
  if (extracted.status !== "signed") return { timestamp: "", hash: "", registry_username: null, fingerprint: "" };
  const sig = extracted.signature;
  return { timestamp: sig.timestamp, hash: sig.hash, fingerprint: sig.fingerprint, registry_username: sig.username ?? null };
}
