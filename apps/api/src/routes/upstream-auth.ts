/**
 * Sign-in for people through upstream identity providers (OpenID Connect, GitHub):
 *   GET /v1/auth/providers                      the sign-in page's list (+ whether local accounts exist)
 *   GET /v1/auth/oidc/{provider}/start?next=/p  302 to the provider: code flow, PKCE S256, state, nonce
 *   GET /v1/auth/oidc/{provider}/callback       code → verified profile → account → web session → 302 next
 *   POST /v1/auth/supabase/session              {access_token} of Supabase Auth → account → web session
 * Account linking rules: auth/upstream/account-linking.ts. Flow state: auth/upstream/flow-cookie.ts.
 */
import { timingSafeEqual } from "node:crypto";
import { type Context, Hono } from "hono";
import * as oauth from "openid-client";
import { RyeError } from "@rye/core";
import { resolveUpstreamAccount } from "../auth/upstream/account-linking.ts";
import { upstreamClientFor } from "../auth/upstream/clients.ts";
import type { UpstreamAuthConfig, UpstreamProvider } from "../auth/upstream/config.ts";
import { clearFlowCookie, openFlow, readFlowCookie, sealFlow, setFlowCookie } from "../auth/upstream/flow-cookie.ts";
import { flowKeySource } from "../auth/upstream/flow-key.ts";
import { safeNextPath } from "../auth/upstream/next-path.ts";
import { toSignInError } from "../auth/upstream/protocol-errors.ts";
import { SUPABASE_PROVIDER_ID, supabaseVerifier } from "../auth/upstream/supabase.ts";
import type { UpstreamClient, UpstreamProfile } from "../auth/upstream/upstream-client.ts";
import { createWebSession } from "../auth/web-sessions.ts";
import type { AppEnv } from "../env.ts";
import type { AppDeps } from "../services/deps.ts";

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const flowLost = () =>
  new RyeError("BAD_REQUEST", "The sign-in flow is unknown, expired or was started in another browser", {
    hint: "Start the sign-in again from the sign-in page (it must finish within 10 minutes, in the same browser).",
  });

export function upstreamAuthRoutes(deps: AppDeps, upstream: UpstreamAuthConfig): Hono<AppEnv> {
  const { publicUrl } = deps.config;
  const secure = publicUrl.startsWith("https://");
  const flowKey = flowKeySource(upstream.cookieSecret, deps.keyring);
  const providers = new Map<string, { provider: UpstreamProvider; client: UpstreamClient }>(upstream.providers.map((p) => [p.id, { provider: p, client: upstreamClientFor(p) }]));
  const redirectUri = (id: string) => `${publicUrl}/v1/auth/oidc/${id}/callback`;
  const supabase = upstream.supabase ? { allowSignup: upstream.supabase.allowSignup, verify: supabaseVerifier(upstream.supabase) } : null;

  /** Account linking (auth/upstream/account-linking.ts), then a web session for that account. */
  async function signIn(c: Context<AppEnv>, profile: UpstreamProfile, provider: { name: string; allowSignup: boolean }) {
    const account = await resolveUpstreamAccount(deps.db, profile, { providerName: provider.name, allowSignup: provider.allowSignup, ip: c.get("clientIp"), requestId: c.get("requestId") });
    return createWebSession(c, deps.db, account.userId, { publicUrl, ip: c.get("clientIp") });
  }

  function providerOf(id: string) {
    const entry = providers.get(id);
    if (!entry) throw new RyeError("NOT_FOUND", `No identity provider "${id}" on this registry`, { hint: "GET /v1/auth/providers lists them." });
    return entry;
  }

  return new Hono<AppEnv>()
    .get("/v1/auth/providers", (c) =>
      c.json({
        providers: [
          ...upstream.providers.map(({ id, name, type }) => ({ id, name, type })),
          ...(upstream.supabase ? [{ id: SUPABASE_PROVIDER_ID, name: "Supabase", type: "supabase" as const }] : []),
        ],
        local_accounts: upstream.localAccounts,
      }),
    )
    .get("/v1/auth/oidc/:provider/start", async (c) => {
      const { provider, client } = providerOf(c.req.param("provider"));
      const next = safeNextPath(c.req.query("next"), publicUrl);
      const state = oauth.randomState();
      const nonce = client.usesNonce ? oauth.randomNonce() : undefined;
      const codeVerifier = oauth.randomPKCECodeVerifier();
      let url: URL;
      try {
        url = await client.authorizationUrl({ redirectUri: redirectUri(provider.id), state, nonce, codeChallenge: await oauth.calculatePKCECodeChallenge(codeVerifier) });
      } catch (err) {
        throw toSignInError(err, provider.name);
      }
      setFlowCookie(c, sealFlow(await flowKey(), { provider: provider.id, state, nonce, codeVerifier, next }), secure);
      c.header("Cache-Control", "no-store");
      return c.redirect(url.href, 302);
    })
    .get("/v1/auth/oidc/:provider/callback", async (c) => {
      const { provider, client } = providerOf(c.req.param("provider"));
      c.header("Cache-Control", "no-store");
      const sealed = readFlowCookie(c);
      clearFlowCookie(c, secure); // one use, whatever the outcome
      const flow = sealed ? openFlow(await flowKey(), sealed) : null;
      if (!flow || flow.provider !== provider.id) throw flowLost();
      const state = c.req.query("state");
      if (state === undefined || !sameText(state, flow.state)) {
        throw new RyeError("BAD_REQUEST", "The state parameter does not match this browser's sign-in", { hint: "Start the sign-in again; do not reuse or share sign-in links." });
      }
      // The URL the provider redirected to, rebuilt on the public origin (the token request repeats redirect_uri).
      const current = new URL(redirectUri(provider.id));
      current.search = new URL(c.req.url).search;
      let profile;
      try {
        profile = await client.finish(current, { state: flow.state, nonce: flow.nonce, codeVerifier: flow.codeVerifier });
      } catch (err) {
        throw toSignInError(err, provider.name);
      }
      await signIn(c, profile, { name: provider.name, allowSignup: provider.allow_signup });
      return c.redirect(flow.next, 302);
    })
    .post("/v1/auth/supabase/session", async (c) => {
      if (!supabase) throw new RyeError("NOT_FOUND", "Supabase Auth is not configured on this registry", { hint: "GET /v1/auth/providers lists the sign-in methods." });
      // JSON only: a cross-site form cannot send it without a CORS preflight (no login CSRF).
      if (!(c.req.header("content-type") ?? "").toLowerCase().startsWith("application/json")) {
        throw new RyeError("BAD_REQUEST", "Send the Supabase access token as JSON", { hint: "POST {\"access_token\": \"…\"} with Content-Type: application/json." });
      }
      const body = (await c.req.json()) as { access_token?: unknown };
      if (typeof body?.access_token !== "string" || body.access_token.length > 16_384) {
        throw new RyeError("BAD_REQUEST", "access_token must be the Supabase session's access token", { details: [{ field: "access_token", message: "required string" }] });
      }
      const session = await signIn(c, await supabase.verify(body.access_token), { name: "Supabase", allowSignup: supabase.allowSignup });
      c.header("Cache-Control", "no-store");
      return c.json({ username: session.username, csrf_token: session.csrfToken });
    });
}
