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

function auditRow(input: AuditInput): Prisma.AuditEventCreateManyInput {
  return {
    actorId: input.actorId,
    action: input.action,
    targetType: input.targetType,
    targetId: input.targetId,
    details: (input.details ?? {}) as Prisma.InputJsonValue,
    ip: input.ip ?? null,
    requestId: input.requestId ?? null,
  };
}

/** Records a mutation; call inside the mutation's transaction so both land or neither. */
export async function recordAudit(tx: Tx, input: AuditInput): Promise<void> {
  await tx.auditEvent.create({ data: auditRow(input) });
}

/** Records one event per mutated target in one statement (a bulk mutation's), in its transaction like recordAudit. */
export async function recordAudits(tx: Tx, inputs: readonly AuditInput[]): Promise<void> {
  if (inputs.length > 0) await tx.auditEvent.createMany({ data: inputs.map(auditRow) });
}
