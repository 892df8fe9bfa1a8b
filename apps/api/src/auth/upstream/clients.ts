/** One protocol adapter per configured provider, built once (adapters cache their discovery). */
import type { UpstreamProvider } from "./config.ts";
import { githubClient } from "./github-client.ts";
import { oidcClient } from "./oidc-client.ts";
import type { UpstreamClient } from "./upstream-client.ts";

export function upstreamClientFor(provider: UpstreamProvider): UpstreamClient {
  return provider.type === "oidc" ? oidcClient(provider) : githubClient(provider);
}
