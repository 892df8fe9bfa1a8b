/**
 * Graceful shutdown of an HTTP server behind a balancer: mark the process draining (GET /ready answers 503), keep
 * listening for `drainDelayMs` so the balancer's health check takes it out of rotation, stop accepting, let the
 * requests in flight finish (idle keep-alive connections are closed as they fall idle, and responses written
 * while draining carry `Connection: close`), and cut whatever is still open at `timeoutMs`.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "./logger.ts";
import type { Lifecycle } from "./services/readiness.ts";

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

export interface DrainOptions {
  lifecycle: Lifecycle;
  drainDelayMs: number;
  timeoutMs: number;
  logger: Logger;
}

/** Wraps a listener to count requests in flight and to end connections after their response once draining. */
export function trackRequests(listener: NodeListener, lifecycle: Lifecycle): { listener: NodeListener; inFlight(): number } {
  let inFlight = 0;
  return {
    listener: (req, res) => {
      inFlight++;
      res.once("close", () => inFlight--);
      if (lifecycle.draining) res.setHeader("Connection", "close");
      listener(req, res);
    },
    inFlight: () => inFlight,
  };
}

/** Resolves once the server is closed and every request in flight has been answered (or cut at the deadline). */
export async function drainServer(server: Server, inFlight: () => number, options: DrainOptions): Promise<{ cut: boolean }> {
  options.lifecycle.draining = true;
  options.logger.log("info", "shutting down: draining", { in_flight: inFlight(), drain_delay_ms: options.drainDelayMs });
  if (options.drainDelayMs > 0) await sleep(options.drainDelayMs);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  let cut = false;
  const deadline = setTimeout(() => {
    cut = true;
    options.logger.log("warn", "shutdown deadline reached: cutting the connections still open", { in_flight: inFlight(), timeout_ms: options.timeoutMs });
    server.closeAllConnections();
  }, options.timeoutMs);
  try {
    await closed;
  } finally {
    clearInterval(idle);
    clearTimeout(deadline);
  }
  return { cut };
}
