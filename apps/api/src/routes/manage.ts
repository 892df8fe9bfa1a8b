/**
 * Item management (token scope items:write, or the website session with its CSRF token; owner/admin of the namespace, or a registry admin):
 * visibility, publish/unpublish, yank/unyank, deprecate, delete, transfer. The visibility and delete
 * routes keep the original v1 API's shapes; the deletion policy is documented in services/manage.ts.
 */
import type { Context } from "hono";
import { Hono } from "hono";
import { limitBody } from "../middleware/body-limit.ts";
import { z } from "zod";
import { RyeError } from "@rye/core";
import type { AppEnv } from "../env.ts";
import { requirePrincipalOrSession } from "../middleware/auth.ts";
import type { AppDeps } from "../services/deps.ts";
import type { ManageContext } from "../services/manage.ts";
import { deleteItem, setDeprecation, setVisibility, setYanked, transferItem } from "../services/manage.ts";
import { parseBody } from "./items.ts";

const MAX_BODY_BYTES = 16 * 1024;

const visibilitySchema = z.object({ visibility: z.enum(["public", "unlisted", "private"]) });
const versionSchema = z.object({ version: z.string().min(1).max(256) });
const yankSchema = versionSchema.extend({ reason: z.string().trim().max(1000).optional() });
const deprecateSchema = z.union([
  z.object({ deprecated: z.literal(true).optional(), message: z.string().trim().min(1).max(1000) }).strict(),
  z.object({ deprecated: z.literal(false) }).strict(),
]);
const transferSchema = z.object({ to_namespace: z.string().min(1).max(64) });
const forceSchema = z.enum(["true", "false", "1", "0"]).optional();

const ID = "/:item_type/:item_id{.+}";

/** A bearer token with items:write, or the website's session cookie + CSRF token (the manage page). */
async function context(c: Context<AppEnv>, deps: AppDeps): Promise<ManageContext> {
  return { db: deps.db, blobs: deps.blobs, principal: await requirePrincipalOrSession(c, deps.db, "items:write"), ip: c.get("clientIp"), requestId: c.get("requestId") };
}

export function manageRoutes(deps: AppDeps): Hono<AppEnv> {
  const limit = limitBody(MAX_BODY_BYTES, "Management request bodies");
  const params = (c: Context<AppEnv>) => [c.req.param("item_type") ?? "", c.req.param("item_id") ?? ""] as const;
  return new Hono<AppEnv>()
    .post(`/v1/visibility${ID}`, limit, async (c) => {
      const ctx = await context(c, deps);
      const body = parseBody(visibilitySchema, await c.req.json());
      return c.json(await setVisibility(ctx, ...params(c), body.visibility));
    })
    .post(`/v1/publish${ID}`, async (c) => c.json(await setVisibility(await context(c, deps), ...params(c), "public")))
    .post(`/v1/unpublish${ID}`, async (c) => c.json(await setVisibility(await context(c, deps), ...params(c), "private")))
    .post(`/v1/yank${ID}`, limit, async (c) => {
      const ctx = await context(c, deps);
      const body = parseBody(yankSchema, await c.req.json());
      return c.json(await setYanked(ctx, ...params(c), body.version, true, body.reason || undefined));
    })
    .post(`/v1/unyank${ID}`, limit, async (c) => {
      const ctx = await context(c, deps);
      const body = parseBody(versionSchema, await c.req.json());
      return c.json(await setYanked(ctx, ...params(c), body.version, false));
    })
    .post(`/v1/deprecate${ID}`, limit, async (c) => {
      const ctx = await context(c, deps);
      const body = parseBody(deprecateSchema, await c.req.json());
      return c.json(await setDeprecation(ctx, ...params(c), "message" in body ? body.message : null));
    })
    .delete(`/v1/delete${ID}`, async (c) => {
      const ctx = await context(c, deps);
      const force = forceSchema.safeParse(c.req.query("force"));
      if (!force.success) throw new RyeError("BAD_REQUEST", "force must be true or false");
      const version = c.req.query("version") || undefined;
      // The policy refuses items that were ever downloaded: this process's counts still in memory go first. (Another
      // process's unflushed counts, at most RYE_DOWNLOAD_FLUSH_MS old, are not seen.)
      await deps.reads.downloads.flush();
      return c.json(await deleteItem(ctx, ...params(c), { version, force: force.data === "true" || force.data === "1" }));
    })
    .post(`/v1/transfer${ID}`, limit, async (c) => {
      const ctx = await context(c, deps);
      const body = parseBody(transferSchema, await c.req.json());
      return c.json(await transferItem(ctx, ...params(c), body.to_namespace));
    });
}
