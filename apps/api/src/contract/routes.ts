/** Every declared route, for the document (routes/openapi.ts). A route group that moves to declarations adds its routes here. */
import type { RouteConfig } from "@hono/zod-openapi";
import { changesRoute } from "../routes/changes.ts";
import { healthRoute, readyRoute } from "../routes/health.ts";
import { keysRoute, publicKeyRoute } from "../routes/keys.ts";
import { logCheckpointRoute, logEntriesRoute } from "../routes/log.ts";
import { qualityRoute } from "../routes/quality.ts";
import { relationsRoute } from "../routes/relations.ts";
import { statsRoute } from "../routes/stats.ts";
import { tlogCheckpointRoute, tlogConsistencyRoute, tlogInclusionRoute, tlogInfoRoute, tlogTileRoute } from "../routes/tlog.ts";

export const DECLARED_ROUTES: RouteConfig[] = [healthRoute, readyRoute, publicKeyRoute, keysRoute, statsRoute, relationsRoute, qualityRoute, logEntriesRoute, logCheckpointRoute, changesRoute, tlogInfoRoute, tlogCheckpointRoute, tlogTileRoute, tlogInclusionRoute, tlogConsistencyRoute];
