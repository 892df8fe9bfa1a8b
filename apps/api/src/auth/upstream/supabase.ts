/**
 * Supabase Auth: the website signs people in with supabase-js and hands rye the Supabase access
 * token. rye verifies it with jose against the project's JWKS (`<SUPABASE_URL>/auth/v1/.well-known/jwks.json`,
 * i.e. asymmetric signing keys; legacy HS256 projects are not supported), issuer `<SUPABASE_URL>/auth/v1`,
 * audience and role `authenticated`, no anonymous users. The token carries no trustworthy
 * "email verified" claim (`user_metadata` is user-editable), so with `SUPABASE_ANON_KEY` rye asks
 * `GET <SUPABASE_URL>/auth/v1/user` for `email_confirmed_at`; without it the email counts as unverified.
 */
import { createRemoteJWKSet, errors, jwtVerify } from "jose";
import { z } from "zod";
import { RyeError } from "@rye/core";
import type { SupabaseAuthConfig } from "./config.ts";
import { emailClaim, textClaim } from "./claims.ts";
import type { UpstreamProfile } from "./upstream-client.ts";

export const SUPABASE_PROVIDER_ID = "supabase";
const TIMEOUT_MS = 10_000;

const supabaseUserSchema = z.object({ id: z.string(), email: z.string().nullish(), email_confirmed_at: z.string().nullish() });

function refused(message: string, cause?: unknown): RyeError {
  return new RyeError("UNAUTHORIZED", `The Supabase session was refused: ${message}`, { hint: "Sign in with Supabase again and send the new access token.", cause });
}

async function emailConfirmed(config: SupabaseAuthConfig, accessToken: string, subject: string, email: string): Promise<boolean> {
  if (!config.anonKey) return false;
  const res = await fetch(`${config.url}/auth/v1/user`, {
    headers: { apikey: config.anonKey, authorization: `Bearer ${accessToken}` },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  }).catch((err: unknown) => {
    throw new RyeError("UNAVAILABLE", "Supabase Auth cannot be reached", { cause: err });
  });
  if (!res.ok) throw refused(`GET /auth/v1/user answered ${res.status}`);
  const user = supabaseUserSchema.safeParse(await res.json().catch(() => null));
  return user.success && user.data.id === subject && emailClaim(user.data.email) === email && Boolean(user.data.email_confirmed_at);
}

/** A function turning a Supabase access token into a verified profile (or a 401 / 503 RyeError). */
export function supabaseVerifier(config: SupabaseAuthConfig): (accessToken: string) => Promise<UpstreamProfile> {
  const jwks = createRemoteJWKSet(new URL(`${config.url}/auth/v1/.well-known/jwks.json`), { timeoutDuration: TIMEOUT_MS });
  return async (accessToken) => {
    let payload;
    try {
      ({ payload } = await jwtVerify(accessToken, jwks, { issuer: `${config.url}/auth/v1`, audience: "authenticated", algorithms: ["ES256", "RS256", "EdDSA"], requiredClaims: ["sub", "exp"] }));
    } catch (err) {
      if (err instanceof errors.JWKSTimeout || !(err instanceof errors.JOSEError)) throw new RyeError("UNAVAILABLE", "Supabase Auth's signing keys cannot be fetched", { cause: err });
      throw refused(err.message, err);
    }
    if (payload.role !== "authenticated" || payload.is_anonymous === true) throw refused("anonymous or non-user sessions cannot sign in");
    const subject = payload.sub!;
    const email = emailClaim(payload.email);
    const metadata = (typeof payload.user_metadata === "object" && payload.user_metadata !== null ? payload.user_metadata : {}) as Record<string, unknown>;
    // user_metadata is chosen by the user: good enough for a username suggestion and a display name, never for trust.
    const hints = [textClaim(metadata.user_name), textClaim(metadata.preferred_username), email?.split("@")[0], textClaim(metadata.full_name), textClaim(metadata.name)];
    return {
      provider: SUPABASE_PROVIDER_ID,
      subject,
      email,
      emailVerified: email !== null && (await emailConfirmed(config, accessToken, subject, email)),
      usernameHints: hints.filter((h): h is string => h !== undefined),
      displayName: (textClaim(metadata.full_name) ?? textClaim(metadata.name) ?? "").slice(0, 200),
    };
  };
}
