/**
 * The registry's own OAuth clients (static: no dynamic registration). Both are public clients
 * (no secret, `token_endpoint_auth_method: none`), so PKCE and exact redirect matching carry the load.
 */
import { SCOPES } from "../auth/principal.ts";
import { OAuthError } from "./errors.ts";

export const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
export type GrantType = "authorization_code" | "refresh_token" | typeof DEVICE_CODE_GRANT;

export interface OAuthClient {
  id: string;
  name: string;
  grantTypes: readonly GrantType[];
  /** Accepts RFC 8252 loopback redirects (any port, exact host and path). */
  loopbackRedirectPath: string | null;
  allowedScopes: readonly string[];
  defaultScopes: readonly string[];
}

export const CLIENTS: readonly OAuthClient[] = [
  {
    id: "rye-cli",
    name: "rye command-line interface",
    grantTypes: [DEVICE_CODE_GRANT, "authorization_code", "refresh_token"],
    loopbackRedirectPath: "/callback",
    allowedScopes: SCOPES,
    defaultScopes: ["items:read", "items:write"],
  },
  {
    // Reserved for the website; it signs people in with web sessions today, so it has no grants yet.
    id: "rye-web",
    name: "rye website",
    grantTypes: [],
    loopbackRedirectPath: null,
    allowedScopes: SCOPES,
    defaultScopes: ["items:read"],
  },
];

export function findClient(id: string | undefined): OAuthClient | undefined {
  return CLIENTS.find((client) => client.id === id);
}

/** The client, or invalid_client (RFC 6749 §5.2). */
export function requireClient(id: string | undefined): OAuthClient {
  const client = findClient(id);
  if (!client) throw new OAuthError("invalid_client", id ? "Unknown client" : "client_id is required");
  return client;
}

export function requireGrant(client: OAuthClient, grant: GrantType): void {
  if (!client.grantTypes.includes(grant)) throw new OAuthError("unauthorized_client", `The client may not use the ${grant} grant`);
}

// Matched on the raw string, so no URL normalisation (case, dot segments, default ports, userinfo,
// query, fragment) can make another URI pass. `localhost` is refused (RFC 8252 §8.3, RFC 9700 §2.1).
const LOOPBACK = /^http:\/\/(?:127\.0\.0\.1|\[::1\]):([1-9][0-9]{0,4})(\/[^?#]*)$/;

/** RFC 8252 §7.3: `http://127.0.0.1:{port}{path}` or `http://[::1]:{port}{path}`, any port, exact path. */
export function isAllowedRedirectUri(client: OAuthClient, uri: string): boolean {
  const m = LOOPBACK.exec(uri);
  return m !== null && client.loopbackRedirectPath !== null && m[2] === client.loopbackRedirectPath && Number(m[1]) <= 65535;
}
