/** Authorization code + PKCE with loopback redirects (rye login --web), openid-client as the CLI. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as client from "openid-client";
import { postgresAvailable } from "@rye/db/testing";
import { startOAuthServer, type Browser, type OAuthTestServer } from "./test-server.ts";

type Json = Record<string, any>;
const REDIRECT = "http://127.0.0.1:49152/callback";

/** The hidden fields of the consent form, as a browser would submit them. */
function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1]!] = m[2]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  }
  return fields;
}

for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
  describe(`authorization code + PKCE on ${kind}`, () => {
    let srv: OAuthTestServer;
    let config: client.Configuration;
    let alice: { id: string; username: string };
    let browser: Browser;

    before(async () => {
      srv = await startOAuthServer({ kind });
      config = await srv.discover();
      alice = await srv.createUser("alice");
      browser = await srv.signIn(alice.id);
    });
    after(() => srv.close());

    async function authorizationRequest(overrides: Record<string, string> = {}) {
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const params = { redirect_uri: REDIRECT, scope: "items:read", code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256", state, ...overrides };
      const url = client.buildAuthorizationUrl(config, params);
      return { url, verifier, state, path: `${url.pathname}${url.search}` };
    }

    /** Authorize page → consent form → decision: the redirect's Location. */
    async function consent(path: string, decision: "approve" | "deny", as: Browser = browser): Promise<string> {
      const page = await srv.fetch(path, { browser: as });
      assert.equal(page.status, 200, await page.clone().text());
      const res = await srv.fetch("/oauth/authorize/decision", { browser: as, form: { ...formFields(await page.text()), decision } });
      assert.equal(res.status, 302);
      return res.headers.get("location")!;
    }

    async function redeem(location: string, verifier: string, state: string) {
      return client.authorizationCodeGrant(config, new URL(location), { pkceCodeVerifier: verifier, expectedState: state });
    }

    describe("happy path", () => {
      test("signed out → login; signed in → consent page → code with state and iss → tokens", async () => {
        const { url, path, verifier, state } = await authorizationRequest();
        assert.equal(`${url.origin}${url.pathname}`, `${srv.issuer}/oauth/authorize`);
        const signedOut = await srv.fetch(path);
        assert.equal(signedOut.status, 302);
        assert.equal(signedOut.headers.get("location"), `${srv.issuer}/login?next=${encodeURIComponent(path)}`);

        const page = await srv.fetch(path, { browser });
        assert.equal(page.status, 200);
        assert.match(page.headers.get("content-type")!, /^text\/html/);
        assert.match(page.headers.get("content-security-policy")!, /frame-ancestors 'none'/);
        assert.equal(page.headers.get("x-frame-options"), "DENY");
        assert.equal(page.headers.get("cache-control"), "no-store");
        const html = await page.text();
        assert.match(html, /Authorize rye command-line interface\?/);
        assert.match(html, /Signed in as <strong>alice<\/strong>/);
        assert.match(html, /127\.0\.0\.1:49152/);
        assert.doesNotMatch(html, /<script/i);
        assert.match(html, new RegExp(`action="${srv.issuer}/oauth/authorize/decision"`));
        assert.equal(formFields(html).csrf_token, browser.csrfToken);

        const location = await consent(path, "approve");
        const back = new URL(location);
        assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
        assert.deepEqual([...back.searchParams.keys()].sort(), ["code", "iss", "state"]);
        assert.equal(back.searchParams.get("state"), state);
        assert.equal(back.searchParams.get("iss"), srv.issuer);

        const tokens = await redeem(location, verifier, state);
        assert.equal(tokens.scope, "items:read");
        assert.ok(tokens.refresh_token);
        const claims = await srv.accessTokens.verifyAccessToken(tokens.access_token);
        assert.equal(claims.sub, alice.id);
        assert.deepEqual(claims.scope, ["items:read"]);
        assert.equal((await srv.fetch("/v1/keys", { headers: { authorization: `Bearer ${tokens.access_token}` } })).status, 200);
        const row = await srv.db.prisma.authorizationCode.findFirstOrThrow({ where: { userId: alice.id } });
        assert.notEqual(row.codeHash, back.searchParams.get("code"));
        assert.equal(row.redirectUri, REDIRECT);
        assert.ok(row.expiresAt.getTime() - row.createdAt.getTime() <= 61_000);
      });

      test("[::1] loopback with any port works", async () => {
        const { path, verifier, state } = await authorizationRequest({ redirect_uri: "http://[::1]:61001/callback" });
        const tokens = await redeem(await consent(path, "approve"), verifier, state);
        assert.ok(tokens.access_token);
      });
    });

    describe("errors", () => {
      test("denial → error=access_denied with state and iss", async () => {
        const { path, verifier, state } = await authorizationRequest();
        const back = new URL(await consent(path, "deny"));
        assert.equal(back.searchParams.get("error"), "access_denied");
        assert.equal(back.searchParams.get("state"), state);
        assert.equal(back.searchParams.get("iss"), srv.issuer);
        await assert.rejects(redeem(back.href, verifier, state), (err: unknown) => err instanceof client.AuthorizationResponseError && err.error === "access_denied");
      });

      test("invalid requests with a good redirect URI go back there as errors (plain PKCE refused)", async () => {
        const cases: [Record<string, string>, string][] = [
          [{ code_challenge_method: "plain" }, "invalid_request"],
          [{ code_challenge: "too-short" }, "invalid_request"],
          [{ response_type: "token" }, "unsupported_response_type"],
          [{ scope: "items:read root" }, "invalid_scope"],
        ];
        for (const [overrides, error] of cases) {
          const { path, state } = await authorizationRequest(overrides);
          const res = await srv.fetch(path, { browser });
          assert.equal(res.status, 302, JSON.stringify(overrides));
          const back = new URL(res.headers.get("location")!);
          assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
          assert.equal(back.searchParams.get("error"), error, JSON.stringify(overrides));
          assert.equal(back.searchParams.get("state"), state);
          assert.equal(back.searchParams.get("iss"), srv.issuer);
        }
        const noChallenge = new URL(`${srv.issuer}/oauth/authorize?response_type=code&client_id=rye-cli&redirect_uri=${encodeURIComponent(REDIRECT)}&state=s`);
        assert.equal(new URL((await srv.fetch(`${noChallenge.pathname}${noChallenge.search}`, { browser })).headers.get("location")!).searchParams.get("error"), "invalid_request");
        const noState = `/oauth/authorize?response_type=code&client_id=rye-cli&redirect_uri=${encodeURIComponent(REDIRECT)}&code_challenge=${"a".repeat(43)}&code_challenge_method=S256`;
        const back = new URL((await srv.fetch(noState, { browser })).headers.get("location")!);
        assert.equal(back.searchParams.get("error"), "invalid_request");
        assert.equal(back.searchParams.has("state"), false);
      });

      test("prompt=none cannot be satisfied: login_required / consent_required", async () => {
        const { path } = await authorizationRequest({ prompt: "none" });
        assert.equal(new URL((await srv.fetch(path)).headers.get("location")!).searchParams.get("error"), "login_required");
        assert.equal(new URL((await srv.fetch(path, { browser })).headers.get("location")!).searchParams.get("error"), "consent_required");
      });

      test("a wrong PKCE verifier is invalid_grant and burns the code", async () => {
        const { path, state, verifier } = await authorizationRequest();
        const location = await consent(path, "approve");
        await assert.rejects(redeem(location, client.randomPKCECodeVerifier(), state), (err: unknown) => err instanceof client.ResponseBodyError && err.error === "invalid_grant");
        await assert.rejects(redeem(location, verifier, state), (err: unknown) => err instanceof client.ResponseBodyError && err.error === "invalid_grant");
      });

      test("the token request must repeat the exact redirect_uri, and the code expires after 60 s", async () => {
        const { path, verifier } = await authorizationRequest();
        const code = new URL(await consent(path, "approve")).searchParams.get("code")!;
        const token = (form: Record<string, string>) => srv.fetch("/oauth/token", { form: { grant_type: "authorization_code", client_id: "rye-cli", code, code_verifier: verifier, ...form } });
        const missing = await token({});
        assert.equal(((await missing.json()) as Json).error, "invalid_request");
        const otherPort = await token({ redirect_uri: "http://127.0.0.1:49153/callback" });
        assert.equal(((await otherPort.json()) as Json).error, "invalid_grant");

        const late = await authorizationRequest();
        const lateCode = new URL(await consent(late.path, "approve")).searchParams.get("code")!;
        await srv.db.prisma.authorizationCode.updateMany({ where: { usedAt: null }, data: { expiresAt: new Date(Date.now() - 1) } });
        const expired = await srv.fetch("/oauth/token", { form: { grant_type: "authorization_code", client_id: "rye-cli", code: lateCode, code_verifier: late.verifier, redirect_uri: REDIRECT } });
        assert.equal(expired.status, 400);
        assert.equal(((await expired.json()) as Json).error, "invalid_grant");
      });
    });

    describe("security", () => {
      test("unknown client or unregistered redirect URI: an error page, never a redirect", async () => {
        const bad = [
          { redirect_uri: "http://127.0.0.1:49152/other" },
          { redirect_uri: "http://localhost:49152/callback" },
          { redirect_uri: "https://evil.example/callback" },
          { redirect_uri: "https://127.0.0.1:49152/callback" },
          { redirect_uri: "http://127.0.0.1:49152/callback?next=https://evil.example" },
        ];
        for (const overrides of bad) {
          const { path } = await authorizationRequest(overrides);
          for (const as of [browser, undefined]) {
            const res = await srv.fetch(path, as ? { browser: as } : {});
            assert.equal(res.status, 400, JSON.stringify(overrides));
            assert.equal(res.headers.get("location"), null);
            assert.match(await res.text(), /redirect address is not registered/);
          }
        }
        const { path } = await authorizationRequest();
        for (const tampered of [path.replace("client_id=rye-cli", "client_id=evil"), path.replace(/&?redirect_uri=[^&]*/, ""), `${path}&state=again`]) {
          const res = await srv.fetch(tampered, { browser });
          assert.equal(res.status, 400, tampered);
          assert.equal(res.headers.get("location"), null);
        }
      });

      test("the decision needs the session and its CSRF token, and re-validates the redirect URI", async () => {
        const { path } = await authorizationRequest();
        const fields = formFields(await (await srv.fetch(path, { browser })).text());
        const noSession = await srv.fetch("/oauth/authorize/decision", { form: { ...fields, decision: "approve" } });
        assert.equal(noSession.status, 401);
        assert.equal(noSession.headers.get("location"), null);
        const noCsrf = await srv.fetch("/oauth/authorize/decision", { browser, form: { ...fields, csrf_token: "", decision: "approve" } });
        assert.equal(noCsrf.status, 403);
        const otherSession = await srv.signIn(alice.id);
        assert.equal((await srv.fetch("/oauth/authorize/decision", { browser: otherSession, form: { ...fields, decision: "approve" } })).status, 403);
        const redirected = await srv.fetch("/oauth/authorize/decision", { browser, form: { ...fields, redirect_uri: "https://evil.example/callback", decision: "approve" } });
        assert.equal(redirected.status, 400);
        assert.equal(redirected.headers.get("location"), null);
        assert.equal((await srv.fetch("/oauth/authorize/decision", { browser, form: { ...fields, decision: "maybe" } })).status, 400);
        const huge = await srv.fetch("/oauth/authorize/decision", { browser, form: { ...fields, state: "s".repeat(20_000), decision: "approve" } });
        assert.equal(huge.status, 400);
        assert.match(huge.headers.get("content-type")!, /^text\/html/);
        assert.equal(await srv.db.prisma.authorizationCode.count({ where: { codeChallenge: fields.code_challenge! } }), 0);
      });

      test("reusing a code is invalid_grant and revokes the refresh token its first use obtained", async () => {
        const { path, verifier, state } = await authorizationRequest();
        const location = await consent(path, "approve");
        const first = await redeem(location, verifier, state);
        await assert.rejects(redeem(location, verifier, state), (err: unknown) => err instanceof client.ResponseBodyError && err.error === "invalid_grant");
        await assert.rejects(client.refreshTokenGrant(config, first.refresh_token!), (err: unknown) => err instanceof client.ResponseBodyError && err.error === "invalid_grant");
      });

      test("request values are escaped on the consent page", async () => {
        const { path } = await authorizationRequest({ state: `"><script>alert(1)</script>` });
        const html = await (await srv.fetch(path, { browser })).text();
        assert.doesNotMatch(html, /<script>/);
        assert.match(html, /&quot;&gt;&lt;script&gt;/);
        assert.equal(formFields(html).state, `"><script>alert(1)</script>`);
      });
    });
  });
}
