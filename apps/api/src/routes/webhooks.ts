/**
 * A namespace's webhooks (services/webhooks/, docs/webhooks.md), for its owners and admins:
 *   GET    /v1/namespaces/{namespace}/webhooks                                  list (items:read)
 *   POST   /v1/namespaces/{namespace}/webhooks  {url, events?, include_private?} create; the answer holds the secret, once
 *   PATCH  /v1/namespaces/{namespace}/webhooks/{id}  {url?, events?, include_private?, active?}
 *   DELETE /v1/namespaces/{namespace}/webhooks/{id}
 *   GET    /v1/namespaces/{namespace}/webhooks/{id}/deliveries?limit=            the delivery log, newest first (items:read)
 *   POST   /v1/namespaces/{namespace}/webhooks/{id}/deliveries/{delivery}/redeliver
 *   POST   /v1/namespaces/{namespace}/webhooks/{id}/ping
 * A bearer token (items:write for changes), or the website's session cookie + CSRF token.
 */
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { RyeError } from "@rye/core";
import type { AppEnv } from "../env.ts";
import { requirePrincipalOrSession } from "../middleware/auth.ts";
import type { Scope } from "../auth/principal.ts";
import type { AppDeps } from "../services/deps.ts";
import { WEBHOOK_EVENTS, WEBHOOK_LIMITS } from "../services/webhooks/events.ts";
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, pingWebhook, redeliver, updateWebhook, type WebhookContext } from "../services/webhooks/service.ts";
import { jsonBody } from "./accounts.ts";
import { parseBody } from "./items.ts";

const events = z.array(z.enum(WEBHOOK_EVENTS)).min(1, "subscribe to at least one event").max(WEBHOOK_EVENTS.length);
export const createWebhookSchema = z.strictObject({
  url: z.string().min(1).max(WEBHOOK_LIMITS.urlLength),
  events: events.optional().meta({ description: `Events to deliver (default: all of ${WEBHOOK_EVENTS.join(", ")}).` }),
  include_private: z.boolean().optional().meta({ description: "Also deliver the events of the namespace's private items (default false)." }),
});
export const updateWebhookSchema = z.strictObject({
  url: z.string().min(1).max(WEBHOOK_LIMITS.urlLength).optional(),
  events: events.optional(),
  include_private: z.boolean().optional(),
  active: z.boolean().optional(),
});
const deliveriesQuery = z.object({ limit: z.coerce.number().int().min(1).max(WEBHOOK_LIMITS.deliveriesPage).default(30) });

export function webhookRoutes(deps: AppDeps): Hono<AppEnv> {
  const context = async (c: Context<AppEnv>, scope: Scope): Promise<WebhookContext> => ({
    db: deps.db,
    principal: await requirePrincipalOrSession(c, deps.db, scope),
    ip: c.get("clientIp"),
    requestId: c.get("requestId"),
    allowPrivateNetworks: deps.config.webhooks.allowPrivateNetworks,
    secrets: deps.secrets,
  });
  const noStore = (c: Context<AppEnv>) => c.header("Cache-Control", "private, no-store");
  const base = "/v1/namespaces/:namespace/webhooks";
  return new Hono<AppEnv>()
    .get(base, async (c) => {
      noStore(c);
      return c.json(await listWebhooks(await context(c, "items:read"), c.req.param("namespace")));
    })
    .post(base, jsonBody, async (c) => {
      const ctx = await context(c, "items:write");
      const body = parseBody(createWebhookSchema, await c.req.json());
      noStore(c);
      return c.json(await createWebhook(ctx, c.req.param("namespace"), body), 201);
    })
    .patch(`${base}/:id`, jsonBody, async (c) => {
      const ctx = await context(c, "items:write");
      const body = parseBody(updateWebhookSchema, await c.req.json());
      return c.json(await updateWebhook(ctx, c.req.param("namespace"), c.req.param("id"), body));
    })
    .delete(`${base}/:id`, async (c) => c.json(await deleteWebhook(await context(c, "items:write"), c.req.param("namespace"), c.req.param("id"))))
    .get(`${base}/:id/deliveries`, async (c) => {
      const ctx = await context(c, "items:read");
      const q = deliveriesQuery.safeParse(c.req.query());
      if (!q.success) throw new RyeError("BAD_REQUEST", "Invalid query parameters", { hint: `limit is 1–${WEBHOOK_LIMITS.deliveriesPage}.` });
      noStore(c);
      return c.json(await listDeliveries(ctx, c.req.param("namespace"), c.req.param("id"), q.data.limit));
    })
    .post(`${base}/:id/deliveries/:delivery/redeliver`, async (c) =>
      c.json(await redeliver(await context(c, "items:write"), c.req.param("namespace"), c.req.param("id"), c.req.param("delivery")), 202),
    )
    .post(`${base}/:id/ping`, async (c) => c.json(await pingWebhook(await context(c, "items:write"), c.req.param("namespace"), c.req.param("id")), 202));
}
