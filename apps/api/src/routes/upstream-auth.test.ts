/**
 * Upstream sign-in over the real protocol: a real OpenID Provider (oidc-provider) and a GitHub
 * stand-in on loopback ports, the registry on another, a cookie-carrying client following redirects.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { RyeError } from "@rye/core";
import { postgresAvailable } from "@rye/db/testing";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";
import { TestBrowser } from "../../test/fixtures/oidc-browser.ts";
import { type FakeGithub, startFakeGithub } from "../../test/fixtures/oidc-fake-github.ts";
import { type FakeSupabase, startFakeSupabase } from "../../test/fixtures/oidc-fake-supabase.ts";
import { listenLoopback, type LoopbackServer } from "../../test/fixtures/oidc-loopback-server.ts";
import { startOidcProvider, type TestOidcProvider } from "../../test/fixtures/oidc-test-provider.ts";
import { loadUpstreamAuthConfig, type UpstreamAuthConfig } from "../auth/upstream/config.ts";
import { FLOW_COOKIE } from "../auth/upstream/flow-cookie.ts";
import { readWebSession, SESSION_COOKIE } from "../auth/web-sessions.ts";
import type { AppEnv } from "../env.ts";
import { errorHandler } from "../middleware/errors.ts";
import { requestContext } from "../middleware/request-context.ts";
import type { AppDeps } from "../services/deps.ts";
import { upstreamAuthRoutes } from "./upstream-auth.ts";

type Json = Record<string, any>;

interface Harness {
  rye: LoopbackServer;
  op: TestOidcProvider;
  github: FakeGithub;
  supabase: FakeSupabase;
  reg: TestRegistry;
  close(): Promise<void>;
}

/** The registry app as app.ts builds it (request context, error envelope) with only the routes under test, plus /test/me. */
function testApp(deps: AppDeps, upstream: UpstreamAuthConfig): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requestContext({ authenticator: deps.authenticator, logger: deps.logger, trustProxy: false }));
  app.route("/", upstreamAuthRoutes(deps, upstream));
  app.get("/test/me", async (c) => {
    const session = await readWebSession(c, deps.db);
    return session ? c.json({ username: session.username, user_id: session.userId }) : c.json(new RyeError("UNAUTHORIZED", "no session").toEnvelope(), 401);
  });
  app.notFound((c) => c.json(new RyeError("NOT_FOUND", "no route").toEnvelope(), 404));
  app.onError(errorHandler(deps.logger));
  return app;
}

/** The identity providers and the registry, each on its own loopback port. */
async function startHarness(kind: "postgres" | "pglite"): Promise<Harness> {
  const rye = await listenLoopback();
  const op = await startOidcProvider({ redirectUris: [`${rye.url}/v1/auth/oidc/acme/callback`, `${rye.url}/v1/auth/oidc/closed/callback`] });
  const github = await startFakeGithub();
  const supabase = await startFakeSupabase();
  const reg = await createTestRegistry({ kind, config: { publicUrl: rye.url } });
  const upstream = loadUpstreamAuthConfig({
    RYE_OIDC_PROVIDERS: JSON.stringify([
      { id: "acme", type: "oidc", name: "Acme SSO", issuer: op.issuer, client_id: op.clientId, client_secret: op.clientSecret },
      { id: "closed", type: "oidc", name: "Closed SSO", issuer: op.issuer, client_id: op.clientId, client_secret: op.clientSecret, allow_signup: false },
      {
        id: "github", type: "github", name: "GitHub", client_id: github.clientId, client_secret: github.clientSecret,
        authorization_url: `${github.url}/login/oauth/authorize`, token_url: `${github.url}/login/oauth/access_token`, github_api_url: github.url,
      },
    ]),
    SUPABASE_URL: supabase.url,
    SUPABASE_ANON_KEY: supabase.anonKey,
  });
  rye.setHandler(getRequestListener(testApp(reg.deps, upstream).fetch));
  return {
    rye, op, github, supabase, reg,
    async close() {
      await Promise.all([rye.close(), op.close(), github.close(), supabase.close()]);
      await reg.close();
    },
  };
}

const isCallback = (url: URL) => url.pathname.endsWith("/callback");

for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
  describe(`upstream sign-in on ${kind}`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind);
      h.op.accounts.set("ann-sub", { email: "Ann@Example.com", email_verified: true, preferred_username: "Ann.Lee", name: "Ann Lee" });
      h.op.accounts.set("bob-sub", { email: "bob@example.com", email_verified: true, preferred_username: "bob" });
      h.op.accounts.set("mallory-sub", { email: "carol@example.com", email_verified: false, preferred_username: "carol" });
      h.op.accounts.set("dora-sub", { email: "dora@example.com", email_verified: true, preferred_username: "dora" });
      h.op.accounts.set("erin-sub", { email: "erin@example.com", email_verified: true, preferred_username: "erin" });
      h.op.accounts.set("fay-sub", { email: "fay@example.com", email_verified: true, preferred_username: "fay" });
    });
    after(() => h.close());

    /** start → IdP (login, consent) → the registry's callback URL, not yet requested. */
    async function toCallback(browser: TestBrowser, login: string, options: { provider?: string; next?: string } = {}): Promise<URL> {
      const start = new URL(`${h.rye.url}/v1/auth/oidc/${options.provider ?? "acme"}/start`);
      if (options.next !== undefined) start.searchParams.set("next", options.next);
      const { url, response } = await browser.walk(start, { login, stopAt: isCallback });
      assert.equal(response, null, `expected to reach the callback, got ${response?.status} at ${url}: ${await response?.text()}`);
      return url;
    }

    /** The whole sign-in; returns the callback's response. */
    async function signIn(browser: TestBrowser, login: string, options: { provider?: string; next?: string } = {}): Promise<Response> {
      return browser.fetch(await toCallback(browser, login, options));
    }

    async function me(browser: TestBrowser): Promise<{ status: number; body: Json }> {
      const res = await browser.fetch(`${h.rye.url}/test/me`);
      return { status: res.status, body: (await res.json()) as Json };
    }

    describe("happy paths", () => {
      test("the provider list shows the configured providers and local accounts", async () => {
        const res = await fetch(`${h.rye.url}/v1/auth/providers`);
        assert.equal(res.status, 200);
        assert.deepEqual(await res.json(), {
          providers: [
            { id: "acme", name: "Acme SSO", type: "oidc" },
            { id: "closed", name: "Closed SSO", type: "oidc" },
            { id: "github", name: "GitHub", type: "github" },
            { id: "supabase", name: "Supabase", type: "supabase" },
          ],
          local_accounts: true,
        });
      });

      test("a new person signs in: account, namespace and identity are created, the session works", async () => {
        const browser = new TestBrowser();
        const res = await signIn(browser, "ann-sub", { next: "/settings?tab=tokens" });
        assert.equal(res.status, 302, await res.clone().text());
        assert.equal(res.headers.get("location"), "/settings?tab=tokens");
        assert.equal(browser.cookie(`${h.rye.url}/v1/auth/`, FLOW_COOKIE), undefined, "the flow cookie is used once");
        const who = await me(browser);
        assert.equal(who.status, 200);
        assert.equal(who.body.username, "ann-lee");
        const user = await h.reg.db.prisma.user.findUniqueOrThrow({ where: { username: "ann-lee" }, include: { identities: true, namespace: true } });
        assert.equal(user.email, "ann@example.com");
        assert.equal(user.emailVerified, true);
        assert.equal(user.passwordHash, null);
        assert.equal(user.displayName, "Ann Lee");
        assert.equal(user.namespace?.name, "ann-lee");
        assert.deepEqual(user.identities.map((i) => [i.provider, i.subject, i.email, i.emailVerified]), [["acme", "ann-sub", "ann@example.com", true]]);
        const audit = await h.reg.db.prisma.auditEvent.findMany({ where: { targetId: user.id } });
        assert.deepEqual(audit.map((a) => a.action), ["auth.upstream.user_created"]);
      });

      test("a second sign-in reuses the identity: same account, nothing new created", async () => {
        const users = await h.reg.db.prisma.user.count();
        const browser = new TestBrowser();
        const res = await signIn(browser, "ann-sub");
        assert.equal(res.status, 302);
        assert.equal(res.headers.get("location"), "/", "next defaults to /");
        assert.equal((await me(browser)).body.username, "ann-lee");
        assert.equal(await h.reg.db.prisma.user.count(), users);
        const identity = await h.reg.db.prisma.identity.findUniqueOrThrow({ where: { provider_subject: { provider: "acme", subject: "ann-sub" } } });
        assert.ok(identity.lastLoginAt);
        assert.equal(await h.reg.db.prisma.auditEvent.count({ where: { action: "auth.upstream.sign_in", targetId: identity.userId } }), 1);
      });

      test("an existing account with the same verified email is linked", async () => {
        const robert = await h.reg.db.prisma.user.create({ data: { username: "robert", email: "bob@example.com", emailVerified: true, passwordHash: "scrypt$x" } });
        const browser = new TestBrowser();
        assert.equal((await signIn(browser, "bob-sub")).status, 302);
        assert.equal((await me(browser)).body.username, "robert");
        const identities = await h.reg.db.prisma.identity.findMany({ where: { userId: robert.id } });
        assert.deepEqual(identities.map((i) => i.subject), ["bob-sub"]);
        assert.equal(await h.reg.db.prisma.auditEvent.count({ where: { action: "auth.upstream.identity_linked", targetId: robert.id } }), 1);
        assert.equal(await h.reg.db.prisma.user.count({ where: { username: "bob" } }), 0);
      });

      test("a taken username (user or organization namespace) gets a suffix", async () => {
        await h.reg.createOrg("dora", []);
        const browser = new TestBrowser();
        assert.equal((await signIn(browser, "dora-sub")).status, 302);
        assert.equal((await me(browser)).body.username, "dora-2");
      });

      test("GitHub: the numeric id is the subject, only verified emails count, the second sign-in reuses it", async () => {
        h.github.user = {
          id: 4242, login: "Octo_Cat", name: "The Octocat",
          emails: [{ email: "octo@old.example", verified: false, primary: true }, { email: "Octo@Example.com", verified: true, primary: false }],
        };
        const browser = new TestBrowser();
        const start = await browser.fetch(`${h.rye.url}/v1/auth/oidc/github/start?next=/welcome`);
        const authorize = new URL(start.headers.get("location")!);
        assert.equal(authorize.origin + authorize.pathname, `${h.github.url}/login/oauth/authorize`);
        assert.equal(authorize.searchParams.get("code_challenge_method"), "S256");
        assert.equal(authorize.searchParams.get("scope"), "read:user user:email");
        assert.equal(authorize.searchParams.get("nonce"), null);
        const res = await signIn(browser, "", { provider: "github", next: "/welcome" });
        assert.equal(res.status, 302, await res.clone().text());
        assert.equal(res.headers.get("location"), "/welcome");
        assert.equal((await me(browser)).body.username, "octo-cat");
        const user = await h.reg.db.prisma.user.findUniqueOrThrow({ where: { username: "octo-cat" }, include: { identities: true } });
        assert.equal(user.email, "octo@example.com");
        assert.deepEqual(user.identities.map((i) => [i.provider, i.subject]), [["github", "4242"]]);
        h.github.user = { ...h.github.user, login: "renamed-cat" };
        const again = new TestBrowser();
        assert.equal((await signIn(again, "", { provider: "github" })).status, 302);
        assert.equal((await me(again)).body.username, "octo-cat", "a renamed GitHub login is still the same identity");
      });
    });

    describe("errors", () => {
      test("an unverified email never links to the account that owns it (no hijack)", async () => {
        const carol = await h.reg.db.prisma.user.create({ data: { username: "carol", email: "carol@example.com", emailVerified: true } });
        const users = await h.reg.db.prisma.user.count();
        const browser = new TestBrowser();
        const res = await signIn(browser, "mallory-sub");
        assert.equal(res.status, 409);
        const body = (await res.json()) as Json;
        assert.equal(body.error.code, "CONFLICT");
        assert.equal(body.error.details.reason, "provider_email_unverified");
        assert.equal(browser.cookie(h.rye.url, SESSION_COOKIE), undefined);
        assert.equal((await me(browser)).status, 401);
        assert.equal(await h.reg.db.prisma.identity.count({ where: { subject: "mallory-sub" } }), 0);
        assert.equal(await h.reg.db.prisma.identity.count({ where: { userId: carol.id } }), 0);
        assert.equal(await h.reg.db.prisma.user.count(), users);
      });

      test("a verified email does not link to an account whose own email is unverified", async () => {
        await h.reg.db.prisma.user.create({ data: { username: "erin-local", email: "erin@example.com", emailVerified: false } });
        const res = await signIn(new TestBrowser(), "erin-sub");
        assert.equal(res.status, 409);
        assert.equal(((await res.json()) as Json).error.details.reason, "account_email_unverified");
        assert.equal(await h.reg.db.prisma.identity.count({ where: { subject: "erin-sub" } }), 0);
      });

      test("disabled accounts are refused, by identity and by email", async () => {
        await h.reg.db.prisma.user.create({ data: { username: "fay", email: "fay@example.com", emailVerified: true, disabledAt: new Date() } });
        const byEmail = await signIn(new TestBrowser(), "fay-sub");
        assert.equal(byEmail.status, 403);
        assert.equal(await h.reg.db.prisma.identity.count({ where: { subject: "fay-sub" } }), 0, "nothing linked");
        const ann = await h.reg.db.prisma.user.update({ where: { username: "ann-lee" }, data: { disabledAt: new Date() } });
        try {
          const browser = new TestBrowser();
          const byIdentity = await signIn(browser, "ann-sub");
          assert.equal(byIdentity.status, 403);
          assert.equal(((await byIdentity.json()) as Json).error.code, "FORBIDDEN");
          assert.equal(browser.cookie(h.rye.url, SESSION_COOKIE), undefined);
        } finally {
          await h.reg.db.prisma.user.update({ where: { id: ann.id }, data: { disabledAt: null } });
        }
      });

      test("a provider without sign-up refuses unknown people and creates nothing", async () => {
        h.op.accounts.set("gina-sub", { email: "gina@example.com", email_verified: true, preferred_username: "gina" });
        const res = await signIn(new TestBrowser(), "gina-sub", { provider: "closed" });
        assert.equal(res.status, 403);
        assert.match(((await res.json()) as Json).error.message, /Sign-up through Closed SSO is closed/);
        assert.equal(await h.reg.db.prisma.user.count({ where: { username: "gina" } }), 0);
      });

      test("cancelling at the identity provider is a 401 naming the provider's error", async () => {
        const browser = new TestBrowser();
        const { url } = await browser.walk(`${h.rye.url}/v1/auth/oidc/acme/start`, { abort: true, stopAt: isCallback });
        assert.equal(url.searchParams.get("error"), "access_denied");
        const res = await browser.fetch(url);
        assert.equal(res.status, 401);
        const body = (await res.json()) as Json;
        assert.equal(body.error.code, "UNAUTHORIZED");
        assert.equal(body.error.details.provider_error, "access_denied");
        h.github.user = null;
        const denied = await signIn(new TestBrowser(), "", { provider: "github" });
        assert.equal(denied.status, 401);
      });

      test("an unreachable identity provider is a 503, and discovery is retried later", async () => {
        const down = await listenLoopback();
        const issuer = down.url;
        await down.close();
        const app = testApp(h.reg.deps, loadUpstreamAuthConfig({ RYE_OIDC_PROVIDERS: JSON.stringify([{ id: "down", type: "oidc", name: "Down SSO", issuer, client_id: "x" }]) }));
        for (let i = 0; i < 2; i++) {
          const res = await app.request("/v1/auth/oidc/down/start");
          assert.equal(res.status, 503);
          assert.match(((await res.json()) as Json).error.message, /Down SSO cannot be reached/);
        }
      });

      test("unknown providers are 404", async () => {
        const res = await fetch(`${h.rye.url}/v1/auth/oidc/nope/start`, { redirect: "manual" });
        assert.equal(res.status, 404);
        assert.equal(((await res.json()) as Json).error.code, "NOT_FOUND");
      });
    });

    describe("security", () => {
      test("start sets a short-lived httpOnly SameSite=Lax flow cookie and asks for PKCE S256, state and nonce", async () => {
        const res = await fetch(`${h.rye.url}/v1/auth/oidc/acme/start`, { redirect: "manual" });
        assert.equal(res.status, 302);
        assert.equal(res.headers.get("cache-control"), "no-store");
        const location = new URL(res.headers.get("location")!);
        assert.equal(location.origin, h.op.issuer);
        for (const p of ["state", "nonce", "code_challenge"]) assert.ok((location.searchParams.get(p) ?? "").length >= 43, p);
        assert.equal(location.searchParams.get("code_challenge_method"), "S256");
        assert.equal(location.searchParams.get("redirect_uri"), `${h.rye.url}/v1/auth/oidc/acme/callback`);
        const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${FLOW_COOKIE}=`))!;
        assert.match(cookie, /HttpOnly/);
        assert.match(cookie, /SameSite=Lax/);
        assert.match(cookie, /Max-Age=600/);
        assert.match(cookie, /Path=\/v1\/auth\//);
        for (const secret of [location.searchParams.get("state")!, location.searchParams.get("nonce")!]) assert.ok(!cookie.includes(secret), "the cookie is sealed");
      });

      test("a tampered state, a tampered cookie, another browser or a replay are refused and create nothing", async () => {
        h.op.accounts.set("hank-sub", { email: "hank@example.com", email_verified: true, preferred_username: "hank" });
        const users = await h.reg.db.prisma.user.count();
        const expect400 = async (res: Response, what: string) => {
          assert.equal(res.status, 400, what);
          assert.equal(((await res.json()) as Json).error.code, "BAD_REQUEST", what);
        };

        const tampered = new TestBrowser();
        const callback = await toCallback(tampered, "hank-sub");
        const forged = new URL(callback);
        forged.searchParams.set("state", `${callback.searchParams.get("state")}x`);
        await expect400(await tampered.fetch(forged), "state");
        assert.equal(tampered.cookie(callback, FLOW_COOKIE), undefined, "a failed callback also ends the flow");
        await expect400(await tampered.fetch(callback), "the genuine callback after a failed attempt");

        // No state at all: refused by the route's declaration (state is required), and the flow ends all the same.
        const stateless = new TestBrowser();
        const callback3 = await toCallback(stateless, "hank-sub");
        const withoutState = new URL(callback3);
        withoutState.searchParams.delete("state");
        await expect400(await stateless.fetch(withoutState), "no state");
        assert.equal(stateless.cookie(callback3, FLOW_COOKIE), undefined, "a callback without state also ends the flow");
        await expect400(await stateless.fetch(callback3), "the genuine callback after a stateless attempt");

        const badCookie = new TestBrowser();
        const callback2 = await toCallback(badCookie, "hank-sub");
        const sealed = badCookie.cookie(callback2, FLOW_COOKIE)!;
        badCookie.setCookie(h.rye.url, FLOW_COOKIE, `${sealed.slice(0, 20)}${sealed[20] === "A" ? "B" : "A"}${sealed.slice(21)}`, "/v1/auth/");
        await expect400(await badCookie.fetch(callback2), "cookie");

        // Login CSRF: the attacker's own callback URL opened in the victim's browser.
        const attacker = new TestBrowser();
        const attackerCallback = await toCallback(attacker, "hank-sub");
        const victim = new TestBrowser();
        await expect400(await victim.fetch(attackerCallback), "other browser");
        assert.equal(victim.cookie(h.rye.url, SESSION_COOKIE), undefined);

        // Two flows in one browser: the older callback no longer matches the browser's flow.
        const twice = new TestBrowser();
        const first = await toCallback(twice, "hank-sub");
        await toCallback(twice, "hank-sub");
        await expect400(await twice.fetch(first), "superseded flow");

        assert.equal(await h.reg.db.prisma.user.count(), users, "nothing was created");

        const replay = new TestBrowser();
        const once = await toCallback(replay, "hank-sub");
        assert.equal((await replay.fetch(once)).status, 302);
        await expect400(await replay.fetch(once), "replay");
      });

      test("next must be a same-origin relative path (no open redirect)", async () => {
        for (const next of ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)", "evil", "/a\r\nLocation: https://evil.example"]) {
          const res = await fetch(`${h.rye.url}/v1/auth/oidc/acme/start?next=${encodeURIComponent(next)}`, { redirect: "manual" });
          assert.equal(res.status, 400, next);
          assert.equal(res.headers.get("location"), null, next);
          // A control character is refused by the request guard before the route (middleware/request-target.ts).
          assert.equal(((await res.json()) as Json).error.code, /[\r\n]/.test(next) ? "INVALID_PARAMETER" : "BAD_REQUEST", next);
        }
        const ok = await fetch(`${h.rye.url}/v1/auth/oidc/acme/start?next=${encodeURIComponent("/items/acme/x?tab=versions#top")}`, { redirect: "manual" });
        assert.equal(ok.status, 302);
      });

      test("a provider marked only, with local accounts off, is all /v1/auth/providers offers", async () => {
        const upstream = loadUpstreamAuthConfig({
          RYE_OIDC_PROVIDERS: JSON.stringify([{ id: "corp", type: "oidc", name: "Corp", issuer: "https://login.corp.example", client_id: "rye", client_secret: "s", only: true }]),
          RYE_LOCAL_ACCOUNTS: "false",
        });
        const res = await testApp(h.reg.deps, upstream).request("/v1/auth/providers");
        assert.deepEqual(await res.json(), { providers: [{ id: "corp", name: "Corp", type: "oidc" }], local_accounts: false });
      });
    });

    describe("Supabase Auth", () => {
      async function exchange(browser: TestBrowser, token: string): Promise<{ status: number; body: Json }> {
        const res = await browser.fetch(`${h.rye.url}/v1/auth/supabase/session`, { json: { access_token: token } });
        return { status: res.status, body: (await res.json()) as Json };
      }

      test("a verified Supabase token signs a new person in; the same subject signs in again", async () => {
        h.supabase.users.set("sb-sue", { email: "sue@example.com", email_confirmed_at: new Date().toISOString() });
        const token = await h.supabase.token({ sub: "sb-sue", email: "sue@example.com", user_metadata: { user_name: "Sue.Storm", full_name: "Sue Storm" } });
        const browser = new TestBrowser();
        const first = await exchange(browser, token);
        assert.equal(first.status, 200, JSON.stringify(first.body));
        assert.equal(first.body.username, "sue-storm");
        assert.ok(first.body.csrf_token);
        assert.equal((await me(browser)).body.username, "sue-storm");
        const user = await h.reg.db.prisma.user.findUniqueOrThrow({ where: { username: "sue-storm" }, include: { identities: true } });
        assert.equal(user.email, "sue@example.com");
        assert.deepEqual(user.identities.map((i) => [i.provider, i.subject, i.emailVerified]), [["supabase", "sb-sue", true]]);
        assert.equal((await exchange(new TestBrowser(), token)).body.username, "sue-storm");
      });

      test("an existing account is linked only once Supabase confirms the email", async () => {
        const tom = await h.reg.db.prisma.user.create({ data: { username: "tom", email: "tom@example.com", emailVerified: true } });
        h.supabase.users.set("sb-tom", { email: "tom@example.com", email_confirmed_at: null });
        const token = await h.supabase.token({ sub: "sb-tom", email: "tom@example.com", user_metadata: { email_verified: true } });
        const unconfirmed = await exchange(new TestBrowser(), token);
        assert.equal(unconfirmed.status, 409, "user_metadata.email_verified is user-editable and ignored");
        assert.equal(await h.reg.db.prisma.identity.count({ where: { userId: tom.id } }), 0);
        h.supabase.users.set("sb-tom", { email: "tom@example.com", email_confirmed_at: new Date().toISOString() });
        const confirmed = await exchange(new TestBrowser(), token);
        assert.equal(confirmed.status, 200);
        assert.equal(confirmed.body.username, "tom");
      });

      test("expired, foreign-key, wrong-audience, anonymous and malformed tokens are refused", async () => {
        const users = await h.reg.db.prisma.user.count();
        const now = Math.floor(Date.now() / 1000);
        const bad = {
          expired: await h.supabase.token({ sub: "sb-x", email: "x@example.com" }, { expiresIn: now - 60 }),
          "other key": await h.supabase.token({ sub: "sb-x", email: "x@example.com" }, { otherKey: true }),
          audience: await h.supabase.token({ sub: "sb-x", email: "x@example.com" }, { audience: "anon" }),
          anonymous: await h.supabase.token({ sub: "sb-x", is_anonymous: true }),
          "anon role": await h.supabase.token({ sub: "sb-x", role: "anon" }),
          garbage: "not.a.jwt",
        };
        for (const [what, token] of Object.entries(bad)) {
          const res = await exchange(new TestBrowser(), token);
          assert.equal(res.status, 401, what);
          assert.equal(res.body.error.code, "UNAUTHORIZED", what);
        }
        assert.equal(await h.reg.db.prisma.user.count(), users);
      });

      test("JSON only, and 404 when Supabase is not configured", async () => {
        const form = await fetch(`${h.rye.url}/v1/auth/supabase/session`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "access_token=x" });
        assert.equal(form.status, 400);
        const missing = await fetch(`${h.rye.url}/v1/auth/supabase/session`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
        assert.equal(((await missing.json()) as Json).error.code, "BAD_REQUEST");
        const off = testApp(h.reg.deps, { ...loadUpstreamAuthConfig({}), supabase: null });
        const res = await off.request("/v1/auth/supabase/session", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
        assert.equal(res.status, 404);
      });
    });
  });
}
