/**
 * Item management (token scope items:write, or the website session with its CSRF token; owner/admin of the namespace, or a registry admin):
 * visibility, publish/unpublish, yank/unyank, deprecate, delete, transfer. The visibility and delete
 * routes keep the original v1 API's shapes; the deletion policy is documented in services/manage.ts.
 */
import type { Context } from "hono";
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { itemTypeSchema, itemVisibilitySchema } from "@rye/core";
import { access, errors, json, jsonRequest } from "../contract/route.ts";
import type { SameKeys } from "../contract/operation.ts";
import { contractRouter } from "../contract/router.ts";
import type { AppEnv } from "../env.ts";
import { requirePrincipalOrSession } from "../middleware/auth.ts";
import { limitBody } from "../middleware/body-limit.ts";
import type { AppDeps } from "../services/deps.ts";
import type { ManageContext } from "../services/manage.ts";
import { deleteItem, setDeprecation, setVisibility, setYanked, transferItem } from "../services/manage.ts";

const MAX_BODY_BYTES = 16 * 1024;

// ---------------------------------------------------------------- requests
const VisibilityRequest = z.object({ visibility: itemVisibilitySchema }).meta({ id: "VisibilityRequest" });
const UnyankRequest = z.object({ version: z.string().min(1).max(256) }).meta({ id: "UnyankRequest" });
const YankRequest = z.object({ version: z.string().min(1).max(256), reason: z.string().trim().max(1000).optional() }).meta({ id: "YankRequest" });
const DeprecateRequest = z
  .union([z.object({ deprecated: z.literal(true).optional(), message: z.string().trim().min(1).max(1000) }).strict(), z.object({ deprecated: z.literal(false) }).strict()])
  .meta({ id: "DeprecateRequest" });
const TransferRequest = z.object({ to_namespace: z.string().min(1).max(64) }).meta({ id: "TransferRequest" });
const DeleteQuery = z.object({
  version: z.string().optional().meta({ description: "Delete one version; omitted: every version and the item." }),
  force: z.enum(["true", "false", "1", "0"]).optional().meta({ description: "Registry admins: bypass the deletion policy." }),
});

// ---------------------------------------------------------------- answers
const ItemTarget = { item_type: itemTypeSchema, item_id: z.string() };
const VisibilityResponse = z.object({ status: z.literal("updated"), ...ItemTarget, visibility: itemVisibilitySchema, previous_visibility: itemVisibilitySchema }).meta({ id: "VisibilityResponse" });
const YankResponse = z
  .object({ status: z.enum(["yanked", "unyanked"]), ...ItemTarget, version: z.string(), reason: z.string().nullable().optional(), latest_version: z.string().nullable(), log_index: z.number().int() })
  .meta({ id: "YankResponse" });
const DeprecateResponse = z.object({ status: z.enum(["deprecated", "undeprecated"]), ...ItemTarget, deprecated: z.boolean(), deprecation_message: z.string().nullable() }).meta({ id: "DeprecateResponse" });
const DeleteResponse = z
  .object({ status: z.literal("deleted"), ...ItemTarget, version: z.string().meta({ description: '"all" when every version was deleted.' }), deleted_versions: z.array(z.string()) })
  .meta({ id: "DeleteResponse" });
const TransferResponse = z.object({ status: z.literal("transferred"), ...ItemTarget, previous_item_id: z.string(), namespace: z.string(), previous_namespace: z.string() }).meta({ id: "TransferResponse" });

true satisfies SameKeys<z.output<typeof VisibilityResponse>, Awaited<ReturnType<typeof setVisibility>>>;
true satisfies SameKeys<z.output<typeof YankResponse>, Awaited<ReturnType<typeof setYanked>>>;
true satisfies SameKeys<z.output<typeof DeprecateResponse>, Awaited<ReturnType<typeof setDeprecation>>>;
true satisfies SameKeys<z.output<typeof DeleteResponse>, Awaited<ReturnType<typeof deleteItem>>>;
true satisfies SameKeys<z.output<typeof TransferResponse>, Awaited<ReturnType<typeof transferItem>>>;

// ---------------------------------------------------------------- routes
const limit = limitBody(MAX_BODY_BYTES, "Management request bodies");
const manage = <B extends z.ZodType | undefined, Q extends z.ZodObject | undefined>(verb: string, operationId: string, summary: string, response: z.ZodType, o: { body?: B; query?: Q; method?: "post" | "delete" } = {}) =>
  createRoute({
    method: o.method ?? "post",
    path: `/v1/${verb}/{item_type}/{item_id{.+}}`,
    operationId,
    summary,
    tags: ["manage"],
    ...access("caller+csrf", ["items:write"]),
    ...(o.body ? { middleware: [limit] as const } : {}),
    request: { ...(o.body ? { body: jsonRequest(o.body) } : {}), ...(o.query ? { query: o.query } : {}) } as { body: B extends z.ZodType ? ReturnType<typeof jsonRequest<B>> : undefined; query: Q },
    responses: { 200: json(response, "Done"), ...errors(400, 401, 403, 404, 409, 413) },
  });

export const visibilityRoute = manage("visibility", "setVisibility", "Change an item's visibility", VisibilityResponse, { body: VisibilityRequest });
export const publishRoute = manage("publish", "publishItem", "Make an item public", VisibilityResponse);
export const unpublishRoute = manage("unpublish", "unpublishItem", "Make an item private", VisibilityResponse);
export const yankRoute = manage("yank", "yankVersion", "Yank a version: still pullable by explicit version, never chosen as latest", YankResponse, { body: YankRequest });
export const unyankRoute = manage("unyank", "unyankVersion", "Undo a yank", YankResponse, { body: UnyankRequest });
export const deprecateRoute = manage("deprecate", "deprecateItem", "Deprecate an item with a message, or undo it with {deprecated:false}", DeprecateResponse, { body: DeprecateRequest });
export const deleteRoute = manage("delete", "deleteItem", "Delete a version, or the whole item (subject to the deletion policy)", DeleteResponse, { query: DeleteQuery, method: "delete" });
export const transferRoute = manage("transfer", "transferItem", "Move an item to another namespace", TransferResponse, { body: TransferRequest });

/** A bearer token with items:write, or the website's session cookie + CSRF token (the manage page). */
async function context(c: Context<AppEnv>, deps: AppDeps): Promise<ManageContext> {
  return { db: deps.db, blobs: deps.blobs, principal: await requirePrincipalOrSession(c, deps.db, "items:write"), ip: c.get("clientIp"), requestId: c.get("requestId") };
}

export function manageRoutes(deps: AppDeps) {
  const params = (c: Context<AppEnv>) => [c.req.param("item_type") ?? "", c.req.param("item_id") ?? ""] as const;
  return contractRouter()
    .openapi(visibilityRoute, async (c) => {
      const ctx = await context(c, deps);
      return c.json(await setVisibility(ctx, ...params(c), c.req.valid("json").visibility), 200);
    })
    .openapi(publishRoute, async (c) => c.json(await setVisibility(await context(c, deps), ...params(c), "public"), 200))
    .openapi(unpublishRoute, async (c) => c.json(await setVisibility(await context(c, deps), ...params(c), "private"), 200))
    .openapi(yankRoute, async (c) => {
      const ctx = await context(c, deps);
      const body = c.req.valid("json");
      return c.json(await setYanked(ctx, ...params(c), body.version, true, body.reason || undefined), 200);
    })
    .openapi(unyankRoute, async (c) => {
      const ctx = await context(c, deps);
      return c.json(await setYanked(ctx, ...params(c), c.req.valid("json").version, false), 200);
    })
    .openapi(deprecateRoute, async (c) => {
      const ctx = await context(c, deps);
      const body = c.req.valid("json");
      return c.json(await setDeprecation(ctx, ...params(c), "message" in body ? body.message : null), 200);
    })
    .openapi(deleteRoute, async (c) => {
      const ctx = await context(c, deps);
      const { version, force } = c.req.valid("query");
      // The policy refuses items that were ever downloaded: this process's counts still in memory go first. (Another
      // process's unflushed counts, at most RYE_DOWNLOAD_FLUSH_MS old, are not seen.)
      await deps.reads.downloads.flush();
      return c.json(await deleteItem(ctx, ...params(c), { version: version || undefined, force: force === "true" || force === "1" }), 200);
    })
    .openapi(transferRoute, async (c) => {
      const ctx = await context(c, deps);
      return c.json(await transferItem(ctx, ...params(c), c.req.valid("json").to_namespace), 200);
    });
}
