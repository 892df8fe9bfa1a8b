/**
 * Fixed-window rate limits per caller (token, else client IP), separately for reads and writes.
 * Counters live in the process: behind a load balancer each process enforces its own share.
 */
import type { MiddlewareHandler } from "hono";
import { RyeError } from "@rye/core";
import type { AppEnv } from "../env.ts";

export interface RateLimitOptions {
  windowSeconds: number;
  reads: number;
  writes: number;
  now?: () => number;
}

const MAX_TRACKED = 100_000;

export function rateLimit(options: RateLimitOptions): MiddlewareHandler<AppEnv> {
  const windows = new Map<string, { start: number; count: number }>();
  const now = options.now ?? Date.now;
  return async (c, next) => {
    const write = !["GET", "HEAD", "OPTIONS"].includes(c.req.method);
    const limit = write ? options.writes : options.reads;
    const caller = c.get("principal")?.tokenId ?? `ip:${c.get("clientIp")}`;
    const key = `${write ? "w" : "r"}:${caller}`;
    const t = now();
    const windowMs = options.windowSeconds * 1000;
    let entry = windows.get(key);
    if (!entry || t - entry.start >= windowMs) {
      if (windows.size >= MAX_TRACKED) windows.clear();
      entry = { start: t, count: 0 };
      windows.set(key, entry);
    }
    entry.count++;
    const reset = Math.max(1, Math.ceil((entry.start + windowMs - t) / 1000));
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
