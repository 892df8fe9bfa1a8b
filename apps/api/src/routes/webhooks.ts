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
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { isoTimestampSchema } from "@rye/core";
import type { SameKeys } from "../contract/operation.ts";
import { access, declared, errors, json, jsonRequest } from "../contract/route.ts";
import { contractRouter, refuseWith } from "../contract/router.ts";
import type { AppEnv } from "../env.ts";
import { requirePrincipalOrSession } from "../middleware/auth.ts";
import type { Scope } from "../auth/principal.ts";
import type { AppDeps } from "../services/deps.ts";
import { WEBHOOK_EVENTS, WEBHOOK_LIMITS } from "../services/webhooks/events.ts";
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, pingWebhook, redeliver, updateWebhook, type WebhookContext } from "../services/webhooks/service.ts";
import { jsonBody } from "./accounts.ts";

// ---------------------------------------------------------------- requests
const events = z.array(z.enum(WEBHOOK_EVENTS)).min(1, "subscribe to at least one event").max(WEBHOOK_EVENTS.length);
export const createWebhookSchema = z
  .strictObject({
    url: z.string().min(1).max(WEBHOOK_LIMITS.urlLength),
    events: events.optional().meta({ description: `Events to deliver (default: all of ${WEBHOOK_EVENTS.join(", ")}).` }),
    include_private: z.boolean().optional().meta({ description: "Also deliver the events of the namespace's private items (default false)." }),
  })
  .meta({ id: "CreateWebhookRequest" });
export const updateWebhookSchema = z
  .strictObject({
    url: z.string().min(1).max(WEBHOOK_LIMITS.urlLength).optional(),
    events: events.optional(),
    include_private: z.boolean().optional(),
    active: z.boolean().optional(),
  })
  .meta({ id: "UpdateWebhookRequest" });
const DeliveriesQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(WEBHOOK_LIMITS.deliveriesPage)
    .default(30)
    .meta({ description: `Default 30, at most ${WEBHOOK_LIMITS.deliveriesPage}.` }),
});

// ---------------------------------------------------------------- answers
const webhookEvent = z.enum(WEBHOOK_EVENTS);
const Webhook = z
  .object({ id: z.string(), namespace: z.string(), url: z.string(), events: z.array(webhookEvent), include_private: z.boolean(), active: z.boolean(), created_at: isoTimestampSchema })
  .meta({ id: "Webhook" });
const CreatedWebhook = Webhook.extend({ secret: z.string().meta({ description: "whsec_…: signs every delivery (X-Rye-Signature). Shown only in this answer." }) }).meta({ id: "CreatedWebhook" });
const WebhooksResponse = z.object({ namespace: z.string(), webhooks: z.array(Webhook) }).meta({ id: "WebhooksResponse" });
const WebhookDelivery = z
  .object({
    id: z.string(),
    event: z.string(),
    log_index: z.number().int().nullable(),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    next_attempt_at: isoTimestampSchema.nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    last_duration_ms: z.number().int().nullable(),
    delivered_at: isoTimestampSchema.nullable(),
    redelivery_of: z.string().nullable(),
    created_at: isoTimestampSchema,
    payload: z.unknown().meta({ description: "The event's data, as delivered in `data`." }),
  })
  .meta({ id: "WebhookDelivery" });
const DeliveriesResponse = z.object({ webhook_id: z.string(), deliveries: z.array(WebhookDelivery) }).meta({ id: "DeliveriesResponse" });
const DeletedWebhook = z.object({ status: z.literal("deleted"), id: z.string() }).meta({ id: "DeletedWebhook" });
true satisfies SameKeys<z.output<typeof CreatedWebhook>, Awaited<ReturnType<typeof createWebhook>>>;
true satisfies SameKeys<z.output<typeof WebhookDelivery>, Awaited<ReturnType<typeof redeliver>>>;
true satisfies SameKeys<z.output<typeof DeliveriesResponse>, Awaited<ReturnType<typeof listDeliveries>>>;

// ---------------------------------------------------------------- routes
const hooks = "/v1/namespaces/{namespace}/webhooks";
const NOT_YOURS: [number, string] = [403, "FORBIDDEN: not an owner or admin of the namespace, or a token without the scope"];
const NOT_FOUND: [number, string] = [404, "NOT_FOUND: no such namespace, webhook or delivery"];

export const listWebhooksRoute = createRoute({
  method: "get",
  path: hooks,
  operationId: "listWebhooks",
  summary: "A namespace's webhooks (owners and admins)",
  tags: ["webhooks"],
  ...access("caller", ["items:read"]),
  responses: { 200: json(WebhooksResponse, "The webhooks (never their secrets)"), ...errors(NOT_YOURS, NOT_FOUND) },
});
export const createWebhookRoute = createRoute({
  method: "post",
  path: hooks,
  operationId: "createWebhook",
  summary: "Create a webhook: signed POSTs of the namespace's item events (audited)",
  tags: ["webhooks"],
  ...access("caller+csrf", ["items:write"]),
  middleware: [jsonBody] as const,
  request: { body: jsonRequest(createWebhookSchema) },
  responses: {
    201: json(CreatedWebhook, "Created; the answer holds the signing secret, once"),
    ...errors([400, "BAD_REQUEST; INVALID_WEBHOOK_URL: not https, a private address, or credentials in the URL"], NOT_YOURS, NOT_FOUND, [409, "LIMIT_EXCEEDED: the namespace has 20 webhooks"], 413),
  },
});
export const updateWebhookRoute = createRoute({
  method: "patch",
  path: `${hooks}/{id}`,
  operationId: "updateWebhook",
  summary: "Change a webhook's URL, events or private-items opt-in, or disable it",
  tags: ["webhooks"],
  ...access("caller+csrf", ["items:write"]),
  middleware: [jsonBody] as const,
  request: { body: jsonRequest(updateWebhookSchema) },
  responses: { 200: json(Webhook, "Updated"), ...errors(400, NOT_YOURS, NOT_FOUND, 413) },
});
export const deleteWebhookRoute = createRoute({
  method: "delete",
  path: `${hooks}/{id}`,
  operationId: "deleteWebhook",
  summary: "Delete a webhook and its delivery log",
  tags: ["webhooks"],
  ...access("caller+csrf", ["items:write"]),
  responses: { 200: json(DeletedWebhook, "Deleted"), ...errors(NOT_YOURS, NOT_FOUND) },
});
export const listDeliveriesRoute = createRoute({
  method: "get",
  path: `${hooks}/{id}/deliveries`,
  operationId: "listWebhookDeliveries",
  summary: "A webhook's delivery log, newest first",
  tags: ["webhooks"],
  ...access("caller", ["items:read"]),
  request: { query: DeliveriesQuery },
  responses: { 200: json(DeliveriesResponse, "Deliveries"), ...errors(400, NOT_YOURS, NOT_FOUND) },
});
export const redeliverRoute = createRoute({
  method: "post",
  path: `${hooks}/{id}/deliveries/{delivery}/redeliver`,
  operationId: "redeliverWebhook",
  summary: "Send a delivery's payload again, as a new delivery",
  tags: ["webhooks"],
  ...access("caller+csrf", ["items:write"]),
  responses: { 202: json(WebhookDelivery, "Queued"), ...errors(NOT_YOURS, NOT_FOUND) },
});
export const pingRoute = createRoute({
  method: "post",
  path: `${hooks}/{id}/ping`,
  operationId: "pingWebhook",
  summary: "Queue a ping event to check the receiver",
  tags: ["webhooks"],
  ...access("caller+csrf", ["items:write"]),
  responses: { 202: json(WebhookDelivery, "Queued"), ...errors(NOT_YOURS, NOT_FOUND) },
});

export function webhookRoutes(deps: AppDeps) {
  const context = async (c: Context<AppEnv>, scope: Scope): Promise<WebhookContext> => ({
    db: deps.db,
    principal: await requirePrincipalOrSession(c, deps.db, scope),
    ip: c.get("clientIp"),
    requestId: c.get("requestId"),
    allowPrivateNetworks: deps.config.webhooks.allowPrivateNetworks,
    secrets: deps.secrets,
  });
  const noStore = (c: Context<AppEnv>) => c.header("Cache-Control", "private, no-store");
  return contractRouter()
    .openapi(listWebhooksRoute, async (c) => {
      noStore(c);
      return c.json(declared(WebhooksResponse, await listWebhooks(await context(c, "items:read"), c.req.param("namespace"))), 200);
    })
    .openapi(createWebhookRoute, async (c) => {
      const ctx = await context(c, "items:write");
      const body = c.req.valid("json");
      noStore(c);
      return c.json(declared(CreatedWebhook, await createWebhook(ctx, c.req.param("namespace"), body)), 201);
    })
    .openapi(updateWebhookRoute, async (c) => {
      const ctx = await context(c, "items:write");
      return c.json(declared(Webhook, await updateWebhook(ctx, c.req.param("namespace"), c.req.param("id"), c.req.valid("json"))), 200);
    })
    .openapi(deleteWebhookRoute, async (c) => c.json(await deleteWebhook(await context(c, "items:write"), c.req.param("namespace"), c.req.param("id")), 200))
    .openapi(
      listDeliveriesRoute,
      async (c) => {
        const ctx = await context(c, "items:read");
        noStore(c);
        return c.json(declared(DeliveriesResponse, await listDeliveries(ctx, c.req.param("namespace"), c.req.param("id"), c.req.valid("query").limit)), 200);
      },
      refuseWith(`limit is 1–${WEBHOOK_LIMITS.deliveriesPage}.`),
    )
    .openapi(redeliverRoute, async (c) => c.json(declared(WebhookDelivery, await redeliver(await context(c, "items:write"), c.req.param("namespace"), c.req.param("id"), c.req.param("delivery"))), 202))
    .openapi(pingRoute, async (c) => c.json(declared(WebhookDelivery, await pingWebhook(await context(c, "items:write"), c.req.param("namespace"), c.req.param("id"))), 202));
}
