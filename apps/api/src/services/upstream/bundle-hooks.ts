/** GET /v1/bundle/pull for a bundle this registry does not hold, outside its namespaces: the mirror's copy. */
import type { Context } from "hono";
import { extractSignature, RyeError } from "@rye/core";
import type { AppEnv } from "../../env.ts";
import type { BlobStore } from "../blob-store.ts";
import { parseBundleId, readBundleFiles, type StoredBundleFile } from "../bundles.ts";
import { MIRROR_HOPS_HEADER, mirrorHops } from "./client.ts";
import type { Mirror } from "./mirror.ts";

/** True when a local bundle lookup that failed with `err` should be answered by the mirror. */
export async function bundleGoesUpstream(mirror: Mirror | undefined, err: unknown, bundleId: string): Promise<boolean> {
  if (!mirror || !(err instanceof RyeError) || err.code !== "NOT_FOUND") return false;
  return !(await mirror.ownsNamespace(parseBundleId(bundleId).namespace));
}

/** The local answer's shape (this registry's manifest signature and attestation) plus `mirrored`, the upstream's. */
export async function serveMirroredBundle(c: Context<AppEnv>, mirror: Mirror, blobs: BlobStore, req: { bundleId: string; version: string | undefined }): Promise<Response> {
  const { row, source } = await mirror.bundles.pull(req.bundleId, req.version, mirrorHops(c.req.header(MIRROR_HOPS_HEADER)));
  const etag = `"${row.manifestSha256}"`;
  c.header("ETag", etag);
  c.header("Vary", "Authorization");
  c.header("Cache-Control", req.version !== undefined ? "public, max-age=31536000, immutable" : "public, max-age=60, must-revalidate");
  c.header("X-Rye-Mirror", source);
  if (c.req.header("if-none-match")?.split(",").map((s) => s.trim()).includes(etag)) return c.body(null, 304);
  const files = await readBundleFiles(blobs, row.files as unknown as Record<string, StoredBundleFile>);
  const signature = extractSignature(row.manifest, "tool");
  const attestation = row.attestation as { mirror_of: { file_sha256: string } };
  c.set("pullLogIndex", Number(row.logIndex));
  return c.json({
    bundle_id: row.bundleId,
    version: row.version,
    manifest: row.manifest,
    manifest_sha256: row.manifestSha256,
    files: Object.fromEntries(files.map((f) => [f.path, { content_base64: Buffer.from(f.bytes).toString("base64"), sha256: f.sha256, size: f.size, inline_signed: f.inline_signed }])),
    author: row.publisher,
    created_at: row.fetchedAt.toISOString(),
    attestation: { payload: row.attestation, signature: row.attestationSignature, key_fingerprint: signature.status === "signed" ? signature.signature.fingerprint : row.attestationKey },
    log_index: Number(row.logIndex),
    yanked: row.yanked,
    visibility: "public",
    mirrored: {
      upstream: mirror.upstreamUrl,
      fetched_at: row.fetchedAt.toISOString(),
      content: row.upstreamManifest,
      file_sha256: attestation.mirror_of.file_sha256,
      attestation: row.upstreamAttestation,
      log_index: row.upstreamLogIndex === null ? null : Number(row.upstreamLogIndex),
    },
  });
}
