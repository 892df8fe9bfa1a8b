/**
 * RYE_ROLE=web: the website alone, for deployments that scale it apart from the API. No database and no keys:
 * the pages' server-side requests go to RYE_INTERNAL_API_URL (required; the API processes, e.g. through the
 * balancer), with RYE_INTERNAL_SECRET when the API processes share it (so they take the visitor's address from
 * X-Forwarded-For). API paths are the balancer's to route to the API processes: one reaching this process is
 * answered 404 with a hint. GET /health and /ready are this process's own probes; SIGTERM drains as the API does.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { RyeError } from "@rye/core";
import { jsonLogger } from "@rye/api/logger";
import { loadConfig } from "@rye/api/config";
import { drainServer, type NodeListener, trackRequests } from "@rye/api/graceful";
import { ensureWebBuild } from "./build.ts";
import { isApiPath } from "./routing.ts";

type NextFactory = (options: { dev: boolean; dir: string; hostname?: string; port?: number }) => {
  prepare(): Promise<void>;
  getRequestHandler(): (req: Parameters<NodeListener>[0], res: Parameters<NodeListener>[1]) => Promise<void>;
};

function json(res: Parameters<NodeListener>[1], status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

export async function serveWebOnly(webDir: string, next: NextFactory): Promise<void> {
  const config = loadConfig(process.env);
  const logger = jsonLogger(config.logLevel, undefined, { pid: process.pid, role: "web" });
  const apiUrl = process.env.RYE_INTERNAL_API_URL;
  if (!apiUrl) {
    throw new RyeError("BAD_REQUEST", "RYE_ROLE=web needs RYE_INTERNAL_API_URL: the URL where this process reaches the API processes", {
      hint: "Set RYE_INTERNAL_API_URL=http://<balancer or API service>:<port> (and RYE_INTERNAL_SECRET, shared with the API processes).",
    });
  }
  process.env.RYE_PUBLIC_URL ??= config.publicUrl;
  await ensureWebBuild(webDir, (message) => logger.log("info", message));
  const site = next({ dev: false, dir: webDir });
  await site.prepare();
  const handleSite = site.getRequestHandler();
  const lifecycle = { draining: false };
  const listener: NodeListener = (req, res) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    if (path === "/health") return json(res, 200, { status: "healthy", role: "web" });
    if (path === "/ready") return lifecycle.draining ? json(res, 503, { status: "not_ready", reason: "shutting down" }) : json(res, 200, { status: "ready" });
    if (isApiPath(req.url ?? "/")) {
      return json(res, 404, new RyeError("NOT_FOUND", `${path} is served by the API processes`, { hint: "Route API paths (/v1/, /oauth/, /.well-known/, /mcp) to processes with RYE_ROLE=api or all." }).toEnvelope());
    }
    if (!config.trustProxy) req.headers["x-forwarded-for"] = req.socket.remoteAddress ?? "unknown";
    handleSite(req, res).catch((err: Error) => {
      logger.log("error", "website request failed", { error: err.message });
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("Internal error");
    });
  };
  const tracked = trackRequests(listener, lifecycle);
  const server = createServer(tracked.listener);
  server.listen(config.port, process.env.HOST ?? "0.0.0.0");
  await once(server, "listening");
  logger.log("info", "rye website listening", { url: `http://localhost:${(server.address() as AddressInfo).port}`, api: apiUrl });
  const shutdown = (signal: string) => {
    logger.log("info", "signal received", { signal });
    void drainServer(server, tracked.inFlight, { lifecycle, logger, ...config.shutdown }).finally(() => process.exit(0));
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}
