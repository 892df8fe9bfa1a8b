/** POST /v1/bundle/push and GET /v1/bundle/pull/{bundle_id}: a signed manifest and its files, as one. */
import { z } from "zod";
import { pullTransparencySchema } from "./transparency.ts";
import { publishAttestationSchema } from "../registry/attestation.ts";
import { isoTimestampSchema, itemVisibilitySchema, sha256HexSchema } from "./common.ts";
import { signedAttestationSchema } from "./items.ts";

export const bundlePushResponseSchema = z
  .object({
    status: z.literal("pushed"),
    bundle_id: z.string(),
    version: z.string(),
    file_count: z.number().int(),
    manifest: z.string().meta({ description: "The manifest re-signed by the registry (|rye-registry@<publisher>)." }),
    attestation: signedAttestationSchema,
    log_index: z.number().int(),
  })
  .meta({ id: "BundlePushResponse" });
export type BundlePushResponse = z.infer<typeof bundlePushResponseSchema>;

/** A publish attestation as a pull serves it: key_fingerprint null when the stored manifest's signature is unreadable. */
export const servedAttestationSchema = z.object({ payload: publishAttestationSchema, signature: z.string(), key_fingerprint: z.string().nullable() });

export const bundlePulledFileSchema = z.object({ content_base64: z.string(), sha256: sha256HexSchema, size: z.number().int(), inline_signed: z.boolean() });

export const bundlePullResponseSchema = z
  .object({
    bundle_id: z.string(),
    version: z.string(),
    manifest: z.string(),
    manifest_sha256: sha256HexSchema,
    files: z.record(z.string(), bundlePulledFileSchema),
    author: z.string(),
    created_at: isoTimestampSchema,
    attestation: servedAttestationSchema,
    log_index: z.number().int().nullable(),
    yanked: z.boolean(),
    visibility: itemVisibilitySchema,
    transparency: pullTransparencySchema.optional().meta({ description: "Present when asked for with `tlog_from`: the proof that this version's publish is in the registry's signed log." }),
  })
  .meta({ id: "BundlePullResponse" });
export type BundlePullResponse = z.infer<typeof bundlePullResponseSchema>;
