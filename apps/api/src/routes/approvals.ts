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
import { Hono } from "hono";
import { z } from "zod";
import { RyeError } from "@rye/core";
import type { AppEnv } from "../env.ts";
import { limitBody } from "../middleware/body-limit.ts";
import { requirePrincipalOrSession } from "../middleware/auth.ts";
import { decideVersion, listHeldVersions, orgApproval, setOrgApproval } from "../services/approval.ts";
import { jsonBody, requireCaller } from "./accounts.ts";
import type { AppDeps } from "../services/deps.ts";
import type { ManageContext } from "../services/manage.ts";
import { parseBody } from "./items.ts";

export const approveSchema = z.object({
  version: z.string().min(1).max(256),
  reason: z.string().trim().max(1000).optional(),
});
export const rejectSchema = z.object({
  version: z.string().min(1).max(256),
  reason: z.string().trim().min(1, "a rejection needs a reason").max(1000),
});
const listQuerySchema = z.object({
  namespace: z.string().max(64).optional(),
  status: z.enum(["pending", "rejected"]).default("pending"),
});

const ID = "/:item_type/:item_id{.+}";

async function context(c: Context<AppEnv>, deps: AppDeps): Promise<ManageContext> {
  return { db: deps.db, blobs: deps.blobs, principal: await requirePrincipalOrSession(c, deps.db, "items:write"), ip: c.get("clientIp"), requestId: c.get("requestId") };
}

export function approvalRoutes(deps: AppDeps): Hono<AppEnv> {
  const limit = limitBody(16 * 1024, "Approval request bodies");
  const params = (c: Context<AppEnv>) => [c.req.param("item_type") ?? "", c.req.param("item_id") ?? ""] as const;
  return new Hono<AppEnv>()
    .get("/v1/approvals", async (c) => {
      const principal = await requirePrincipalOrSession(c, deps.db, "items:read");
      const q = listQuerySchema.safeParse({ namespace: c.req.query("namespace") || undefined, status: c.req.query("status") || undefined });
      if (!q.success) throw new RyeError("BAD_REQUEST", "The query parameters are invalid", { details: q.error.issues.map((i) => ({ field: i.path.join("."), message: i.message })) });
      const result = await listHeldVersions(deps.db, principal, { namespace: q.data.namespace, status: q.data.status });
      c.header("Cache-Control", "private, no-store");
      return c.json({ mode: deps.config.approval.mode, risk: deps.config.approval.risk, status: q.data.status, ...result });
    })
    .post(`/v1/approve${ID}`, limit, async (c) => {
      const ctx = await context(c, deps);
      const body = parseBody(approveSchema, await c.req.json());
      return c.json(await decideVersion(ctx, ...params(c), "approve", { version: body.version, reason: body.reason || undefined }));
    })
    .post(`/v1/reject${ID}`, limit, async (c) => {
      const ctx = await context(c, deps);
      const body = parseBody(rejectSchema, await c.req.json());
      return c.json(await decideVersion(ctx, ...params(c), "reject", { version: body.version, reason: body.reason }));
    });
}

export const orgApprovalSchema = z.strictObject({ mode: z.enum(["off", "flagged", "all"]) });

/**
 * An organization's own approval setting (services/approval.ts): GET for its members, PATCH for its owners (bearer token
 * with org:admin, or the session + CSRF token). It only ever makes the registry's setting stricter.
 */
export function orgApprovalRoutes(deps: AppDeps): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .get("/v1/orgs/:name/approval", async (c) => {
      // Reading needs no particular scope (any member, as GET /v1/orgs/{name} shows its members).
      const { actor } = await requireCaller(c, deps.db);
      return c.json(await orgApproval(deps.db, deps.config.approval, actor, c.req.param("name")));
    })
    .patch("/v1/orgs/:name/approval", jsonBody, async (c) => {
      const { actor } = await requireCaller(c, deps.db, "org:admin");
      const body = parseBody(orgApprovalSchema, await c.req.json());
      return c.json(await setOrgApproval(deps.db, deps.config.approval, actor, c.req.param("name"), body.mode));
    });
}
