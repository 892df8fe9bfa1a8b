/** Bundle push and pull (the original v1 shapes, plus base64 file contents, attestations and log indexes). */
import type { Context, MiddlewareHandler } from "hono";
import { createRoute } from "@hono/zod-openapi";
import { limitBody } from "../middleware/body-limit.ts";
import { z } from "zod";
import { type BundlePullResponse, bundlePullResponseSchema, bundlePushResponseSchema, extractSignature, MAX_BUNDLE_FILES, RyeError, utf8Encode } from "@rye/core";
import type { PublishAttestation } from "@rye/core";
import type { AppEnv } from "../env.ts";
import { access, errors, json, NOT_MODIFIED } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import { requirePrincipal } from "../middleware/auth.ts";
import type { PushedFile, StoredBundleFile } from "../services/bundles.ts";
import { findReadableBundle, publishBundle, readBundleFiles } from "../services/bundles.ts";
import type { AppDeps } from "../services/deps.ts";
import { latestOf } from "../services/versions.ts";
import { bundleGoesUpstream, serveMirroredBundle } from "../services/upstream/bundle-hooks.ts";
import { pullTransparency, tlogFromQuery } from "../services/pull-transparency.ts";

/** Padded standard base64 (a linear pattern: a grouped one overflows the regex stack on large files). */
const isBase64 = (s: string) => s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s);

export const bundleFileSchema = z
  .object({
    content: z.string().optional().meta({ description: "The file as UTF-8 text (exactly one of content and content_base64)." }),
    content_base64: z.string().refine(isBase64, "content_base64 must be padded standard base64").optional().meta({ description: "The file's bytes, base64 (for binary files)." }),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, "sha256 must be 64 lowercase hex").meta({ description: "SHA-256 of the file's bytes." }),
    inline_signed: z.boolean().optional(),
  })
  .refine((f) => (f.content === undefined) !== (f.content_base64 === undefined), "Send exactly one of content and content_base64");

export const bundlePushRequestSchema = z
  .object({
  bundle_id: z.string().min(3).max(256).meta({ description: "namespace/name…; must equal the manifest's bundle.id." }),
  version: z.string().max(256).optional().meta({ description: "Defaults to the manifest's bundle.version, which it must equal." }),
  manifest: z.string().min(1).meta({ description: "manifest.yaml, signed with a key registered to the publisher." }),
  files: z
    .record(z.string(), bundleFileSchema)
    .refine((files) => Object.keys(files).length <= MAX_BUNDLE_FILES, `A bundle holds at most ${MAX_BUNDLE_FILES} files`)
    .meta({ description: "Relative path → file; exactly the files of the manifest." }),
  visibility: z.enum(["public", "unlisted", "private"]).optional().meta({ description: "Applies when the bundle is created; default public." }),
  })
  .meta({ id: "BundlePushRequest" });

export const bundlePushRoute = createRoute({
  method: "post",
  path: "/v1/bundle/push",
  operationId: "pushBundle",
  summary: "Publish a version of a bundle (a signed manifest and its files)",
  tags: ["bundles"],
  ...access("required", ["items:write"]),
  request: { body: { required: true, content: { "application/json": { schema: bundlePushRequestSchema } } } },
  responses: { 201: json(bundlePushResponseSchema, "Published"), ...errors(400, 401, 403, 404, 409, 413) },
});

export const bundlePullRoute = createRoute({
  method: "get",
  path: "/v1/bundle/pull/{bundle_id{.+}}",
  operationId: "pullBundle",
  summary: "Download a version of a bundle",
  tags: ["bundles"],
  ...access("optional"),
  request: { query: z.object({ version: z.string().optional().meta({ description: "Default: the highest non-yanked version." }), tlog_from: tlogFromQuery }) },
  responses: { 200: json(bundlePullResponseSchema, "The bundle"), ...NOT_MODIFIED, ...errors(400, 404) },
  "x-rye-etag": true,
});

/** A token with items:write, checked before the body is (401/403 before a 400). */
export const writerFirst: MiddlewareHandler<AppEnv> = async (c, next) => {
  requirePrincipal(c, "items:write");
  await next();
};

function decodeFiles(files: z.infer<typeof bundlePushRequestSchema>["files"]): Record<string, PushedFile> {
  const out: Record<string, PushedFile> = {};
  for (const [path, f] of Object.entries(files)) {
    const bytes = f.content !== undefined ? utf8Encode(f.content) : new Uint8Array(Buffer.from(f.content_base64!, "base64"));
    out[path] = { bytes, sha256: f.sha256, inline_signed: f.inline_signed };
  }
  return out;
}

/**
 * Versions are immutable, so a pinned public version may be cached forever; "latest" must be
 * revalidated, and anything not public stays out of shared caches. Answers true when `If-None-Match` hits.
 */
export function setCacheHeaders(c: Context<AppEnv>, etag: string, visibility: string, pinned: boolean): boolean {
  c.header("ETag", etag);
  c.header("Vary", "Authorization");
  c.header("Cache-Control", visibility !== "public" ? "private, no-cache" : pinned ? "public, max-age=31536000, immutable" : "public, max-age=60, must-revalidate");
  return c.req.header("if-none-match")?.split(",").map((s) => s.trim()).includes(etag) ?? false;
}

export function bundleRoutes(deps: AppDeps) {
  const blobs = deps.blobs;
  const limit = limitBody(deps.config.limits.maxBundleBodyBytes, "Bundle request bodies");
  return contractRouter()
    .openapi({ ...bundlePushRoute, middleware: [limit, writerFirst] as const }, async (c) => {
      const principal = requirePrincipal(c, "items:write");
      const body = c.req.valid("json");
      const result = await publishBundle(
        { bundle_id: body.bundle_id, version: body.version, manifest: body.manifest, files: decodeFiles(body.files), visibility: body.visibility },
        {
          db: deps.db,
          blobs,
          principal,
          registryKey: await deps.keyring.signer(),
          registryUrl: deps.config.publicUrl,
          maxBundleBytes: deps.config.limits.maxBundleBytes,
          ip: c.get("clientIp"),
          requestId: c.get("requestId"),
        },
      );
      return c.json(result, 201);
    })
    .openapi({ ...bundlePullRoute, middleware: [pullTransparency(deps)] as const }, async (c) => {
      const requested = c.req.valid("query").version;
      let found;
      try {
        found = await findReadableBundle(deps.db, c.get("principal"), c.req.param("bundle_id"));
      } catch (err) {
        // Not held here: a mirror answers with the upstream's verified copy, unless the namespace is this registry's.
        if (!deps.mirror || !(await bundleGoesUpstream(deps.mirror, err, c.req.param("bundle_id")))) throw err;
        return await serveMirroredBundle(c, deps.mirror, blobs, { bundleId: c.req.param("bundle_id"), version: requested });
      }
      const { ref, bundle } = found;
      const versions = await deps.db.prisma.bundleVersion.findMany({ where: { bundleId: bundle.id }, select: { version: true, yanked: true } });
      const version = requested ?? latestOf(versions);
      if (!version) throw new RyeError("NOT_FOUND", `Bundle ${ref.id} has no installable version (all are yanked)`, { hint: "Pull an explicit version with ?version=." });
      const row = await deps.db.prisma.bundleVersion.findUnique({
        where: { bundleId_version: { bundleId: bundle.id, version } },
        include: { publisher: { select: { username: true } } },
      });
      if (!row) throw new RyeError("NOT_FOUND", `Bundle ${ref.id}@${version} not found`, { details: { versions: versions.map((v) => v.version) } });
      if (setCacheHeaders(c, `"${row.manifestSha256}"`, bundle.visibility, requested !== undefined)) return c.body(null, 304);
      c.set("pullLogIndex", row.logIndex === null ? null : Number(row.logIndex));

      const files = await readBundleFiles(blobs, row.files as unknown as Record<string, StoredBundleFile>);
      void deps.db.raw.query("UPDATE bundles SET download_count = download_count + 1 WHERE id = $1::uuid", [bundle.id]).catch(() => undefined);
      const signature = extractSignature(row.manifest, "tool");
      const answer: BundlePullResponse = {
        bundle_id: ref.id,
        version: row.version,
        manifest: row.manifest,
        manifest_sha256: row.manifestSha256,
        files: Object.fromEntries(
          files.map((f) => [f.path, { content_base64: Buffer.from(f.bytes).toString("base64"), sha256: f.sha256, size: f.size, inline_signed: f.inline_signed }]),
        ),
        author: row.publisher.username,
        created_at: row.createdAt.toISOString(),
        attestation: {
          payload: row.attestation as PublishAttestation,
          signature: row.attestationSignature,
          key_fingerprint: signature.status === "signed" ? signature.signature.fingerprint : null,
        },
        log_index: row.logIndex === null ? null : Number(row.logIndex),
        yanked: row.yanked,
        visibility: bundle.visibility,
      };
      return c.json(answer, 200);
    });
}
