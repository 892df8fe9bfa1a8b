/** RFC 8628 device flow against a served registry, with openid-client as the CLI. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as client from "openid-client";
import { postgresAvailable } from "@rye/db/testing";
import { DEVICE_CODE_GRANT } from "./clients.ts";
import { USER_CODE_FAILURES_PER_IP, USER_CODE_FAILURES_PER_SESSION } from "./services.ts";
import { startOAuthServer, type Browser, type OAuthTestServer } from "./test-server.ts";

type Json = Record<string, any>;

for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
  describe(`device flow on ${kind}`, () => {
    let srv: OAuthTestServer;
    let alice: { id: string; username: string };
    let browser: Browser;

    before(async () => {
      srv = await startOAuthServer({ kind, pollIntervalSeconds: 1 });
      alice = await srv.createUser("alice");
      browser = await srv.signIn(alice.id);
    });
    after(() => srv.close());

    const start = async (form: Record<string, string> = {}, headers: Record<string, string> = {}) => {
      const res = await srv.fetch("/oauth/device/code", { form: { client_id: "rye-cli", ...form }, headers });
      return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
    };
    const poll = async (deviceCode: string, clientId = "rye-cli") => {
      const res = await srv.fetch("/oauth/token", { form: { grant_type: DEVICE_CODE_GRANT, device_code: deviceCode, client_id: clientId } });
      return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
    };
    const decide = async (action: "approve" | "deny", userCode: string, as: Browser = browser, csrf: string | null = as.csrfToken, headers: Record<string, string> = {}) => {
      const res = await srv.fetch(`/v1/device/${action}`, { method: "POST", browser: as, headers: { "content-type": "application/json", ...(csrf ? { "x-csrf-token": csrf } : {}), ...headers }, body: JSON.stringify({ user_code: userCode }) });
      return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
    };
    const lookup = async (userCode: string, as: Browser | null = browser, headers: Record<string, string> = {}) => {
      const res = await srv.fetch(`/v1/device?user_code=${encodeURIComponent(userCode)}`, { ...(as ? { browser: as } : {}), headers });
      return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
    };

    describe("happy path", () => {
      test("initiate → the person reviews and approves → the CLI's polling gets tokens that authenticate API calls", async () => {
        const config = await srv.discover();
        const started = await client.initiateDeviceAuthorization(config, { scope: "items:read items:write" });
        assert.match(started.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
        assert.equal(started.verification_uri, `${srv.issuer}/device`);
        assert.equal(started.verification_uri_complete, `${srv.issuer}/device?user_code=${started.user_code}`);
        assert.equal(started.expires_in, 900);
        assert.equal(started.interval, 1);

        // What the /device page shows, typed in lower case without the dash.
        const shown = await lookup(started.user_code.replace("-", "").toLowerCase());
        assert.equal(shown.status, 200, JSON.stringify(shown.body));
        assert.equal(shown.headers.get("cache-control"), "no-store");
        assert.deepEqual(Object.keys(shown.body).sort(), ["client_id", "client_name", "expires_at", "request_ip", "request_user_agent", "requested_at", "scope", "user_code"]);
        assert.equal(shown.body.user_code, started.user_code);
        assert.equal(shown.body.client_id, "rye-cli");
        assert.equal(shown.body.client_name, "rye command-line interface");
        assert.equal(shown.body.scope, "items:read items:write");
        assert.equal(shown.body.request_ip, "127.0.0.1");
        assert.match(shown.body.request_user_agent, /openid-client/);
        assert.ok(Math.abs(Date.parse(shown.body.expires_at) - Date.parse(shown.body.requested_at) - 900_000) < 5_000);

        const approved = await decide("approve", started.user_code);
        assert.equal(approved.status, 200, JSON.stringify(approved.body));
        assert.deepEqual(approved.body, { user_code: started.user_code, status: "approved", client_id: "rye-cli", scope: "items:read items:write" });

        const tokens = await client.pollDeviceAuthorizationGrant(config, started);
        assert.equal(tokens.token_type, "bearer");
        assert.equal(tokens.expires_in, 900);
        assert.equal(tokens.scope, "items:read items:write");
        assert.ok(tokens.refresh_token);
        const claims = await srv.accessTokens.verifyAccessToken(tokens.access_token);
        assert.equal(claims.sub, alice.id);
        assert.equal(claims.clientId, "rye-cli");

        // The access token works through the composite authenticator on the /v1 routes.
        const keys = await srv.fetch("/v1/keys", { headers: { authorization: `Bearer ${tokens.access_token}` } });
        assert.equal(keys.status, 200);
        const push = await srv.fetch("/v1/push", { method: "POST", headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json" }, body: "{}" });
        assert.equal(push.status, 400, "authenticated and authorized: only the empty body is wrong");
      });

      test("without a scope the client's default applies; JSON bodies are accepted too", async () => {
        const res = await srv.fetch("/oauth/device/code", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_id: "rye-cli" }) });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("cache-control"), "no-store");
        const started = (await res.json()) as Json;
        assert.equal((await lookup(started.user_code)).body.scope, "items:read items:write");
      });

      test("a token whose scope lacks items:write gets the route's FORBIDDEN", async () => {
        const tokens = await srv.deviceLogin(alice.id, "items:read");
        assert.equal(tokens.scope, "items:read");
        const res = await srv.fetch("/v1/push", { method: "POST", headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json" }, body: "{}" });
        assert.equal(res.status, 403);
        assert.equal(((await res.json()) as Json).error.code, "FORBIDDEN");
      });
    });

    describe("errors", () => {
      test("pending, then slow_down with an interval raised by 5 s each time it is polled too fast", async () => {
        const { body } = await start();
        const where = { userCode: body.user_code.replace("-", "") };
        // The production interval (the suite polls every second for speed), so a slow machine cannot be "on time".
        await srv.db.prisma.deviceAuthorization.updateMany({ where, data: { interval: 5 } });
        const first = await poll(body.device_code);
        assert.equal(first.status, 400);
        assert.deepEqual(Object.keys(first.body).sort(), ["error", "error_description"]);
        assert.equal(first.body.error, "authorization_pending");
        assert.equal(first.headers.get("cache-control"), "no-store");
        const fast = await poll(body.device_code);
        assert.equal(fast.status, 400);
        assert.equal(fast.body.error, "slow_down");
        assert.equal(fast.body.interval, 10);
        const faster = await poll(body.device_code);
        assert.equal(faster.body.error, "slow_down");
        assert.equal(faster.body.interval, 15);
        const row = await srv.db.prisma.deviceAuthorization.findFirstOrThrow({ where });
        assert.equal(row.interval, 15);
        // Waiting the (new) interval is on time again; one second less is not.
        await srv.db.prisma.deviceAuthorization.update({ where: { id: row.id }, data: { lastPolledAt: new Date(Date.now() - 14_000) } });
        assert.equal((await poll(body.device_code)).body.error, "slow_down");
        await srv.db.prisma.deviceAuthorization.update({ where: { id: row.id }, data: { lastPolledAt: new Date(Date.now() - 20_000) } });
        assert.equal((await poll(body.device_code)).body.error, "authorization_pending");
      });

      test("concurrent polls: only one is on time", async () => {
        const { body } = await start();
        await srv.db.prisma.deviceAuthorization.updateMany({ where: { userCode: body.user_code.replace("-", "") }, data: { interval: 5 } });
        const errors = (await Promise.all([1, 2, 3].map(() => poll(body.device_code)))).map((r) => r.body.error as string);
        assert.equal(errors.filter((e) => e === "authorization_pending").length, 1, errors.join());
      });

      test("denied → access_denied, and the code cannot be approved afterwards", async () => {
        const config = await srv.discover();
        const started = await client.initiateDeviceAuthorization(config, {});
        assert.equal((await decide("deny", started.user_code)).body.status, "denied");
        await assert.rejects(client.pollDeviceAuthorizationGrant(config, started), (err: unknown) => err instanceof client.ResponseBodyError && err.error === "access_denied");
        assert.equal((await decide("approve", started.user_code)).status, 404);
      });

      test("expired → expired_token (even when approved), and the code is no longer shown", async () => {
        const { body } = await start();
        await decide("approve", body.user_code);
        await srv.db.prisma.deviceAuthorization.updateMany({ where: { userCode: body.user_code.replace("-", "") }, data: { expiresAt: new Date(Date.now() - 1000) } });
        assert.equal((await poll(body.device_code)).body.error, "expired_token");
        const pending = await start();
        await srv.db.prisma.deviceAuthorization.updateMany({ where: { userCode: pending.body.user_code.replace("-", "") }, data: { expiresAt: new Date(Date.now() - 1000) } });
        assert.equal((await lookup(pending.body.user_code)).status, 404);
        assert.equal((await decide("approve", pending.body.user_code)).status, 404);
      });

      test("a device code is consumed once; user codes work once", async () => {
        const { body } = await start();
        assert.equal((await decide("approve", body.user_code)).status, 200);
        assert.equal((await decide("approve", body.user_code)).status, 404, "used user code");
        assert.equal((await decide("deny", body.user_code)).status, 404);
        assert.equal((await poll(body.device_code)).status, 200);
        const again = await poll(body.device_code);
        assert.equal(again.status, 400);
        assert.equal(again.body.error, "invalid_grant");
      });

      test("wrong and malformed user codes are NOT_FOUND in the rye envelope", async () => {
        for (const code of ["BCDF-GHJK", "nonsense", "", "BCDF-GHJ1"]) {
          const res = await lookup(code);
          assert.equal(res.status, 404, code);
          assert.equal(res.body.error.code, "NOT_FOUND");
        }
      });

      test("token endpoint errors use the OAuth format", async () => {
        const cases: [Record<string, string>, number, string][] = [
          [{ grant_type: DEVICE_CODE_GRANT, device_code: "x" }, 401, "invalid_client"],
          [{ grant_type: DEVICE_CODE_GRANT, device_code: "x", client_id: "other" }, 401, "invalid_client"],
          [{ grant_type: DEVICE_CODE_GRANT, device_code: "x", client_id: "rye-web" }, 400, "unauthorized_client"],
          [{ grant_type: DEVICE_CODE_GRANT, client_id: "rye-cli" }, 400, "invalid_request"],
          [{ grant_type: DEVICE_CODE_GRANT, device_code: "unknown", client_id: "rye-cli" }, 400, "invalid_grant"],
          [{ grant_type: "password", client_id: "rye-cli", username: "a", password: "b" }, 400, "unsupported_grant_type"],
          [{ grant_type: "client_credentials", client_id: "rye-cli" }, 400, "unsupported_grant_type"],
          [{ client_id: "rye-cli" }, 400, "invalid_request"],
        ];
        for (const [form, status, error] of cases) {
          const res = await srv.fetch("/oauth/token", { form });
          assert.equal(res.status, status, JSON.stringify(form));
          assert.equal(((await res.json()) as Json).error, error, JSON.stringify(form));
        }
        const repeated = await srv.fetch("/oauth/token", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=refresh_token&client_id=rye-cli&client_id=rye-cli" });
        assert.equal(((await repeated.json()) as Json).error, "invalid_request");
        const text = await srv.fetch("/oauth/token", { method: "POST", headers: { "content-type": "text/plain" }, body: "grant_type=x" });
        assert.equal(((await text.json()) as Json).error, "invalid_request");
        const huge = await srv.fetch("/oauth/token", { form: { grant_type: DEVICE_CODE_GRANT, client_id: "rye-cli", device_code: "x".repeat(20_000) } });
        assert.equal(huge.status, 413);
        assert.equal(((await huge.json()) as Json).error, "invalid_request");
      });

      test("device authorization errors: client, grant and scope", async () => {
        assert.equal((await start({ client_id: "nope" })).body.error, "invalid_client");
        assert.equal((await start({ client_id: "rye-web" })).body.error, "unauthorized_client");
        const scope = await start({ scope: "items:read admin:everything" });
        assert.equal(scope.status, 400);
        assert.equal(scope.body.error, "invalid_scope");
      });
    });

    describe("security", () => {
      test("looking up and deciding need a signed-in session; decisions need its CSRF token", async () => {
        const { body } = await start();
        const anonymous = await lookup(body.user_code, null);
        assert.equal(anonymous.status, 401);
        assert.equal(anonymous.body.error.code, "UNAUTHORIZED");
        const tokens = await srv.deviceLogin(alice.id);
        const bearerOnly = await srv.fetch("/v1/device/approve", { method: "POST", headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json" }, body: JSON.stringify({ user_code: body.user_code }) });
        assert.equal(bearerOnly.status, 401, "an access token is not a browser session");
        const noCsrf = await decide("approve", body.user_code, browser, null);
        assert.equal(noCsrf.status, 403);
        assert.equal(noCsrf.body.error.code, "FORBIDDEN");
        assert.equal((await decide("approve", body.user_code, browser, "x".repeat(browser.csrfToken.length))).status, 403);
        const otherSession = await srv.signIn(alice.id);
        assert.equal((await decide("approve", body.user_code, browser, otherSession.csrfToken)).status, 403, "another session's token");
        assert.equal((await poll(body.device_code)).body.error, "authorization_pending", "nothing was approved");
      });

      test("the device code is bound to its client, and only its hash is stored", async () => {
        const { body } = await start();
        await decide("approve", body.user_code);
        assert.equal((await poll(body.device_code, "rye-web")).body.error, "unauthorized_client");
        const row = await srv.db.prisma.deviceAuthorization.findFirstOrThrow({ where: { userCode: body.user_code.replace("-", "") } });
        assert.notEqual(row.deviceCodeHash, body.device_code);
        assert.match(row.deviceCodeHash, /^[0-9a-f]{64}$/);
        assert.equal(row.userId, alice.id);
      });

      test("a user disabled after approving gets no tokens", async () => {
        const mallory = await srv.createUser("mallory");
        const { body } = await start();
        await decide("approve", body.user_code, await srv.signIn(mallory.id));
        await srv.db.prisma.user.update({ where: { id: mallory.id }, data: { disabledAt: new Date() } });
        assert.equal((await poll(body.device_code)).body.error, "invalid_grant");
      });

      test(`brute force: ${USER_CODE_FAILURES_PER_SESSION} wrong codes per session, ${USER_CODE_FAILURES_PER_IP} per IP, then 429 even for a right code`, async () => {
        const ip = { "x-forwarded-for": "203.0.113.7" };
        const { body } = await start();
        const guesser = await srv.signIn(alice.id);
        for (let i = 0; i < USER_CODE_FAILURES_PER_SESSION; i++) assert.equal((await lookup(`BCDF-GH${"JK"[i % 2]}${"LMNPQRSTVW"[i]}`, guesser, ip)).status, 404);
        const blocked = await lookup(body.user_code, guesser, ip);
        assert.equal(blocked.status, 429);
        assert.equal(blocked.body.error.code, "RATE_LIMITED");
        assert.ok(Number(blocked.headers.get("retry-after")) > 500);
        assert.equal((await decide("approve", body.user_code, guesser, guesser.csrfToken, ip)).status, 429);
        // The same session from another address is still blocked; another session elsewhere is not.
        assert.equal((await lookup(body.user_code, guesser)).status, 429);
        assert.equal((await lookup(body.user_code, browser)).status, 200);
        // Per IP: fresh sessions from one address share its budget.
        let failures = USER_CODE_FAILURES_PER_SESSION;
        while (failures < USER_CODE_FAILURES_PER_IP) {
          const session = await srv.signIn(alice.id);
          for (let i = 0; i < USER_CODE_FAILURES_PER_SESSION && failures < USER_CODE_FAILURES_PER_IP; i++, failures++) {
            assert.equal((await lookup("BCDF-GHJK", session, ip)).status, 404);
          }
        }
        assert.equal((await lookup(body.user_code, await srv.signIn(alice.id), ip)).status, 429);
      });
    });
  });
}
