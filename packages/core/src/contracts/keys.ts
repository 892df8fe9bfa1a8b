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
