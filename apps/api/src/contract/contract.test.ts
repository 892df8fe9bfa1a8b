/**
 * The API contract, checked from the outside: a running registry (real HTTP on a loopback port, with a real OpenID
 * Provider, GitHub and Supabase stand-ins and a local DNS server for the flows that need them) is called in every
 * operation of its own served /v1/openapi.json, in the success shape and in the main error shape, and every answer
 * is validated against that document with a JSON Schema validator (test/contract-checker.ts: documented status and
 * content type, a body the schema accepts with no undocumented field, Location on redirects). The last test names
 * every operation that was not called in both shapes, so a new route without a contract call fails here.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, test } from "node:test";
import { getRequestListener } from "@hono/node-server";
import { buildManifest, buildSkillManifest, generateKeyPair, type KeyPair, serializeManifest, signManifest, signSkillManifest } from "@rye/core";
import { CLIENT_ANSWERS } from "../../../../packages/rye/src/registry/answers.ts";
import { ContractChecker } from "../../test/contract-checker.ts";
import { type LocalDnsServer, startLocalDnsServer } from "../../test/fixtures/dns-server.ts";
import { TestBrowser } from "../../test/fixtures/oidc-browser.ts";
import { type FakeGithub, startFakeGithub } from "../../test/fixtures/oidc-fake-github.ts";
import { type FakeSupabase, startFakeSupabase } from "../../test/fixtures/oidc-fake-supabase.ts";
import { listenLoopback, type LoopbackServer } from "../../test/fixtures/oidc-loopback-server.ts";
import { startOidcProvider, type TestOidcProvider } from "../../test/fixtures/oidc-test-provider.ts";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";
import { loadUpstreamAuthConfig } from "../auth/upstream/config.ts";
import { loadConfig } from "../config.ts";

// biome-ignore lint: answers are arbitrary JSON
type Json = Record<string, any>;

interface Call {
  json?: unknown;
  form?: Record<string, string>;
  cookie?: string;
  csrf?: string;
  bearer?: string;
  headers?: Record<string, string>;
}
interface Answer {
  status: number;
  location: string | null;
  etag: string | null;
  cookie: string | undefined;
  body: Json;
}
interface Session {
  cookie: string;
  csrf: string;
}

let rye: LoopbackServer;
let op: TestOidcProvider;
let github: FakeGithub;
let supabase: FakeSupabase;
let dns: LocalDnsServer;
let reg: TestRegistry;
let contract: ContractChecker;
const problems: string[] = [];
/** Every 2xx JSON body seen, by operation id, for the client's own checks of them. */
const successes = new Map<string, Json[]>();

before(async () => {
  rye = await listenLoopback();
  op = await startOidcProvider({ redirectUris: [`${rye.url}/v1/auth/oidc/acme/callback`] });
  op.accounts.set("ann-sub", { email: "ann@example.com", email_verified: true, preferred_username: "ann" });
  github = await startFakeGithub();
  supabase = await startFakeSupabase();
  dns = await startLocalDnsServer();
  const upstream = loadUpstreamAuthConfig({
    RYE_OIDC_PROVIDERS: JSON.stringify([
      { id: "acme", type: "oidc", name: "Acme SSO", issuer: op.issuer, client_id: op.clientId, client_secret: op.clientSecret },
      {
        id: "github", type: "github", name: "GitHub", client_id: github.clientId, client_secret: github.clientSecret,
        authorization_url: `${github.url}/login/oauth/authorize`, token_url: `${github.url}/login/oauth/access_token`, github_api_url: github.url,
      },
    ]),
    SUPABASE_URL: supabase.url,
    SUPABASE_ANON_KEY: supabase.anonKey,
  });
  const base = loadConfig({});
  // A checkpoint per new entry, so the transparency log's calls see the entries the earlier tests logged.
  reg = await createTestRegistry({ config: { publicUrl: rye.url, upstream, checkpoints: { intervalMs: 60_000, everyEntries: 1 }, verification: { ...base.verification, dnsServers: [dns.address], dnsTimeoutMs: 500 } } });
  rye.setHandler(getRequestListener(reg.app.fetch));
  const served = await fetch(`${rye.url}/v1/openapi.json`);
  assert.equal(served.status, 200);
  contract = new ContractChecker((await served.json()) as Json);
});
after(async () => {
  await Promise.all([rye?.close(), op?.close(), github?.close(), supabase?.close(), dns?.close()]);
  await reg?.close();
});

/** One request over HTTP; the answer is checked against the document (problems collected, asserted per test). */
async function call(method: string, path: string, template: string, o: Call = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.cookie) headers.cookie = o.cookie;
  if (o.csrf) headers["x-csrf-token"] = o.csrf;
  if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
  let body: string | undefined;
  if (o.json !== undefined) [headers["content-type"], body] = ["application/json", JSON.stringify(o.json)];
  if (o.form) [headers["content-type"], body] = ["application/x-www-form-urlencoded", new URLSearchParams(o.form).toString()];
  const res = await fetch(`${rye.url}${path}`, { method, headers, redirect: "manual", ...(body !== undefined ? { body } : {}) });
  return answerOf(method, template, res);
}

async function answerOf(method: string, template: string, res: Response): Promise<Answer> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  problems.push(...contract.check(method, template, res.status, res.headers, bytes));
  const text = Buffer.from(bytes).toString("utf8");
  let body: Json = {};
  if (/json/.test(res.headers.get("content-type") ?? "") && text) body = JSON.parse(text) as Json;
  if (res.status >= 200 && res.status < 300 && text && /json/.test(res.headers.get("content-type") ?? "")) {
    const id = contract.operation(method, template).id;
    successes.set(id, [...(successes.get(id) ?? []), body]);
  }
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("rye_session="))?.split(";")[0];
  return { status: res.status, location: res.headers.get("location"), etag: res.headers.get("etag"), cookie, body };
}

async function expect(status: number, pending: Promise<Answer>): Promise<Answer> {
  const answer = await pending;
  assert.equal(answer.status, status, JSON.stringify(answer.body).slice(0, 800));
  return answer;
}

function assertNoProblems(): void {
  const found = problems.splice(0);
  assert.deepEqual(found, [], `answers that differ from /v1/openapi.json:\n${found.join("\n")}`);
}

/** A request the request guard refuses before any route: the 400 every operation documents. */
const MALFORMED_QUERY = "?q=%zz";

async function signup(username: string): Promise<Session & { id: string }> {
  const answer = await expect(201, call("POST", "/v1/auth/signup", "/v1/auth/signup", { json: { username, email: `${username}@example.test`, password: `${username}-long-password` } }));
  assert.ok(answer.cookie);
  return { cookie: answer.cookie, csrf: answer.body.csrf_token as string, id: answer.body.user.id as string };
}

const sha = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
const enc = (text: string) => new TextEncoder().encode(text);

test("discovery, health, keys, stats and the document itself", async () => {
  for (const [path, template] of [
    ["/health", "/health"],
    ["/ready", "/ready"],
    ["/v1/public-key", "/v1/public-key"],
    ["/v1/keys", "/v1/keys"],
    ["/v1/stats", "/v1/stats"],
    ["/v1/openapi.json", "/v1/openapi.json"],
    ["/v1/auth/providers", "/v1/auth/providers"],
    ["/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server"],
    ["/.well-known/jwks.json", "/.well-known/jwks.json"],
    ["/v1/log/checkpoint", "/v1/log/checkpoint"],
  ] as const) {
    await expect(200, call("GET", path, template));
    await expect(400, call("GET", `${path}${MALFORMED_QUERY}`, template));
  }
  assertNoProblems();
});

test("accounts, sessions, the device flow, OAuth authorization and tokens", async () => {
  const alice = await signup("alice");
  await expect(409, call("POST", "/v1/auth/signup", "/v1/auth/signup", { json: { username: "alice", email: "alice2@example.test", password: "alice-long-password" } }));
  await expect(200, call("GET", "/v1/auth/session", "/v1/auth/session", { cookie: alice.cookie }));
  await expect(401, call("GET", "/v1/auth/session", "/v1/auth/session"));
  await expect(200, call("POST", "/v1/auth/login", "/v1/auth/login", { json: { login: "alice", password: "alice-long-password" } }));
  await expect(401, call("POST", "/v1/auth/login", "/v1/auth/login", { json: { login: "alice", password: "wrong-password" } }));
  await expect(200, call("GET", "/v1/me", "/v1/me", { cookie: alice.cookie }));
  await expect(401, call("GET", "/v1/me", "/v1/me", { bearer: "not-a-token" }));

  // device flow
  const started = await expect(200, call("POST", "/oauth/device/code", "/oauth/device/code", { form: { client_id: "rye-cli" } }));
  await expect(401, call("POST", "/oauth/device/code", "/oauth/device/code", { form: { client_id: "nope" } }));
  const poll = { grant_type: "urn:ietf:params:oauth:grant-type:device_code", client_id: "rye-cli", device_code: started.body.device_code as string };
  assert.equal((await expect(400, call("POST", "/oauth/token", "/oauth/token", { form: poll }))).body.error, "authorization_pending");
  await expect(401, call("GET", `/v1/device?user_code=${started.body.user_code}`, "/v1/device"));
  await expect(200, call("GET", `/v1/device?user_code=${started.body.user_code}`, "/v1/device", { cookie: alice.cookie }));
  await expect(403, call("POST", "/v1/device/approve", "/v1/device/approve", { cookie: alice.cookie, form: { user_code: started.body.user_code } }));
  await expect(200, call("POST", "/v1/device/approve", "/v1/device/approve", { cookie: alice.cookie, form: { user_code: started.body.user_code, csrf_token: alice.csrf } }));
  const tokens = await expect(200, call("POST", "/oauth/token", "/oauth/token", { form: poll }));
  assert.equal((await expect(200, call("GET", "/v1/me", "/v1/me", { bearer: tokens.body.access_token }))).body.token.type, "jwt");
  await expect(200, call("POST", "/oauth/revoke", "/oauth/revoke", { form: { token: tokens.body.refresh_token, client_id: "rye-cli" } }));
  await expect(401, call("POST", "/oauth/revoke", "/oauth/revoke", { form: { token: "x", client_id: "nope" } }));
  const denied = await expect(200, call("POST", "/oauth/device/code", "/oauth/device/code", { form: { client_id: "rye-cli" } }));
  await expect(404, call("POST", "/v1/device/deny", "/v1/device/deny", { cookie: alice.cookie, csrf: alice.csrf, json: { user_code: "BBBB-BBBB" } }));
  await expect(200, call("POST", "/v1/device/deny", "/v1/device/deny", { cookie: alice.cookie, csrf: alice.csrf, json: { user_code: denied.body.user_code } }));

  // authorization code + PKCE
  const verifier = "v".repeat(43);
  const authorization = {
    response_type: "code",
    client_id: "rye-cli",
    redirect_uri: "http://127.0.0.1:4567/callback",
    state: "st4te",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    scope: "items:read items:write",
  };
  const authorizeUrl = `/oauth/authorize?${new URLSearchParams(authorization)}`;
  await expect(302, call("GET", authorizeUrl, "/oauth/authorize"));
  await expect(200, call("GET", authorizeUrl, "/oauth/authorize", { cookie: alice.cookie }));
  await expect(400, call("GET", authorizeUrl.replace("rye-cli", "nope"), "/oauth/authorize", { cookie: alice.cookie }));
  await expect(403, call("POST", "/oauth/authorize/decision", "/oauth/authorize/decision", { cookie: alice.cookie, form: { ...authorization, decision: "approve", csrf_token: "wrong" } }));
  const approved = await expect(302, call("POST", "/oauth/authorize/decision", "/oauth/authorize/decision", { cookie: alice.cookie, form: { ...authorization, decision: "approve", csrf_token: alice.csrf } }));
  const code = new URL(approved.location!).searchParams.get("code")!;
  const exchange = { grant_type: "authorization_code", client_id: "rye-cli", code, redirect_uri: authorization.redirect_uri, code_verifier: verifier };
  const signedIn = await expect(200, call("POST", "/oauth/token", "/oauth/token", { form: exchange }));

  // the person's OAuth sign-ins (tokens page)
  const grants = await expect(200, call("GET", "/v1/me/oauth-grants", "/v1/me/oauth-grants", { bearer: signedIn.body.access_token }));
  await expect(401, call("GET", "/v1/me/oauth-grants", "/v1/me/oauth-grants"));
  await expect(200, call("DELETE", `/v1/me/oauth-grants/${grants.body.grants[0].id}`, "/v1/me/oauth-grants/{id}", alice));
  await expect(404, call("DELETE", "/v1/me/oauth-grants/00000000-0000-4000-8000-000000000000", "/v1/me/oauth-grants/{id}", alice));

  // dynamic client registration (RFC 7591)
  await expect(201, call("POST", "/oauth/register", "/oauth/register", { json: { client_name: "Contract client", redirect_uris: ["http://127.0.0.1:4567/callback"] } }));
  await expect(400, call("POST", "/oauth/register", "/oauth/register", { json: { client_name: "Contract client", redirect_uris: ["http://evil.example/callback"] } }));

  // personal tokens
  await expect(403, call("POST", "/v1/tokens", "/v1/tokens", { cookie: alice.cookie, json: { name: "ci", scopes: ["items:read"] } }));
  const pat = await expect(201, call("POST", "/v1/tokens", "/v1/tokens", { cookie: alice.cookie, csrf: alice.csrf, json: { name: "ci", scopes: ["items:read", "items:write"], item_pattern: "alice/ci/*" } }));
  await expect(200, call("GET", "/v1/tokens", "/v1/tokens", { bearer: pat.body.token }));
  await expect(401, call("GET", "/v1/tokens", "/v1/tokens"));
  await expect(200, call("DELETE", `/v1/tokens/${pat.body.id}`, "/v1/tokens/{id}", alice));
  await expect(404, call("DELETE", "/v1/tokens/00000000-0000-4000-8000-000000000000", "/v1/tokens/{id}", alice));

  await expect(403, call("POST", "/v1/auth/logout", "/v1/auth/logout", { cookie: alice.cookie }));
  await expect(204, call("POST", "/v1/auth/logout", "/v1/auth/logout", alice));
  assertNoProblems();
});

test("signing keys, organizations, invitations, members and organization tokens", async () => {
  const olga = await signup("olga");
  const pete = await signup("pete");
  const token = (await expect(201, call("POST", "/v1/tokens", "/v1/tokens", { ...olga, json: { name: "keys", scopes: ["items:read", "items:write"] } }))).body.token as string;
  const key = await generateKeyPair();
  const registered = await expect(201, call("POST", "/v1/me/keys", "/v1/me/keys", { bearer: token, json: { public_key: key.publicKey.pem, label: "laptop" } }));
  // Registering the same key again is idempotent.
  assert.equal((await expect(200, call("POST", "/v1/me/keys", "/v1/me/keys", { bearer: token, json: { public_key: key.publicKey.pem } }))).body.status, "already_registered");
  await expect(400, call("POST", "/v1/me/keys", "/v1/me/keys", { bearer: token, json: { public_key: "not a key" } }));
  await expect(200, call("GET", "/v1/me/keys", "/v1/me/keys", { bearer: token }));
  await expect(401, call("GET", "/v1/me/keys", "/v1/me/keys"));
  await expect(200, call("DELETE", `/v1/me/keys/${registered.body.key.fingerprint}`, "/v1/me/keys/{fingerprint}", { bearer: token }));
  await expect(404, call("DELETE", `/v1/me/keys/${"0".repeat(64)}`, "/v1/me/keys/{fingerprint}", { bearer: token }));

  await expect(201, call("POST", "/v1/orgs", "/v1/orgs", { ...olga, json: { name: "acme", display_name: "Acme" } }));
  await expect(409, call("POST", "/v1/orgs", "/v1/orgs", { ...olga, json: { name: "acme" } }));
  await expect(200, call("GET", "/v1/orgs/acme", "/v1/orgs/{name}", { cookie: olga.cookie }));
  await expect(404, call("GET", "/v1/orgs/nope", "/v1/orgs/{name}"));
  await expect(200, call("GET", "/v1/namespaces/acme", "/v1/namespaces/{name}"));
  await expect(404, call("GET", "/v1/namespaces/nope", "/v1/namespaces/{name}"));
  // A namespace's registered keys, public: olga's revoked key is listed with its revocation time, under acme too.
  const olgaKeys = await expect(200, call("GET", "/v1/namespaces/olga/keys", "/v1/namespaces/{name}/keys"));
  assert.deepEqual(olgaKeys.body.keys.map((k: Json) => [k.fingerprint, typeof k.revoked_at]), [[registered.body.key.fingerprint, "string"]]);
  assert.equal((await expect(200, call("GET", "/v1/namespaces/acme/keys", "/v1/namespaces/{name}/keys"))).body.kind, "org");
  await expect(404, call("GET", "/v1/namespaces/nope/keys", "/v1/namespaces/{name}/keys"));

  // invitations: by token link, accepted and declined from the invitee's list, revoked
  const link = await expect(201, call("POST", "/v1/orgs/acme/invitations", "/v1/orgs/{name}/invitations", { ...olga, json: { username: "pete" } }));
  await expect(400, call("POST", "/v1/orgs/acme/invitations", "/v1/orgs/{name}/invitations", { ...olga, json: { username: "pete", email: "pete@example.test" } }));
  await expect(200, call("GET", "/v1/orgs/acme/invitations", "/v1/orgs/{name}/invitations", { cookie: olga.cookie }));
  await expect(403, call("GET", "/v1/orgs/acme/invitations", "/v1/orgs/{name}/invitations", { cookie: pete.cookie }));
  await expect(200, call("GET", "/v1/me/invitations", "/v1/me/invitations", { cookie: pete.cookie }));
  await expect(401, call("GET", "/v1/me/invitations", "/v1/me/invitations"));
  await expect(404, call("POST", "/v1/orgs/invitations/accept", "/v1/orgs/invitations/accept", { ...pete, json: { token: "no-such-invitation-token" } }));
  await expect(200, call("POST", "/v1/orgs/invitations/accept", "/v1/orgs/invitations/accept", { ...pete, json: { token: link.body.token } }));
  await expect(200, call("GET", "/v1/me/orgs", "/v1/me/orgs", { cookie: pete.cookie }));
  await expect(401, call("GET", "/v1/me/orgs", "/v1/me/orgs"));

  await expect(201, call("POST", "/v1/orgs", "/v1/orgs", { ...olga, json: { name: "beta" } }));
  const toAccept = await expect(201, call("POST", "/v1/orgs/beta/invitations", "/v1/orgs/{name}/invitations", { ...olga, json: { username: "pete" } }));
  await expect(200, call("POST", `/v1/me/invitations/${toAccept.body.id}/accept`, "/v1/me/invitations/{id}/accept", pete));
  await expect(404, call("POST", `/v1/me/invitations/${toAccept.body.id}/accept`, "/v1/me/invitations/{id}/accept", pete));
  await expect(201, call("POST", "/v1/orgs", "/v1/orgs", { ...olga, json: { name: "gamma" } }));
  const toDecline = await expect(201, call("POST", "/v1/orgs/gamma/invitations", "/v1/orgs/{name}/invitations", { ...olga, json: { username: "pete" } }));
  await expect(200, call("POST", `/v1/me/invitations/${toDecline.body.id}/decline`, "/v1/me/invitations/{id}/decline", pete));
  await expect(404, call("POST", `/v1/me/invitations/${toDecline.body.id}/decline`, "/v1/me/invitations/{id}/decline", pete));
  const toRevoke = await expect(201, call("POST", "/v1/orgs/gamma/invitations", "/v1/orgs/{name}/invitations", { ...olga, json: { username: "pete" } }));
  await expect(200, call("DELETE", `/v1/orgs/gamma/invitations/${toRevoke.body.id}`, "/v1/orgs/{name}/invitations/{id}", olga));
  await expect(404, call("DELETE", `/v1/orgs/gamma/invitations/${toRevoke.body.id}`, "/v1/orgs/{name}/invitations/{id}", olga));

  // members and organization tokens
  await expect(403, call("PATCH", "/v1/orgs/acme/members/olga", "/v1/orgs/{name}/members/{username}", { ...pete, json: { role: "member" } }));
  await expect(200, call("PATCH", "/v1/orgs/acme/members/pete", "/v1/orgs/{name}/members/{username}", { ...olga, json: { role: "admin" } }));
  const ci = await expect(201, call("POST", "/v1/orgs/acme/tokens", "/v1/orgs/{name}/tokens", { ...olga, json: { name: "ci", scopes: ["items:write"] } }));
  await expect(403, call("POST", "/v1/orgs/acme/tokens", "/v1/orgs/{name}/tokens", { bearer: ci.body.token, json: { name: "more", scopes: ["items:write"] } }));
  await expect(200, call("GET", "/v1/orgs/acme/tokens", "/v1/orgs/{name}/tokens", { cookie: olga.cookie }));
  await expect(403, call("GET", "/v1/orgs/acme/tokens", "/v1/orgs/{name}/tokens", { bearer: ci.body.token }));
  await expect(200, call("DELETE", `/v1/orgs/acme/tokens/${ci.body.id}`, "/v1/orgs/{name}/tokens/{id}", olga));
  await expect(404, call("DELETE", "/v1/orgs/acme/tokens/00000000-0000-4000-8000-000000000000", "/v1/orgs/{name}/tokens/{id}", olga));
  await expect(409, call("DELETE", "/v1/orgs/acme/members/olga", "/v1/orgs/{name}/members/{username}", olga));
  await expect(200, call("DELETE", "/v1/orgs/acme/members/pete", "/v1/orgs/{name}/members/{username}", pete));
  assertNoProblems();
});

test("items: push, pull, search, management, approval, downloads, relations, quality, the log and the changes feed", async () => {
  const carol = await reg.createUser("carol");
  const cora = await reg.createUser("cora");
  await reg.createOrg("carolco", [{ user: carol, role: "owner" }, { user: cora, role: "admin" }]);
  const token = await reg.token(carol, { scopes: ["items:read", "items:write", "org:admin"] });
  const reviewer = await reg.token(cora, { scopes: ["items:read", "items:write", "org:admin"] });
  const note = (name: string, version: string) => `---\nid: ${name}\ntitle: ${name}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\nBody ${version}.\n`;
  const push = (id: string, version: string) => call("POST", "/v1/push", "/v1/push", { bearer: token, json: { item_type: "knowledge", item_id: id, content: note(id.split("/").at(-1)!, version), version } });
  const item = (verb: string) => `/v1/${verb}/knowledge/carol/notes/contract`;
  const template = (verb: string) => `/v1/${verb}/{item_type}/{item_id}`;

  await expect(201, push("carol/notes/contract", "1.0.0"));
  await expect(201, push("carol/notes/contract", "1.1.0"));
  await expect(409, push("carol/notes/contract", "1.1.0"));
  await expect(401, call("POST", "/v1/push", "/v1/push", { json: {} }));
  await expect(200, call("GET", "/v1/search?query=contract", "/v1/search"));
  await expect(200, call("GET", "/v1/search?query=contract&facets=1&sort=downloads", "/v1/search"));
  await expect(400, call("GET", "/v1/search?limit=0", "/v1/search"));
  await expect(200, call("GET", "/v1/items/knowledge/carol/notes/contract", "/v1/items/{item_type}/{item_id}"));
  await expect(404, call("GET", "/v1/items/knowledge/carol/notes/missing", "/v1/items/{item_type}/{item_id}"));
  await expect(200, call("POST", item("yank"), template("yank"), { bearer: token, json: { version: "1.1.0", reason: "broken" } }));
  await expect(409, call("POST", item("yank"), template("yank"), { bearer: token, json: { version: "1.1.0" } }));
  await expect(200, call("POST", item("unyank"), template("unyank"), { bearer: token, json: { version: "1.1.0" } }));
  await expect(409, call("POST", item("unyank"), template("unyank"), { bearer: token, json: { version: "1.1.0" } }));
  await expect(200, call("POST", item("deprecate"), template("deprecate"), { bearer: token, json: { message: "use another" } }));
  await expect(401, call("POST", item("deprecate"), template("deprecate"), { json: { message: "use another" } }));
  await expect(200, call("POST", item("visibility"), template("visibility"), { bearer: token, json: { visibility: "unlisted" } }));
  await expect(400, call("POST", item("visibility"), template("visibility"), { bearer: token, json: { visibility: "secret" } }));
  await expect(200, call("POST", item("unpublish"), template("unpublish"), { bearer: token }));
  await expect(401, call("POST", item("unpublish"), template("unpublish")));
  await expect(200, call("POST", item("publish"), template("publish"), { bearer: token }));
  await expect(404, call("POST", "/v1/publish/knowledge/carol/notes/missing", template("publish"), { bearer: token }));
  await expect(200, call("DELETE", `${item("delete")}?version=1.1.0`, template("delete"), { bearer: token }));
  await expect(403, call("DELETE", `${item("delete")}?force=true`, template("delete"), { bearer: token }));
  // Pulled only now: a version once downloaded can no longer be deleted.
  const pulled = await expect(200, call("GET", "/v1/pull/knowledge/carol/notes/contract?version=1.0.0", "/v1/pull/{item_type}/{item_id}"));
  await expect(304, call("GET", "/v1/pull/knowledge/carol/notes/contract?version=1.0.0", "/v1/pull/{item_type}/{item_id}", { headers: { "if-none-match": pulled.etag! } }));
  await expect(404, call("GET", "/v1/pull/knowledge/carol/notes/missing", "/v1/pull/{item_type}/{item_id}"));
  await expect(200, call("GET", "/v1/downloads/knowledge/carol/notes/contract?days=7", "/v1/downloads/{item_type}/{item_id}"));
  await expect(400, call("GET", "/v1/downloads/knowledge/carol/notes/contract?days=0", "/v1/downloads/{item_type}/{item_id}"));
  await expect(200, call("GET", "/v1/relations/knowledge/carol/notes/contract", "/v1/relations/{item_type}/{item_id}"));
  await expect(404, call("GET", "/v1/relations/knowledge/carol/notes/missing", "/v1/relations/{item_type}/{item_id}"));
  await expect(200, call("GET", "/v1/quality/knowledge/carol/notes/contract", "/v1/quality/{item_type}/{item_id}"));
  await expect(400, call("GET", "/v1/quality/knowledge/carol/notes/contract?version=x", "/v1/quality/{item_type}/{item_id}"));
  await expect(200, call("POST", item("transfer"), template("transfer"), { bearer: token, json: { to_namespace: "carolco" } }));
  await expect(403, call("POST", "/v1/transfer/knowledge/carolco/notes/contract", template("transfer"), { bearer: await reg.token(carol, { scopes: ["items:read"] }), json: { to_namespace: "carol" } }));

  // an organization that forbids remote MCP clients, and allows them again
  await expect(200, call("GET", "/v1/orgs/carolco/remote-mcp", "/v1/orgs/{name}/remote-mcp", { bearer: token }));
  await expect(404, call("GET", "/v1/orgs/nope/remote-mcp", "/v1/orgs/{name}/remote-mcp", { bearer: token }));
  await expect(200, call("PATCH", "/v1/orgs/carolco/remote-mcp", "/v1/orgs/{name}/remote-mcp", { bearer: token, json: { allowed: false } }));
  await expect(400, call("PATCH", "/v1/orgs/carolco/remote-mcp", "/v1/orgs/{name}/remote-mcp", { bearer: token, json: { allowed: "no" } }));
  await expect(200, call("PATCH", "/v1/orgs/carolco/remote-mcp", "/v1/orgs/{name}/remote-mcp", { bearer: token, json: { allowed: true } }));

  // an organization that holds every version for approval
  await expect(200, call("GET", "/v1/orgs/carolco/approval", "/v1/orgs/{name}/approval", { bearer: token }));
  await expect(404, call("GET", "/v1/orgs/nope/approval", "/v1/orgs/{name}/approval", { bearer: token }));
  await expect(200, call("PATCH", "/v1/orgs/carolco/approval", "/v1/orgs/{name}/approval", { bearer: token, json: { mode: "all" } }));
  await expect(400, call("PATCH", "/v1/orgs/carolco/approval", "/v1/orgs/{name}/approval", { bearer: token, json: { mode: "sometimes" } }));
  await expect(202, push("carolco/notes/held", "1.0.0"));
  await expect(202, push("carolco/notes/held", "1.1.0"));
  const held = await expect(200, call("GET", "/v1/approvals?namespace=carolco", "/v1/approvals", { bearer: token }));
  assert.equal(held.body.versions?.length ?? held.body.items?.length ?? held.body.held?.length, 2, JSON.stringify(held.body));
  await expect(401, call("GET", "/v1/approvals?namespace=carolco", "/v1/approvals"));
  await expect(403, call("POST", "/v1/approve/knowledge/carolco/notes/held", template("approve"), { bearer: token, json: { version: "1.0.0" } }));
  await expect(200, call("POST", "/v1/approve/knowledge/carolco/notes/held", template("approve"), { bearer: reviewer, json: { version: "1.0.0" } }));
  await expect(404, call("POST", "/v1/approve/knowledge/carolco/notes/held", template("approve"), { bearer: reviewer, json: { version: "9.9.9" } }));
  await expect(400, call("POST", "/v1/reject/knowledge/carolco/notes/held", template("reject"), { bearer: reviewer, json: { version: "1.1.0" } }));
  await expect(200, call("POST", "/v1/reject/knowledge/carolco/notes/held", template("reject"), { bearer: reviewer, json: { version: "1.1.0", reason: "not yet" } }));

  await expect(200, call("GET", "/v1/log/entries?limit=2", "/v1/log/entries"));
  await expect(400, call("GET", "/v1/log/entries?limit=-1", "/v1/log/entries"));
  await expect(200, call("GET", "/v1/changes?limit=50", "/v1/changes"));
  await expect(400, call("GET", "/v1/changes?since=-1", "/v1/changes"));
  assertNoProblems();
});

/** A user with a token and a registered signing key, for bundles and skills. */
async function publisher(username: string): Promise<{ user: TestUser; token: string; key: KeyPair }> {
  const user = await reg.createUser(username);
  const token = await reg.token(user);
  const key = await generateKeyPair();
  await expect(201, call("POST", "/v1/me/keys", "/v1/me/keys", { bearer: token, json: { public_key: key.publicKey.pem } }));
  return { user, token, key };
}

test("bundles and skills: push, pull, the discovery indexes and artifacts", async () => {
  const dan = await publisher("dan");
  const bundleFiles = [{ path: ".ai/knowledge/dan/kit/readme.md", bytes: enc("---\nid: readme\ntitle: Kit\nversion: 1.0.0\nentry_type: reference\ncategory: kit\n---\n\nThe kit.\n") }];
  const manifest = await signManifest(serializeManifest(buildManifest({ id: "dan/kit", version: "1.0.0", description: "Bundle dan/kit" }, bundleFiles)), dan.key);
  const bundleBody = { bundle_id: "dan/kit", manifest, files: Object.fromEntries(bundleFiles.map((f) => [f.path, { content_base64: Buffer.from(f.bytes).toString("base64"), sha256: sha(f.bytes) }])) };
  await expect(201, call("POST", "/v1/bundle/push", "/v1/bundle/push", { bearer: dan.token, json: bundleBody }));
  await expect(409, call("POST", "/v1/bundle/push", "/v1/bundle/push", { bearer: dan.token, json: bundleBody }));
  const bundle = await expect(200, call("GET", "/v1/bundle/pull/dan/kit", "/v1/bundle/pull/{bundle_id}"));
  await expect(304, call("GET", "/v1/bundle/pull/dan/kit", "/v1/bundle/pull/{bundle_id}", { headers: { "if-none-match": bundle.etag! } }));
  await expect(404, call("GET", "/v1/bundle/pull/dan/nope", "/v1/bundle/pull/{bundle_id}"));

  const skillMd = "---\nname: pdf-tools\ndescription: Fills PDF forms. Use when a PDF form is asked for.\nmetadata:\n  version: \"1.0.0\"\n---\n\n# pdf-tools\n\nSteps.\n";
  const skillFiles = [
    { path: "SKILL.md", bytes: enc(skillMd) },
    { path: "scripts/fill.sh", bytes: enc("#!/bin/sh\necho fill\n"), executable: true },
  ];
  const skillManifest = await signSkillManifest(buildSkillManifest(skillFiles), dan.key);
  const skillBody = { namespace: "dan", manifest: skillManifest, files: Object.fromEntries(skillFiles.map((f) => [f.path, { content_base64: Buffer.from(f.bytes).toString("base64"), sha256: sha(f.bytes) }])) };
  await expect(201, call("POST", "/v1/skills/push", "/v1/skills/push", { bearer: dan.token, json: skillBody }));
  await expect(409, call("POST", "/v1/skills/push", "/v1/skills/push", { bearer: dan.token, json: skillBody }));
  const skill = await expect(200, call("GET", "/v1/skills/dan/pdf-tools?files=1", "/v1/skills/{namespace}/{skill_name}"));
  await expect(304, call("GET", "/v1/skills/dan/pdf-tools?files=1", "/v1/skills/{namespace}/{skill_name}", { headers: { "if-none-match": skill.etag! } }));
  await expect(404, call("GET", "/v1/skills/dan/nope", "/v1/skills/{namespace}/{skill_name}"));
  await expect(200, call("GET", "/.well-known/agent-skills/index.json", "/.well-known/agent-skills/index.json"));
  await expect(400, call("GET", `/.well-known/agent-skills/index.json${MALFORMED_QUERY}`, "/.well-known/agent-skills/index.json"));
  await expect(200, call("GET", "/dan/.well-known/agent-skills/index.json", "/{namespace}/.well-known/agent-skills/index.json"));
  await expect(404, call("GET", "/nobody/.well-known/agent-skills/index.json", "/{namespace}/.well-known/agent-skills/index.json"));
  await expect(200, call("GET", "/dan/pdf-tools/.well-known/agent-skills/index.json", "/{namespace}/{skill}/.well-known/agent-skills/index.json"));
  await expect(404, call("GET", "/dan/nope/.well-known/agent-skills/index.json", "/{namespace}/{skill}/.well-known/agent-skills/index.json"));
  const artifact = "/{namespace}/.well-known/agent-skills/{skill_name}/{version}/{file}";
  await expect(200, call("GET", "/dan/.well-known/agent-skills/pdf-tools/1.0.0/pdf-tools-1.0.0.tar.gz", artifact));
  await expect(200, call("GET", "/dan/.well-known/agent-skills/pdf-tools/1.0.0/SKILL.md", artifact));
  await expect(404, call("GET", "/dan/.well-known/agent-skills/pdf-tools/9.9.9/SKILL.md", artifact));
  assertNoProblems();
});

test("webhooks of a namespace", async () => {
  const erin = await reg.createUser("erin");
  const token = await reg.token(erin, { scopes: ["items:read", "items:write", "org:admin"] });
  const hooks = "/v1/namespaces/{namespace}/webhooks";
  const hook = await expect(201, call("POST", "/v1/namespaces/erin/webhooks", hooks, { bearer: token, json: { url: "https://hooks.example.com/rye", events: ["publish"] } }));
  await expect(400, call("POST", "/v1/namespaces/erin/webhooks", hooks, { bearer: token, json: { url: "http://10.0.0.1/" } }));
  await expect(200, call("GET", "/v1/namespaces/erin/webhooks", hooks, { bearer: token }));
  await expect(401, call("GET", "/v1/namespaces/erin/webhooks", hooks));
  await expect(200, call("PATCH", `/v1/namespaces/erin/webhooks/${hook.body.id}`, `${hooks}/{id}`, { bearer: token, json: { events: ["publish", "yank"] } }));
  await expect(400, call("PATCH", `/v1/namespaces/erin/webhooks/${hook.body.id}`, `${hooks}/{id}`, { bearer: token, json: { events: ["nothing"] } }));
  const ping = await expect(202, call("POST", `/v1/namespaces/erin/webhooks/${hook.body.id}/ping`, `${hooks}/{id}/ping`, { bearer: token }));
  await expect(401, call("POST", `/v1/namespaces/erin/webhooks/${hook.body.id}/ping`, `${hooks}/{id}/ping`));
  await expect(200, call("GET", `/v1/namespaces/erin/webhooks/${hook.body.id}/deliveries`, `${hooks}/{id}/deliveries`, { bearer: token }));
  await expect(401, call("GET", `/v1/namespaces/erin/webhooks/${hook.body.id}/deliveries`, `${hooks}/{id}/deliveries`));
  const redeliver = `${hooks}/{id}/deliveries/{delivery}/redeliver`;
  await expect(202, call("POST", `/v1/namespaces/erin/webhooks/${hook.body.id}/deliveries/${ping.body.id}/redeliver`, redeliver, { bearer: token }));
  await expect(404, call("POST", `/v1/namespaces/erin/webhooks/${hook.body.id}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`, redeliver, { bearer: token }));
  await expect(200, call("DELETE", `/v1/namespaces/erin/webhooks/${hook.body.id}`, `${hooks}/{id}`, { bearer: token }));
  await expect(404, call("DELETE", `/v1/namespaces/erin/webhooks/${hook.body.id}`, `${hooks}/{id}`, { bearer: token }));
  assertNoProblems();
});

test("namespace verification: DNS claims checked, transferred and removed; a GitHub organization proved", async () => {
  const owner = await reg.createUser("vera");
  await reg.createOrg("vco", [{ user: owner, role: "owner" }]);
  await reg.createOrg("vco-new", [{ user: owner, role: "owner" }]);
  const token = await reg.token(owner, { scopes: ["items:read", "items:write", "org:admin"] });
  const claims = "/v1/orgs/{name}/verifications";
  const claim = await expect(201, call("POST", "/v1/orgs/vco/verifications", claims, { bearer: token, json: { kind: "dns", subject: "vco.example" } }));
  await expect(400, call("POST", "/v1/orgs/vco/verifications", claims, { bearer: token, json: { kind: "dns", subject: "not a domain" } }));
  await expect(200, call("GET", "/v1/orgs/vco/verifications", claims, { bearer: token }));
  await expect(401, call("GET", "/v1/orgs/vco/verifications", claims));
  await expect(409, call("POST", `/v1/orgs/vco/verifications/${claim.body.id}/transfer`, `${claims}/{id}/transfer`, { bearer: token, json: { to_org: "vco-new" } }));
  dns.txt.set(claim.body.instructions.record_name, [[claim.body.instructions.record_value]]);
  const checked = await expect(200, call("POST", `/v1/orgs/vco/verifications/${claim.body.id}/check`, `${claims}/{id}/check`, { bearer: token }));
  assert.equal(checked.body.status, "verified");
  await expect(404, call("POST", "/v1/orgs/vco/verifications/00000000-0000-4000-8000-000000000000/check", `${claims}/{id}/check`, { bearer: token }));
  await expect(200, call("GET", "/v1/namespaces/vco/verified", "/v1/namespaces/{name}/verified"));
  await expect(404, call("GET", "/v1/namespaces/nope/verified", "/v1/namespaces/{name}/verified"));
  await expect(200, call("POST", `/v1/orgs/vco/verifications/${claim.body.id}/transfer`, `${claims}/{id}/transfer`, { bearer: token, json: { to_org: "vco-new" } }));
  await expect(200, call("DELETE", `/v1/orgs/vco-new/verifications/${claim.body.id}`, `${claims}/{id}`, { bearer: token }));
  await expect(404, call("DELETE", `/v1/orgs/vco-new/verifications/${claim.body.id}`, `${claims}/{id}`, { bearer: token }));

  // GitHub: the owner signs in to the website, claims the organization and walks the proof through GitHub
  const browser = new TestBrowser();
  const signedUp = await browser.fetch(`${rye.url}/v1/auth/signup`, { json: { username: "gina", email: "gina@example.test", password: "gina-long-password" } });
  assert.equal(signedUp.status, 201);
  const gina = ((await signedUp.json()) as Json).user as { id: string };
  await reg.createOrg("gco", [{ user: { id: gina.id, username: "gina" }, role: "owner" }]);
  const ginaToken = await reg.token({ id: gina.id, username: "gina" }, { scopes: ["items:read", "org:admin"] });
  github.user = { id: 7, login: "gina-gh", name: null, emails: [], orgs: { "gco-inc": { state: "active", role: "admin" } } };
  const gh = await expect(201, call("POST", "/v1/orgs/gco/verifications", claims, { bearer: ginaToken, json: { kind: "github", subject: "gco-inc" } }));
  const start = await answerOf("GET", `${claims}/{id}/github`, await browser.fetch(`${rye.url}/v1/orgs/gco/verifications/${gh.body.id}/github`));
  assert.equal(start.status, 302);
  await expect(401, call("GET", `/v1/orgs/gco/verifications/${gh.body.id}/github`, `${claims}/{id}/github`));
  const { url: callback } = await browser.walk(start.location!, { stopAt: (u) => u.pathname === "/v1/verifications/github/callback" });
  const finished = await answerOf("GET", "/v1/verifications/github/callback", await browser.fetch(callback));
  assert.equal(finished.status, 302);
  assert.equal(new URL(finished.location!, rye.url).searchParams.get("github"), "verified");
  await expect(400, call("GET", "/v1/verifications/github/callback?code=x&state=forged", "/v1/verifications/github/callback"));
  assertNoProblems();
});

test("sign-in through an OpenID Provider and through Supabase", async () => {
  const browser = new TestBrowser();
  const start = await answerOf("GET", "/v1/auth/oidc/{provider}/start", await browser.fetch(`${rye.url}/v1/auth/oidc/acme/start`));
  assert.equal(start.status, 302);
  await expect(404, call("GET", "/v1/auth/oidc/nope/start", "/v1/auth/oidc/{provider}/start"));
  const { url: callback, response } = await browser.walk(start.location!, { login: "ann-sub", stopAt: (u) => u.pathname.endsWith("/callback") });
  assert.equal(response, null, "reached the registry's callback");
  const signedIn = await answerOf("GET", "/v1/auth/oidc/{provider}/callback", await browser.fetch(callback));
  assert.equal(signedIn.status, 302);
  await expect(400, call("GET", "/v1/auth/oidc/acme/callback?code=x&state=forged", "/v1/auth/oidc/{provider}/callback"));

  supabase.users.set("sb-sue", { email: "sue@example.com", email_confirmed_at: new Date().toISOString() });
  const access = await supabase.token({ sub: "sb-sue", email: "sue@example.com", user_metadata: { user_name: "sue" } });
  await expect(200, call("POST", "/v1/auth/supabase/session", "/v1/auth/supabase/session", { json: { access_token: access } }));
  await expect(401, call("POST", "/v1/auth/supabase/session", "/v1/auth/supabase/session", { json: { access_token: "not-a-jwt" } }));
  assertNoProblems();
});

test("the transparency log: its key, signed checkpoint, tiles, entry bundles and proofs", async () => {
  const info = await expect(200, call("GET", "/v1/tlog/info", "/v1/tlog/info"));
  assert.ok(info.body.origin);
  await expect(400, call("GET", `/v1/tlog/info${MALFORMED_QUERY}`, "/v1/tlog/info"));
  const note = await fetch(`${rye.url}/v1/tlog/checkpoint`);
  const size = Number((await note.clone().text()).split("\n")[1]);
  assert.ok(size >= 3, `the earlier tests logged entries (tree size ${size})`);
  await answerOf("GET", "/v1/tlog/checkpoint", note);
  await expect(400, call("GET", `/v1/tlog/checkpoint${MALFORMED_QUERY}`, "/v1/tlog/checkpoint"));
  const tile = "/v1/tlog/tile/{tile}";
  const width = Math.min(size, 255);
  await expect(200, call("GET", `/v1/tlog/tile/0/000.p/${width}`, tile));
  await expect(200, call("GET", `/v1/tlog/tile/entries/000.p/${width}`, tile));
  await expect(400, call("GET", "/v1/tlog/tile/0/5", tile));
  await expect(404, call("GET", "/v1/tlog/tile/0/x001/000", tile));
  await expect(200, call("GET", `/v1/tlog/proof/inclusion?index=0&tree_size=${size}`, "/v1/tlog/proof/inclusion"));
  await expect(400, call("GET", `/v1/tlog/proof/inclusion?index=${size}&tree_size=${size}`, "/v1/tlog/proof/inclusion"));
  await expect(200, call("GET", `/v1/tlog/proof/consistency?from=1&to=${size}`, "/v1/tlog/proof/consistency"));
  await expect(400, call("GET", `/v1/tlog/proof/consistency?from=${size}&to=1`, "/v1/tlog/proof/consistency"));
  assertNoProblems();
});

test("the remote MCP server and its protected resource metadata", async () => {
  for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
    await expect(200, call("GET", path, path));
    await expect(400, call("GET", `${path}${MALFORMED_QUERY}`, path));
  }
  const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "contract", version: "1.0.0" } } };
  const mcpHeaders = { accept: "application/json, text/event-stream" };
  const answer = await expect(200, call("POST", "/mcp", "/mcp", { json: initialize, headers: mcpHeaders }));
  assert.equal(answer.body.result?.serverInfo?.name !== undefined, true, JSON.stringify(answer.body));
  await expect(401, call("POST", "/mcp", "/mcp", { json: initialize, headers: mcpHeaders, bearer: "not-a-token" }));
  assertNoProblems();
});

test("the checker refuses an answer that drifted from the document: an undeclared field, a wrong type, an undocumented status", async () => {
  const json = new Headers({ "content-type": "application/json" });
  const stats = await fetch(`${rye.url}/v1/stats`);
  const body = (await stats.json()) as Json;
  const bytes = (value: unknown) => enc(JSON.stringify(value));
  assert.deepEqual(contract.check("GET", "/v1/stats", 200, json, bytes(body)), []);
  assert.match(contract.check("GET", "/v1/stats", 200, json, bytes({ ...body, surprise: 1 })).join(), /must NOT have unevaluated properties \(surprise\)/);
  const [field] = Object.keys(body);
  assert.match(contract.check("GET", "/v1/stats", 200, json, bytes({ ...body, [field!]: { nested: true } })).join(), /does not match the document/);
  assert.match(contract.check("GET", "/v1/stats", 418, json, bytes(body)).join(), /status not documented/);
  assert.match(contract.check("GET", "/v1/stats", 200, new Headers({ "content-type": "text/plain" }), bytes(body)).join(), /content type "text\/plain" not documented/);
});

test("the client's checks (packages/rye/src/registry/answers.ts) accept every success answer of the routes it reads", () => {
  for (const [id, { schema }] of Object.entries(CLIENT_ANSWERS)) {
    const bodies = successes.get(id) ?? [];
    assert.ok(bodies.length > 0, `${id}: the contract test saw no success answer to check`);
    for (const body of bodies) {
      const parsed = schema.safeParse(body);
      assert.ok(parsed.success, `${id}: the client refuses the route's answer: ${JSON.stringify(parsed.error?.issues)}`);
    }
  }
});

test("every operation of the document was called in its success shape and in an error shape", () => {
  const { success, error } = contract.uncovered();
  assert.deepEqual({ success, error }, { success: [], error: [] }, "operations the contract test does not call: add a call above");
});
