/** GET /v1/log/checkpoint: the registry-signed checkpoint of its publish log. */
import type { z } from "zod";
import { logCheckpointSchema } from "../registry/attestation.ts";
import { signedDocumentSchema } from "./common.ts";

export const signedCheckpointSchema = signedDocumentSchema(logCheckpointSchema).meta({ id: "SignedCheckpoint" });
export type SignedCheckpoint = z.infer<typeof signedCheckpointSchema>;
