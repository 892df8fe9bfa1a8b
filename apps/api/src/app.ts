/** The registry API's Hono app: `createApp(deps)`; one module per route group under routes/. */
import { Hono } from "hono";
import { RyeError } from "@rye/core";
import type { AppEnv } from "./env.ts";
import { errorHandler } from "./middleware/errors.ts";
import { rateLimit } from "./middleware/rate-limit.ts";
import { requestContext } from "./middleware/request-context.ts";
import { bundleRoutes } from "./routes/bundles.ts";
import { healthRoutes } from "./routes/health.ts";
import { itemRoutes } from "./routes/items.ts";
import { keyRoutes } from "./routes/keys.ts";
import { logRoutes } from "./routes/log.ts";
import { openapiRoutes } from "./routes/openapi.ts";
import type { AppDeps } from "./services/deps.ts";

export type { AppDeps } from "./services/deps.ts";

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requestContext({ authenticator: deps.authenticator, logger: deps.logger, trustProxy: deps.config.trustProxy }));
  app.use("/v1/*", rateLimit(deps.config.rateLimit));
  app.route("/", healthRoutes(deps));
  app.route("/", keyRoutes(deps));
  app.route("/", itemRoutes(deps));
  app.route("/", bundleRoutes(deps));
  app.route("/", logRoutes(deps));
  app.route("/", openapiRoutes(deps));
  app.notFound((c) => c.json(new RyeError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`).toEnvelope(), 404));
  app.onError(errorHandler(deps.logger));
  return app;
}
