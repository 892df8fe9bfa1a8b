/** OpenAPI description of namespace webhooks (routes/webhooks.ts). */
import { z } from "zod";
import { isoTimestampSchema } from "@rye/core";
import { WEBHOOK_EVENTS } from "../services/webhooks/events.ts";
import type { createWebhook, listDeliveries, redeliver } from "../services/webhooks/service.ts";
import type { Operation, SameKeys } from "../contract/operation.ts";
import { createWebhookSchema, updateWebhookSchema } from "./webhooks.ts";


const webhookEvent = z.enum(WEBHOOK_EVENTS);
const Webhook = z.object({
  id: z.string(),
  namespace: z.string(),
  url: z.string(),
  events: z.array(webhookEvent),
  include_private: z.boolean(),
  active: z.boolean(),
  created_at: isoTimestampSchema,
});
const CreatedWebhook = Webhook.extend({ secret: z.string().meta({ description: "whsec_…: signs every delivery (X-Rye-Signature). Shown only in this answer." }) });
true satisfies SameKeys<z.output<typeof CreatedWebhook>, Awaited<ReturnType<typeof createWebhook>>>;
const WebhooksResponse = z.object({ namespace: z.string(), webhooks: z.array(Webhook) });
const WebhookDelivery = z.object({
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
});
true satisfies SameKeys<z.output<typeof WebhookDelivery>, Awaited<ReturnType<typeof redeliver>>>;
const DeliveriesResponse = z.object({ webhook_id: z.string(), deliveries: z.array(WebhookDelivery) });
true satisfies SameKeys<z.output<typeof DeliveriesResponse>, Awaited<ReturnType<typeof listDeliveries>>>;
const DeletedWebhook = z.object({ status: z.literal("deleted"), id: z.string() });

export const WEBHOOK_SCHEMAS = {
  Webhook,
  CreatedWebhook,
  WebhooksResponse,
  WebhookDelivery,
  DeliveriesResponse,
  DeletedWebhook,
  CreateWebhookRequest: createWebhookSchema,
  UpdateWebhookRequest: updateWebhookSchema,
};

const hooks = "/v1/namespaces/{namespace}/webhooks";
const NOT_YOURS: [number, string] = [403, "FORBIDDEN: not an owner or admin of the namespace, or a token without the scope"];
const NOT_FOUND: [number, string] = [404, "NOT_FOUND: no such namespace, webhook or delivery"];

export const WEBHOOK_OPERATIONS: Operation[] = [
  { method: "get", path: hooks, operationId: "listWebhooks", summary: "A namespace's webhooks (owners and admins)", tag: "webhooks", auth: "caller", scopes: ["items:read"], ok: { status: 200, description: "The webhooks (never their secrets)", schema: "WebhooksResponse" }, errors: [NOT_YOURS, NOT_FOUND] },
  {
    method: "post",
    path: hooks,
    operationId: "createWebhook",
    summary: "Create a webhook: signed POSTs of the namespace's item events (audited)",
    tag: "webhooks",
    auth: "caller+csrf",
    scopes: ["items:write"],
    body: "CreateWebhookRequest",
    ok: { status: 201, description: "Created; the answer holds the signing secret, once", schema: "CreatedWebhook" },
    errors: [[400, "BAD_REQUEST; INVALID_WEBHOOK_URL: not https, a private address, or credentials in the URL"], NOT_YOURS, NOT_FOUND, [409, "LIMIT_EXCEEDED: the namespace has 20 webhooks"], 413],
  },
  { method: "patch", path: `${hooks}/{id}`, operationId: "updateWebhook", summary: "Change a webhook's URL, events or private-items opt-in, or disable it", tag: "webhooks", auth: "caller+csrf", scopes: ["items:write"], body: "UpdateWebhookRequest", ok: { status: 200, description: "Updated", schema: "Webhook" }, errors: [400, NOT_YOURS, NOT_FOUND, 413] },
  { method: "delete", path: `${hooks}/{id}`, operationId: "deleteWebhook", summary: "Delete a webhook and its delivery log", tag: "webhooks", auth: "caller+csrf", scopes: ["items:write"], ok: { status: 200, description: "Deleted", schema: "DeletedWebhook" }, errors: [NOT_YOURS, NOT_FOUND] },
  {
    method: "get",
    path: `${hooks}/{id}/deliveries`,
    operationId: "listWebhookDeliveries",
    summary: "A webhook's delivery log, newest first",
    tag: "webhooks",
    auth: "caller",
    scopes: ["items:read"],
    query: z.object({ limit: z.number().int().min(1).max(100).optional().meta({ description: "Default 30, at most 100." }) }),
    ok: { status: 200, description: "Deliveries", schema: "DeliveriesResponse" },
    errors: [400, NOT_YOURS, NOT_FOUND],
  },
  { method: "post", path: `${hooks}/{id}/deliveries/{delivery}/redeliver`, operationId: "redeliverWebhook", summary: "Send a delivery's payload again, as a new delivery", tag: "webhooks", auth: "caller+csrf", scopes: ["items:write"], ok: { status: 202, description: "Queued", schema: "WebhookDelivery" }, errors: [NOT_YOURS, NOT_FOUND] },
  { method: "post", path: `${hooks}/{id}/ping`, operationId: "pingWebhook", summary: "Queue a ping event to check the receiver", tag: "webhooks", auth: "caller+csrf", scopes: ["items:write"], ok: { status: 202, description: "Queued", schema: "WebhookDelivery" }, errors: [NOT_YOURS, NOT_FOUND] },
];
