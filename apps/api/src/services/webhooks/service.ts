/**
 * A namespace's webhooks: created, listed, changed and deleted by its owners and admins (and registry admins);
 * their delivery log, a redelivery, a ping. The secret is returned once, when the webhook is created.
 */
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { RyeError } from "@rye/core";
import type { Database, Prisma } from "@rye/db";
import type { Principal } from "../../auth/principal.ts";
import type { SecretBox } from "../../keys/secret-box.ts";
import { requireManageAccess } from "../access.ts";
import { recordAudit } from "../audit.ts";
import { WEBHOOK_EVENTS, WEBHOOK_LIMITS, type WebhookEvent } from "./events.ts";
import { isNonPublicAddress } from "./network.ts";

export interface WebhookContext {
  db: Database;
  principal: Principal;
  ip: string | null;
  requestId: string;
  allowPrivateNetworks: boolean;
  /** Seals the signing secret before it is stored. */
  secrets: SecretBox;
}

export interface WebhookInput {
  url: string;
  events?: WebhookEvent[] | undefined;
  include_private?: boolean | undefined;
}

interface WebhookRow {
  id: string;
  url: string;
  events: string[];
  includePrivate: boolean;
  active: boolean;
  createdAt: Date;
}

function present(row: WebhookRow, namespace: string) {
  return { id: row.id, namespace, url: row.url, events: row.events, include_private: row.includePrivate, active: row.active, created_at: row.createdAt.toISOString() };
}

/** https (http only where private networks are allowed), no credentials in the URL, not an address of a private network. */
export function assertWebhookUrl(raw: string, allowPrivateNetworks: boolean): string {
  const bad = (message: string, hint: string) => new RyeError("INVALID_WEBHOOK_URL", message, { hint, details: { url: raw.slice(0, 200) } });
  if (raw.length > WEBHOOK_LIMITS.urlLength) throw bad(`The URL is longer than ${WEBHOOK_LIMITS.urlLength} characters`, "Use a shorter URL.");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad("The webhook URL is not a valid URL", "Give an absolute https:// URL.");
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowPrivateNetworks)) throw bad("Webhook URLs must use https", "Give an https:// URL.");
  if (url.username || url.password) throw bad("The webhook URL contains credentials", "Authenticate deliveries with the webhook secret's signature instead.");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!allowPrivateNetworks && (host === "localhost" || host.endsWith(".localhost") || (isIP(host) !== 0 && isNonPublicAddress(host)))) {
    throw bad(`${host} is not a public address`, "Webhooks are delivered over the internet; use a public host name.");
  }
  return url.toString();
}

async function managedNamespace(ctx: WebhookContext, namespace: string) {
  return (await requireManageAccess(ctx.db, ctx.principal, namespace.toLowerCase())).namespace;
}

async function findWebhook(ctx: WebhookContext, namespace: string, webhookId: string) {
  const ns = await managedNamespace(ctx, namespace);
  const notFound = new RyeError("NOT_FOUND", `No webhook ${webhookId} in ${ns.name}`, { hint: `GET /v1/namespaces/${ns.name}/webhooks lists them.` });
  if (!/^[0-9a-f-]{36}$/i.test(webhookId)) throw notFound;
  const hook = await ctx.db.prisma.webhook.findFirst({ where: { id: webhookId, namespaceId: ns.id } });
  if (!hook) throw notFound;
  return { ns, hook };
}

function audit(tx: Prisma.TransactionClient | Database["prisma"], ctx: WebhookContext, action: string, targetId: string, details: Record<string, unknown>) {
  return recordAudit(tx, { actorId: ctx.principal.userId, action, targetType: "webhook", targetId, details, ip: ctx.ip, requestId: ctx.requestId });
}

export async function createWebhook(ctx: WebhookContext, namespace: string, input: WebhookInput) {
  const ns = await managedNamespace(ctx, namespace);
  const url = assertWebhookUrl(input.url, ctx.allowPrivateNetworks);
  const secret = `whsec_${randomBytes(32).toString("base64url")}`;
  const events = [...new Set(input.events ?? WEBHOOK_EVENTS)];
  const row = await ctx.db.prisma.$transaction(async (tx) => {
    // Serialized per namespace, so two concurrent creations cannot both pass the limit.
    await tx.$queryRaw`SELECT id FROM namespaces WHERE id = ${ns.id}::uuid FOR UPDATE`;
    const count = await tx.webhook.count({ where: { namespaceId: ns.id } });
    if (count >= WEBHOOK_LIMITS.perNamespace) {
      throw new RyeError("LIMIT_EXCEEDED", `${ns.name} has ${count} webhooks, the most a namespace may have`, { hint: "Delete one first, or subscribe one webhook to more events." });
    }
    const created = await tx.webhook.create({ data: { namespaceId: ns.id, url, secret: ctx.secrets.seal(secret), events, includePrivate: input.include_private ?? false, createdById: ctx.principal.userId } });
    await audit(tx, ctx, "webhook.create", created.id, { namespace: ns.name, url, events, include_private: created.includePrivate });
    return created;
  });
  return { ...present(row, ns.name), secret };
}

export async function listWebhooks(ctx: WebhookContext, namespace: string) {
  const ns = await managedNamespace(ctx, namespace);
  const rows = await ctx.db.prisma.webhook.findMany({ where: { namespaceId: ns.id }, orderBy: { createdAt: "asc" } });
  return { namespace: ns.name, webhooks: rows.map((r) => present(r, ns.name)) };
}

export async function updateWebhook(ctx: WebhookContext, namespace: string, webhookId: string, patch: { url?: string | undefined; events?: WebhookEvent[] | undefined; include_private?: boolean | undefined; active?: boolean | undefined }) {
  const { ns, hook } = await findWebhook(ctx, namespace, webhookId);
  const data = {
    ...(patch.url !== undefined ? { url: assertWebhookUrl(patch.url, ctx.allowPrivateNetworks) } : {}),
    ...(patch.events !== undefined ? { events: [...new Set(patch.events)] } : {}),
    ...(patch.include_private !== undefined ? { includePrivate: patch.include_private } : {}),
    ...(patch.active !== undefined ? { active: patch.active } : {}),
  };
  const row = await ctx.db.prisma.$transaction(async (tx) => {
    const updated = await tx.webhook.update({ where: { id: hook.id }, data });
    await audit(tx, ctx, "webhook.update", hook.id, { namespace: ns.name, ...patch });
    return updated;
  });
  return present(row, ns.name);
}

export async function deleteWebhook(ctx: WebhookContext, namespace: string, webhookId: string) {
  const { ns, hook } = await findWebhook(ctx, namespace, webhookId);
  await ctx.db.prisma.$transaction(async (tx) => {
    await tx.webhook.delete({ where: { id: hook.id } });
    await audit(tx, ctx, "webhook.delete", hook.id, { namespace: ns.name, url: hook.url });
  });
  return { status: "deleted" as const, id: hook.id };
}

function presentDelivery(d: {
  id: string; event: string; logIndex: bigint | null; status: string; attempts: number; nextAttemptAt: Date | null; lastStatusCode: number | null;
  lastError: string | null; lastDurationMs: number | null; deliveredAt: Date | null; redeliveryOf: string | null; createdAt: Date; payload: Prisma.JsonValue;
}) {
  return {
    id: d.id,
    event: d.event,
    log_index: d.logIndex === null ? null : Number(d.logIndex),
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === "pending" ? (d.nextAttemptAt?.toISOString() ?? null) : null,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    last_duration_ms: d.lastDurationMs,
    delivered_at: d.deliveredAt?.toISOString() ?? null,
    redelivery_of: d.redeliveryOf,
    created_at: d.createdAt.toISOString(),
    payload: d.payload,
  };
}

export async function listDeliveries(ctx: WebhookContext, namespace: string, webhookId: string, limit: number) {
  const { hook } = await findWebhook(ctx, namespace, webhookId);
  const rows = await ctx.db.prisma.webhookDelivery.findMany({ where: { webhookId: hook.id }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: Math.min(limit, WEBHOOK_LIMITS.deliveriesPage) });
  return { webhook_id: hook.id, deliveries: rows.map(presentDelivery) };
}

/** Sends a delivery's payload again, as a new delivery (the log keeps both). */
export async function redeliver(ctx: WebhookContext, namespace: string, webhookId: string, deliveryId: string) {
  const { ns, hook } = await findWebhook(ctx, namespace, webhookId);
  const original = /^[0-9a-f-]{36}$/i.test(deliveryId) ? await ctx.db.prisma.webhookDelivery.findFirst({ where: { id: deliveryId, webhookId: hook.id } }) : null;
  if (!original) throw new RyeError("NOT_FOUND", `No delivery ${deliveryId} for webhook ${hook.id}`, { hint: "List the deliveries to find its id." });
  const row = await ctx.db.prisma.$transaction(async (tx) => {
    const created = await tx.webhookDelivery.create({
      data: { webhookId: hook.id, event: original.event, logIndex: original.logIndex, payload: original.payload as Prisma.InputJsonValue, redeliveryOf: original.id },
    });
    await audit(tx, ctx, "webhook.redeliver", hook.id, { namespace: ns.name, delivery: original.id });
    return created;
  });
  return presentDelivery(row);
}

/** A `ping` delivery: lets an owner check the receiver and its signature check. */
export async function pingWebhook(ctx: WebhookContext, namespace: string, webhookId: string) {
  const { ns, hook } = await findWebhook(ctx, namespace, webhookId);
  const row = await ctx.db.prisma.webhookDelivery.create({
    data: { webhookId: hook.id, event: "ping", payload: { event: "ping", namespace: ns.name, webhook_id: hook.id } },
  });
  return presentDelivery(row);
}
