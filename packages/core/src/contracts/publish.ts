/** What a publish answers: POST /v1/push (items) and the publish-time review and approval every push reports. */
import { z } from "zod";
import { sha256HexSchema } from "./common.ts";
import { itemCoordinates, pulledSignatureSchema, signedAttestationSchema } from "./items.ts";

export const reviewRiskSchema = z.enum(["none", "low", "medium", "high"]);

export const reviewFindingSchema = z.object({
  rule: z.string(),
  family: z.string().meta({ description: "The attack family: hidden-instructions, exfiltration, remote-code, encoded-payload, persistence, permission-tampering, destructive or dependency-confusion." }),
  risk: z.enum(["low", "medium", "high"]),
  path: z.string().meta({ description: "The file, relative to the item or skill." }),
  line: z.number().int().meta({ description: "1-based." }),
  excerpt: z.string(),
  message: z.string(),
});

/** The publish-time review as stored and served (services/publish.ts, services/skills/publish-skill.ts). */
export const publishReviewSchema = z
  .object({ risk: reviewRiskSchema, findings: z.array(reviewFindingSchema), truncated: z.boolean() })
  .meta({ description: "The static review at publish time (hidden instructions, exfiltration, remote code, encoded payloads, persistence, agent-permission tampering, destructive commands, dependency confusion): the highest risk and up to 50 findings, highest risk first, each with file, line and family." });
export type PublishReview = z.infer<typeof publishReviewSchema>;

/** What every push answers about approval (items and skills) and the review: spread into the push answers. */
export const approvalAnswerShape = {
  review: publishReviewSchema.nullable(),
  status: z.enum(["published", "held"]).meta({ description: "held (HTTP 202): stored, signed and attested, but invisible until approved (registry setting RYE_REGISTRY_APPROVAL)." }),
  approval: z
    .object({
      status: z.literal("pending"),
      reason: z.string().meta({ description: '"all", or "flagged: <risk>" from the publish-time review.' }),
      review: z.object({ risk: reviewRiskSchema, findings: z.number().int() }).nullable(),
      message: z.string(),
    })
    .nullable()
    .meta({ description: "null when published at once." }),
};

/** POST /v1/push: 201 published, 202 held for approval. */
export const pushResponseSchema = z
  .object({
    ...approvalAnswerShape,
    ...itemCoordinates,
    signature: pulledSignatureSchema,
    signed_content: z.string().meta({ description: "The item re-signed by the registry (|rye-registry@<publisher>)." }),
    file_sha256: sha256HexSchema,
    attestation: signedAttestationSchema,
    log_index: z.number().int(),
  })
  .meta({ id: "PushResponse" });
export type PushResponse = z.infer<typeof pushResponseSchema>;
