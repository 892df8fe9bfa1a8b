/** Publish attestations: the registry's statement about one published version of an item or bundle. */
import { z } from "zod";

export const ATTESTATION_TYPE = "https://rye.dev/attestation/publish/v1";

export const publishAttestationSchema = z.object({
  _type: z.literal(ATTESTATION_TYPE),
  registry: z.string(),
  subject: z.object({
    kind: z.enum(["item", "bundle"]),
    item_type: z.enum(["directive", "tool", "knowledge", "skill"]).optional(),
    id: z.string(),
    version: z.string(),
  }),
  /** SHA-256 of the whole served file (the registry-signed content). */
  file_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The inline signature's content hash. */
  content_hash: z.string().regex(/^[0-9a-f]{64}$/),
  author: z
    .object({
      fingerprint: z.string(),
      signature: z.string(),
      verified: z.boolean(),
    })
    .nullable(),
  publisher: z.string(),
  published_at: z.string(),
  log_index: z.number().int().nonnegative(),
  /** Skills: SHA-256 of each served artifact (the `digest` of the agent-skills discovery index, without `sha256:`). */
  artifacts: z
    .object({
      skill_md: z.string().regex(/^[0-9a-f]{64}$/).optional(),
      tar_gz: z.string().regex(/^[0-9a-f]{64}$/),
      zip: z.string().regex(/^[0-9a-f]{64}$/),
    })
    .optional(),
});
export type PublishAttestation = z.infer<typeof publishAttestationSchema>;

/** Rotation statement: the previous registry key vouches for the next one. */
export const keyRotationSchema = z.object({
  _type: z.literal("https://rye.dev/key-rotation/v1"),
  registry: z.string(),
  previous_fingerprint: z.string(),
  next_fingerprint: z.string(),
  next_public_key: z.string(),
  issued_at: z.string(),
});
export type KeyRotation = z.infer<typeof keyRotationSchema>;

/** Checkpoint of the append-only publish log: size and head hash, signed by the registry. */
export const logCheckpointSchema = z.object({
  _type: z.literal("https://rye.dev/log-checkpoint/v1"),
  registry: z.string(),
  tree_size: z.number().int().nonnegative(),
  head_hash: z.string(),
  issued_at: z.string(),
});
export type LogCheckpoint = z.infer<typeof logCheckpointSchema>;
