/**
 * OAuth clients. The registry's own (static, first-party) and third-party ones, which identify themselves by a Client
 * ID Metadata Document (client-metadata-documents.ts) or registered themselves (dynamic-clients.ts). All are public
 * clients (no secret, `token_endpoint_auth_method: none`), so PKCE and exact redirect matching carry the load.
 */
import { SCOPES } from "../auth/principal.ts";
import { OAuthError } from "./errors.ts";

export const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
export type GrantType = "authorization_code" | "refresh_token" | typeof DEVICE_CODE_GRANT;

/**
 * first-party: the registry's own; metadata-document: a third party whose client_id is the https URL of its metadata;
 * dynamic: a third party that registered itself (RFC 7591).
 */
export type ClientKind = "first-party" | "metadata-document" | "dynamic";
/** The registry's protected resources (resources.ts): the API and the MCP server. */
export type ResourceName = "api" | "mcp";

export interface OAuthClient {
  id: string;
  name: string;
  kind: ClientKind;
  grantTypes: readonly GrantType[];
  /** Accepts RFC 8252 loopback redirects (any port, exact host and path). First-party only. */
  loopbackRedirectPath: string | null;
  /** Third-party: the registered redirect URIs, matched exactly. */
  redirectUris: readonly string[];
  allowedScopes: readonly string[];
  defaultScopes: readonly string[];
  /** The resources it may get tokens for; the first is the default when it names none. */
  resources: readonly ResourceName[];
}

/** What a third-party client may do: read the registry through /mcp, nothing more. */
export const THIRD_PARTY_SCOPES = ["items:read"] as const;
export const THIRD_PARTY_GRANTS: readonly GrantType[] = ["authorization_code", "refresh_token"];

export function thirdPartyClient(id: string, kind: Exclude<ClientKind, "first-party">, name: string, redirectUris: readonly string[]): OAuthClient {
  return { id, name, kind, grantTypes: THIRD_PARTY_GRANTS, loopbackRedirectPath: null, redirectUris, allowedScopes: THIRD_PARTY_SCOPES, defaultScopes: THIRD_PARTY_SCOPES, resources: ["mcp"] };
}

export const CLIENTS: readonly OAuthClient[] = [
  {
    id: "rye-cli",
    name: "rye command-line interface",
    kind: "first-party",
    grantTypes: [DEVICE_CODE_GRANT, "authorization_code", "refresh_token"],
    loopbackRedirectPath: "/callback",
    redirectUris: [],
    allowedScopes: SCOPES,
    defaultScopes: ["items:read", "items:write"],
    resources: ["api", "mcp"],
  },
  {
    // Reserved for the website; it signs people in with web sessions today, so it has no grants yet.
    id: "rye-web",
    name: "rye website",
    kind: "first-party",
    grantTypes: [],
    loopbackRedirectPath: null,
    redirectUris: [],
    allowedScopes: SCOPES,
    defaultScopes: ["items:read"],
    resources: ["api"],
  },
];

/** A first-party client. Third-party ones are resolved by client-directory.ts. */
export function findClient(id: string | undefined): OAuthClient | undefined {
  return CLIENTS.find((client) => client.id === id);
}

export function requireGrant(client: OAuthClient, grant: GrantType): void {
  if (!client.grantTypes.includes(grant)) throw new OAuthError("unauthorized_client", `The client may not use the ${grant} grant`);
}

// Matched on the raw string, so no URL normalisation (case, dot segments, default ports, userinfo,
// query, fragment) can make another URI pass. `localhost` is refused (RFC 8252 §8.3, RFC 9700 §2.1).
const LOOPBACK = /^http:\/\/(?:127\.0\.0\.1|\[::1\]):([1-9][0-9]{0,4})(\/[^?#]*)$/;

/**
 * First-party: RFC 8252 §7.3 `http://127.0.0.1:{port}{path}` or `http://[::1]:{port}{path}`, any port, exact path.
 * Third-party: exactly one of its registered redirect URIs (string equality).
 */
export function isAllowedRedirectUri(client: OAuthClient, uri: string): boolean {
  if (client.kind !== "first-party") return client.redirectUris.includes(uri);
  const m = LOOPBACK.exec(uri);
  return m !== null && client.loopbackRedirectPath !== null && m[2] === client.loopbackRedirectPath && Number(m[1]) <= 65535;
}
