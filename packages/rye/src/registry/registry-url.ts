/** Which registry a command talks to: `--registry`, else `$RYE_REGISTRY_URL`, else the local default. */
import { RyeError } from "@rye/core";

export const DEFAULT_REGISTRY_URL = "http://localhost:3000";

export function normalizeRegistryUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RyeError("BAD_REQUEST", `Not a registry URL: ${JSON.stringify(raw)}`, { hint: "Use e.g. https://registry.example.com" });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new RyeError("BAD_REQUEST", "Registry URLs use http or https");
  if (url.protocol === "http:" && !isLoopback(url.hostname)) {
    throw new RyeError("BAD_REQUEST", `Refusing plain http to ${url.hostname}: tokens would travel unencrypted`, { hint: "Use https (http is allowed for localhost only)." });
  }
  if (url.username || url.password) throw new RyeError("BAD_REQUEST", "Registry URLs must not contain credentials");
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
}

export function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || hostname === "::1" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

export function resolveRegistryUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return normalizeRegistryUrl(flag ?? env.RYE_REGISTRY_URL ?? DEFAULT_REGISTRY_URL);
}
