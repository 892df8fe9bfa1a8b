/** GET /v1/keys: every registry key with validity windows, signed rotation statements and revocations. */
import { z } from "zod";
import { keyRotationSchema } from "../registry/attestation.ts";
import { isoTimestampSchema, signedDocumentSchema } from "./common.ts";

export const registryKeyInfoSchema = z.object({
  fingerprint: z.string(),
  public_key: z.string().meta({ description: "SPKI PEM." }),
  algorithm: z.literal("ed25519"),
  valid_from: isoTimestampSchema,
  valid_until: isoTimestampSchema.nullable(),
  previous_fingerprint: z.string().nullable(),
  rotation: signedDocumentSchema(keyRotationSchema).nullable().meta({ description: "Signed by the previous key." }),
  revoked_at: isoTimestampSchema.nullable(),
  revocation_reason: z.string().nullable(),
  active: z.boolean(),
});
export type RegistryKeyInfo = z.infer<typeof registryKeyInfoSchema>;

export const keysResponseSchema = z.object({ registry: z.string(), active: z.string(), keys: z.array(registryKeyInfoSchema) }).meta({ id: "KeysResponse" });
export type KeysResponse = z.infer<typeof keysResponseSchema>;

/** One author key registered to a namespace (GET /v1/namespaces/{name}/keys): what a monitor needs, nothing about who holds it. */
export const namespaceKeySchema = z.object({
  fingerprint: z.string(),
  public_key: z.string().meta({ description: "SPKI PEM." }),
  created_at: isoTimestampSchema.meta({ description: "When the key was registered." }),
  revoked_at: isoTimestampSchema.nullable().meta({ description: "When it was revoked; null while it may sign." }),
});
export type NamespaceKey = z.infer<typeof namespaceKeySchema>;

/** GET /v1/namespaces/{name}/keys: the author keys whose signatures the registry accepts on pushes to the namespace. */
export const namespaceKeysResponseSchema = z
  .object({
    namespace: z.string(),
    kind: z.enum(["user", "org"]),
    keys: z.array(namespaceKeySchema).meta({ description: "Oldest first; revoked keys included (with revoked_at)." }),
    truncated: z.boolean().meta({ description: "True when the namespace has more keys than one answer lists (MAX_NAMESPACE_KEYS): the list is not the whole set." }),
  })
  .meta({ id: "NamespaceKeys" });
export type NamespaceKeysResponse = z.infer<typeof namespaceKeysResponseSchema>;

/** The most keys one answer of GET /v1/namespaces/{name}/keys lists. */
export const MAX_NAMESPACE_KEYS = 1000;
