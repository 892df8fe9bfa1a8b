/**
 * One origin: the website and the registry API share a port. These paths belong to the API; every
 * other path is the website's (including /login and /device, which replace the API's interim pages).
 */
const API_PREFIXES = ["/v1/", "/oauth/", "/.well-known/"];
const API_EXACT = new Set(["/health", "/v1"]);

export function isApiPath(url: string): boolean {
  const pathname = url.split("?", 1)[0]!;
  return API_EXACT.has(pathname) || API_PREFIXES.some((prefix) => pathname.startsWith(prefix));
}
