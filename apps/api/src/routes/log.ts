/** The public transparency log: its entries (a hash chain) and signed checkpoints of its head. */
import { Hono } from "hono";
import { z } from "zod";
import { RyeError } from "@rye/core";
import type { AppEnv } from "../env.ts";
import type { CheckpointPolicy } from "../services/checkpoints.ts";
import { currentCheckpoint, logHead } from "../services/checkpoints.ts";
import type { AppDeps } from "../services/deps.ts";

export const MAX_LOG_PAGE = 1000;

export const logEntriesQuerySchema = z.object({
  from: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).meta({ description: "First index to return." }),
  limit: z.coerce.number().int().min(1).max(MAX_LOG_PAGE).default(100).meta({ description: `Entries per page (at most ${MAX_LOG_PAGE}).` }),
});

function parseQuery<T>(schema: z.ZodType<T>, query: Record<string, string>): T {
  const result = schema.safeParse(query);
  if (!result.success) {
    throw new RyeError("BAD_REQUEST", "Invalid query parameters", { details: result.error.issues.map((i) => ({ field: i.path.join("."), message: i.message })) });
  }
  return result.data;
}

export function logRoutes(deps: AppDeps, options: { checkpoints?: Partial<CheckpointPolicy> } = {}): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .get("/v1/log/entries", async (c) => {
      const { from, limit } = parseQuery(logEntriesQuerySchema, c.req.query());
      // The size first: the page is then a prefix of one consistent log, even while publishes append.
      const { treeSize } = await logHead(deps.db);
      const rows = await deps.db.prisma.publishLogEntry.findMany({
        where: { index: { gte: BigInt(from), lt: BigInt(treeSize) } },
        orderBy: { index: "asc" },
        take: limit,
      });
      const last = rows.at(-1);
      return c.json({
        entries: rows.map((e) => ({
          index: Number(e.index),
          kind: e.kind,
          payload: e.payload,
          prev_hash: e.prevHash,
          entry_hash: e.entryHash,
          created_at: e.createdAt.toISOString(),
        })),
        tree_size: treeSize,
        next_from: last && Number(last.index) + 1 < treeSize ? Number(last.index) + 1 : null,
      });
    })
    .get("/v1/log/checkpoint", async (c) => {
      const checkpoint = await currentCheckpoint({ db: deps.db, signer: () => deps.keyring.signer(), registryUrl: deps.config.publicUrl, policy: options.checkpoints });
      c.header("Cache-Control", "no-cache");
      return c.json(checkpoint);
    });
}
