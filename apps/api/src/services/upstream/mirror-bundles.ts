/**
 * Bundles through a mirror (docs/mirroring.md), on the same client, pinned keys and countersigning as items and
 * skills: `GET /v1/bundle/pull/{id}` of a bundle outside this registry's namespaces is fetched from the upstream
 * (deadline, size cap), its registry-signed manifest and attestation verified against the pinned upstream key
 * (verifyRegistryCopy), every file against the manifest (path, SHA-256, nothing missing or added), then the files are
 * stored as blobs and the version cached in `mirrored_bundle_versions`, the manifest re-signed and attested by this
 * registry (`mirror_of`), the upstream's manifest and attestation kept unchanged and served under `mirrored`.
 */
import { computeContentHash, isInlineSigned, maxSemver, parseManifest, RyeError, sha256Hex, signManifest, verifyRegistryCopy } from "@rye/core";
import { type Database, isUniqueViolation, type Prisma } from "@rye/db";
import { z } from "zod";
import { parseBundleId, type StoredBundleFile } from "../bundles.ts";
import { countersignIn } from "./countersign.ts";
import { untrusted } from "./keys.ts";
import type { MirrorContext } from "./context.ts";
import type { MirrorSource } from "./source.ts";

const STRICT_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const upstreamBundleSchema = z.object({
  bundle_id: z.string().max(256),
  version: z.string().max(256),
  manifest: z.string(),
  files: z.record(z.string().max(1024), z.object({ content_base64: z.string(), sha256: z.string().max(64).optional(), inline_signed: z.boolean().optional() })),
  attestation: z.object({ payload: z.unknown(), signature: z.string().max(512), key_fingerprint: z.string().max(64) }),
  log_index: z.number().int().nonnegative().nullable().optional(),
  yanked: z.boolean().optional(),
});

export type MirroredBundleRow = NonNullable<Awaited<ReturnType<Database["prisma"]["mirroredBundleVersion"]["findFirst"]>>>;

export class BundleMirror {
  constructor(private readonly ctx: MirrorContext) {}

  private async cached(bundleId: string, version: string): Promise<MirroredBundleRow | null> {
    return await this.ctx.db.prisma.mirroredBundleVersion.findUnique({ where: { upstreamUrl_bundleId_version: { upstreamUrl: this.ctx.upstreamUrl, bundleId, version } } });
  }

  /** `bundleId[@requested]` from the cache or the upstream (the caller checked its namespace is not local). */
  async pull(bundleId: string, requested: string | undefined, hops: number): Promise<{ row: MirroredBundleRow; source: MirrorSource }> {
    const ref = parseBundleId(bundleId);
    if (requested) {
      const row = await this.cached(ref.id, requested);
      if (row) return { row, source: "cache" };
    }
    const path = `/v1/bundle/pull/${ref.id.split("/").map(encodeURIComponent).join("/")}${requested ? `?version=${encodeURIComponent(requested)}` : ""}`;
    let answer;
    try {
      answer = await this.ctx.client.getJson(path, this.ctx.config.timeoutMs, hops);
    } catch (err) {
      if (!(err instanceof RyeError) || err.code !== "UPSTREAM_UNAVAILABLE" || requested) throw err;
      const held = await this.ctx.db.prisma.mirroredBundleVersion.findMany({ where: { upstreamUrl: this.ctx.upstreamUrl, bundleId: ref.id, yanked: false }, select: { version: true } });
      const latest = maxSemver(held.map((h) => h.version));
      if (!latest) throw new RyeError("UPSTREAM_UNAVAILABLE", `bundle ${ref.id} is not cached here and ${err.message.replace(/^The upstream/, "the upstream")}`, { hint: err.hint });
      this.ctx.logger.log("warn", `mirror: upstream unavailable, serving cached bundle ${ref.id}@${latest}`);
      return { row: (await this.cached(ref.id, latest))!, source: "stale" };
    }
    if (answer.status === 404) throw new RyeError("NOT_FOUND", `Bundle ${ref.id}${requested ? `@${requested}` : ""} not found here or at the upstream registry`, { hint: "Check the id and version." });
    const parsed = upstreamBundleSchema.safeParse(answer.body);
    if (!parsed.success) throw untrusted(this.ctx.upstreamUrl, `its pull answer for bundle ${ref.id} is malformed`);
    const body = parsed.data;
    if (body.bundle_id !== ref.id || (requested !== undefined && body.version !== requested)) {
      throw untrusted(this.ctx.upstreamUrl, `asked for bundle ${ref.id}${requested ? `@${requested}` : ""}, it answered ${body.bundle_id}@${body.version}`);
    }
    const known = await this.cached(ref.id, body.version);
    if (known) return { row: known, source: "cache" };
    return { row: await this.verifyAndCache(ref, body, hops), source: "upstream" };
  }

  private async verifyAndCache(ref: { id: string; namespace: string }, body: z.infer<typeof upstreamBundleSchema>, hops: number): Promise<MirroredBundleRow> {
    const label = `bundle ${ref.id}@${body.version}`;
    const keys = await this.ctx.keys.trusted(hops);
    let verified;
    const files: { path: string; bytes: Uint8Array; stored: StoredBundleFile }[] = [];
    try {
      verified = await verifyRegistryCopy({ type: "bundle", id: ref.id, version: body.version, content: body.manifest, attestation: body.attestation }, keys);
      if (typeof body.log_index === "number" && body.log_index !== verified.attestation.payload.log_index) throw new RyeError("INTEGRITY_MISMATCH", "the announced log index is not its attestation's");
      const manifest = parseManifest(body.manifest);
      if (manifest.bundle.id !== ref.id || manifest.bundle.version !== body.version) throw new RyeError("INTEGRITY_MISMATCH", `its manifest describes ${manifest.bundle.id}@${manifest.bundle.version}`);
      const listed = Object.keys(manifest.files);
      const missing = listed.filter((p) => !Object.hasOwn(body.files, p));
      const added = Object.keys(body.files).filter((p) => !Object.hasOwn(manifest.files, p));
      if (missing.length > 0 || added.length > 0) throw new RyeError("INTEGRITY_MISMATCH", "its files are not exactly the signed manifest's", { details: { missing, added } });
      for (const path of listed.sort()) {
        const served = body.files[path]!;
        if (served.content_base64.length % 4 !== 0 || !STRICT_BASE64.test(served.content_base64)) throw new RyeError("INTEGRITY_MISMATCH", `${path} is not valid base64`);
        const bytes = new Uint8Array(Buffer.from(served.content_base64, "base64"));
        const sha = sha256Hex(bytes);
        if (sha !== manifest.files[path]!.sha256) throw new RyeError("INTEGRITY_MISMATCH", `${path} differs from the signed manifest`, { details: { changed: [path] } });
        files.push({ path, bytes, stored: { sha256: sha, size: bytes.length, inline_signed: manifest.files[path]!.inline_signed === true || served.inline_signed === true || isInlineSigned(bytes) } });
      }
    } catch (err) {
      if (!(err instanceof RyeError)) throw err;
      this.ctx.logger.log("warn", `mirror: refused ${label} from ${this.ctx.upstreamUrl}: ${err.code} ${err.message}`);
      throw untrusted(this.ctx.upstreamUrl, `${label}: ${err.message}`, { reason: err.code, ...(err.details && typeof err.details === "object" ? err.details : {}) });
    }
    const key = await this.ctx.keyring.signer();
    const signed = await signManifest(body.manifest, key, { provenance: { provider: "rye-registry", username: verified.publisher } });
    const contentHash = computeContentHash(signed, "tool");
    if (contentHash !== verified.contentHash) throw new RyeError("INTERNAL", `Re-signing ${label} changed its content hash`);
    const manifestSha256 = sha256Hex(signed);
    for (const f of files) await this.ctx.blobs.put(f.bytes);
    const stored = Object.fromEntries(files.map((f) => [f.path, f.stored]));
    try {
      return await this.ctx.db.prisma.$transaction(async (tx) => {
        const subject = { kind: "bundle" as const, id: ref.id, version: body.version };
        const { attestation, signedAttestation, entry } = await countersignIn(tx, { registryUrl: this.ctx.registryUrl, key, upstreamUrl: this.ctx.upstreamUrl, subject, fileSha256: manifestSha256, contentHash, verified });
        return await tx.mirroredBundleVersion.create({
          data: {
            upstreamUrl: this.ctx.upstreamUrl,
            bundleId: ref.id,
            namespace: ref.namespace,
            version: body.version,
            manifest: signed,
            manifestSha256,
            files: stored as unknown as Prisma.InputJsonValue,
            publisher: verified.publisher,
            attestation: attestation as unknown as Prisma.InputJsonValue,
            attestationSignature: signedAttestation.signature,
            attestationKey: key.publicKey.fingerprint,
            logIndex: BigInt(entry.index),
            upstreamManifest: body.manifest,
            upstreamAttestation: body.attestation as unknown as Prisma.InputJsonValue,
            upstreamKeyFingerprint: verified.key.fingerprint,
            upstreamLogIndex: body.log_index === undefined || body.log_index === null ? null : BigInt(body.log_index),
            yanked: body.yanked ?? false,
          },
        });
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      return (await this.cached(ref.id, body.version))!;
    }
  }
}
