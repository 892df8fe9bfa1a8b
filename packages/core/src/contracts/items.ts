/** GET /v1/items/{type}/{id} (metadata and versions) and GET /v1/pull/{type}/{id} (a signed version). */
import { z } from "zod";
import { pullTransparencySchema } from "./transparency.ts";
import { publishAttestationSchema } from "../registry/attestation.ts";
import { mirroredSectionSchema } from "../registry/mirrored.ts";
import { isoTimestampSchema, itemTypeSchema, itemVisibilitySchema, sha256HexSchema, signedDocumentSchema } from "./common.ts";

export const signedAttestationSchema = signedDocumentSchema(publishAttestationSchema);
export type SignedAttestation = z.infer<typeof signedAttestationSchema>;

/** Coordinates of one version of an item, as push and pull answer them. */
export const itemCoordinates = {
  item_type: itemTypeSchema,
  item_id: z.string(),
  namespace: z.string(),
  category: z.string(),
  name: z.string(),
  version: z.string(),
};

/**
 * A version's approval state (registry setting RYE_REGISTRY_APPROVAL): `pending` and `rejected` versions are shown
 * only to the namespace's owners/admins and registry admins; everyone else sees published versions only.
 */
export const versionStatusSchema = z.enum(["published", "pending", "rejected"]);
export type VersionStatus = z.infer<typeof versionStatusSchema>;

export const itemVersionSchema = z.object({
  version: z.string(),
  created_at: isoTimestampSchema,
  yanked: z.boolean(),
  yanked_reason: z.string().nullable(),
  content_hash: sha256HexSchema,
  size_bytes: z.number().int(),
  publisher: z.string(),
  log_index: z.number().int().nullable(),
  status: versionStatusSchema.optional().meta({ description: "For the namespace's owners/admins and registry admins, who also see held versions." }),
  held_reason: z.string().nullable().optional().meta({ description: 'Why the version was held ("all", "flagged: high"); with status.' }),
  safety_verdict: z.enum(["ok", "review", "danger"]).nullable().optional().meta({ description: "Tools: the verdict of the version's static safety report (GET /v1/quality)." }),
});
export type ItemVersion = z.infer<typeof itemVersionSchema>;

export const itemDetailsSchema = z.object({
  ...itemCoordinates,
  version: z.string().nullable(),
  description: z.string(),
  author: z.string(),
  latest_version: z.string().nullable(),
  visibility: itemVisibilitySchema,
  deprecated: z.boolean(),
  deprecation_message: z.string().nullable(),
  download_count: z.number().int(),
  tool_type: z.string().nullable(),
  file_extension: z.string().nullable(),
  created_at: isoTimestampSchema,
  updated_at: isoTimestampSchema,
  quality_score: z.number().int().min(0).max(100).nullable().optional().meta({ description: "The latest version's quality score, 0 … 100 (GET /v1/quality for the factors); null when not computed." }),
  versions: z.array(itemVersionSchema).meta({ description: "Highest version first." }),
  mirrored_from: z.string().optional().meta({ description: "On a mirroring registry: the upstream registry the item belongs to (docs/mirroring.md)." }),
  upstream_unavailable: z.boolean().optional().meta({ description: "With mirrored_from: the upstream could not be reached; the versions listed are those the mirror holds." }),
}).meta({ id: "ItemDetails" });
export type ItemDetails = z.infer<typeof itemDetailsSchema>;

/** The inline signature line of served content (registry-signed). */
export const pulledSignatureSchema = z.object({ timestamp: z.string(), hash: z.string(), registry_username: z.string().nullable(), fingerprint: z.string() });
export type PulledSignature = z.infer<typeof pulledSignatureSchema>;

/** The one definition of the pull answer: the route declares it, the client (packages/rye registry/pull.ts) parses with it. */
export const pullResponseSchema = z.object({
  ...itemCoordinates,
  content: z.string(),
  file_extension: z.string(),
  author: z.string(),
  signature: pulledSignatureSchema,
  content_hash: sha256HexSchema,
  file_sha256: sha256HexSchema,
  author_key: z.object({ fingerprint: z.string(), signature: z.string().nullable(), verified: z.boolean() }).nullable(),
  attestation: signedAttestationSchema,
  log_index: z.number().int().nullable(),
  yanked: z.boolean(),
  yanked_reason: z.string().nullable(),
  deprecated: z.boolean(),
  deprecation_message: z.string().nullable(),
  visibility: itemVisibilitySchema,
  status: versionStatusSchema.optional().meta({ description: "published; pending or rejected only for those who review held versions." }),
  created_at: isoTimestampSchema,
  transparency: pullTransparencySchema.optional().meta({ description: "Present when asked for with `tlog_from`: the proof that this version's publish is in the registry's signed log." }),
  mirrored: mirroredSectionSchema.optional().meta({
    description: "On a mirroring registry, for an upstream item: the upstream's file and signed attestation exactly as fetched. The item itself is re-signed by this registry, whose attestation countersigns the upstream's in `mirror_of` (docs/mirroring.md).",
  }),
}).meta({ id: "PullResponse" });
export type PullResponse = z.infer<typeof pullResponseSchema>;
