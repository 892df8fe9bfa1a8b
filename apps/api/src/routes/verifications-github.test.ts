/**
 * Verifying a GitHub organization: the registry on a loopback port, the GitHub fake (OAuth code flow with PKCE,
 * the membership API) on another, a cookie-keeping client walking the redirects like a browser.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { getRequestListener } from "@hono/node-server";
import { loadUpstreamAuthConfig } from "../auth/upstream/config.ts";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";
import { TestBrowser } from "../../test/fixtures/oidc-browser.ts";
import { type FakeGithub, startFakeGithub } from "../../test/fixtures/oidc-fake-github.ts";
import { listenLoopback, type LoopbackServer } from "../../test/fixtures/oidc-loopback-server.ts";

type Json = Record<string, any>;

let rye: LoopbackServer;
let github: FakeGithub;
let reg: TestRegistry;
let owner: TestBrowser;
let ownerId: string;
let orgToken: string;

async function signUp(browser: TestBrowser, username: string): Promise<{ id: string; csrf: string }> {
  const res = await browser.fetch(`${rye.url}/v1/auth/signup`, { json: { username, email: `${username}@example.test`, password: `${username}-long-password` } });
  assert.equal(res.status, 201);
  const body = (await res.json()) as Json;
  return { id: body.user.id, csrf: body.csrf_token };
}

const claimGithub = async (subject: string): Promise<Json> => {
  const res = await reg.request("POST", "/v1/orgs/acme/verifications", { token: orgToken, json: { kind: "github", subject } });
  assert.equal(res.status, 201);
  return (await res.json()) as Json;
};
/** Follows the verification flow from the authorize path to the settings page it ends on. */
async function prove(browser: TestBrowser, claim: Json): Promise<URL> {
  const { url } = await browser.walk(`${rye.url}${claim.instructions.authorize_path}`, { stopAt: (u) => u.pathname.startsWith("/settings/") });
  return url;
}
const badges = async () => ((await (await reg.request("GET", "/v1/namespaces/acme/verified")).json()) as Json).verified as Json[];

before(async () => {
  rye = await listenLoopback();
  github = await startFakeGithub();
  const upstream = loadUpstreamAuthConfig({
    RYE_OIDC_PROVIDERS: JSON.stringify([
      { id: "github", type: "github", name: "GitHub", client_id: github.clientId, client_secret: github.clientSecret, authorization_url: `${github.url}/login/oauth/authorize`, token_url: `${github.url}/login/oauth/access_token`, github_api_url: github.url },
    ]),
  });
  reg = await createTestRegistry({ config: { publicUrl: rye.url, upstream } });
  rye.setHandler(getRequestListener(reg.app.fetch));
  owner = new TestBrowser();
  ownerId = (await signUp(owner, "olga")).id;
  await reg.createOrg("acme", [{ user: { id: ownerId, username: "olga" }, role: "owner" }]);
  orgToken = await reg.token({ id: ownerId, username: "olga" }, { scopes: ["items:read", "org:admin"] });
});
after(async () => {
  await reg.close();
  await rye.close();
  await github.close();
});
beforeEach(async () => {
  await reg.db.prisma.namespaceVerification.deleteMany({});
  github.user = { id: 7, login: "olga-gh", name: null, emails: [], orgs: { "acme-inc": { state: "active", role: "admin" }, "acme-friends": { state: "active", role: "member" } } };
});

test("an owner who is an admin of the GitHub organization proves it: the badge reads github.com/<org>", async () => {
  const claim = await claimGithub("Acme-Inc");
  assert.equal(claim.subject, "acme-inc");
  assert.equal(claim.instructions.authorize_path, `/v1/orgs/acme/verifications/${claim.id}/github`);
  const landed = await prove(owner, claim);
  assert.equal(landed.pathname, "/settings/orgs/acme/verification");
  assert.equal(landed.searchParams.get("github"), "verified");
  assert.deepEqual((await badges()).map((b) => [b.kind, b.label]), [["github", "github.com/acme-inc"]]);
  assert.equal(owner.cookie(`${rye.url}/v1/verifications/github/callback`, "rye_github_verify"), undefined, "the flow cookie is used once");
});

test("not a member, or a plain member: VERIFICATION_NOT_MEMBER and no badge; a POST …/check is refused for GitHub claims", async () => {
  for (const subject of ["someone-else", "acme-friends"]) {
    const claim = await claimGithub(subject);
    const landed = await prove(owner, claim);
    assert.equal(landed.searchParams.get("github"), "VERIFICATION_NOT_MEMBER", subject);
    const listed = ((await (await reg.request("GET", "/v1/orgs/acme/verifications", { token: orgToken })).json()) as Json).verifications.find((v: Json) => v.id === claim.id);
    assert.deepEqual([listed.status, listed.last_error], ["pending", "VERIFICATION_NOT_MEMBER"]);
  }
  assert.deepEqual(await badges(), []);
  const claim = await claimGithub("acme-inc");
  const check = await reg.request("POST", `/v1/orgs/acme/verifications/${claim.id}/check`, { token: orgToken });
  assert.equal(check.status, 400);
});

test("security: the callback needs this browser's flow cookie, its state, and the same registry account", async () => {
  const claim = await claimGithub("acme-inc");
  // No flow cookie (another browser): refused.
  const stranger = new TestBrowser();
  await signUp(stranger, "stella");
  const forged = await stranger.fetch(`${rye.url}/v1/verifications/github/callback?code=x&state=y`);
  assert.equal(forged.status, 400);
  // A flow started by the owner but finished with a tampered state: refused, and the cookie is gone.
  const start = await owner.fetch(`${rye.url}${claim.instructions.authorize_path}`);
  assert.equal(start.status, 302);
  const tampered = await owner.fetch(`${rye.url}/v1/verifications/github/callback?code=x&state=not-the-state`);
  assert.equal(tampered.status, 400);
  // Members of the rye organization who are not owners or admins cannot start one.
  const memberBrowser = new TestBrowser();
  const member = await signUp(memberBrowser, "mick");
  await reg.db.prisma.membership.create({ data: { orgId: (await reg.db.prisma.organization.findUniqueOrThrow({ where: { name: "acme" } })).id, userId: member.id, role: "member" } });
  assert.equal((await memberBrowser.fetch(`${rye.url}${claim.instructions.authorize_path}`)).status, 403);
  assert.deepEqual(await badges(), []);
});

test("a verified GitHub claim is re-proven on demand: an owner who left the GitHub organization's admins lapses it", async () => {
  const claim = await claimGithub("acme-inc");
  assert.equal((await prove(owner, claim)).searchParams.get("github"), "verified");
  const listed = ((await (await reg.request("GET", "/v1/orgs/acme/verifications", { token: orgToken })).json()) as Json).verifications[0];
  assert.equal(listed.instructions.authorize_path, claim.instructions.authorize_path, "the path stays available to prove it again");
  github.user = { ...github.user!, orgs: { "acme-inc": { state: "active", role: "member" } } };
  assert.equal((await prove(owner, claim)).searchParams.get("github"), "VERIFICATION_NOT_MEMBER");
  assert.deepEqual(await badges(), []);
});
