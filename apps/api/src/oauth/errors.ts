/**
 * RFC 6749 §5.2 error responses for the JSON endpoints under /oauth/* (`{error, error_description}`),
 * and the sub-app error handler that turns anything thrown there into one.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "../logger.ts";

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "access_denied"
  | "unsupported_response_type"
  | "server_error"
  | "temporarily_unavailable"
  // RFC 8628 §3.5
  | "authorization_pending"
  | "slow_down"
  | "expired_token"
  // RFC 7009 §2.2.1
  | "unsupported_token_type"
  // OpenID Connect prompt=none (used as in OAuth 2.1 drafts)
  | "login_required"
  | "consent_required"
  // RFC 8707 §2
  | "invalid_target"
  // RFC 7591 §3.2.2
  | "invalid_redirect_uri"
  | "invalid_client_metadata";

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status: 400 | 401 | 413 | 429 | 500 | 503 = error === "invalid_client" ? 401 : 400,
    /** Extra members of the error body (e.g. the new `interval` of slow_down). */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = "OAuthError";
  }

  toJSON(): Record<string, unknown> {
    return { error: this.error, error_description: this.description, ...this.extra };
  }
}

/** Token responses and errors must not be cached (RFC 6749 §5.1). */
export function noStore(c: Context): void {
  c.header("Cache-Control", "no-store");
  c.header("Pragma", "no-cache");
}

export function oauthErrorResponse(c: Context, err: OAuthError): Response {
  noStore(c);
  for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
  return c.json(err.toJSON(), err.status);
}

/** onError for the /oauth/* JSON routes. */
export function oauthErrorHandler(logger: Logger) {
  return (err: Error, c: Context): Response => {
    if (err instanceof OAuthError) return oauthErrorResponse(c, err);
    if (err instanceof HTTPException && err.status === 413) return oauthErrorResponse(c, new OAuthError("invalid_request", "The request body is too large", 413));
    if (err instanceof HTTPException && err.status < 500) return oauthErrorResponse(c, new OAuthError("invalid_request", err.message || "Bad request"));
    logger.log("error", "unhandled error in an OAuth endpoint", { requestId: c.get("requestId"), error: err.message, stack: err.stack });
    return oauthErrorResponse(c, new OAuthError("server_error", "Internal error", 500));
  };
}
