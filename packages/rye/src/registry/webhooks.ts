/** A namespace's webhooks and the registry's changes feed, through the registry API (docs/webhooks.md). */
import { RyeError } from "@rye/core";
import { registryFetch } from "./http.ts";
import { answer, type PublishContext, registryFor, requireToken } from "./publish.ts";

export interface Webhook {
  id: string;
  namespace: string;
  url: string;
  events: string[];
  include_private: boolean;
  active: boolean;
  created_at: string;
  /** Only in the answer to its creation. */
  secret?: string;
}

export interface WebhookDelivery {
  id: string;
  event: string;
  log_index: number | null;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  delivered_at: string | null;
  redelivery_of: string | null;
  created_at: string;
}

const NAMESPACE_RE = /^[a-z0-9][a-z0-9-]{0,63}$/i;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkNamespace(namespace: string): string {
  if (!NAMESPACE_RE.test(namespace)) throw new RyeError("BAD_REQUEST", `Not a namespace: ${JSON.stringify(namespace)}`, { hint: "A namespace is your username or an organization's name." });
  return namespace.toLowerCase();
}
function checkId(id: string, what: string): string {
  if (!UUID_RE.test(id)) throw new RyeError("BAD_REQUEST", `Not a ${what} id: ${JSON.stringify(id)}`, { hint: `rye webhook ${what === "webhook" ? "list <namespace>" : "deliveries <namespace> <webhook>"} shows the ids.` });
  return id;
}

async function call<T>(namespace: string, path: string, request: { method?: string; json?: unknown; registryUrl?: string | undefined }, ctx: PublishContext): Promise<T & { registry: string }> {
  const ns = checkNamespace(namespace);
  const registryUrl = await registryFor(ns, request.registryUrl, ctx);
  const token = await requireToken(registryUrl, ctx.env);
  const res = await registryFetch(registryUrl, `/v1/namespaces/${encodeURIComponent(ns)}/webhooks${path}`, {
    token,
    env: ctx.env,
    ...(request.method ? { method: request.method } : {}),
    ...(request.json !== undefined ? { json: request.json } : {}),
  });
  return { registry: registryUrl, ...answer<T>(res, registryUrl) };
}

export function addWebhook(options: { namespace: string; url: string; events?: string[] | undefined; includePrivate?: boolean | undefined; registryUrl?: string | undefined }, ctx: PublishContext) {
  const json = { url: options.url, ...(options.events?.length ? { events: options.events } : {}), ...(options.includePrivate ? { include_private: true } : {}) };
  return call<Webhook>(options.namespace, "", { method: "POST", json, registryUrl: options.registryUrl }, ctx);
}

export function listWebhooks(options: { namespace: string; registryUrl?: string | undefined }, ctx: PublishContext) {
  return call<{ namespace: string; webhooks: Webhook[] }>(options.namespace, "", { registryUrl: options.registryUrl }, ctx);
}

export function updateWebhook(
  options: { namespace: string; id: string; url?: string | undefined; events?: string[] | undefined; includePrivate?: boolean | undefined; active?: boolean | undefined; registryUrl?: string | undefined },
  ctx: PublishContext,
) {
  const json = {
    ...(options.url !== undefined ? { url: options.url } : {}),
    ...(options.events?.length ? { events: options.events } : {}),
    ...(options.includePrivate !== undefined ? { include_private: options.includePrivate } : {}),
    ...(options.active !== undefined ? { active: options.active } : {}),
  };
  if (Object.keys(json).length === 0) throw new RyeError("BAD_REQUEST", "Nothing to change", { hint: "Pass --url, --event, --include-private/--no-include-private, --enable or --disable." });
  return call<Webhook>(options.namespace, `/${checkId(options.id, "webhook")}`, { method: "PATCH", json, registryUrl: options.registryUrl }, ctx);
}

export function removeWebhook(options: { namespace: string; id: string; registryUrl?: string | undefined }, ctx: PublishContext) {
  return call<{ status: "deleted"; id: string }>(options.namespace, `/${checkId(options.id, "webhook")}`, { method: "DELETE", registryUrl: options.registryUrl }, ctx);
}

export function listDeliveries(options: { namespace: string; id: string; limit?: number | undefined; registryUrl?: string | undefined }, ctx: PublishContext) {
  const query = options.limit ? `?limit=${options.limit}` : "";
  return call<{ webhook_id: string; deliveries: WebhookDelivery[] }>(options.namespace, `/${checkId(options.id, "webhook")}/deliveries${query}`, { registryUrl: options.registryUrl }, ctx);
}

export function redeliver(options: { namespace: string; id: string; delivery: string; registryUrl?: string | undefined }, ctx: PublishContext) {
  return call<WebhookDelivery>(options.namespace, `/${checkId(options.id, "webhook")}/deliveries/${checkId(options.delivery, "delivery")}/redeliver`, { method: "POST", registryUrl: options.registryUrl }, ctx);
}

export function pingWebhook(options: { namespace: string; id: string; registryUrl?: string | undefined }, ctx: PublishContext) {
  return call<WebhookDelivery>(options.namespace, `/${checkId(options.id, "webhook")}/ping`, { method: "POST", registryUrl: options.registryUrl }, ctx);
}

export interface ChangesPage {
  changes: { seq: number; event: string; at: string; entry_hash: string; subject: Record<string, unknown> }[];
  next_since: number;
  tree_size: number;
  caught_up: boolean;
  checkpoint: unknown;
}

/** One page of GET /v1/changes (public: no sign-in needed). */
export async function readChanges(options: { since?: number | undefined; limit?: number | undefined; registryUrl?: string | undefined }, ctx: PublishContext) {
  const registryUrl = await registryFor(undefined, options.registryUrl, ctx);
  const query = new URLSearchParams();
  if (options.since !== undefined) query.set("since", String(options.since));
  if (options.limit !== undefined) query.set("limit", String(options.limit));
  const res = await registryFetch(registryUrl, `/v1/changes${query.size ? `?${query}` : ""}`, { env: ctx.env });
  return { registry: registryUrl, ...answer<ChangesPage>(res, registryUrl) };
}
