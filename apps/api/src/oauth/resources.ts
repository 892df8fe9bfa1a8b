/**
 * RFC 8707 resource indicators: the registry's two protected resources are the registry API (`<public URL>`, the
 * issuer) and its MCP server (`<public URL>/mcp`). Every access token is issued for one of them (its `aud`), and the
 * request context accepts it only there (middleware/request-context.ts), so a token obtained for /mcp is not passed
 * through to /v1 and the other way round unless the operator opts in (RYE_OAUTH_ACCEPT_ANY_AUDIENCE).
 */
import type { AudienceRule } from "../middleware/request-context.ts";
import type { OAuthClient } from "./clients.ts";
import { OAuthError } from "./errors.ts";

export const MCP_RESOURCE_PATH = "/mcp";

export interface Resources {
  api: string;
  mcp: string;
}

export function resourcesOf(publicUrl: string): Resources {
  const base = publicUrl.replace(/\/+$/, "");
  return { api: base, mcp: `${base}${MCP_RESOURCE_PATH}` };
}

/** The request context's rule for the app's configuration. */
export function audienceRule(config: { publicUrl: string; oauth?: { acceptAnyAudience: boolean } }): AudienceRule {
  const { api, mcp } = resourcesOf(config.publicUrl);
  return { api, mcp, mcpPath: MCP_RESOURCE_PATH, acceptAny: config.oauth?.acceptAnyAudience ?? false };
}

/**
 * The resource a token request is for: `raw` (the `resource` parameter, compared exactly, no normalisation) when the
 * client may have it, else the client's default (first-party: the API; third-party: /mcp). Throws invalid_target.
 */
export function parseResource(raw: string | undefined, client: OAuthClient, publicUrl: string): string {
  const resources = resourcesOf(publicUrl);
  const allowed = client.resources.map((name) => resources[name]);
  if (raw === undefined || raw === "") return allowed[0]!;
  if (!allowed.includes(raw)) {
    throw new OAuthError("invalid_target", `This client may ask for the resource${allowed.length > 1 ? "s" : ""} ${allowed.join(", ")} only, not ${raw.slice(0, 200)}`);
  }
  return raw;
}
