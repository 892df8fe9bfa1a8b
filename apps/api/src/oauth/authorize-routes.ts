/**
 * The authorization endpoint (RFC 6749 §4.1, PKCE S256, RFC 9207 `iss`): a signed-in person sees a
 * consent page and decides; the decision comes back as a form POST carrying the session's CSRF
 * token and the (re-validated) request. Without a session the browser is sent to the login page.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { RyeError } from "@rye/core";
import { assertCsrf, readWebSession } from "../auth/web-sessions.ts";
import type { AppEnv } from "../env.ts";
import { type AuthorizationRequest, authorizationResponseUrl, validateAuthorizationRequest } from "./authorization-request.ts";
import { consentPage, errorPage } from "./pages.ts";
import { fromEntries, MAX_PARAMS_BYTES, readParams, type Params } from "./params.ts";
import type { OAuthDeps, OAuthServices } from "./services.ts";

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
  const { issuer, codes } = services;
  const publicUrl = deps.config.publicUrl;
  const authorizePath = new URL(`${publicUrl}/oauth/authorize`).pathname;

  /** The valid request, or the response for an invalid one (error page or error redirect). */
  function validate(c: Context<AppEnv>, params: Params): AuthorizationRequest | Response {
    const result = validateAuthorizationRequest(params, issuer);
    if (result.ok) return result.request;
    return "page" in result ? errorPage(c, 400, result.page) : c.redirect(result.redirectTo, 302);
  }

  return new Hono<AppEnv>()
    .get("/oauth/authorize", async (c) => {
      const url = new URL(c.req.url);
      const request = validate(c, fromEntries(url.searchParams, badParams));
      if (request instanceof Response) return request;
      const session = await readWebSession(c, deps.db);
      if (request.prompt === "none") {
        // No interaction allowed, and consent is never remembered: the client must ask interactively.
        const error = session ? "consent_required" : "login_required";
        return c.redirect(authorizationResponseUrl(request.redirectUri, issuer, { error, state: request.state }), 302);
      }
      // `next` is a same-origin path (what the login page accepts), including any path prefix of publicUrl.
      if (!session) return c.redirect(`${publicUrl}/login?next=${encodeURIComponent(`${authorizePath}${url.search}`)}`, 302);
      return consentPage(c, request, session, `${publicUrl}/oauth/authorize/decision`);
    })
    .post("/oauth/authorize/decision", bodyLimit({ maxSize: MAX_PARAMS_BYTES }), async (c) => {
      const session = await readWebSession(c, deps.db);
      if (!session) throw new PageError(401, "Your session ended. Start the sign-in again from the application.");
      const params = await readParams(c, badParams);
      assertCsrf(session, params.csrf_token);
      const request = validate(c, params);
      if (request instanceof Response) return request;
      const respond = (result: Record<string, string>) => c.redirect(authorizationResponseUrl(request.redirectUri, issuer, { ...result, state: request.state }), 302);
      if (params.decision === "deny") return respond({ error: "access_denied", error_description: "The request was denied" });
      if (params.decision !== "approve") throw new PageError(400, "decision must be approve or deny.");
      const code = await codes.create({ clientId: request.client.id, userId: session.userId, redirectUri: request.redirectUri, scope: request.scope, codeChallenge: request.codeChallenge });
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
