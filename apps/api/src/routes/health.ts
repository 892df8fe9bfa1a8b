/**
 * Probes for a balancer or an orchestrator (docs/deployment.md "Several processes"):
 * - GET /health, liveness: the process answers (always 200 while it runs); `database` reports what it saw at most
 *   a second ago (services/database-probe.ts), so a database outage does not make an orchestrator restart healthy
 *   processes, and frequent probes cost no query each.
 * - GET /ready, readiness: 200 when this process should get traffic (services/readiness.ts), else 503 with the
 *   reason: shutting down, database unreachable, or migrations not applied.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { access, json } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import type { AppDeps } from "../services/deps.ts";
import { databaseProbeOf, type DatabaseState } from "../services/database-probe.ts";
import { ReadinessCheck } from "../services/readiness.ts";

const HealthResponse = z
  .object({
    status: z.enum(["healthy", "degraded"]),
    version: z.string(),
    database: z.enum(["connected", "error"]),
    database_kind: z.enum(["postgres", "pglite"]),
  })
  .meta({ id: "HealthResponse" });
const ReadyResponse = z
  .object({
    status: z.enum(["ready", "not_ready"]),
    reason: z.string().optional().meta({ description: "Why not: shutting down, database unreachable, or migrations not applied: <names>" }),
  })
  .meta({ id: "ReadyResponse" });

export const healthRoute = createRoute({
  method: "get",
  path: "/health",
  operationId: "health",
  summary: "Liveness: the process answers (always 200 while it runs); status degraded when it cannot reach the database",
  tags: ["meta"],
  ...access("none"),
  responses: { 200: json(HealthResponse, "Alive") },
});

export const readyRoute = createRoute({
  method: "get",
  path: "/ready",
  operationId: "ready",
  summary: "Readiness: the database answers and every migration is applied, and the process is not shutting down",
  tags: ["meta"],
  ...access("none"),
  responses: {
    200: json(ReadyResponse, "Ready for traffic"),
    503: json(ReadyResponse, "Not ready, with the reason (the same body, not an error envelope)"),
  },
});

/** GET /health's answer for what the database probe saw (also written by the front path, front/answers.ts). */
export function healthAnswer(deps: Pick<AppDeps, "version" | "db">, database: DatabaseState): z.output<typeof HealthResponse> {
  return { status: database === "connected" ? "healthy" : "degraded", version: deps.version, database, database_kind: deps.db.kind };
}

export function healthRoutes(deps: AppDeps) {
  const readiness = new ReadinessCheck(deps.db, deps.lifecycle);
  const probe = databaseProbeOf(deps.db);
  return contractRouter()
    .openapi(healthRoute, async (c) => {
      const database = await probe.state();
      c.header("Cache-Control", "no-store");
      return c.json(healthAnswer(deps, database), 200);
    })
    .openapi(readyRoute, async (c) => {
      const result = await readiness.check();
      c.header("Cache-Control", "no-store");
      return result.ready ? c.json({ status: "ready" as const }, 200) : c.json({ status: "not_ready" as const, reason: result.reason }, 503);
    });
}
