/**
 * What the OAuth route declarations (the *-routes.ts files, protected-resource.ts) share: the RFC 6749 §5.2 error
 * body of the form-encoded /oauth/* endpoints, the parameters several requests have, and their media types. Their
 * requests are declared for the document only: params.ts parses them, so that a bad one gets the endpoint's own
 * answer (an RFC 6749 error, an HTML page, a redirect) rather than a validator's.
 */
import { z } from "zod";
import type { Same } from "../contract/operation.ts";
import type { ResponseHeaders } from "../contract/route.ts";
import { SCOPES } from "../auth/principal.ts";
import { CLIENTS, DEVICE_CODE_GRANT, type GrantType } from "./clients.ts";
import type { OAuthErrorCode } from "./errors.ts";
import { USER_CODE_ALPHABET } from "./user-code.ts";

/** Every code errors.ts may answer with (checked below: none missing, none extra). */
const OAUTH_ERROR_CODES = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
  "access_denied",
  "unsupported_response_type",
  "server_error",
  "temporarily_unavailable",
  "authorization_pending",
  "slow_down",
  "expired_token",
  "unsupported_token_type",
  "login_required",
  "consent_required",
  "invalid_target",
  "invalid_redirect_uri",
  "invalid_client_metadata",
] as const satisfies readonly OAuthErrorCode[];
true satisfies Same<(typeof OAUTH_ERROR_CODES)[number], OAuthErrorCode>;

export const GRANT_TYPES = ["authorization_code", "refresh_token", DEVICE_CODE_GRANT] as const satisfies readonly GrantType[];
true satisfies Same<(typeof GRANT_TYPES)[number], GrantType>;

/** The error body of the form-encoded endpoints; the document's OAuth error responses refer to it (contract/document.ts). */
export const OAuthErrorBody = z
  .object({
    error: z.enum(OAUTH_ERROR_CODES),
    error_description: z.string(),
    interval: z.number().int().optional().meta({ description: "slow_down only: the polling interval to keep from now on, in seconds (RFC 8628 §3.5)." }),
  })
  .meta({ id: "OAuthError", description: "RFC 6749 §5.2 error of the form-encoded /oauth/* endpoints (Cache-Control: no-store)." });

const clientsFor = (grant: GrantType) => CLIENTS.filter((client) => client.grantTypes.includes(grant)).map((client) => client.id);
const THIRD_PARTY = "the https URL of a third-party client's metadata document (Client ID Metadata Document), or the client_id POST /oauth/register issued";
/** client_id of a request: any registry client, or those that may use `grant`. */
export const clientId = (grant?: GrantType) =>
  z.string().meta({
    description: `A public client (no secret, token_endpoint_auth_method none): ${(grant ? clientsFor(grant) : CLIENTS.map((client) => client.id)).join(", ")}${grant === DEVICE_CODE_GRANT ? "" : `, or ${THIRD_PARTY}`}. Unknown, missing or a refused metadata document: invalid_client.`,
    examples: grant ? clientsFor(grant) : CLIENTS.map((client) => client.id),
  });
export const resource = z.string().meta({
  description: "RFC 8707 resource indicator: <public URL> (the registry API) or <public URL>/mcp (the MCP server), compared exactly. The access tokens' audience; they are accepted only there. Default: the API for the registry's own clients, /mcp for third-party clients (which may have /mcp only). Otherwise invalid_target.",
});
export const scope = z.string().meta({
  description: `Space-separated, of ${SCOPES.join(", ")}. Default: the client's default scopes (${CLIENTS.map((client) => `${client.id}: ${client.defaultScopes.join(" ")}`).join("; ")}).`,
});
export const userCode = z.string().regex(new RegExp(`^[${USER_CODE_ALPHABET}]{4}-[${USER_CODE_ALPHABET}]{4}$`));

/** A request body read by params.ts: form-encoded or a JSON object of strings. Document only (no validator). */
export function formRequest<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/x-www-form-urlencoded": { schema }, "application/json": { schema } } };
}

export const NO_STORE: ResponseHeaders = { "Cache-Control": { $ref: "#/components/headers/NoStore" } };
export const METADATA_CACHED = "Cache-Control: public, max-age=300";
