/**
 * GitHub (OAuth 2.0, no OpenID Connect): code + PKCE through openid-client, then the REST API:
 * `GET /user` for the stable numeric id and login, `GET /user/emails` for the addresses, of which
 * only `verified: true` ones count (the primary verified one first).
 */
import * as oauth from "openid-client";
import { z } from "zod";
import { RyeError } from "@rye/core";
import { type GithubProvider, isLoopbackHttp } from "./config.ts";
import { buildCodeFlowUrl, clientAuthentication, clientMetadata, redeemCode } from "./oauth-code-flow.ts";
import { emailClaim } from "./claims.ts";
import type { UpstreamClient, UpstreamProfile } from "./upstream-client.ts";

const userSchema = z.object({ id: z.number().int(), login: z.string(), name: z.string().nullish() });
const emailsSchema = z.array(z.object({ email: z.string(), verified: z.boolean(), primary: z.boolean().optional() }));

export function configuration(provider: GithubProvider): oauth.Configuration {
  const server = {
    issuer: new URL(provider.authorization_url).origin,
    authorization_endpoint: provider.authorization_url,
    token_endpoint: provider.token_url,
  };
  const config = new oauth.Configuration(server, provider.client_id, clientMetadata(provider), clientAuthentication(provider));
  if (isLoopbackHttp(provider.authorization_url) || isLoopbackHttp(provider.token_url)) oauth.allowInsecureRequests(config);
  return config;
}

async function githubGet<T>(provider: GithubProvider, path: string, accessToken: string, schema: z.ZodType<T>): Promise<T> {
  const res = await fetch(`${provider.github_api_url}${path}`, {
    headers: {
      authorization: `Bearer ${accessToken}`,
      accept: "application/vnd.github+json",
      "x-github-api-version": "2022-11-28",
      "user-agent": "rye-registry",
    },
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) {
    throw new RyeError("UNAUTHORIZED", `${provider.name} answered ${res.status} to GET ${path}`, {
      hint: path === "/user/emails" ? "The app needs the user:email scope (OAuth app) or the email addresses permission (GitHub App)." : "Try signing in again.",
    });
  }
  const parsed = schema.safeParse(await res.json());
  if (!parsed.success) throw new RyeError("UNAUTHORIZED", `${provider.name} sent an unexpected answer to GET ${path}`);
  return parsed.data;
}

export function profileFromGithub(provider: string, user: z.infer<typeof userSchema>, emails: z.infer<typeof emailsSchema>): UpstreamProfile {
  const verified = emails.filter((e) => e.verified).sort((a, b) => Number(b.primary ?? false) - Number(a.primary ?? false));
  const email = emailClaim(verified[0]?.email);
  const hints = [user.login, email?.split("@")[0], user.name ?? undefined];
  return {
    provider,
    subject: String(user.id),
    email,
    emailVerified: email !== null,
    usernameHints: hints.filter((h): h is string => Boolean(h)),
    displayName: (user.name || user.login).slice(0, 200),
  };
}

export function githubClient(provider: GithubProvider): UpstreamClient {
  const config = configuration(provider);
  return {
    usesNonce: false,
    authorizationUrl(request) {
      return Promise.resolve(buildCodeFlowUrl(config, provider.scopes, request));
    },
    async finish(callbackUrl, checks) {
      const tokens = await redeemCode(config, callbackUrl, checks);
      const user = await githubGet(provider, "/user", tokens.access_token, userSchema);
      const emails = await githubGet(provider, "/user/emails", tokens.access_token, emailsSchema);
      return profileFromGithub(provider.id, user, emails);
    },
  };
}
