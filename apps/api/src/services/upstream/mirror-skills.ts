/**
 * Agent Skills through a mirror (docs/mirroring.md): the skill counterpart of Mirror.pull, on the same client,
 * pinned keys and countersigning. A skill version is fetched once (`GET /v1/skills/{ns}/{name}?version=&files=1`
 * upstream, under the deadline and size cap), verified against the pinned upstream key — the registry-signed
 * manifest and its attestation (verifyRegistryCopy), then every file's hash and size against that manifest
 * (verifySkill) — and only then stored: the files and the archives built from them as blobs, the row in
 * `mirrored_versions` (item type `skill`) with the manifest re-signed and attested by this registry, the upstream's
 * manifest and attestation carried unchanged. Versions are immutable, so a cached one never goes upstream again.
 */
import { keyResolverFrom, MAX_SKILL_FILES, maxSemver, RyeError, sha256Hex, type SkillFile, verifyRegistryCopy, verifySkill } from "@rye/core";
import { z } from "zod";
import { storeSkillArtifacts } from "../skills/publish-skill.ts";
import { cacheUpstreamVersion, type MirroredRow } from "./countersign.ts";
import { untrusted } from "./keys.ts";
import type { MirrorContext } from "./context.ts";
import type { MirrorSource } from "./source.ts";

const STRICT_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const upstreamSkillSchema = z.object({
  item_type: z.literal("skill"),
  item_id: z.string().max(256),
  version: z.string().max(256),
  description: z.string().max(10_000).optional(),
  manifest: z.string(),
  files: z
    .array(z.object({ path: z.string().max(1024), sha256: z.string().max(64), size: z.number().int().nonnegative().optional(), content_base64: z.string() }))
    .max(MAX_SKILL_FILES),
  attestation: z.object({ payload: z.unknown(), signature: z.string().max(512), key_fingerprint: z.string().max(64) }),
  log_index: z.number().int().nonnegative().nullable().optional(),
  yanked: z.boolean().optional(),
  deprecated: z.boolean().optional(),
  deprecation_message: z.string().max(10_000).nullable().optional(),
});

const upstreamLatestSchema = z.object({ item_id: z.string().max(256), version: z.string().max(256) }).passthrough();
const upstreamIndexSchema = z
  .object({
    skills: z
      .array(
        z.object({ name: z.string().max(256), type: z.enum(["skill-md", "archive"]), description: z.string().max(10_000), url: z.string().max(2048), digest: z.string().regex(/^sha256:[0-9a-f]{64}$/), version: z.string().max(256) }).passthrough(),
      )
      .max(10_000),
  })
  .passthrough();

/** One entry of the upstream's namespace index (the fields the discovery schema defines; its `rye` part is not kept). */
export interface UpstreamIndexEntry {
  name: string;
  type: "skill-md" | "archive";
  description: string;
  url: string;
  digest: string;
  version: string;
}

/**
 * How long an index may use the upstream's answer to "which versions are the latest": the indexes themselves are
 * served with `max-age=60`, so a client already accepts that much staleness. Pulls (`GET /v1/skills`) always ask.
 */
export const UPSTREAM_LATEST_TTL_MS = 60_000;
/** A namespace index of the upstream lists (and fetches, when uncached) at most this many skills. */
export const MAX_MIRRORED_INDEX_ENTRIES = 200;
const MAX_MEMO = 10_000;

export interface MirroredSkill {
  row: MirroredRow;
  source: MirrorSource;
}

interface Memo<T> {
  value: T;
  until: number;
}

export class SkillMirror {
  private readonly latestMemo = new Map<string, Memo<string | null>>();
  private readonly indexMemo = new Map<string, Memo<UpstreamIndexEntry[] | null>>();

  constructor(private readonly ctx: MirrorContext) {}

  private async cached(id: string, version: string): Promise<MirroredRow | null> {
    return await this.ctx.db.prisma.mirroredVersion.findUnique({ where: { upstreamUrl_itemType_itemId_version: { upstreamUrl: this.ctx.upstreamUrl, itemType: "skill", itemId: id, version } } });
  }

  /** The highest non-yanked version of `id` held here, or null. */
  private async highestCached(id: string): Promise<MirroredRow | null> {
    const held = await this.ctx.db.prisma.mirroredVersion.findMany({ where: { upstreamUrl: this.ctx.upstreamUrl, itemType: "skill", itemId: id, yanked: false }, select: { version: true } });
    const latest = maxSemver(held.map((v) => v.version));
    return latest ? await this.cached(id, latest) : null;
  }

  /**
   * A version of the upstream skill `namespace/name` (the caller checked the namespace is not local): `requested`,
   * or the upstream's latest (remembered for UPSTREAM_LATEST_TTL_MS when `fresh` is false). Upstream down: a
   * requested version is served when cached, an unversioned request gets the highest cached version ("stale").
   */
  async skill(namespace: string, name: string, requested: string | undefined, opts: { hops: number; fresh: boolean }): Promise<MirroredSkill> {
    const id = `${namespace}/${name}`;
    if (requested) {
      const row = await this.cached(id, requested);
      if (row) return { row, source: "cache" };
    }
    let version: string | null | undefined = requested;
    if (!version) {
      try {
        version = await this.latest(namespace, name, opts);
      } catch (err) {
        if (!(err instanceof RyeError) || err.code !== "UPSTREAM_UNAVAILABLE") throw err;
        const row = await this.highestCached(id);
        if (!row) throw new RyeError("UPSTREAM_UNAVAILABLE", `skill ${id} is not cached here and ${err.message.replace(/^The upstream/, "the upstream")}`, { hint: err.hint });
        this.ctx.logger.log("warn", `mirror: upstream unavailable, serving cached skill ${id}@${row.version}`);
        return { row, source: "stale" };
      }
      if (version === null) throw notFound(id);
      const row = await this.cached(id, version);
      if (row) return { row, source: "cache" };
    }
    return { row: await this.fetchVersion(namespace, name, version, opts.hops), source: "upstream" };
  }

  /** The upstream's latest installable version of a skill, null when it has none (404). */
  private async latest(namespace: string, name: string, opts: { hops: number; fresh: boolean }): Promise<string | null> {
    const id = `${namespace}/${name}`;
    const known = this.latestMemo.get(id);
    if (!opts.fresh && known && known.until > Date.now()) return known.value;
    const answer = await this.ctx.client.getJson(`/v1/skills/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`, this.ctx.config.timeoutMs, opts.hops);
    let version: string | null = null;
    if (answer.status !== 404) {
      const parsed = upstreamLatestSchema.safeParse(answer.body);
      if (!parsed.success || parsed.data.item_id !== id) throw untrusted(this.ctx.upstreamUrl, `its answer for skill ${id} is malformed`);
      version = parsed.data.version;
    }
    remember(this.latestMemo, id, version);
    return version;
  }

  /** Fetches, verifies, countersigns and caches one version; nothing is stored unless all of it verifies. */
  private async fetchVersion(namespace: string, name: string, version: string, hops: number): Promise<MirroredRow> {
    const id = `${namespace}/${name}`;
    const label = `skill ${id}@${version}`;
    const answer = await this.ctx.client.getJson(`/v1/skills/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}?version=${encodeURIComponent(version)}&files=1`, this.ctx.config.timeoutMs, hops);
    if (answer.status === 404) throw notFound(`${id}@${version}`);
    const parsed = upstreamSkillSchema.safeParse(answer.body);
    if (!parsed.success) throw untrusted(this.ctx.upstreamUrl, `its answer for ${label} is malformed`);
    const body = parsed.data;
    if (body.item_id !== id || body.version !== version) throw untrusted(this.ctx.upstreamUrl, `asked for ${label}, it answered skill ${body.item_id}@${body.version}`);
    const known = await this.cached(id, version);
    if (known) return known;

    const keys = await this.ctx.keys.trusted(hops);
    let verified;
    let files: SkillFile[];
    try {
      verified = await verifyRegistryCopy({ type: "skill", id, version, content: body.manifest, attestation: body.attestation }, keys);
      if (typeof body.log_index === "number" && body.log_index !== verified.attestation.payload.log_index) throw new RyeError("INTEGRITY_MISMATCH", "the announced log index is not its attestation's");
      files = body.files.map((f) => {
        if (f.content_base64.length % 4 !== 0 || !STRICT_BASE64.test(f.content_base64)) throw new RyeError("INTEGRITY_MISMATCH", `${f.path} is not valid base64`);
        const bytes = new Uint8Array(Buffer.from(f.content_base64, "base64"));
        if (sha256Hex(bytes) !== f.sha256) throw new RyeError("INTEGRITY_MISMATCH", `${f.path} does not match its own sha256`);
        return { path: f.path, bytes };
      });
      // Every file against the registry-signed manifest: hash, size, none missing, none added.
      const checked = await verifySkill(body.manifest, keyResolverFrom([verified.key]), files);
      if (!checked.ok || !checked.manifest) {
        throw new RyeError(checked.code === "OK" ? "INTEGRITY_MISMATCH" : checked.code, checked.message, { details: { missing: checked.missing, changed: checked.changed, added: checked.added } });
      }
      if (checked.manifest.skill.name !== name || checked.manifest.skill.version !== version) throw new RyeError("INTEGRITY_MISMATCH", `its manifest is for ${checked.manifest.skill.name}@${checked.manifest.skill.version}`);
      const manifest = checked.manifest;
      files = files.map((f) => ({ ...f, executable: manifest.files[f.path]?.executable === true }));
    } catch (err) {
      if (!(err instanceof RyeError)) throw err;
      this.ctx.logger.log("warn", `mirror: refused ${label} from ${this.ctx.upstreamUrl}: ${err.code} ${err.message}`);
      throw untrusted(this.ctx.upstreamUrl, `${label}: ${err.message}`, { reason: err.code, ...(err.details && typeof err.details === "object" ? err.details : {}) });
    }
    const skillArtifacts = await storeSkillArtifacts(this.ctx.blobs, files);
    return await cacheUpstreamVersion(this.ctx.db, this.ctx.registryUrl, await this.ctx.keyring.signer(), {
      upstreamUrl: this.ctx.upstreamUrl,
      type: "skill",
      id,
      namespace,
      version,
      fileExtension: ".yaml",
      content: body.manifest,
      attestation: body.attestation,
      logIndex: body.log_index ?? null,
      description: body.description ?? "",
      yanked: body.yanked ?? false,
      deprecated: body.deprecated ?? false,
      deprecationMessage: body.deprecation_message ?? null,
      skillArtifacts,
    }, verified);
  }

  /**
   * An upstream namespace's discovery index as the upstream lists it (remembered for UPSTREAM_LATEST_TTL_MS), split
   * into the versions held here and the others, which are listed without being fetched: a version is fetched and
   * verified when one of its artifacts (or its pull) is asked for, so listing a namespace never copies it. Upstream
   * down: the latest version held of each skill of the namespace. Null: the upstream has no such namespace.
   */
  async namespaceListing(namespace: string, hops: number): Promise<{ held: MirroredRow[]; listed: UpstreamIndexEntry[] } | null> {
    let listed: UpstreamIndexEntry[] | null;
    try {
      listed = await this.upstreamIndex(namespace, hops);
    } catch (err) {
      if (!(err instanceof RyeError) || err.code !== "UPSTREAM_UNAVAILABLE") throw err;
      const held = await this.heldLatestRows(MAX_MIRRORED_INDEX_ENTRIES, namespace);
      if (held.length === 0) throw err;
      return { held, listed: [] };
    }
    if (listed === null) return null;
    const wanted = listed.slice(0, MAX_MIRRORED_INDEX_ENTRIES);
    const rows = await this.ctx.db.prisma.mirroredVersion.findMany({
      where: { upstreamUrl: this.ctx.upstreamUrl, itemType: "skill", OR: wanted.map((e) => ({ itemId: `${namespace}/${e.name}`, version: e.version })) },
    });
    const heldIds = new Set(rows.map((r) => `${r.itemId}@${r.version}`));
    return { held: rows, listed: wanted.filter((e) => !heldIds.has(`${namespace}/${e.name}@${e.version}`)) };
  }

  private async upstreamIndex(namespace: string, hops: number): Promise<UpstreamIndexEntry[] | null> {
    const known = this.indexMemo.get(namespace);
    if (known && known.until > Date.now()) return known.value;
    const answer = await this.ctx.client.getJson(`/${encodeURIComponent(namespace)}/.well-known/agent-skills/index.json`, this.ctx.config.timeoutMs, hops);
    let listed: UpstreamIndexEntry[] | null = null;
    if (answer.status !== 404) {
      const parsed = upstreamIndexSchema.safeParse(answer.body);
      if (!parsed.success) throw untrusted(this.ctx.upstreamUrl, `its agent-skills index of ${namespace} is malformed`);
      listed = parsed.data.skills.map((s) => ({ name: s.name, type: s.type, description: s.description, url: s.url, digest: s.digest, version: s.version }));
    }
    remember(this.indexMemo, namespace, listed);
    return listed;
  }

  /** The latest version held here of every cached upstream skill (of one namespace, or all), first fetched first. */
  async heldLatestRows(limit: number, namespace?: string): Promise<MirroredRow[]> {
    const held = await this.ctx.db.prisma.mirroredVersion.findMany({
      where: { upstreamUrl: this.ctx.upstreamUrl, itemType: "skill", yanked: false, ...(namespace !== undefined ? { namespace } : {}) },
      select: { itemId: true, version: true },
      orderBy: { fetchedAt: "asc" },
    });
    const latest = new Map<string, string>();
    for (const h of held) {
      const before = latest.get(h.itemId);
      latest.set(h.itemId, before ? maxSemver([before, h.version])! : h.version);
    }
    const rows = await Promise.all([...latest].slice(0, limit).map(([id, version]) => this.cached(id, version)));
    return rows.filter((r): r is MirroredRow => r !== null);
  }
}

function remember<T>(memo: Map<string, Memo<T>>, key: string, value: T): void {
  if (memo.size >= MAX_MEMO) memo.delete(memo.keys().next().value!);
  memo.set(key, { value, until: Date.now() + UPSTREAM_LATEST_TTL_MS });
}

function notFound(what: string): RyeError {
  return new RyeError("ITEM_NOT_FOUND", `skill ${what} not found here or at the upstream registry`, { hint: "Check the name and version." });
}
