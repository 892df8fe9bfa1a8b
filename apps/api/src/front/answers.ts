/**
 * The front path (issue #33): the two answers a registry gives most often, written before the Hono app by the same
 * functions its routes use, without the framework's per-request machinery (router, context, header objects,
 * validators), which costs several times the work of these answers themselves.
 *
 * `GET /health` (exactly: no query): routes/health.ts's answer from the shared database probe, `no-store`.
 *
 * `GET /v1/pull/{type}/{id}[?version=]`: answered straight from the pull cache (services/pull-cache.ts) when the
 * answer is the cached one byte for byte — the pull route's own cache hit. It answers only what the route would
 * answer the same way, and passes everything else to the app:
 * - a GET with no Authorization, If-None-Match or X-Rye-Purpose header (tokens, revalidations and views take the
 *   route), a path of unreserved characters only and no query or exactly `version=<unreserved>` (anything the app
 *   would decode, repeat or refuse goes to the app, which gives the same answer or the error);
 * - a cached answer of the current read generation that is not private, not held and not a mirror's (private answers
 *   need the authorization check, mirrors' their own headers);
 * - within the caller's read budget (over it, the app answers the 429).
 * What the app's middleware does for every request is done here by the same functions: the request-target check,
 * the request id (kept from X-Request-Id or new), the client address, the rate limit and its headers (/v1 only), the
 * access log line; and the download is counted as the route counts it (services/download-policy.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NodeListener } from "../graceful.ts";
import { rateLimitCaller, rateLimiter, type RateLimitVerdict } from "../middleware/rate-limit.ts";
import { clientAddress, logRequest, requestIdFrom } from "../middleware/request-context.ts";
import { checkRequestTarget } from "../middleware/request-target.ts";
import { healthAnswer } from "../routes/health.ts";
import { databaseProbeOf, type DatabaseProbe, type DatabaseState } from "../services/database-probe.ts";
import type { AppDeps } from "../services/deps.ts";
import { isDownload } from "../services/download-policy.ts";
import { pullCacheKey, type PullAnswer } from "../services/pull-cache.ts";

const PREFIX = "/v1/pull/";

/** A request header as the app reads it (repeated ones joined). */
function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}
/** `{type}/{id}`: RFC 3986 unreserved characters and slashes, nothing that decodes to something else. */
const PLAIN_PATH = /^[a-z]+\/[A-Za-z0-9._~-]+(?:\/[A-Za-z0-9._~-]+)*$/;
/** A version as sent: unreserved characters only (`+` is a space in a query, `%` an escape: the app decodes those). */
const PLAIN_VERSION = /^[A-Za-z0-9._~-]+$/;

interface PullTarget {
  path: string;
  type: string;
  id: string;
  version: string | undefined;
}

/** The pull a request target names, when it is one the front path may answer; null otherwise. */
export function plainPullTarget(url: string): PullTarget | null {
  if (!url.startsWith(PREFIX)) return null;
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  const rest = path.slice(PREFIX.length);
  if (!PLAIN_PATH.test(rest)) return null;
  let version: string | undefined;
  if (q !== -1) {
    const query = url.slice(q + 1);
    if (!query.startsWith("version=")) return null;
    version = query.slice("version=".length);
    if (!PLAIN_VERSION.test(version)) return null;
  }
  const slash = rest.indexOf("/");
  return { path, type: rest.slice(0, slash), id: rest.slice(slash + 1), version };
}

export class FrontAnswers {
  /** Requests answered here (tests and benchmarks read it). */
  served = 0;
  private readonly limit: (method: string, caller: string) => RateLimitVerdict | Promise<RateLimitVerdict>;
  private readonly probe: DatabaseProbe;
  private healthBody: { state: DatabaseState; body: Buffer } | null = null;

  constructor(private readonly deps: AppDeps) {
    this.limit = rateLimiter({ ...deps.config.rateLimit, counters: deps.requestCounters });
    this.probe = databaseProbeOf(deps.db);
  }

  /** `next` with the front path before it. */
  listener(next: NodeListener): NodeListener {
    return (req, res) => {
      const answering = this.begin(req, res);
      if (!answering) return next(req, res);
      answering.then(
        (answered) => {
          if (!answered) next(req, res);
        },
        // Nothing is written before the last step; should writing itself fail, the connection is closed.
        () => (res.headersSent ? res.destroy() : next(req, res)),
      );
    };
  }

  /** The answer under way (true: answered; false: nothing written, the app's), or null for a request not answered here. */
  private begin(req: IncomingMessage, res: ServerResponse): Promise<boolean> | null {
    if (req.method !== "GET") return null;
    if (req.url === "/health") return this.health(req, res);
    const target = this.eligible(req);
    return target ? this.answer(req, res, target) : null;
  }

  private async health(req: IncomingMessage, res: ServerResponse): Promise<true> {
    const started = performance.now();
    const probed = this.probe.state();
    const state = probed instanceof Promise ? await probed : probed;
    // The answer changes only with the probe's state: its bytes are kept for it.
    if (this.healthBody?.state !== state) this.healthBody = { state, body: Buffer.from(JSON.stringify(healthAnswer(this.deps, state))) };
    const { body } = this.healthBody;
    const requestId = requestIdFrom(headerOf(req, "x-request-id"));
    res.writeHead(200, { "x-request-id": requestId, "cache-control": "no-store", "content-type": "application/json", "content-length": body.byteLength });
    res.end(body);
    this.served++;
    logRequest(this.deps.logger, { requestId, method: "GET", path: "/health", status: 200, started, user: undefined });
    return true;
  }

  private eligible(req: IncomingMessage): PullTarget | null {
    const h = req.headers;
    if (h.authorization !== undefined || h["if-none-match"] !== undefined || h["x-rye-purpose"] !== undefined) return null;
    return plainPullTarget(req.url ?? "");
  }

  /** Answers the pull and returns true, or returns false having written nothing. */
  private async answer(req: IncomingMessage, res: ServerResponse, target: PullTarget): Promise<boolean> {
    const started = performance.now();
    const { deps } = this;
    checkRequestTarget(`http://front${req.url}`);
    const generation = await deps.reads.generation.current();
    const answer: PullAnswer | undefined = deps.reads.cache.get(pullCacheKey(target.type, target.id, target.version), generation);
    if (!answer || answer.mirrored || answer.access.visibility === "private" || answer.status !== "published") return false;
    const header = (name: string) => headerOf(req, name);
    const ip = clientAddress(header, () => req.socket.remoteAddress, deps.config.trustProxy, deps.internalSecret);
    const counted = this.limit("GET", rateLimitCaller(undefined, ip));
    const { headers: limits, refusal } = counted instanceof Promise ? await counted : counted;
    // Over the budget: the app answers the 429 (counting this request once more changes nothing past the limit).
    if (refusal) return false;
    const requestId = requestIdFrom(header("x-request-id"));
    // The route's rule (a skill's pull is its manifest alone: no download); eligible() let no X-Rye-Purpose through.
    if (isDownload("GET", undefined, { status: answer.status, whole: target.type !== "skill", mirrored: answer.mirrored })) deps.reads.downloads.add(answer.itemId, answer.version);
    res.writeHead(200, {
      "x-request-id": requestId,
      "ratelimit-limit": limits["RateLimit-Limit"],
      "ratelimit-remaining": limits["RateLimit-Remaining"],
      "ratelimit-reset": limits["RateLimit-Reset"],
      etag: answer.etag,
      vary: "Authorization",
      "cache-control": answer.cacheControl,
      "content-type": "application/json",
      "content-length": answer.body.byteLength,
    });
    res.end(answer.body);
    this.served++;
    logRequest(deps.logger, { requestId, method: "GET", path: target.path, status: 200, started, user: undefined });
    return true;
  }
}
