/**
 * Sign-in for people through upstream identity providers (OpenID Connect, GitHub):
 *   GET /v1/auth/providers                      the sign-in page's list (+ whether local accounts exist)
 *   GET /v1/auth/oidc/{provider}/start?next=/p  302 to the provider: code flow, PKCE S256, state, nonce
 *   GET /v1/auth/oidc/{provider}/callback       code → verified profile → account → web session → 302 next
 *   POST /v1/auth/supabase/session              {access_token} of Supabase Auth → account → web session
 * Account linking rules: auth/upstream/account-linking.ts. Flow state: auth/upstream/flow-cookie.ts.
 */
import { timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { createRoute } from "@hono/zod-openapi";
import * as oauth from "openid-client";
import { z } from "zod";
import { RyeError } from "@rye/core";
import { access, errors, json, jsonRequest, noBody } from "../contract/route.ts";
import { contractRouter, refuseWith } from "../contract/router.ts";
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
import { SESSION_SET } from "./accounts.ts";

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const flowLost = () =>
  new RyeError("BAD_REQUEST", "The sign-in flow is unknown, expired or was started in another browser", {
    hint: "Start the sign-in again from the sign-in page (it must finish within 10 minutes, in the same browser).",
  });

// ---------------------------------------------------------------- requests and answers
const AuthProviders = z
  .object({
    providers: z.array(z.object({ id: z.string(), name: z.string(), type: z.enum(["oidc", "github", "supabase"]) })).meta({ description: "oidc and github: GET /v1/auth/oidc/{id}/start; supabase: POST /v1/auth/supabase/session." }),
    local_accounts: z.boolean().meta({ description: "Whether POST /v1/auth/signup and /v1/auth/login are open." }),
  })
  .meta({ id: "AuthProviders" });
const UpstreamStartQuery = z.object({
  next: z.string().max(2048).optional().meta({ description: "Path on this registry to land on after sign-in (default /); absolute and protocol-relative URLs are refused." }),
});
// Checked by the handler against the flow cookie (an unknown or missing state is the flow's 400, not a schema's).
const UpstreamCallbackQuery = z.object({
  state: z.string().meta({ description: "Must match this browser's sign-in flow." }),
  code: z.string().optional(),
  error: z.string().optional().meta({ description: "The provider refused (e.g. access_denied): 401." }),
  error_description: z.string().optional(),
  iss: z.string().optional().meta({ description: "RFC 9207, when the provider sends it." }),
});
const SupabaseSessionRequest = z.object({ access_token: z.string().max(16_384).meta({ description: "The Supabase Auth session's access token (asymmetrically signed JWT)." }) }).meta({ id: "SupabaseSessionRequest" });
const SupabaseSession = z.object({ username: z.string(), csrf_token: z.string().meta({ description: "Send as X-CSRF-Token on cookie-authenticated changes." }) }).meta({ id: "SupabaseSession" });

const UPSTREAM_ERRORS: [number, string][] = [
  [401, "The provider refused the sign-in, or its answer failed validation"],
  [403, "The account is disabled, or sign-up through this provider is closed"],
  [409, "The email belongs to an existing account that is not linked automatically (details.reason)"],
  [503, "The provider cannot be reached"],
];
const redirect = (description: string, cookie: string) =>
  noBody(description, { Location: { required: true, schema: { type: "string", format: "uri-reference" } }, "Set-Cookie": { $ref: `#/components/headers/${cookie}` } });

export const providersRoute = createRoute({
  method: "get",
  path: "/v1/auth/providers",
  operationId: "listAuthProviders",
  summary: "The sign-in methods of this registry",
  tags: ["auth"],
  ...access("none"),
  responses: { 200: json(AuthProviders, "Providers"), ...errors() },
});
export const upstreamStartRoute = createRoute({
  method: "get",
  path: "/v1/auth/oidc/{provider}/start",
  operationId: "startUpstreamSignIn",
  summary: "Sign in through an OpenID Connect or GitHub provider: to the provider (code flow, PKCE S256, state, nonce)",
  tags: ["auth"],
  ...access("none"),
  request: { query: UpstreamStartQuery },
  responses: {
    302: redirect("To the provider's authorization endpoint (Cache-Control: no-store)", "SetFlow"),
    ...errors([400, "next is not a path on this registry"], [401, "The provider's metadata failed validation"], [404, "No such provider"], [503, "The provider cannot be reached"]),
  },
});
export const upstreamCallbackRoute = createRoute({
  method: "get",
  path: "/v1/auth/oidc/{provider}/callback",
  operationId: "finishUpstreamSignIn",
  summary: "The provider's redirect back: the account is found, linked or created, and a session starts",
  tags: ["auth"],
  ...access("none"),
  request: { query: UpstreamCallbackQuery },
  responses: {
    302: redirect("Signed in: to the flow's next path, with the session cookie (the flow cookie is cleared whatever the outcome; Cache-Control: no-store)", "SetSession"),
    ...errors([400, "No flow cookie, another provider's, expired, or state mismatch"], [404, "No such provider"], ...UPSTREAM_ERRORS),
  },
});
export const supabaseSessionRoute = createRoute({
  method: "post",
  path: "/v1/auth/supabase/session",
  operationId: "supabaseSignIn",
  summary: "Sign in with a Supabase Auth session: its access token is verified, the account found, linked or created, and a session starts",
  tags: ["auth"],
  ...access("none"),
  request: { body: jsonRequest(SupabaseSessionRequest) },
  responses: {
    200: json(SupabaseSession, "Signed in (Cache-Control: no-store)", SESSION_SET),
    ...errors([400, "Not application/json, or no access_token string"], [404, "Supabase Auth is not configured"], ...UPSTREAM_ERRORS),
  },
});

export function upstreamAuthRoutes(deps: AppDeps, upstream: UpstreamAuthConfig) {
  const { publicUrl } = deps.config;
  const secure = publicUrl.startsWith("https://");
  const flowKey = flowKeySource(upstream.cookieSecret, deps.keyring);
  const providers = new Map<string, { provider: UpstreamProvider; client: UpstreamClient }>(upstream.providers.map((p) => [p.id, { provider: p, client: upstreamClientFor(p) }]));
  const redirectUri = (id: string) => `${publicUrl}/v1/auth/oidc/${id}/callback`;
  const supabase = upstream.supabase ? { allowSignup: upstream.supabase.allowSignup, verify: supabaseVerifier(upstream.supabase) } : null;
  const refuseCallback = refuseWith("Start the sign-in again from the sign-in page.");
  const notConfigured = () => new RyeError("NOT_FOUND", "Supabase Auth is not configured on this registry", { hint: "GET /v1/auth/providers lists the sign-in methods." });
  // Before the body is read: a registry without Supabase Auth has no such endpoint, whatever is sent.
  const supabaseConfigured: MiddlewareHandler<AppEnv> = async (_c, next) => {
    if (!supabase) throw notConfigured();
    await next();
  };

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

  return contractRouter()
    .openapi(providersRoute, (c) =>
      c.json(
        {
          providers: [
            ...upstream.providers.map(({ id, name, type }) => ({ id, name, type })),
            ...(upstream.supabase ? [{ id: SUPABASE_PROVIDER_ID, name: "Supabase", type: "supabase" as const }] : []),
          ],
          local_accounts: upstream.localAccounts,
        },
        200,
      ),
    )
    .openapi(upstreamStartRoute, async (c) => {
      const { provider, client } = providerOf(c.req.param("provider"));
      const next = safeNextPath(c.req.valid("query").next, publicUrl);
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
    .openapi(
      upstreamCallbackRoute,
      async (c) => {
        const { provider, client } = providerOf(c.req.param("provider"));
        c.header("Cache-Control", "no-store");
        const sealed = readFlowCookie(c);
        clearFlowCookie(c, secure); // one use, whatever the outcome
        const flow = sealed ? openFlow(await flowKey(), sealed) : null;
        if (!flow || flow.provider !== provider.id) throw flowLost();
        const { state } = c.req.valid("query");
        if (!sameText(state, flow.state)) {
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
      },
      // A callback without its state still uses up the flow: the flow cookie is cleared whatever the outcome.
      (result, c) => {
        if (!result.success) {
          c.header("Cache-Control", "no-store");
          clearFlowCookie(c, secure);
        }
        return refuseCallback(result);
      },
    )
    .openapi({ ...supabaseSessionRoute, middleware: [supabaseConfigured] as const }, async (c) => {
      if (!supabase) throw notConfigured();
      const session = await signIn(c, await supabase.verify(c.req.valid("json").access_token), { name: "Supabase", allowSignup: supabase.allowSignup });
      c.header("Cache-Control", "no-store");
      return c.json({ username: session.username, csrf_token: session.csrfToken }, 200);
    });
}
