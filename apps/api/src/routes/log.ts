/** The public transparency log: its entries (a hash chain) and signed checkpoints of its head. */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { isoTimestampSchema, sha256HexSchema, signedCheckpointSchema } from "@rye/core";
import { access, errors, json } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import type { CheckpointPolicy } from "../services/checkpoints.ts";
import { checkpointContext, currentCheckpoint, logHead } from "../services/checkpoints.ts";
import type { AppDeps } from "../services/deps.ts";

export const MAX_LOG_PAGE = 1000;

export const logEntriesQuerySchema = z.object({
  from: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).meta({ description: "First index to return." }),
  limit: z.coerce.number().int().min(1).max(MAX_LOG_PAGE).default(100).meta({ description: `Entries per page (at most ${MAX_LOG_PAGE}).` }),
});

const LogEntry = z.object({
  index: z.number().int(),
  kind: z.string(),
  payload: z.record(z.string(), z.unknown()),
  prev_hash: sha256HexSchema,
  entry_hash: sha256HexSchema.meta({ description: "sha256(canonical JSON of {index, kind, payload, prev_hash})." }),
  created_at: isoTimestampSchema,
});
const LogEntriesResponse = z.object({ entries: z.array(LogEntry), tree_size: z.number().int(), next_from: z.number().int().nullable() }).meta({ id: "LogEntriesResponse" });
export const SignedCheckpoint = signedCheckpointSchema;

export const logEntriesRoute = createRoute({
  method: "get",
  path: "/v1/log/entries",
  operationId: "listLogEntries",
  summary: "Entries of the append-only publish log (a hash chain)",
  tags: ["log"],
  ...access("none"),
  request: { query: logEntriesQuerySchema },
  responses: { 200: json(LogEntriesResponse, "A page of entries"), ...errors(400) },
});

export const logCheckpointRoute = createRoute({
  method: "get",
  path: "/v1/log/checkpoint",
  operationId: "getLogCheckpoint",
  summary: "The latest signed checkpoint of the log head",
  tags: ["log"],
  ...access("none"),
  responses: { 200: json(SignedCheckpoint, "Checkpoint") },
});

export function logRoutes(deps: AppDeps, options: { checkpoints?: Partial<CheckpointPolicy> } = {}) {
  return contractRouter()
    .openapi(logEntriesRoute, async (c) => {
      const { from, limit } = c.req.valid("query");
      // The size first: the page is then a prefix of one consistent log, even while publishes append.
      const { treeSize } = await logHead(deps.db);
      const rows = await deps.db.prisma.publishLogEntry.findMany({
        where: { index: { gte: BigInt(from), lt: BigInt(treeSize) } },
        orderBy: { index: "asc" },
        take: limit,
      });
      const last = rows.at(-1);
      return c.json(
        {
          entries: rows.map((e) => ({
            index: Number(e.index),
            kind: e.kind,
            payload: e.payload as Record<string, unknown>,
            prev_hash: e.prevHash,
            entry_hash: e.entryHash,
            created_at: e.createdAt.toISOString(),
          })),
          tree_size: treeSize,
          next_from: last && Number(last.index) + 1 < treeSize ? Number(last.index) + 1 : null,
        },
        200,
      );
    })
    .openapi(logCheckpointRoute, async (c) => {
      const checkpoint = await currentCheckpoint(checkpointContext(deps, options.checkpoints));
      c.header("Cache-Control", "no-cache");
      return c.json(checkpoint, 200);
    });
}
