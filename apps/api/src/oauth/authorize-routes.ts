/**
 * The authorization endpoint (RFC 6749 §4.1, PKCE S256, RFC 9207 `iss`): a signed-in person sees a
 * consent page and decides; the decision comes back as a form POST carrying the session's CSRF
 * token and the (re-validated) request. Without a session the browser is sent to the login page.
 * Both requests are declared for the document only: authorization-request.ts validates them, so that a bad one
 * gets an HTML page or an error redirect (RFC 6749 §4.1.2.1), never a validator's answer.
 */
import { createRoute } from "@hono/zod-openapi";
import { Hono } from "hono";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { RyeError } from "@rye/core";
import { assertCsrf, readWebSession } from "../auth/web-sessions.ts";
import { access, errors, noBody, type ResponseHeaders } from "../contract/route.ts";
import type { AppEnv } from "../env.ts";
import { type AuthorizationRequest, authorizationResponseUrl, validateAuthorizationRequest } from "./authorization-request.ts";
import { CLIENTS } from "./clients.ts";
import { clientId, formRequest, resource, scope } from "./contract.ts";
import { recordAudit } from "../services/audit.ts";
import { consentPage, errorPage } from "./pages.ts";
import { fromEntries, MAX_PARAMS_BYTES, readParams, type Params } from "./params.ts";
import type { OAuthDeps, OAuthServices } from "./services.ts";

// ---------------------------------------------------------------- declarations
const loopbacks = CLIENTS.filter((client) => client.loopbackRedirectPath).map((client) => `${client.id}: http://127.0.0.1:{port}${client.loopbackRedirectPath} or http://[::1]:{port}${client.loopbackRedirectPath}`);
const AuthorizationQuery = z.object({
  response_type: z.literal("code"),
  client_id: clientId("authorization_code"),
  redirect_uri: z.string().meta({ description: `The registry's own clients: a loopback redirect (RFC 8252 §7.3), any port, exact path: ${loopbacks.join("; ")}; localhost is refused. Third-party clients: exactly one of the redirect_uris of their metadata document or registration.` }),
  state: z.string().min(1).max(512),
  code_challenge: z.string().regex(/^[A-Za-z0-9_-]{43}$/).meta({ description: "BASE64URL(SHA256(code_verifier)) (RFC 7636)." }),
  code_challenge_method: z.literal("S256"),
  scope: scope.optional(),
  resource: resource.optional(),
  prompt: z.string().optional().meta({ description: "none: no interaction; since consent is never remembered, the answer is a login_required or consent_required error redirect." }),
});
const AuthorizationDecision = AuthorizationQuery.omit({ prompt: true })
  .extend({
    csrf_token: z.string().meta({ description: "The session's CSRF token (a hidden field of the consent page)." }),
    decision: z.enum(["approve", "deny"]),
  })
  .meta({ id: "AuthorizationDecision", description: "The consent page's form: the authorization request in hidden fields (validated again), the session's CSRF token and the button pressed." });

const LOCATION: ResponseHeaders = { Location: { required: true, schema: { type: "string", format: "uri" } } };

export const authorizeRoute = createRoute({
  method: "get",
  path: "/oauth/authorize",
  operationId: "authorize",
  summary: "RFC 6749 authorization endpoint (PKCE S256, RFC 9207 iss): the consent page for a signed-in person",
  tags: ["oauth"],
  "x-rye-error-format": "html",
  ...access("optional-session"),
  request: { query: AuthorizationQuery },
  responses: {
    200: { description: "The consent page: an HTML form posting to /oauth/authorize/decision (no scripts, no framing, Cache-Control: no-store)", content: { "text/html": { schema: z.string() } } },
    302: noBody(
      "Without a session: to <issuer>/login?next=<this request>. Once client_id and redirect_uri are valid, every other problem and prompt=none (login_required, consent_required) go to redirect_uri with error, error_description, state and iss.",
      LOCATION,
    ),
    ...errors([400, "HTML page, never a redirect (RFC 6749 §4.1.2.1): unknown or missing client_id, unregistered redirect_uri, repeated parameter"]),
  },
});
export const authorizationDecisionRoute = createRoute({
  method: "post",
  path: "/oauth/authorize/decision",
  operationId: "decideAuthorization",
  summary: "The consent page's decision",
  tags: ["oauth"],
  "x-rye-error-format": "html",
  ...access("session"),
  request: { body: formRequest(AuthorizationDecision) },
  responses: {
    302: noBody("To redirect_uri with code, state and iss (approve), with error=access_denied, error_description, state and iss (deny), or with the error of an invalid request", LOCATION),
    ...errors(
      [400, "HTML page: decision neither approve nor deny, unknown client or redirect_uri, malformed or oversized body"],
      [401, "HTML page: no session (it ended)"],
      [403, "HTML page: missing or wrong csrf_token"],
    ),
  },
});

// ---------------------------------------------------------------- handlers
class PageError extends Error {
  constructor(
    readonly status: 400 | 401 | 403,
    message: string,
  ) {
    super(message);
  }
}
const badParams = (message: string) => new PageError(400, message);

export function authorizeRoutes(deps: OAuthDeps, services: OAuthServices): Hono<AppEnv> {
  const { issuer, codes, clients } = services;
  const publicUrl = deps.config.publicUrl;
  const authorizePath = new URL(`${publicUrl}/oauth/authorize`).pathname;

  /** The valid request, or the response for an invalid one (error page or error redirect). */
  async function validate(c: Context<AppEnv>, params: Params): Promise<AuthorizationRequest | Response> {
    const result = await validateAuthorizationRequest(params, issuer, clients);
    if (result.ok) return result.request;
    return "page" in result ? errorPage(c, 400, result.page) : c.redirect(result.redirectTo, 302);
  }

  /**
   * The organizations whose private items a third-party client's token of this person can read, and those it cannot
   * because they forbid remote MCP clients (both shown to the person before they approve).
   */
  async function organizationsOf(userId: string): Promise<{ organizations: string[]; withheldOrganizations: string[] }> {
    const rows = await deps.db.prisma.membership.findMany({ where: { userId }, select: { organization: { select: { name: true, allowRemoteMcp: true } } } });
    const names = (allowed: boolean) => rows.filter((row) => row.organization.allowRemoteMcp === allowed).map((row) => row.organization.name).sort();
    return { organizations: names(true), withheldOrganizations: names(false) };
  }

  return new Hono<AppEnv>()
    .get(authorizeRoute.path, async (c) => {
      const url = new URL(c.req.url);
      const request = await validate(c, fromEntries(url.searchParams, badParams));
      if (request instanceof Response) return request;
      const session = await readWebSession(c, deps.db);
      if (request.prompt === "none") {
        // No interaction allowed, and consent is never remembered: the client must ask interactively.
        const error = session ? "consent_required" : "login_required";
        return c.redirect(authorizationResponseUrl(request.redirectUri, issuer, { error, state: request.state }), 302);
      }
      // `next` is a same-origin path (what the login page accepts), including any path prefix of publicUrl.
      if (!session) return c.redirect(`${publicUrl}/login?next=${encodeURIComponent(`${authorizePath}${url.search}`)}`, 302);
      const organizations = request.client.kind === "first-party" ? {} : await organizationsOf(session.userId);
      return consentPage(c, request, { ...session, ...organizations }, `${publicUrl}/oauth/authorize/decision`);
    })
    .post(authorizationDecisionRoute.path, bodyLimit({ maxSize: MAX_PARAMS_BYTES }), async (c) => {
      const session = await readWebSession(c, deps.db);
      if (!session) throw new PageError(401, "Your session ended. Start the sign-in again from the application.");
      const params = await readParams(c, badParams);
      assertCsrf(session, params.csrf_token);
      const request = await validate(c, params);
      if (request instanceof Response) return request;
      const respond = (result: Record<string, string>) => c.redirect(authorizationResponseUrl(request.redirectUri, issuer, { ...result, state: request.state }), 302);
      if (params.decision !== "approve" && params.decision !== "deny") throw new PageError(400, "decision must be approve or deny.");
      const audit = () =>
        recordAudit(deps.db.prisma, {
          actorId: session.userId,
          action: params.decision === "approve" ? "oauth.consent.approve" : "oauth.consent.deny",
          targetType: "oauth_client",
          targetId: request.client.id,
          details: { client_name: request.client.name, client_kind: request.client.kind, redirect_uri: request.redirectUri, scope: request.scope.join(" "), resource: request.resource },
          ip: c.get("clientIp"),
          requestId: c.get("requestId"),
        });
      if (params.decision === "deny") {
        await audit();
        return respond({ error: "access_denied", error_description: "The request was denied" });
      }
      const code = await codes.create({ clientId: request.client.id, userId: session.userId, redirectUri: request.redirectUri, scope: request.scope, codeChallenge: request.codeChallenge, resource: request.resource });
      await audit();
      return respond({ code });
    })
    .onError((err, c) => {
      if (err instanceof PageError) return errorPage(c, err.status, err.message);
      if (err instanceof RyeError && err.code === "FORBIDDEN") return errorPage(c, 403, "The form expired or did not come from this site. Start the sign-in again.");
      if (err instanceof HTTPException && err.status < 500) return errorPage(c, 400, "The request is malformed or too large.");
      deps.logger.log("error", "unhandled error in the authorization endpoint", { requestId: c.get("requestId"), error: err.message, stack: err.stack });
      return errorPage(c, 500, "Internal error. Try again later.");
    });
}
