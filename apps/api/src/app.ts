/** The registry API's Hono app. Route groups grow under src/routes/ as the registry issues land. */
import { Hono } from "hono";
import { RyeError, toErrorEnvelope } from "@rye/core";
import { healthRoutes } from "./routes/health.ts";

export interface AppDeps {
  version: string;
}

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.route("/", healthRoutes(deps));
  app.notFound((c) => c.json(new RyeError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`).toEnvelope(), 404));
  app.onError((err, c) => {
    const status = err instanceof RyeError ? err.status : 500;
    return c.json(toErrorEnvelope(err), status as 400);
  });
  return app;
}
