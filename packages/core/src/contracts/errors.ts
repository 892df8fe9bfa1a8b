/** The error envelope's schema (the type is errors.ts's `ErrorEnvelope`; zod stays out of errors.ts, which every process loads). */
import { z } from "zod";

export const errorEnvelopeSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    hint: z.string(),
    details: z.unknown().optional(),
  }),
});

// The hand-written type in errors.ts and this schema must describe the same shape.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const envelopeTypesAgree: Same<z.infer<typeof errorEnvelopeSchema>, import("../errors.ts").ErrorEnvelope> = true;
void envelopeTypesAgree;
