/**
 * GET /v1/changes?since=<cursor>&limit=<n>: every public publish, approval, yank, unyank, deprecation, deletion,
 * visibility change, transfer and registry-key event in log order (services/changes.ts), with the registry's latest
 * signed checkpoint of the log. Public: it says nothing that the public log does not.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { isoTimestampSchema } from "@rye/core";
import { access, errors, json } from "../contract/route.ts";
import { contractRouter, refuseWith } from "../contract/router.ts";
import { MAX_CHANGES_PAGE, readChanges } from "../services/changes.ts";
import type { CheckpointPolicy } from "../services/checkpoints.ts";
import { checkpointContext, currentCheckpoint } from "../services/checkpoints.ts";
import type { AppDeps } from "../services/deps.ts";
import { SignedCheckpoint } from "./log.ts";

export const changesQuerySchema = z.object({
  since: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).meta({ description: "The cursor: `next_since` of the previous page (a log index); 0 reads from the start." }),
  limit: z.coerce.number().int().min(1).max(MAX_CHANGES_PAGE).default(100).meta({ description: `Log entries to read (at most ${MAX_CHANGES_PAGE}); private ones are skipped, so a page may hold fewer changes.` }),
});

const Change = z.object({
  seq: z.number().int().meta({ description: "The publish log index of the event." }),
  event: z.string().meta({ description: "publish, yank, unyank, deprecate, undeprecate, delete, visibility, transfer, key_rotate or key_revoke." }),
  at: isoTimestampSchema,
  entry_hash: z.string().meta({ description: "The log entry's hash: check it against GET /v1/log/entries and a signed checkpoint." }),
  subject: z.record(z.string(), z.unknown()).meta({ description: "The log entry's payload: { kind: item|bundle|registry_key, item_type, id, version, … }." }),
});
const ChangesResponse = z
  .object({
    changes: z.array(Change).meta({ description: "Public events in log order; events of private or held subjects are left out." }),
    next_since: z.number().int().meta({ description: "The cursor for the next page." }),
    tree_size: z.number().int(),
    caught_up: z.boolean(),
    checkpoint: SignedCheckpoint,
  })
  .meta({ id: "ChangesResponse" });

export const changesRoute = createRoute({
  method: "get",
  path: "/v1/changes",
  operationId: "listChanges",
  summary: "The changes feed for mirrors and indexers: public item, bundle and key events in log order, with a signed checkpoint",
  tags: ["log"],
  ...access("none"),
  request: { query: changesQuerySchema },
  responses: { 200: json(ChangesResponse, "A page of changes"), ...errors(400) },
});

export function changesRoutes(deps: AppDeps, options: { checkpoints?: Partial<CheckpointPolicy> } = {}) {
  return contractRouter().openapi(changesRoute, async (c) => {
    const query = c.req.valid("query");
    const page = await readChanges(deps.db, query.since, query.limit);
    const checkpoint = await currentCheckpoint(checkpointContext(deps, options.checkpoints));
    c.header("Cache-Control", "no-cache");
    return c.json({ ...page, checkpoint }, 200);
  }, refuseWith("since is a non-negative integer (next_since of the previous page); limit is 1–1000."));
}
