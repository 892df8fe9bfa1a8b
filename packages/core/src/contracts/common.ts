/** Building blocks shared by the API response contracts. */
import { z } from "zod";
import { REGISTRY_ITEM_TYPES } from "../registry-types.ts";

/** Registry item types: the engine's three plus `skill`. */
export const itemTypeSchema = z.enum(REGISTRY_ITEM_TYPES);
export const itemVisibilitySchema = z.enum(["public", "unlisted", "private"]);
export type ItemVisibility = z.infer<typeof itemVisibilitySchema>;
/** An ISO 8601 UTC timestamp as `Date.prototype.toISOString` writes it. */
export const isoTimestampSchema = z.iso.datetime();
export const sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/);

/** `{ payload, signature, key_fingerprint }`: a registry-signed JSON document (see registry/signed-document.ts). */
export const signedDocumentSchema = <T extends z.ZodType>(payload: T) =>
  z.object({
    payload,
    signature: z.string().meta({ description: "Padded base64url Ed25519 signature over the canonical JSON of payload." }),
    key_fingerprint: z.string().meta({ description: "Fingerprint of the registry key that signed (see GET /v1/keys)." }),
  });

/** A response contract whose parsed value is `T` (what typed API helpers accept). */
export type ResponseContract<T = unknown> = z.ZodType<T>;
