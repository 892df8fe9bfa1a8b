import { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import type { AppDeps } from "../services/deps.ts";

export function healthRoutes(deps: AppDeps): Hono<AppEnv> {
  return new Hono<AppEnv>().get("/health", async (c) => {
    let database: "connected" | "error" = "connected";
    try {
      await deps.db.raw.query("SELECT 1");
    } catch {
      database = "error";
    }
    return c.json({ status: database === "connected" ? "healthy" : "degraded", version: deps.version, database, database_kind: deps.db.kind }, database === "connected" ? 200 : 503);
  });
}
