/**
 * The client's checks of registry answers. Each is the registry's own answer schema from @rye/core's contracts (the
 * schema the API route declares and /v1/openapi.json is generated from), cut to the fields this client reads:
 * - a field it reads is the core definition itself, made optional where an older registry may leave it out;
 * - fields a newer registry adds are ignored (zod objects strip unknown keys), so adding a field never breaks a client;
 * - a few fields are checked more loosely on purpose: CLIENT_ANSWERS names them, with the reason.
 * apps/api/src/contract/client-answers.test.ts holds each of these against its route's declared answer, so a breaking
 * change to an answer schema fails there, naming the route.
 */
import { z } from "zod";
import {
  bundlePulledFileSchema,
  bundlePullResponseSchema,
  bundlePushResponseSchema,
  ITEM_TYPES,
  keysResponseSchema,
  MAX_ITEM_ID_LENGTH,
  meSchema,
  namespaceKeySchema,
  namespaceKeysResponseSchema,
  pullResponseSchema,
  pushResponseSchema,
  registryKeyInfoSchema,
  searchResponseSchema,
  searchResultSchema,
  skillPulledFileSchema,
  skillPullResponseSchema,
  skillPushResponseSchema,
} from "@rye/core";

/**
 * An answer check, built when this module loads: a field the route's answer no longer has fails here, naming the route
 * (`operationId` in /v1/openapi.json), not somewhere in a verifier.
 */
function answerOf<T>(operationId: string, build: () => T): T {
  try {
    return build();
  } catch (err) {
    throw new Error(`The client's check of ${operationId} reads a field its answer schema (@rye/core contracts) does not have: ${(err as Error).message}`);
  }
}

/** How an answer carries a publish attestation before it is verified (registry-signed.ts verifyAttestation checks the rest). */
export const attestationShape = z.object({ payload: z.unknown(), signature: z.string(), key_fingerprint: z.string().nullable().optional() });

/** GET /v1/me: who a token belongs to (the user name is printed, and is the default namespace of a push). */
export const whoAmIAnswerSchema = answerOf("whoami", () =>
  meSchema
    .pick({ username: true, scopes: true })
    .partial({ scopes: true })
    .extend({ username: meSchema.shape.username.regex(/^[A-Za-z0-9_.-]{1,64}$/, "a user name") }),
);
export type WhoAmI = z.infer<typeof whoAmIAnswerSchema>;

/** GET /v1/pull/{type}/{id}. */
export const pullAnswerSchema = answerOf("pullItem", () =>
  pullResponseSchema
    .pick({ item_id: true, version: true, content: true, file_extension: true, content_hash: true, file_sha256: true, log_index: true, transparency: true, yanked: true, deprecated: true, deprecation_message: true })
    .partial({ file_extension: true, content_hash: true, file_sha256: true, log_index: true, yanked: true, deprecated: true, deprecation_message: true })
    .extend({ item_type: z.enum(ITEM_TYPES), attestation: attestationShape }),
);

/** GET /v1/search: the fields a hit shows. */
export const searchHitAnswerSchema = answerOf("search", () =>
  searchResultSchema
    .pick({ name: true, description: true, category: true, version: true, score: true, deprecated: true, download_count: true, quality_score: true })
    .partial({ description: true, category: true, version: true, score: true, deprecated: true, download_count: true, quality_score: true })
    .extend({ item_type: z.string(), item_id: searchResultSchema.shape.item_id.max(MAX_ITEM_ID_LENGTH) }),
);
export const searchAnswerSchema = answerOf("search", () =>
  searchResponseSchema.pick({ total: true }).extend({ results: z.array(searchHitAnswerSchema).max(1000) }),
);

/** POST /v1/push (201 published, 202 held). */
export const pushAnswerSchema = answerOf("pushItem", () =>
  pushResponseSchema
    .pick({ item_id: true, version: true, signed_content: true, log_index: true, status: true, approval: true })
    .partial({ log_index: true, status: true, approval: true })
    .extend({ attestation: attestationShape.optional(), review: z.unknown().optional() }),
);
export type PushAnswer = z.infer<typeof pushAnswerSchema>;

/** POST /v1/skills/push (201 published, 202 held). */
export const skillPushAnswerSchema = answerOf("pushSkill", () =>
  skillPushResponseSchema
    .pick({ item_id: true, version: true, signed_manifest: true, log_index: true, status: true, approval: true })
    .partial({ log_index: true, status: true, approval: true })
    .extend({ review: z.unknown().optional() }),
);
export type SkillPushAnswer = z.infer<typeof skillPushAnswerSchema>;

/** GET /v1/skills/{namespace}/{name}?files=1: the files with their bytes. */
export const skillPullAnswerSchema = answerOf("pullSkill", () =>
  skillPullResponseSchema
    .pick({ item_id: true, version: true, manifest: true, transparency: true, yanked: true, yanked_reason: true, deprecated: true, deprecation_message: true })
    .partial({ yanked: true, yanked_reason: true, deprecated: true, deprecation_message: true })
    .extend({
      files: z.array(skillPulledFileSchema.pick({ path: true, sha256: true, executable: true, content_base64: true }).partial({ executable: true }).required({ content_base64: true })),
      attestation: attestationShape,
    }),
);

/** POST /v1/bundle/push. */
export const bundlePushAnswerSchema = answerOf("pushBundle", () =>
  bundlePushResponseSchema
    .pick({ bundle_id: true, version: true, manifest: true, file_count: true, log_index: true })
    .partial({ file_count: true, log_index: true })
    .extend({ attestation: z.unknown() }),
);
export type BundlePushAnswer = z.infer<typeof bundlePushAnswerSchema>;

/** GET /v1/bundle/pull/{id}. */
export const bundlePullAnswerSchema = answerOf("pullBundle", () =>
  bundlePullResponseSchema
    .pick({ bundle_id: true, version: true, manifest: true, manifest_sha256: true, log_index: true, transparency: true, yanked: true })
    .partial({ manifest_sha256: true, log_index: true, yanked: true })
    .extend({ files: z.record(z.string(), bundlePulledFileSchema.partial({ sha256: true, size: true, inline_signed: true })), attestation: z.unknown() }),
);

/** One key of GET /v1/keys. */
export const registryKeyAnswerSchema = answerOf("listKeys", () =>
  registryKeyInfoSchema
    .pick({ fingerprint: true, public_key: true, algorithm: true, valid_from: true, valid_until: true, previous_fingerprint: true, revoked_at: true, revocation_reason: true, active: true })
    .partial({ algorithm: true, valid_from: true, valid_until: true, previous_fingerprint: true, revoked_at: true, revocation_reason: true, active: true })
    .extend({ rotation: z.object({ payload: z.unknown(), signature: z.string(), key_fingerprint: z.string().nullable() }).nullable().optional() }),
);
/** GET /v1/keys. */
export const keysAnswerSchema = answerOf("listKeys", () =>
  keysResponseSchema.pick({ registry: true, active: true }).extend({ keys: z.array(registryKeyAnswerSchema) }),
);

/** GET /v1/namespaces/{name}/keys: the namespace's registered author keys (`rye log monitor` records them). */
export const namespaceKeysAnswerSchema = answerOf("listNamespaceKeys", () =>
  namespaceKeysResponseSchema
    .pick({ namespace: true, truncated: true })
    .extend({ keys: z.array(namespaceKeySchema.pick({ fingerprint: true, revoked_at: true }).extend({ fingerprint: namespaceKeySchema.shape.fingerprint.regex(/^[0-9a-f]{16,64}$/, "a key fingerprint") })).max(10_000) }),
);

const ATTESTATION = "checked by verifyAttestation against the pinned key, with its own errors (BAD_SIGNATURE, INTEGRITY_MISMATCH)";
const REVIEW = "findings are kept only when well formed (publish.ts pushReviewOf): the push itself has succeeded";

/** A client check of one registry answer, and the fields (dotted paths) it checks more loosely than the route declares. */
export interface ClientAnswer {
  schema: z.ZodObject;
  looser: Record<string, string>;
}

/** Every client check of an answer, by the operationId of its route (/v1/openapi.json). */
export const CLIENT_ANSWERS: Record<string, ClientAnswer> = {
  pullItem: { schema: pullAnswerSchema, looser: { item_type: "this client pulls its three item types (a skill is pulled by /v1/skills)", attestation: ATTESTATION } },
  search: {
    schema: searchAnswerSchema,
    looser: { "results.item_type": "a newer registry's new item type is skipped, not a failed search", "results.item_id": "also at most MAX_ITEM_ID_LENGTH characters: a hit is shown" },
  },
  pushItem: { schema: pushAnswerSchema, looser: { attestation: ATTESTATION, review: REVIEW } },
  pushSkill: { schema: skillPushAnswerSchema, looser: { review: REVIEW } },
  pullSkill: { schema: skillPullAnswerSchema, looser: { attestation: ATTESTATION } },
  pushBundle: { schema: bundlePushAnswerSchema, looser: { attestation: ATTESTATION } },
  pullBundle: { schema: bundlePullAnswerSchema, looser: { attestation: ATTESTATION } },
  listKeys: { schema: keysAnswerSchema, looser: { "keys.rotation": "the rotation statement's payload is verified by key-pinning.ts (keyRotationSchema)" } },
  listNamespaceKeys: { schema: namespaceKeysAnswerSchema, looser: { "keys.fingerprint": "also 16-64 lowercase hex digits: the monitor keeps it and compares it with the log's author_key" } },
  whoami: { schema: whoAmIAnswerSchema, looser: { username: "also 1-64 letters, digits, '_', '.' or '-': it is printed and becomes a namespace in request paths" } },
};
