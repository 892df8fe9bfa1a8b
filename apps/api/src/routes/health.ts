/**
 * Probes for a balancer or an orchestrator (docs/deployment.md "Several processes"):
 * - GET /health, liveness: the process answers (always 200 while it runs); `database` reports what it sees,
 *   so a database outage does not make an orchestrator restart healthy processes.
 * - GET /ready, readiness: 200 when this process should get traffic (services/readiness.ts), else 503 with the
 *   reason: shutting down, database unreachable, or migrations not applied.
 */
import { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import type { AppDeps } from "../services/deps.ts";
import { READY_DB_TIMEOUT_MS, ReadinessCheck, withTimeout } from "../services/readiness.ts";

export function healthRoutes(deps: AppDeps): Hono<AppEnv> {
  const readiness = new ReadinessCheck(deps.db, deps.lifecycle);
  return new Hono<AppEnv>()
    .get("/health", async (c) => {
      let database: "connected" | "error" = "connected";
      try {
        await withTimeout(deps.db.raw.query("SELECT 1"), READY_DB_TIMEOUT_MS);
      } catch {
        database = "error";
      }
      c.header("Cache-Control", "no-store");
      return c.json({ status: database === "connected" ? "healthy" : "degraded", version: deps.version, database, database_kind: deps.db.kind });
    })
    .get("/ready", async (c) => {
      const result = await readiness.check();
      c.header("Cache-Control", "no-store");
      return result.ready ? c.json({ status: "ready" }) : c.json({ status: "not_ready", reason: result.reason }, 503);
    });
}
