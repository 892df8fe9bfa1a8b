/**
 * GET /v1/changes?since=<cursor>&limit=<n>: every public publish, approval, yank, unyank, deprecation, deletion,
 * visibility change, transfer and registry-key event in log order (services/changes.ts), with the registry's latest
 * signed checkpoint of the log. Public: it says nothing that the public log does not.
 */
import { Hono } from "hono";
import { z } from "zod";
import { RyeError } from "@rye/core";
import type { AppEnv } from "../env.ts";
import { MAX_CHANGES_PAGE, readChanges } from "../services/changes.ts";
import type { CheckpointPolicy } from "../services/checkpoints.ts";
import { currentCheckpoint } from "../services/checkpoints.ts";
import type { AppDeps } from "../services/deps.ts";

export const changesQuerySchema = z.object({
  since: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).meta({ description: "The cursor: `next_since` of the previous page (a log index); 0 reads from the start." }),
  limit: z.coerce.number().int().min(1).max(MAX_CHANGES_PAGE).default(100).meta({ description: `Log entries to read (at most ${MAX_CHANGES_PAGE}); private ones are skipped, so a page may hold fewer changes.` }),
});

export function changesRoutes(deps: AppDeps, options: { checkpoints?: Partial<CheckpointPolicy> } = {}): Hono<AppEnv> {
  return new Hono<AppEnv>().get("/v1/changes", async (c) => {
    const query = changesQuerySchema.safeParse(c.req.query());
    if (!query.success) {
      throw new RyeError("BAD_REQUEST", "Invalid query parameters", {
        hint: "since is a non-negative integer (next_since of the previous page); limit is 1–1000.",
        details: query.error.issues.map((i) => ({ field: i.path.join("."), message: i.message })),
      });
    }
    const page = await readChanges(deps.db, query.data.since, query.data.limit);
    const checkpoint = await currentCheckpoint({ db: deps.db, signer: () => deps.keyring.signer(), registryUrl: deps.config.publicUrl, policy: options.checkpoints });
    c.header("Cache-Control", "no-cache");
    return c.json({ ...page, checkpoint });
  });
}
