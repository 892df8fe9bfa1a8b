/** RFC 8414 metadata of a registry's authorization server. */
import { z } from "zod";
import { RyeError } from "@rye/core";
import { readJson, registryFetch } from "./http.ts";

export const CLI_CLIENT_ID = "rye-cli";
export const CLI_SCOPE = "items:read items:write";

const endpoint = z.url({ protocol: /^https?$/ }).max(2000);

/** RFC 8414 metadata, as far as the CLI uses it. */
const authServerMetadataSchema = z.looseObject({
  issuer: z.string(),
  token_endpoint: endpoint,
  device_authorization_endpoint: endpoint.optional(),
  authorization_endpoint: endpoint.optional(),
  revocation_endpoint: endpoint.optional(),
  authorization_response_iss_parameter_supported: z.boolean().optional(),
});
export type AuthServerMetadata = z.infer<typeof authServerMetadataSchema>;

/** Endpoints must live on the registry's own origin: a metadata document cannot send the CLI elsewhere. */
function assertSameOrigin(registryUrl: string, endpoint: string | undefined, name: string): void {
  if (endpoint === undefined) return;
  if (new URL(endpoint).origin !== new URL(registryUrl).origin) {
    throw new RyeError("UNAVAILABLE", `The registry's ${name} (${endpoint}) is not on ${new URL(registryUrl).origin}`);
  }
}

export async function fetchAuthServerMetadata(registryUrl: string, signal?: AbortSignal): Promise<AuthServerMetadata> {
  const res = await registryFetch(registryUrl, "/.well-known/oauth-authorization-server", signal ? { signal } : {});
  if (res.status === 404) {
    throw new RyeError("UNAVAILABLE", `${registryUrl} does not offer sign-in (no OAuth metadata)`, { hint: "Sign in with a token instead: rye login --token-stdin" });
  }
  const metadata = readJson(res, authServerMetadataSchema);
  for (const name of ["token_endpoint", "device_authorization_endpoint", "authorization_endpoint", "revocation_endpoint"] as const) {
    assertSameOrigin(registryUrl, metadata[name] as string | undefined, name);
  }
  return metadata;
}
