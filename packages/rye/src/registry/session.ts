/**
 * The access token for a registry: `$RYE_TOKEN`, else the stored credential, refreshed transparently
 * (rotating refresh tokens) a minute before it expires. A lock file keeps two rye processes from
 * refreshing at once — presenting a refresh token twice would revoke the whole session.
 */
import { join } from "node:path";
import { z } from "zod";
import { RyeError } from "@rye/core";
import { withFileLock } from "../threads/lock.ts";
import { CredentialStore } from "./credentials.ts";
import type { Credential } from "./credentials.ts";
import { oauthAnswer, readJson, registryFetch } from "./http.ts";
import { CLI_CLIENT_ID, fetchAuthServerMetadata } from "./oauth-metadata.ts";

export const REFRESH_MARGIN_MS = 60_000;
const LOCK_STALE_MS = 30_000;
const LOCK_TIMEOUT_MS = 15_000;

/** A successful token endpoint answer (RFC 6749 §5.1), as far as the client uses it. */
export const tokenResponseSchema = z.object({
  access_token: z.string().min(1).max(8192),
  refresh_token: z.string().max(8192).optional(),
  expires_in: z.number().positive().optional(),
  scope: z.string().max(2000).optional(),
  token_type: z.string().optional(),
});
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

export function credentialFromTokens(tokens: TokenResponse, method: Credential["method"], username?: string): Omit<Credential, "saved_at"> {
  return {
    access_token: tokens.access_token,
    ...(tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}),
    ...(tokens.expires_in ? { expires_at: Date.now() + tokens.expires_in * 1000 } : {}),
    ...(tokens.scope ? { scope: tokens.scope } : {}),
    ...(username ? { username } : {}),
    method,
    client_id: CLI_CLIENT_ID,
  };
}

/** One refresh at a time across processes (a lock not refreshed for 30 s, or whose process died, is taken over). */
function withLock<T>(path: string, body: () => Promise<T>): Promise<T> {
  return withFileLock(path, body, {
    timeoutMs: LOCK_TIMEOUT_MS,
    staleMs: LOCK_STALE_MS,
    onTimeout: () => new RyeError("UNAVAILABLE", "Another rye process is refreshing the login; try again"),
  });
}

/** The token to send to `registryUrl`, or undefined when not signed in. */
export async function accessTokenFor(registryUrl: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (env.RYE_TOKEN) return env.RYE_TOKEN;
  const store = new CredentialStore(env);
  const credential = await store.get(registryUrl);
  if (!credential) return undefined;
  if (!credential.expires_at || credential.expires_at - REFRESH_MARGIN_MS > Date.now()) return credential.access_token;
  if (!credential.refresh_token) {
    throw new RyeError("UNAUTHORIZED", `Your sign-in to ${registryUrl} expired`, { hint: `Run: rye login --registry ${registryUrl}` });
  }
  return withLock(join(store.dir, "refresh.lock"), async () => {
    const fresh = await store.get(registryUrl); // another process may have refreshed meanwhile
    if (fresh?.expires_at && fresh.expires_at - REFRESH_MARGIN_MS > Date.now()) return fresh.access_token;
    const metadata = await fetchAuthServerMetadata(registryUrl);
    const res = await registryFetch(registryUrl, new URL(metadata.token_endpoint).pathname, {
      form: { grant_type: "refresh_token", refresh_token: (fresh ?? credential).refresh_token!, client_id: CLI_CLIENT_ID },
    });
    if (!res.ok) {
      const body = oauthAnswer(res) as { error?: string };
      if (body.error === "invalid_grant") {
        await store.delete(registryUrl);
        throw new RyeError("UNAUTHORIZED", `Your session at ${registryUrl} ended (signed out or revoked)`, { hint: `Run: rye login --registry ${registryUrl}` });
      }
      throw new RyeError("UNAVAILABLE", `Refreshing the login failed (HTTP ${res.status}${body.error ? `: ${body.error}` : ""})`);
    }
    const tokens = readJson(res, tokenResponseSchema);
    await store.set(registryUrl, credentialFromTokens(tokens, credential.method, credential.username));
    return tokens.access_token;
  });
}
