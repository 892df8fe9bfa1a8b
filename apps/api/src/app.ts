/** The registry API's Hono app: `createApp(deps)`; one module per route group under routes/. */
import { Hono } from "hono";
import { RyeError } from "@rye/core";
import type { AppEnv } from "./env.ts";
import { errorHandler } from "./middleware/errors.ts";
import { rateLimit } from "./middleware/rate-limit.ts";
import { requestContext } from "./middleware/request-context.ts";
import { accountRoutes } from "./routes/accounts.ts";
import { adminRoutes } from "./routes/admin.ts";
import { approvalRoutes, orgApprovalRoutes } from "./routes/approvals.ts";
import { bundleRoutes } from "./routes/bundles.ts";
import { changesRoutes } from "./routes/changes.ts";
import { downloadRoutes } from "./routes/downloads.ts";
import { relationRoutes } from "./routes/relations.ts";
import { healthRoutes } from "./routes/health.ts";
import { itemRoutes } from "./routes/items.ts";
import { oauthRoutes } from "./oauth/index.ts";
import { createOAuthServices } from "./oauth/services.ts";
import { browserPageRoutes } from "./routes/browser-pages.ts";
import { LoginThrottle } from "./services/accounts.ts";
import { keyRoutes } from "./routes/keys.ts";
import { logRoutes } from "./routes/log.ts";
import { manageRoutes } from "./routes/manage.ts";
import { MCP_PATH, mcpRoutes } from "./mcp/http.ts";
import { mcpAuthChallenge } from "./oauth/protected-resource.ts";
import { namespaceRoutes } from "./routes/namespaces.ts";
import { openapiRoutes } from "./routes/openapi.ts";
import { orgRoutes } from "./routes/orgs.ts";
import { qualityRoutes } from "./routes/quality.ts";
import { searchRoutes } from "./routes/search.ts";
import { skillRoutes } from "./routes/skills.ts";
import { skillWellKnownRoutes } from "./routes/skills-well-known.ts";
import { statsRoutes } from "./routes/stats.ts";
import { tokenRoutes } from "./routes/tokens.ts";
import { upstreamAuthRoutes } from "./routes/upstream-auth.ts";
import { userKeyRoutes } from "./routes/user-keys.ts";
import { verificationRoutes } from "./routes/verifications.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import type { AppDeps } from "./services/deps.ts";

export type { AppDeps } from "./services/deps.ts";

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Before the request context: its refusal of a bad bearer token (401) leaves /mcp with the RFC 9728 challenge.
  app.use(MCP_PATH, mcpAuthChallenge(deps.config.publicUrl));
  app.use("*", requestContext({ authenticator: deps.authenticator, logger: deps.logger, trustProxy: deps.config.trustProxy, internalSecret: deps.internalSecret }));
  const apiLimit = rateLimit({ ...deps.config.rateLimit, counters: deps.counters });
  app.use("/v1/*", apiLimit);
  // Agent Skills discovery builds indexes from the database: the same per-caller budget as the API.
  for (const path of ["/.well-known/agent-skills/*", "/:namespace/.well-known/agent-skills/*", "/:namespace/:skill/.well-known/agent-skills/*"]) app.use(path, apiLimit);
  // Every /mcp request is a POST but only reads: it spends a read budget of its own, not the write budget.
  app.use(MCP_PATH, rateLimit({ ...deps.config.rateLimit, writes: deps.config.rateLimit.reads, counters: deps.counters, scope: "mcp" }));
  app.use("/oauth/*", rateLimit({ ...deps.config.rateLimit, counters: deps.counters, scope: "oauth" }));
  app.route("/", healthRoutes(deps));
  app.route("/", keyRoutes(deps));
  const oauthServices = createOAuthServices(deps);
  const loginThrottle = new LoginThrottle(deps.counters);
  app.route("/", oauthRoutes(deps, {}, oauthServices));
  app.route("/", browserPageRoutes(deps, oauthServices, loginThrottle));
  app.route("/", itemRoutes(deps));
  app.route("/", searchRoutes(deps));
  app.route("/", statsRoutes(deps));
  app.route("/", downloadRoutes(deps));
  app.route("/", relationRoutes(deps));
  app.route("/", qualityRoutes(deps));
  app.route("/", manageRoutes(deps));
  app.route("/", approvalRoutes(deps));
  app.route("/", orgApprovalRoutes(deps));
  app.route("/", bundleRoutes(deps));
  app.route("/", skillRoutes(deps));
  app.route("/", skillWellKnownRoutes(deps));
  app.route("/", logRoutes(deps, { checkpoints: deps.config.checkpoints }));
  app.route("/", changesRoutes(deps, { checkpoints: deps.config.checkpoints }));
  app.route("/", openapiRoutes(deps));
  app.route("/", mcpRoutes(deps));
  app.route("/", upstreamAuthRoutes(deps, deps.config.upstream));
  app.route("/", accountRoutes(deps, { throttle: loginThrottle }));
  app.route("/", tokenRoutes(deps));
  app.route("/", userKeyRoutes(deps));
  app.route("/", orgRoutes(deps));
  app.route("/", namespaceRoutes(deps));
  app.route("/", webhookRoutes(deps));
  app.route("/", verificationRoutes(deps));
  if (deps.adminSecret) app.route("/", adminRoutes(deps, deps.adminSecret));
  app.notFound((c) => c.json(new RyeError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`).toEnvelope(), 404));
  app.onError(errorHandler(deps.logger));
  return app;
}
