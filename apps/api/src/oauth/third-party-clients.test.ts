/**
 * Third-party MCP clients signing in over real HTTP: a Client ID Metadata Document served by a loopback server (the
 * operator's private-address and plain-http opt-ins let the registry fetch it) or a dynamic registration, then the
 * consent page, the code with iss, and tokens whose audience is /mcp. Hostile clients get a clear error and nothing
 * is stored; decisions and registrations are audited.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { postgresAvailable } from "@rye/db/testing";
import { startOAuthServer, type Browser, type OAuthTestServer } from "./test-server.ts";

type Json = Record<string, any>;
const REDIRECT = "http://127.0.0.1:33418/callback";

function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1]!] = m[2]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  }
  return fields;
}
const pkce = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
  describe(`third-party clients on ${kind}`, () => {
    let srv: OAuthTestServer;
    let docs: Server;
    let docsBase: string;
    const documents = new Map<string, unknown>();
    let alice: { id: string; username: string };
    let browser: Browser;

    before(async () => {
      docs = createServer((req, res) => {
        const body = documents.get(req.url!);
        if (body === undefined) return void res.writeHead(404).end();
        if (typeof body === "function") return void body(res);
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      });
      docs.listen(0, "127.0.0.1");
      await once(docs, "listening");
      docsBase = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`;
      srv = await startOAuthServer({ kind, env: { RYE_OAUTH_CIMD_ALLOW_PRIVATE: "1", RYE_OAUTH_CIMD_ALLOW_HTTP: "1", RYE_OAUTH_DCR_PER_IP_PER_HOUR: "3" } });
      alice = await srv.createUser("alice");
      const org = await srv.db.prisma.organization.create({ data: { name: "acme" } });
      await srv.db.prisma.membership.create({ data: { orgId: org.id, userId: alice.id, role: "member" } });
      browser = await srv.signIn(alice.id);
    });
    after(async () => {
      docs.closeAllConnections();
      docs.close();
      await srv.close();
    });

    let n = 0;
    function publish(extra: Record<string, unknown> = {}): string {
      const path = `/clients/${++n}.json`;
      const id = `${docsBase}${path}`;
      documents.set(path, { client_id: id, client_name: "Example MCP client", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", ...extra });
      return id;
    }
    function authorizePath(clientId: string, challenge: string, overrides: Record<string, string> = {}) {
      const params = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, state: "st", code_challenge: challenge, code_challenge_method: "S256", scope: "items:read", resource: `${srv.issuer}/mcp`, ...overrides });
      return `/oauth/authorize?${params}`;
    }
    async function decide(path: string, decision: "approve" | "deny") {
      const page = await srv.fetch(path, { browser });
      assert.equal(page.status, 200, await page.clone().text());
      const html = await page.text();
      const res = await srv.fetch("/oauth/authorize/decision", { browser, form: { ...formFields(html), decision } });
      assert.equal(res.status, 302);
      return { html, back: new URL(res.headers.get("location")!) };
    }
    const token = async (form: Record<string, string>) => {
      const res = await srv.fetch("/oauth/token", { form });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const audits = (action: string) => srv.db.prisma.auditEvent.findMany({ where: { action }, orderBy: { createdAt: "asc" } });

    test("the authorization server metadata advertises both registrations", async () => {
      const as = (await (await srv.fetch("/.well-known/oauth-authorization-server")).json()) as Json;
      assert.equal(as.client_id_metadata_document_supported, true);
      assert.equal(as.registration_endpoint, `${srv.issuer}/oauth/register`);
    });

    test("consent lists an organization that forbids remote MCP clients as one whose private items stay hidden", async () => {
      const locked = await srv.db.prisma.organization.create({ data: { name: "lockedco", allowRemoteMcp: false } });
      await srv.db.prisma.membership.create({ data: { orgId: locked.id, userId: alice.id, role: "member" } });
      try {
        const { html } = await decide(authorizePath(publish(), pkce().challenge), "deny");
        assert.match(html, /public items, your own private items and those of the organization <strong>acme<\/strong>\./);
        assert.match(html, /Private items of <strong>lockedco<\/strong> stay hidden from it: this organization forbids remote MCP clients\./);
      } finally {
        await srv.db.prisma.membership.delete({ where: { orgId_userId: { orgId: locked.id, userId: alice.id } } });
      }
    });

    test("metadata document: consent names a third party by its URL → code with iss → tokens for /mcp only", async () => {
      const clientId = publish();
      const { verifier, challenge } = pkce();
      const { html, back } = await decide(authorizePath(clientId, challenge), "approve");
      assert.match(html, /<strong>This is a third-party application<\/strong>, not made or checked by this registry/);
      assert.ok(html.includes(`identified by its URL <code>${clientId}</code>`), html);
      assert.match(html, /Authorize Example MCP client\?/);
      assert.match(html, /<code>items:read<\/code>/);
      assert.match(html, /organization <strong>acme<\/strong>/);
      assert.match(html, /sent to <code>127\.0\.0\.1:33418<\/code>/);
      assert.ok(html.includes(`MCP server (<code>${srv.issuer}/mcp</code>)`));
      assert.deepEqual([...back.searchParams.keys()].sort(), ["code", "iss", "state"]);
      assert.equal(back.searchParams.get("iss"), srv.issuer);

      const wrongTarget = await token({ grant_type: "authorization_code", client_id: clientId, code: back.searchParams.get("code")!, redirect_uri: REDIRECT, code_verifier: verifier, resource: srv.issuer });
      assert.equal(wrongTarget.status, 400);
      assert.equal(wrongTarget.body.error, "invalid_target");

      const again = await decide(authorizePath(clientId, challenge), "approve");
      const issued = await token({ grant_type: "authorization_code", client_id: clientId, code: again.back.searchParams.get("code")!, redirect_uri: REDIRECT, code_verifier: verifier, resource: `${srv.issuer}/mcp` });
      assert.equal(issued.status, 200, JSON.stringify(issued.body));
      assert.equal(issued.body.scope, "items:read");
      const claims = await srv.accessTokens.verifyAccessToken(issued.body.access_token);
      assert.equal(claims.audience, `${srv.issuer}/mcp`);
      assert.equal(claims.clientId, clientId);
      // Not usable at the registry API (no token passthrough).
      const atApi = await srv.fetch("/v1/keys", { headers: { authorization: `Bearer ${issued.body.access_token}` } });
      assert.equal(atApi.status, 401);

      const refreshed = await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: issued.body.refresh_token });
      assert.equal(refreshed.status, 200);
      assert.equal((await srv.accessTokens.verifyAccessToken(refreshed.body.access_token)).audience, `${srv.issuer}/mcp`);
      const widened = await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: refreshed.body.refresh_token, resource: srv.issuer });
      assert.equal(widened.body.error, "invalid_target");

      const approvals = (await audits("oauth.consent.approve")).filter((e) => e.targetId === clientId);
      assert.equal(approvals.length, 2);
      assert.equal(approvals[0]!.actorId, alice.id);
      assert.deepEqual(approvals[0]!.details, { client_name: "Example MCP client", client_kind: "metadata-document", redirect_uri: REDIRECT, scope: "items:read", resource: `${srv.issuer}/mcp` });
    });

    test("without a resource parameter a third-party client's tokens are for /mcp; it may not ask for the API, or for more than items:read", async () => {
      const clientId = publish();
      const { verifier, challenge } = pkce();
      const { back } = await decide(authorizePath(clientId, challenge, { resource: "", scope: "" }), "approve");
      const issued = await token({ grant_type: "authorization_code", client_id: clientId, code: back.searchParams.get("code")!, redirect_uri: REDIRECT, code_verifier: verifier });
      assert.equal((await srv.accessTokens.verifyAccessToken(issued.body.access_token)).audience, `${srv.issuer}/mcp`);
      for (const [overrides, error] of [[{ resource: srv.issuer }, "invalid_target"], [{ resource: "https://other.example/mcp" }, "invalid_target"], [{ scope: "items:read items:write" }, "invalid_scope"]] as const) {
        const res = await srv.fetch(authorizePath(clientId, challenge, overrides), { browser });
        assert.equal(res.status, 302, JSON.stringify(overrides));
        const location = new URL(res.headers.get("location")!);
        assert.equal(location.searchParams.get("error"), error);
        assert.equal(location.searchParams.get("iss"), srv.issuer);
      }
    });

    test("denial is audited and goes back as access_denied with iss", async () => {
      const clientId = publish();
      const { back } = await decide(authorizePath(clientId, pkce().challenge), "deny");
      assert.equal(back.searchParams.get("error"), "access_denied");
      assert.equal(back.searchParams.get("iss"), srv.issuer);
      const denials = (await audits("oauth.consent.deny")).filter((e) => e.targetId === clientId);
      assert.equal(denials.length, 1);
      assert.equal(denials[0]!.actorId, alice.id);
    });

    test("hostile client metadata: an error page (never a redirect), nothing stored", async () => {
      const before = await srv.db.prisma.authorizationCode.count();
      const notListed = publish({ redirect_uris: ["http://127.0.0.1:33418/other"] });
      const otherId = `${docsBase}/clients/${++n}.json`;
      documents.set(new URL(otherId).pathname, { client_id: "https://app.example/client.json", client_name: "x", redirect_uris: [REDIRECT] });
      const big = `${docsBase}/clients/${++n}.json`;
      documents.set(new URL(big).pathname, { client_id: big, client_name: "x", redirect_uris: [REDIRECT], padding: "x".repeat(6000) });
      const redirect = `${docsBase}/clients/${++n}.json`;
      documents.set(new URL(redirect).pathname, (res: any) => res.writeHead(302, { location: "http://192.168.1.1/c.json" }).end());
      const cases: [string, RegExp][] = [
        [notListed, /redirect address is not registered for Example MCP client: it must be exactly one of the redirect_uris/],
        [otherId, /client_id is not exactly the URL/],
        [big, /larger than 5120 bytes/],
        [redirect, /redirect \(HTTP 302\), which is not followed/],
        [`${docsBase}/clients/none.json`, /HTTP 404/],
      ];
      for (const [clientId, reason] of cases) {
        const res = await srv.fetch(authorizePath(clientId, pkce().challenge), { browser });
        assert.equal(res.status, 400, clientId);
        assert.equal(res.headers.get("location"), null);
        assert.match(await res.text(), reason);
        const tokenRes = await token({ grant_type: "authorization_code", client_id: clientId, code: "x", redirect_uri: REDIRECT, code_verifier: "a".repeat(43) });
        assert.ok(tokenRes.body.error === "invalid_client" || tokenRes.body.error === "invalid_grant", JSON.stringify(tokenRes.body));
      }
      assert.equal(await srv.db.prisma.authorizationCode.count(), before);
      assert.equal(await srv.db.prisma.oAuthClientRegistration.count({ where: { clientName: "x" } }), 0);
    });

    test("the person's sign-ins are listed and revocable (tokens page): the refresh token stops working, audited", async () => {
      const clientId = publish({ client_name: "Revocable client" });
      const { verifier, challenge } = pkce();
      const { back } = await decide(authorizePath(clientId, challenge), "approve");
      const issued = await token({ grant_type: "authorization_code", client_id: clientId, code: back.searchParams.get("code")!, redirect_uri: REDIRECT, code_verifier: verifier });
      assert.equal(issued.status, 200);
      const listed = (await (await srv.fetch("/v1/me/oauth-grants", { browser })).json()) as Json;
      const grant = listed.grants.find((g: Json) => g.client_id === clientId);
      assert.ok(grant, JSON.stringify(listed));
      assert.equal(grant.third_party, true);
      assert.equal(grant.client_name, null);
      assert.deepEqual(grant.scopes, ["items:read"]);
      assert.equal(grant.resource, `${srv.issuer}/mcp`);

      const bob = await srv.createUser(`bob${n}`);
      const bobBrowser = await srv.signIn(bob.id);
      const notHis = await srv.fetch(`/v1/me/oauth-grants/${grant.id}`, { method: "DELETE", browser: bobBrowser, headers: { "x-csrf-token": bobBrowser.csrfToken } });
      assert.equal(notHis.status, 404);
      const noCsrf = await srv.fetch(`/v1/me/oauth-grants/${grant.id}`, { method: "DELETE", browser });
      assert.equal(noCsrf.status, 403);
      const revoked = await srv.fetch(`/v1/me/oauth-grants/${grant.id}`, { method: "DELETE", browser, headers: { "x-csrf-token": browser.csrfToken } });
      assert.equal(revoked.status, 200);
      const refresh = await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: issued.body.refresh_token });
      assert.equal(refresh.body.error, "invalid_grant");
      const after = (await (await srv.fetch("/v1/me/oauth-grants", { browser })).json()) as Json;
      assert.equal(after.grants.some((g: Json) => g.id === grant.id), false);
      const audit = (await audits("oauth.grant.revoke")).find((e) => e.targetId === clientId);
      assert.equal(audit?.actorId, alice.id);
      assert.equal((await srv.fetch(`/v1/me/oauth-grants/${grant.id}`, { method: "DELETE", browser, headers: { "x-csrf-token": browser.csrfToken } })).status, 404);
    });

    test("dynamic registration (RFC 7591): registered, then signs in like any third-party client", async () => {
      const res = await srv.fetch("/oauth/register", { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": "198.51.100.7" }, body: JSON.stringify({ client_name: "Legacy client", redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], token_endpoint_auth_method: "none" }) });
      assert.equal(res.status, 201);
      assert.equal(res.headers.get("cache-control"), "no-store");
      const registered = (await res.json()) as Json;
      assert.match(registered.client_id, /^rye-dcr-[0-9a-f]{32}$/);
      assert.equal(registered.scope, "items:read");
      assert.equal(registered.token_endpoint_auth_method, "none");
      assert.equal(registered.client_secret, undefined);
      const audit = (await audits("oauth.client.register")).find((e) => e.targetId === registered.client_id);
      assert.equal(audit?.ip, "198.51.100.7");

      const { verifier, challenge } = pkce();
      const { html, back } = await decide(authorizePath(registered.client_id, challenge), "approve");
      assert.match(html, /This is a third-party application/);
      assert.match(html, /registered itself with this registry under the name “Legacy client”, which nobody has verified/);
      const issued = await token({ grant_type: "authorization_code", client_id: registered.client_id, code: back.searchParams.get("code")!, redirect_uri: REDIRECT, code_verifier: verifier, resource: `${srv.issuer}/mcp` });
      assert.equal(issued.status, 200);
      assert.equal((await srv.accessTokens.verifyAccessToken(issued.body.access_token)).audience, `${srv.issuer}/mcp`);
    });

    test("dynamic registration refuses bad metadata with RFC 7591 errors, storing nothing", async () => {
      const before = await srv.db.prisma.oAuthClientRegistration.count();
      const cases: [unknown, string][] = [
        [{ client_name: "x", redirect_uris: ["http://evil.example/cb"] }, "invalid_redirect_uri"],
        [{ client_name: "x", redirect_uris: [] }, "invalid_redirect_uri"],
        [{ client_name: "x", redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_post" }, "invalid_client_metadata"],
        [{ client_name: "x", redirect_uris: [REDIRECT], grant_types: ["client_credentials"] }, "invalid_client_metadata"],
        [{ redirect_uris: [REDIRECT] }, "invalid_client_metadata"],
        [[1, 2], "invalid_client_metadata"],
      ];
      for (const [body, error] of cases) {
        const res = await srv.fetch("/oauth/register", { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": "198.51.100.8" }, body: JSON.stringify(body) });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(((await res.json()) as Json).error, error, JSON.stringify(body));
      }
      const form = await srv.fetch("/oauth/register", { form: { client_name: "x" } });
      assert.equal(((await form.json()) as Json).error, "invalid_request");
      assert.equal(await srv.db.prisma.oAuthClientRegistration.count(), before);
    });

    test("dynamic registration is limited per client IP and hour (RYE_OAUTH_DCR_PER_IP_PER_HOUR)", async () => {
      const register = (ip: string) => srv.fetch("/oauth/register", { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": ip }, body: JSON.stringify({ client_name: "Spam", redirect_uris: [REDIRECT] }) });
      for (let i = 0; i < 3; i++) assert.equal((await register("203.0.113.9")).status, 201);
      const limited = await register("203.0.113.9");
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get("retry-after")) > 3500);
      assert.equal(((await limited.json()) as Json).error, "temporarily_unavailable");
      assert.equal((await register("203.0.113.10")).status, 201);
      assert.equal(await srv.db.prisma.oAuthClientRegistration.count({ where: { createdIp: "203.0.113.9" } }), 3);
    });
  });
}

describe("dynamic registration turned off (RYE_OAUTH_DCR=false)", () => {
  test("no registration_endpoint, and /oauth/register is 404", async () => {
    const srv = await startOAuthServer({ kind: "pglite", env: { RYE_OAUTH_DCR: "false" } });
    try {
      const as = (await (await srv.fetch("/.well-known/oauth-authorization-server")).json()) as Json;
      assert.equal(as.registration_endpoint, undefined);
      assert.equal(as.client_id_metadata_document_supported, true);
      const res = await srv.fetch("/oauth/register", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "x", redirect_uris: [REDIRECT] }) });
      assert.equal(res.status, 404);
    } finally {
      await srv.close();
    }
  });
});

describe("the cap on dynamically registered clients (RYE_OAUTH_DCR_MAX_CLIENTS)", () => {
  test("at the cap, unused registrations older than a day are purged to make room; a client with a live sign-in is kept; with none to purge, 503", async () => {
    const srv = await startOAuthServer({ kind: "pglite", env: { RYE_OAUTH_DCR_MAX_CLIENTS: "2", RYE_OAUTH_DCR_PER_IP_PER_HOUR: "100" } });
    try {
      const register = async (name: string) => {
        const res = await srv.fetch("/oauth/register", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: name, redirect_uris: [REDIRECT] }) });
        return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as Json };
      };
      const unused = await register("Abandoned");
      const signedIn = await register("In use");
      assert.equal(unused.status, 201);
      assert.equal(signedIn.status, 201);

      // Full, and both too young to purge.
      const refused = await register("Third");
      assert.equal(refused.status, 503);
      assert.equal(refused.body.error, "temporarily_unavailable");
      assert.match(String(refused.body.error_description), /at most 2 dynamically registered clients/);
      assert.equal(refused.retryAfter, "3600");
      assert.equal(await srv.db.prisma.oAuthClientRegistration.count(), 2);

      // A day later: one never finished a sign-in, the other holds a live refresh token.
      const alice = await srv.createUser("alice");
      await srv.db.prisma.oAuthClientRegistration.updateMany({ data: { createdAt: new Date(Date.now() - 25 * 3600_000) } });
      const live = { tokenHash: "a".repeat(64), familyId: randomUUID(), userId: alice.id, clientId: String(signedIn.body.client_id), scope: "items:read", expiresAt: new Date(Date.now() + 3600_000) };
      await srv.db.prisma.refreshToken.create({ data: live });
      // An expired and a used token do not keep a registration.
      await srv.db.prisma.refreshToken.create({ data: { ...live, tokenHash: "b".repeat(64), clientId: String(unused.body.client_id), expiresAt: new Date(Date.now() - 1000) } });
      await srv.db.prisma.refreshToken.create({ data: { ...live, tokenHash: "c".repeat(64), clientId: String(unused.body.client_id), usedAt: new Date() } });

      const third = await register("Third");
      assert.equal(third.status, 201);
      const kept = (await srv.db.prisma.oAuthClientRegistration.findMany({ select: { clientId: true } })).map((r) => r.clientId).sort();
      assert.deepEqual(kept, [String(signedIn.body.client_id), String(third.body.client_id)].sort());
      const purges = await srv.db.prisma.auditEvent.findMany({ where: { action: "oauth.client.purge" } });
      assert.deepEqual(
        purges.map((p) => p.targetId),
        [unused.body.client_id],
      );
      // The purged client is unknown from now on.
      const gone = await srv.fetch(`/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: String(unused.body.client_id), redirect_uri: REDIRECT, state: "s", code_challenge: "x".repeat(43), code_challenge_method: "S256" })}`);
      assert.equal(gone.status, 400);
    } finally {
      await srv.close();
    }
  });
});
