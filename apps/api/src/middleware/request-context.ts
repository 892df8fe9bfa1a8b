import { randomUUID, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { getConnInfo } from "@hono/node-server/conninfo";
import { RyeError } from "@rye/core";
import type { Authenticator } from "../auth/principal.ts";
import type { AppEnv } from "../env.ts";
import type { Logger } from "../logger.ts";
import { checkRequestTarget } from "./request-target.ts";

function isInternal(presented: string | undefined, secret: string | undefined): boolean {
  if (!secret || !presented) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The client's address: the first X-Forwarded-For hop when the proxy is trusted (or the request carries the website
 * process's internal secret), else the socket's peer.
 */
export function clientAddress(header: (name: string) => string | undefined, socketAddress: () => string | undefined, trustProxy: boolean, internalSecret: string | undefined): string {
  if (trustProxy || isInternal(header("x-rye-internal"), internalSecret)) {
    const forwarded = header("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  return socketAddress() ?? "unknown";
}

function clientIp(c: Parameters<MiddlewareHandler<AppEnv>>[0], trustProxy: boolean, internalSecret: string | undefined): string {
  return clientAddress(
    (name) => c.req.header(name),
    () => {
      try {
        return getConnInfo(c).remote.address;
      } catch {
        return "local"; // in-process requests (tests) have no socket
      }
    },
    trustProxy,
    internalSecret,
  );
}

/**
 * A request id from the balancer (X-Request-Id) is kept so one request can be followed through the balancer, the
 * website and any API process; otherwise a new one. Only short printable tokens are accepted: the id is echoed
 * in a header and written to the logs.
 */
const REQUEST_ID = /^[A-Za-z0-9._:@\/+=-]{1,128}$/;

export function requestIdFrom(header: string | undefined): string {
  return header !== undefined && REQUEST_ID.test(header) ? header : randomUUID();
}

/**
 * RFC 8707 audience binding of OAuth access tokens (no token passthrough): a token issued for `mcp` is accepted only
 * on `mcpPath`, one issued for `api` everywhere else, unless the operator set `acceptAny`. Personal tokens carry no
 * audience and are not concerned.
 */
export interface AudienceRule {
  api: string;
  mcp: string;
  mcpPath: string;
  acceptAny: boolean;
}

function audienceRefusal(audience: string | undefined, path: string, rule: AudienceRule | undefined): RyeError | null {
  if (audience === undefined || !rule || rule.acceptAny) return null;
  const expected = path === rule.mcpPath ? rule.mcp : rule.api;
  if (audience === expected) return null;
  return new RyeError("UNAUTHORIZED", `The access token was issued for ${audience}, not for ${expected}`, {
    hint: `Sign in again asking for the resource ${expected} (RFC 8707 resource parameter).`,
  });
}

/** The access log's line for one request (also written by the front path, front/pulls.ts). */
export function logRequest(logger: Logger, r: { requestId: string; method: string; path: string; status: number; started: number; user: string | undefined }): void {
  logger.log("info", "request", { requestId: r.requestId, method: r.method, path: r.path, status: r.status, ms: Math.round((performance.now() - r.started) * 10) / 10, user: r.user });
}

/**
 * Request id, client IP, the request line's check (request-target.ts: before authentication and every route, so no
 * malformed path or query reaches a database), bearer authentication and one structured log line per request.
 */
export function requestContext(options: { authenticator: Authenticator; logger: Logger; trustProxy: boolean; internalSecret?: string | undefined; audiences?: AudienceRule }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const requestId = requestIdFrom(c.req.header("x-request-id"));
    c.set("requestId", requestId);
    c.set("clientIp", clientIp(c, options.trustProxy, options.internalSecret));
    c.set("principal", null);
    c.header("X-Request-Id", requestId);
    checkRequestTarget(c.req.url);
    const header = c.req.header("authorization");
    if (header !== undefined) {
      const m = /^Bearer\s+(\S+)$/i.exec(header);
      const principal = m ? await options.authenticator.authenticate(m[1]!) : null;
      if (!principal) {
        throw new RyeError("UNAUTHORIZED", "The bearer token is invalid, expired or revoked", { hint: "Sign in again with `rye login` or create a new token." });
      }
      const refusal = audienceRefusal(principal.audience, c.req.path, options.audiences);
      if (refusal) throw refusal;
      c.set("principal", principal);
    }
    try {
      await next();
    } finally {
      logRequest(options.logger, { requestId, method: c.req.method, path: c.req.path, status: c.res.status, started, user: c.get("principal")?.username });
    }
  };
}
