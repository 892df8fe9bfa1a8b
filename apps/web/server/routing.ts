/**
 * One origin: the website and the registry API share a port. These paths belong to the API; every
 * other path is the website's (including /login and /device, which replace the API's interim pages). /mcp is
 * the registry's remote MCP server (docs/remote-mcp.md).
 * Agent Skills discovery is also served per namespace (and per skill) below the namespace's page:
 * `/<namespace>[/<skill>]/.well-known/agent-skills/…`.
 */
const API_PREFIXES = ["/v1/", "/oauth/", "/.well-known/"];
const API_EXACT = new Set(["/health", "/ready", "/v1", "/mcp"]);
const SCOPED_WELL_KNOWN = /^\/[^/]+(?:\/[^/]+)?\/\.well-known\/agent-skills\//;

export function isApiPath(url: string): boolean {
  const pathname = url.split("?", 1)[0]!;
  return API_EXACT.has(pathname) || API_PREFIXES.some((prefix) => pathname.startsWith(prefix)) || SCOPED_WELL_KNOWN.test(pathname);
}
