/**
 * Approval of held versions (services/approval.ts, docs/registry-approval.md):
 *   GET  /v1/approvals[?namespace=&status=pending|rejected]   the held versions the caller reviews (items:read)
 *   POST /v1/approve/{item_type}/{item_id}  {version, reason?}  make a pending version visible (items:write)
 *   POST /v1/reject/{item_type}/{item_id}   {version, reason}   keep it invisible for good (items:write)
 * A bearer token, or the website's session cookie + CSRF token (the approvals page). Who may decide is checked on
 * every call: an organization's owners and admins, registry admins; never the version's own publisher for approve.
 *   GET|PATCH /v1/orgs/{name}/approval  {mode: off|flagged|all}    an organization's own, stricter setting (owners set it)
 */
import type { Context } from "hono";
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { isoTimestampSchema, itemTypeSchema, itemVisibilitySchema, versionStatusSchema } from "@rye/core";
import type { SameKeys } from "../contract/operation.ts";
import { access, declared, errors, json, jsonRequest } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import type { AppEnv } from "../env.ts";
import { limitBody } from "../middleware/body-limit.ts";
import { requirePrincipalOrSession } from "../middleware/auth.ts";
import { decideVersion, listHeldVersions, orgApproval, setOrgApproval } from "../services/approval.ts";
import { jsonBody, requireCaller } from "./accounts.ts";
import type { AppDeps } from "../services/deps.ts";
import type { ManageContext } from "../services/manage.ts";

// ---------------------------------------------------------------- requests
export const approveSchema = z
  .object({
    version: z.string().min(1).max(256),
    reason: z.string().trim().max(1000).optional(),
  })
  .meta({ id: "ApproveRequest" });
export const rejectSchema = z
  .object({
    version: z.string().min(1).max(256),
    reason: z.string().trim().min(1, "a rejection needs a reason").max(1000),
  })
  .meta({ id: "RejectRequest" });
const ApprovalsQuery = z.object({
  namespace: z.string().max(64).optional().meta({ description: "One namespace (FORBIDDEN unless you see its held versions)." }),
  status: z.enum(["pending", "rejected"]).default("pending").meta({ description: "Default pending." }),
});
const approvalMode = z.enum(["off", "flagged", "all"]);
export const orgApprovalSchema = z.strictObject({ mode: approvalMode }).meta({ id: "OrgApprovalRequest" });

// ---------------------------------------------------------------- answers
export const DecisionResponse = z
  .object({
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
  })
  .meta({ id: "DecisionResponse" });
const HeldVersion = z
  .object({
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
  })
  .meta({ id: "HeldVersion" });
export const ApprovalsResponse = z
  .object({
    mode: approvalMode.meta({ description: "The registry's setting (RYE_REGISTRY_APPROVAL)." }),
    risk: z.enum(["low", "medium", "high"]).meta({ description: "With flagged: the review risk from which versions are held (RYE_REGISTRY_APPROVAL_RISK)." }),
    status: z.enum(["pending", "rejected"]),
    versions: z.array(HeldVersion).meta({ description: "Oldest first, at most 200." }),
    truncated: z.boolean(),
  })
  .meta({ id: "ApprovalsResponse" });
export const OrgApprovalResponse = z
  .object({
    org: z.string(),
    mode: approvalMode.meta({ description: "The organization's own setting (off: none, the registry's applies)." }),
    registry_mode: approvalMode.meta({ description: "The registry's setting (RYE_REGISTRY_APPROVAL)." }),
    effective_mode: approvalMode.meta({ description: "What applies to pushes into the organization: the stricter of the two." }),
    risk: z.enum(["low", "medium", "high"]).meta({ description: "With flagged: the review risk from which versions are held (RYE_REGISTRY_APPROVAL_RISK)." }),
  })
  .meta({ id: "OrgApprovalResponse" });
true satisfies SameKeys<z.output<typeof OrgApprovalResponse>, Awaited<ReturnType<typeof setOrgApproval>>>;
true satisfies SameKeys<z.output<typeof DecisionResponse>, Awaited<ReturnType<typeof decideVersion>>>;
true satisfies SameKeys<z.output<typeof HeldVersion>, Awaited<ReturnType<typeof listHeldVersions>>["versions"][number]>;

// ---------------------------------------------------------------- routes
export const listHeldVersionsRoute = createRoute({
  method: "get",
  path: "/v1/approvals",
  operationId: "listHeldVersions",
  summary: "Versions held for approval in the namespaces you review (every namespace for registry admins)",
  tags: ["approval"],
  ...access("caller", ["items:read"]),
  request: { query: ApprovalsQuery },
  responses: { 200: json(ApprovalsResponse, "Held versions"), ...errors(400, 404) },
});

const limit = limitBody(16 * 1024, "Approval request bodies");
const decide = <B extends z.ZodType>(verb: "approve" | "reject", operationId: string, summary: string, body: B) =>
  createRoute({
    method: "post",
    path: `/v1/${verb}/{item_type}/{item_id{.+}}`,
    operationId,
    summary,
    tags: ["approval"],
    ...access("caller+csrf", ["items:write"]),
    middleware: [limit] as const,
    request: { body: jsonRequest(body) },
    responses: {
      200: json(DecisionResponse, "Decided (audited: item.approve / item.reject)"),
      ...errors(
        400,
        [403, "FORBIDDEN: not an owner/admin of the organization (personal namespaces: registry admins only), or a token restricted elsewhere; SELF_APPROVAL: you published it"],
        [404, "ITEM_NOT_FOUND: no such version"],
        [409, "CONFLICT: the version is not pending (published or already rejected)"],
        413,
      ),
    },
  });
export const approveRoute = decide("approve", "approveVersion", "Approve a held version: it becomes visible (and latest when it is the newest)", approveSchema);
export const rejectRoute = decide("reject", "rejectVersion", "Reject a held version with a reason: it stays invisible, its version number stays taken", rejectSchema);

export const getOrgApprovalRoute = createRoute({
  method: "get",
  path: "/v1/orgs/{name}/approval",
  operationId: "getOrgApproval",
  summary: "An organization's approval setting, the registry's and the one that applies (members)",
  tags: ["approval"],
  ...access("caller"),
  responses: { 200: json(OrgApprovalResponse, "The settings"), ...errors([403, "FORBIDDEN: not a member of the organization"], 404) },
});
export const setOrgApprovalRoute = createRoute({
  method: "patch",
  path: "/v1/orgs/{name}/approval",
  operationId: "setOrgApproval",
  summary: "Set an organization's own approval setting (owners; audited): it only makes the registry's stricter",
  tags: ["approval"],
  ...access("caller+csrf", ["org:admin"]),
  middleware: [jsonBody] as const,
  request: { body: jsonRequest(orgApprovalSchema) },
  responses: { 200: json(OrgApprovalResponse, "The settings"), ...errors(400, [403, "FORBIDDEN: not an owner of the organization"], 404, 413) },
});

async function context(c: Context<AppEnv>, deps: AppDeps): Promise<ManageContext> {
  return { db: deps.db, blobs: deps.blobs, principal: await requirePrincipalOrSession(c, deps.db, "items:write"), ip: c.get("clientIp"), requestId: c.get("requestId") };
}

export function approvalRoutes(deps: AppDeps) {
  const params = (c: Context<AppEnv>) => [c.req.param("item_type") ?? "", c.req.param("item_id") ?? ""] as const;
  return contractRouter()
    .openapi(listHeldVersionsRoute, async (c) => {
      const principal = await requirePrincipalOrSession(c, deps.db, "items:read");
      const q = c.req.valid("query");
      const namespace = q.namespace || undefined;
      const result = await listHeldVersions(deps.db, principal, { namespace, status: q.status });
      c.header("Cache-Control", "private, no-store");
      return c.json(declared(ApprovalsResponse, { mode: deps.config.approval.mode, risk: deps.config.approval.risk, status: q.status, ...result }), 200);
    })
    .openapi(approveRoute, async (c) => {
      const ctx = await context(c, deps);
      const body = c.req.valid("json");
      return c.json(await decideVersion(ctx, ...params(c), "approve", { version: body.version, reason: body.reason || undefined }), 200);
    })
    .openapi(rejectRoute, async (c) => {
      const ctx = await context(c, deps);
      const body = c.req.valid("json");
      return c.json(await decideVersion(ctx, ...params(c), "reject", { version: body.version, reason: body.reason }), 200);
    });
}

/**
 * An organization's own approval setting (services/approval.ts): GET for its members, PATCH for its owners (bearer token
 * with org:admin, or the session + CSRF token). It only ever makes the registry's setting stricter.
 */
export function orgApprovalRoutes(deps: AppDeps) {
  return contractRouter()
    .openapi(getOrgApprovalRoute, async (c) => {
      // Reading needs no particular scope (any member, as GET /v1/orgs/{name} shows its members).
      const { actor } = await requireCaller(c, deps.db);
      return c.json(await orgApproval(deps.db, deps.config.approval, actor, c.req.param("name")), 200);
    })
    .openapi(setOrgApprovalRoute, async (c) => {
      const { actor } = await requireCaller(c, deps.db, "org:admin");
      return c.json(await setOrgApproval(deps.db, deps.config.approval, actor, c.req.param("name"), c.req.valid("json").mode), 200);
    });
}
