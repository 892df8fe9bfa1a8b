/** Who is calling: resolved from a bearer token by an Authenticator. */
export const SCOPES = ["items:read", "items:write", "org:admin"] as const;
export type Scope = (typeof SCOPES)[number];

export interface Principal {
  userId: string;
  username: string;
  isAdmin: boolean;
  scopes: string[];
  /** The token's id (rate limiting and audit). */
  tokenId: string;
  /**
   * What kind of credential `tokenId` names: a personal/CI token's row id, a login access token's jti, a browser
   * session's row id (`session:<id>`), or the registry itself (seeding). Absent: a personal token. Never a secret:
   * publish log entries name it (auth/credential.ts).
   */
  via?: "token" | "access_token" | "session" | "system";
  /** When set, the token may only write to this namespace. */
  namespace: string | null;
  /** When set, the token may only write item ids matching this glob (services/tokens.ts tokenAllowsItem). */
  itemPattern?: string | null;
  /** OAuth access tokens only: the resource (RFC 8707) the token was issued for; the request context enforces it. */
  audience?: string;
  /**
   * Reads arrive through a remote MCP client: the registry's /mcp (mcp/http.ts), or an access token issued to a
   * third-party OAuth client. Organizations that forbid remote MCP clients are then read as by an outsider, registry
   * admin or not (services/access.ts namespaceAccess).
   */
  remoteMcp?: boolean;
}

/** `principal` as a remote MCP client sees the registry (see Principal.remoteMcp). */
export function asRemoteMcp(principal: Principal): Principal {
  return principal.remoteMcp ? principal : { ...principal, remoteMcp: true };
}

export interface Authenticator {
  /** The principal for a bearer token, or null when the token is unknown, expired or revoked. */
  authenticate(token: string): Promise<Principal | null>;
}

/** What the bearer token of a request may do: the ceiling for tokens it mints (services/tokens.ts tokenCeilingOf). */
export interface TokenCeiling {
  type: "pat" | "jwt";
  id: string;
  scopes: string[];
  /** Unknown (null) for JWT access tokens; null for a personal token means it never expires. */
  expiresAt: Date | null;
  namespace: string | null;
  itemPattern: string | null;
  orgId: string | null;
}
