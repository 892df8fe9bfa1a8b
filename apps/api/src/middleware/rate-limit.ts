/**
 * Fixed-window rate limits per caller (token, else client IP), separately for reads and writes. The counters
 * are a WindowCounters store: shared rows in PostgreSQL when several processes serve the registry, so the limit
 * holds for the registry as a whole, not per process (services/window-counters.ts).
 */
import type { MiddlewareHandler } from "hono";
import { RyeError } from "@rye/core";
import type { AppEnv } from "../env.ts";
import { MemoryWindowCounters, type WindowCount, type WindowCounters } from "../services/window-counters.ts";

export interface RateLimitOptions {
  windowSeconds: number;
  reads: number;
  writes: number;
  /** Separates the budgets of limiters sharing one store (the API's and the OAuth endpoints'). */
  scope?: string;
  /** Where windows are counted; default: this process's memory. */
  counters?: WindowCounters;
  now?: () => number;
}

export function rateLimit(options: RateLimitOptions): MiddlewareHandler<AppEnv> {
  const now = options.now ?? Date.now;
  const counters = options.counters ?? new MemoryWindowCounters(now);
  const windowMs = options.windowSeconds * 1000;
  const scope = options.scope ?? "api";
  return async (c, next) => {
    const write = !["GET", "HEAD", "OPTIONS"].includes(c.req.method);
    const limit = write ? options.writes : options.reads;
    const caller = c.get("principal")?.tokenId ?? `ip:${c.get("clientIp")}`;
    const key = `rl:${scope}:${write ? "w" : "r"}:${caller}`;
    // In memory the count needs no promise: the PGlite hot path stays as cheap as before.
    const entry: WindowCount = counters instanceof MemoryWindowCounters ? counters.hitNow(key, windowMs) : await counters.hit(key, windowMs);
    const reset = Math.max(1, Math.ceil((entry.resetAt - now()) / 1000));
    c.header("RateLimit-Limit", String(limit));
    c.header("RateLimit-Remaining", String(Math.max(0, limit - entry.count)));
    c.header("RateLimit-Reset", String(reset));
    if (entry.count > limit) {
      throw new RyeError("RATE_LIMITED", `Too many ${write ? "write" : "read"} requests: ${limit} per ${options.windowSeconds} s`, {
        details: { retry_after: reset, limit },
      });
    }
    await next();
  };
}
