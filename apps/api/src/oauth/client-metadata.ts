/**
 * The client metadata a third-party client declares (RFC 7591 §2), in a Client ID Metadata Document or a dynamic
 * registration request: checked the same way for both, and only what the registry acts on is kept (its name and
 * redirect URIs). Anything that would make it a confidential client, or ask for more than the authorization code
 * grant, is refused.
 */
import { THIRD_PARTY_GRANTS } from "./clients.ts";

export const CLIENT_METADATA_LIMITS = {
  maxRedirectUris: 10,
  maxRedirectUriLength: 2000,
  maxClientNameLength: 100,
} as const;

/** Schemes a redirect may never use (they run code or read local data in the browser). */
const FORBIDDEN_SCHEMES = new Set(["javascript", "data", "file", "vbscript", "blob", "about", "ftp", "ws", "wss", "http"]);
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

export interface DeclaredClient {
  name: string;
  redirectUris: string[];
}

export class ClientMetadataError extends Error {
  override name = "ClientMetadataError";
}

/** Why `uri` cannot be a third-party redirect URI, or null: https, http on a loopback host (RFC 8252 §7.3), or a private-use scheme (§7.1). */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > CLIENT_METADATA_LIMITS.maxRedirectUriLength) return `is longer than ${CLIENT_METADATA_LIMITS.maxRedirectUriLength} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not an absolute URI";
  }
  if (uri.includes("#")) return "has a fragment";
  if (url.username || url.password) return "has credentials";
  const scheme = url.protocol.slice(0, -1);
  if (scheme === "https") return url.hostname ? null : "has no host";
  if (scheme === "http") return LOOPBACK_HOSTS.has(url.hostname) ? null : "uses http on a host that is not loopback (127.0.0.1, [::1], localhost)";
  if (FORBIDDEN_SCHEMES.has(scheme)) return `uses the ${scheme}: scheme`;
  return null;
}

const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === "string");

/** The name and redirect URIs of `metadata`; throws ClientMetadataError saying what is wrong. */
export function checkClientMetadata(metadata: unknown): DeclaredClient {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) throw new ClientMetadataError("the client metadata must be a JSON object");
  const m = metadata as Record<string, unknown>;
  const name = m.client_name;
  if (typeof name !== "string" || name.trim() === "") throw new ClientMetadataError("client_name is required");
  if (name.length > CLIENT_METADATA_LIMITS.maxClientNameLength) throw new ClientMetadataError(`client_name is longer than ${CLIENT_METADATA_LIMITS.maxClientNameLength} characters`);
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new ClientMetadataError("client_name has control characters");
  const uris = m.redirect_uris;
  if (!isStringArray(uris) || uris.length === 0) throw new ClientMetadataError("redirect_uris must be a non-empty array of strings");
  if (uris.length > CLIENT_METADATA_LIMITS.maxRedirectUris) throw new ClientMetadataError(`at most ${CLIENT_METADATA_LIMITS.maxRedirectUris} redirect_uris are accepted`);
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new ClientMetadataError(`redirect URI ${JSON.stringify(uri.slice(0, 200))} ${problem}`);
  }
  if (m.client_secret !== undefined || m.client_secret_expires_at !== undefined) throw new ClientMetadataError("a public client has no client_secret");
  const method = m.token_endpoint_auth_method;
  if (method !== undefined && method !== "none") throw new ClientMetadataError(`token_endpoint_auth_method must be none (public clients only), not ${String(method).slice(0, 50)}`);
  const grants = m.grant_types;
  if (grants !== undefined && (!isStringArray(grants) || !grants.includes("authorization_code") || grants.some((g) => !THIRD_PARTY_GRANTS.includes(g as never)))) {
    throw new ClientMetadataError(`grant_types must include authorization_code and may add refresh_token, nothing else`);
  }
  const responses = m.response_types;
  if (responses !== undefined && (!isStringArray(responses) || responses.some((r) => r !== "code"))) throw new ClientMetadataError("response_types may only be [\"code\"]");
  return { name: name.trim(), redirectUris: [...new Set(uris)] };
}
