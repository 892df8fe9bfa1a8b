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
// item side: items, search, downloads, bundles, skills
import { pullRoute, pushRoute } from "../routes/items.ts";
import { itemDetailsRoute, searchRoute } from "../routes/search.ts";
import { downloadsRoute } from "../routes/downloads.ts";
import { bundlePullRoute, bundlePushRoute } from "../routes/bundles.ts";
import { skillPullRoute, skillPushRoute } from "../routes/skills.ts";
import { agentSkillsIndexRoute, namespaceIndexRoute, skillArtifactRoute, skillIndexRoute } from "../routes/skills-well-known.ts";

export const DECLARED_ROUTES: RouteConfig[] = [healthRoute, readyRoute, publicKeyRoute, keysRoute, statsRoute, relationsRoute, qualityRoute, logEntriesRoute, logCheckpointRoute, changesRoute, tlogInfoRoute, tlogCheckpointRoute, tlogTileRoute, tlogInclusionRoute, tlogConsistencyRoute];

// item side (a group of its own, so route groups moved in parallel merge without touching each other's lines)
DECLARED_ROUTES.push(
  pushRoute, pullRoute,
  searchRoute, itemDetailsRoute,
  downloadsRoute,
  bundlePushRoute, bundlePullRoute,
  skillPushRoute, skillPullRoute,
  agentSkillsIndexRoute, namespaceIndexRoute, skillIndexRoute, skillArtifactRoute,
);
