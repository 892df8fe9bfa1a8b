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

/** One request's count against its caller's window, and the RateLimit-* headers that tell it (draft-ietf-httpapi-ratelimit-headers). */
export interface RateLimitVerdict {
  headers: { "RateLimit-Limit": string; "RateLimit-Remaining": string; "RateLimit-Reset": string };
  /** Over the limit: the request is refused (429, RATE_LIMITED). */
  refusal: RyeError | null;
}

/** The limiter of rateLimit() as a function of (method, caller), for the middleware and the front path (front/pulls.ts). */
export function rateLimiter(options: RateLimitOptions): (method: string, caller: string) => RateLimitVerdict | Promise<RateLimitVerdict> {
  const now = options.now ?? Date.now;
  const counters = options.counters ?? new MemoryWindowCounters(now);
  const windowMs = options.windowSeconds * 1000;
  const scope = options.scope ?? "api";
  const verdict = (write: boolean, limit: number, entry: WindowCount): RateLimitVerdict => {
    const reset = Math.max(1, Math.ceil((entry.resetAt - now()) / 1000));
    return {
      headers: { "RateLimit-Limit": String(limit), "RateLimit-Remaining": String(Math.max(0, limit - entry.count)), "RateLimit-Reset": String(reset) },
      refusal:
        entry.count > limit
          ? new RyeError("RATE_LIMITED", `Too many ${write ? "write" : "read"} requests: ${limit} per ${options.windowSeconds} s`, { details: { retry_after: reset, limit } })
          : null,
    };
  };
  return (method, caller) => {
    const write = method !== "GET" && method !== "HEAD" && method !== "OPTIONS";
    const limit = write ? options.writes : options.reads;
    const key = `rl:${scope}:${write ? "w" : "r"}:${caller}`;
    // A store that can count without a promise (in memory; batched, within its cap) keeps the hot path free of one.
    const counted = counters.hitNow ? counters.hitNow(key, windowMs, limit) : counters.hit(key, windowMs);
    return counted instanceof Promise ? counted.then((entry) => verdict(write, limit, entry)) : verdict(write, limit, counted);
  };
}

/** The caller a rate limit counts: the token, else the client IP. */
export const rateLimitCaller = (tokenId: string | undefined, clientIp: string): string => tokenId ?? `ip:${clientIp}`;

export function rateLimit(options: RateLimitOptions): MiddlewareHandler<AppEnv> {
  const limiter = rateLimiter(options);
  return async (c, next) => {
    const counted = limiter(c.req.method, rateLimitCaller(c.get("principal")?.tokenId, c.get("clientIp")));
    const { headers, refusal } = counted instanceof Promise ? await counted : counted;
    c.header("RateLimit-Limit", headers["RateLimit-Limit"]);
    c.header("RateLimit-Remaining", headers["RateLimit-Remaining"]);
    c.header("RateLimit-Reset", headers["RateLimit-Reset"]);
    if (refusal) throw refusal;
    await next();
  };
}
