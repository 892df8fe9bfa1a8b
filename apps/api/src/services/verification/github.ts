/**
 * Proving a GitHub organization: an owner or admin of the rye organization signs in at GitHub (OAuth code flow with
 * PKCE, scope read:org, through the registry's configured GitHub provider) and the registry asks GitHub for that
 * account's membership in the claimed organization: it must be active with the admin role (a GitHub organization
 * owner). The flow's state (claim, user, OAuth state, PKCE verifier) travels in a sealed, httpOnly cookie
 * (AES-256-GCM under a key derived for this purpose from the sign-in flow key), so any registry process can finish it.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import * as oauth from "openid-client";
import { z } from "zod";
import type { GithubProvider } from "../../auth/upstream/config.ts";
import { configuration } from "../../auth/upstream/github-client.ts";
import type { CheckOutcome } from "./dns-check.ts";

export const GITHUB_VERIFY_COOKIE = "rye_github_verify";
export const GITHUB_VERIFY_COOKIE_PATH = "/v1/verifications/github/";
export const GITHUB_VERIFY_TTL_SECONDS = 600;
export const GITHUB_VERIFY_SCOPE = "read:org";
const AAD = Buffer.from(`${GITHUB_VERIFY_COOKIE}:v1`);

const flowSchema = z.object({ claimId: z.string(), userId: z.string(), state: z.string(), codeVerifier: z.string(), exp: z.number() });
export type GithubVerifyFlow = Omit<z.infer<typeof flowSchema>, "exp">;

/** This cookie's own key: a sealed sign-in flow cookie cannot be replayed here, nor the other way round. */
export function githubVerifyKey(flowKey: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", flowKey, "rye-registry", "rye github organization verification flow v1", 32));
}

export function sealGithubFlow(key: Buffer, flow: GithubVerifyFlow, now = Date.now()): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(AAD);
  const body = Buffer.concat([cipher.update(JSON.stringify({ ...flow, exp: Math.floor(now / 1000) + GITHUB_VERIFY_TTL_SECONDS })), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
}

export function openGithubFlow(key: Buffer, value: string, now = Date.now()): GithubVerifyFlow | null {
  const raw = Buffer.from(value, "base64url");
  if (raw.length < 12 + 16 + 2 || raw.length > 4096) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12)).setAAD(AAD);
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    const parsed = flowSchema.safeParse(JSON.parse(Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString("utf8")));
    if (!parsed.success || parsed.data.exp * 1000 <= now) return null;
    const { exp: _exp, ...flow } = parsed.data;
    return flow;
  } catch {
    return null;
  }
}

export function githubAuthorizationUrl(provider: GithubProvider, request: { redirectUri: string; state: string; codeChallenge: string }): URL {
  return oauth.buildAuthorizationUrl(configuration(provider), {
    response_type: "code",
    redirect_uri: request.redirectUri,
    scope: GITHUB_VERIFY_SCOPE,
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: "S256",
  });
}

/** Redeems the code (state and PKCE checked); the GitHub access token is used once and never stored. */
export async function redeemGithubCode(provider: GithubProvider, callbackUrl: URL, flow: GithubVerifyFlow): Promise<string> {
  const tokens = await oauth.authorizationCodeGrant(configuration(provider), callbackUrl, { pkceCodeVerifier: flow.codeVerifier, expectedState: flow.state });
  return tokens.access_token;
}

const membershipSchema = z.object({ state: z.string(), role: z.string() });

/** GET /user/memberships/orgs/{org}: an active admin membership proves it. */
export async function checkGithubMembership(provider: GithubProvider, accessToken: string, org: string): Promise<CheckOutcome> {
  let res: Response;
  try {
    res = await fetch(`${provider.github_api_url}/user/memberships/orgs/${encodeURIComponent(org)}`, {
      headers: { authorization: `Bearer ${accessToken}`, accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28", "user-agent": "rye-registry" },
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    return { ok: false, code: "UNAVAILABLE", definite: false, message: `${provider.name} could not be reached (${(err as Error).message})` };
  }
  if (res.status === 404 || res.status === 403) {
    return { ok: false, code: "VERIFICATION_NOT_MEMBER", definite: true, message: `The ${provider.name} account you signed in with is not a member of the organization ${org} (or the organization does not let this app see its members)` };
  }
  const parsed = res.ok ? membershipSchema.safeParse(await res.json().catch(() => null)) : null;
  if (!parsed?.success) return { ok: false, code: "UNAVAILABLE", definite: false, message: `${provider.name} answered ${res.status} to the membership look-up` };
  if (parsed.data.state !== "active" || parsed.data.role !== "admin") {
    return { ok: false, code: "VERIFICATION_NOT_MEMBER", definite: true, message: `The ${provider.name} account you signed in with is ${parsed.data.state === "active" ? `a ${parsed.data.role}` : `a ${parsed.data.state} member`} of ${org}, not an owner`, details: { state: parsed.data.state, role: parsed.data.role } };
  }
  return { ok: true };
}
