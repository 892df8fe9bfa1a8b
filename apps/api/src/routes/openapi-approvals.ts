/** OpenAPI description of the approval of held versions (routes/approvals.ts, services/approval.ts). */
import { z } from "zod";
import { isoTimestampSchema, itemTypeSchema, itemVisibilitySchema, versionStatusSchema } from "@rye/core";
import type { decideVersion, listHeldVersions, setOrgApproval } from "../services/approval.ts";
import { approveSchema, orgApprovalSchema, rejectSchema } from "./approvals.ts";
import type { Operation, SameKeys } from "../contract/operation.ts";

const reviewFinding = z.object({
  rule: z.string(),
  family: z.string().meta({ description: "The attack family: hidden-instructions, exfiltration, remote-code, encoded-payload, persistence, permission-tampering, destructive or dependency-confusion." }),
  risk: z.enum(["low", "medium", "high"]),
  path: z.string().meta({ description: "The file, relative to the item or skill." }),
  line: z.number().int().meta({ description: "1-based." }),
  excerpt: z.string(),
  message: z.string(),
});
/** The publish-time review as stored and served (services/publish.ts, services/skills/publish-skill.ts). */
export const PublishReview = z
  .object({ risk: z.enum(["none", "low", "medium", "high"]), findings: z.array(reviewFinding), truncated: z.boolean() })
  .meta({ description: "The static review at publish time (hidden instructions, exfiltration, remote code, encoded payloads, persistence, agent-permission tampering, destructive commands, dependency confusion): the highest risk and up to 50 findings, highest risk first, each with file, line and family." });

/** What every push answers about approval (items and skills) and the review: spread into the push responses. */
export const ApprovalAnswer = {
  review: PublishReview.nullable(),
  status: z.enum(["published", "held"]).meta({ description: "held (HTTP 202): stored, signed and attested, but invisible until approved (registry setting RYE_REGISTRY_APPROVAL)." }),
  approval: z
    .object({
      status: z.literal("pending"),
      reason: z.string().meta({ description: '"all", or "flagged: <risk>" from the publish-time review.' }),
      review: z.object({ risk: z.enum(["none", "low", "medium", "high"]), findings: z.number().int() }).nullable(),
      message: z.string(),
    })
    .nullable()
    .meta({ description: "null when published at once." }),
};

const ApproveRequest = approveSchema;
const RejectRequest = rejectSchema;
const DecisionResponse = z.object({
  status: z.enum(["approved", "rejected"]),
  item_type: itemTypeSchema,
  item_id: z.string(),
  version: z.string(),
  version_status: z.enum(["published", "rejected"]),
  reason: z.string().nullable(),
  decided_by: z.string(),
  decided_at: isoTimestampSchema,
  latest_version: z.string().nullable().meta({ description: "After an approval, the approved version when it is the newest." }),
  log_index: z.number().int().nullable().meta({ description: "The publish log's approve entry (approvals only)." }),
});
const HeldVersion = z.object({
  item_type: itemTypeSchema,
  item_id: z.string(),
  namespace: z.string(),
  version: z.string(),
  status: versionStatusSchema,
  held_reason: z.string().nullable(),
  review: z.unknown().meta({ description: "The publish-time review: { risk, findings, truncated }." }),
  publisher: z.string(),
  created_at: isoTimestampSchema,
  visibility: itemVisibilitySchema,
  can_approve: z.boolean().meta({ description: "Whether the caller may approve it (not its own publisher; owner/admin of the organization, or a registry admin)." }),
  decided_by: z.string().nullable(),
  decided_at: isoTimestampSchema.nullable(),
  reason: z.string().nullable(),
});
const ApprovalsResponse = z.object({
  mode: z.enum(["off", "flagged", "all"]).meta({ description: "The registry's setting (RYE_REGISTRY_APPROVAL)." }),
  risk: z.enum(["low", "medium", "high"]).meta({ description: "With flagged: the review risk from which versions are held (RYE_REGISTRY_APPROVAL_RISK)." }),
  status: z.enum(["pending", "rejected"]),
  versions: z.array(HeldVersion).meta({ description: "Oldest first, at most 200." }),
  truncated: z.boolean(),
});
const ApprovalsQuery = z.object({
  namespace: z.string().max(64).optional().meta({ description: "One namespace (FORBIDDEN unless you see its held versions)." }),
  status: z.enum(["pending", "rejected"]).optional().meta({ description: "Default pending." }),
});

const approvalMode = z.enum(["off", "flagged", "all"]);
const OrgApprovalRequest = orgApprovalSchema;
const OrgApprovalResponse = z.object({
  org: z.string(),
  mode: approvalMode.meta({ description: "The organization's own setting (off: none, the registry's applies)." }),
  registry_mode: approvalMode.meta({ description: "The registry's setting (RYE_REGISTRY_APPROVAL)." }),
  effective_mode: approvalMode.meta({ description: "What applies to pushes into the organization: the stricter of the two." }),
  risk: z.enum(["low", "medium", "high"]).meta({ description: "With flagged: the review risk from which versions are held (RYE_REGISTRY_APPROVAL_RISK)." }),
});
true satisfies SameKeys<z.output<typeof OrgApprovalResponse>, Awaited<ReturnType<typeof setOrgApproval>>>;
true satisfies SameKeys<z.output<typeof DecisionResponse>, Awaited<ReturnType<typeof decideVersion>>>;
true satisfies SameKeys<z.output<typeof HeldVersion>, Awaited<ReturnType<typeof listHeldVersions>>["versions"][number]>;

export const APPROVAL_SCHEMAS = { ApproveRequest, RejectRequest, DecisionResponse, HeldVersion, ApprovalsResponse, OrgApprovalRequest, OrgApprovalResponse };

const decide = (verb: "approve" | "reject", operationId: string, summary: string, body: string): Operation => ({
  method: "post",
  path: `/v1/${verb}/{item_type}/{item_id}`,
  operationId,
  summary,
  tag: "approval",
  auth: "caller+csrf",
  scopes: ["items:write"],
  body,
  ok: { status: 200, description: "Decided (audited: item.approve / item.reject)", schema: "DecisionResponse" },
  errors: [
    400,
    [403, "FORBIDDEN: not an owner/admin of the organization (personal namespaces: registry admins only), or a token restricted elsewhere; SELF_APPROVAL: you published it"],
    [404, "ITEM_NOT_FOUND: no such version"],
    [409, "CONFLICT: the version is not pending (published or already rejected)"],
    413,
  ],
});

export const APPROVAL_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/approvals",
    operationId: "listHeldVersions",
    summary: "Versions held for approval in the namespaces you review (every namespace for registry admins)",
    tag: "approval",
    auth: "caller",
    scopes: ["items:read"],
    query: ApprovalsQuery,
    ok: { status: 200, description: "Held versions", schema: "ApprovalsResponse" },
    errors: [400, 404],
  },
  decide("approve", "approveVersion", "Approve a held version: it becomes visible (and latest when it is the newest)", "ApproveRequest"),
  {
    method: "get",
    path: "/v1/orgs/{name}/approval",
    operationId: "getOrgApproval",
    summary: "An organization's approval setting, the registry's and the one that applies (members)",
    tag: "approval",
    auth: "caller",
    ok: { status: 200, description: "The settings", schema: "OrgApprovalResponse" },
    errors: [[403, "FORBIDDEN: not a member of the organization"], 404],
  },
  {
    method: "patch",
    path: "/v1/orgs/{name}/approval",
    operationId: "setOrgApproval",
    summary: "Set an organization's own approval setting (owners; audited): it only makes the registry's stricter",
    tag: "approval",
    auth: "caller+csrf",
    scopes: ["org:admin"],
    body: "OrgApprovalRequest",
    ok: { status: 200, description: "The settings", schema: "OrgApprovalResponse" },
    errors: [400, [403, "FORBIDDEN: not an owner of the organization"], 404, 413],
  },
  decide("reject", "rejectVersion", "Reject a held version with a reason: it stays invisible, its version number stays taken", "RejectRequest"),
];
