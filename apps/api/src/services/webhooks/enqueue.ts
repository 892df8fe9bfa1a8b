/** Queues one delivery per active webhook of the namespace that subscribed to the event (inside the event's transaction). */
import type { Prisma } from "@rye/db";

export interface WebhookEventInput {
  namespaceId: string;
  event: string;
  logIndex: number;
  isPrivate: boolean;
  data: Record<string, unknown>;
}

export async function enqueueWebhookDeliveries(tx: Prisma.TransactionClient, input: WebhookEventInput): Promise<number> {
  const hooks = await tx.webhook.findMany({
    where: { namespaceId: input.namespaceId, active: true, events: { has: input.event }, ...(input.isPrivate ? { includePrivate: true } : {}) },
    select: { id: true },
  });
  if (hooks.length === 0) return 0;
  const payload = { event: input.event, log_index: input.logIndex, ...input.data } as Prisma.InputJsonValue;
  await tx.webhookDelivery.createMany({ data: hooks.map((h) => ({ webhookId: h.id, event: input.event, logIndex: BigInt(input.logIndex), payload })) });
  return hooks.length;
}
