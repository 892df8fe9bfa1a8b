import type { Prisma } from "@rye/db";

export interface AuditInput {
  actorId: string | null;
  action: string;
  targetType: string;
  targetId: string;
  details?: Record<string, unknown>;
  ip?: string | null;
  requestId?: string | null;
}

type Tx = Pick<Prisma.TransactionClient, "auditEvent">;

/** Records a mutation; call inside the mutation's transaction so both land or neither. */
export async function recordAudit(tx: Tx, input: AuditInput): Promise<void> {
  await tx.auditEvent.create({
    data: {
      actorId: input.actorId,
      action: input.action,
      targetType: input.targetType,
      targetId: input.targetId,
      details: (input.details ?? {}) as Prisma.InputJsonValue,
      ip: input.ip ?? null,
      requestId: input.requestId ?? null,
    },
  });
}
