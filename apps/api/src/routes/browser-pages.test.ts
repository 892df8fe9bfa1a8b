/** The interim /login and /device pages: a person signs in and approves `rye login` with a browser. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";

let reg: TestRegistry;
before(async () => {
  reg = await createTestRegistry();
  await reg.request("POST", "/v1/auth/signup", { json: { username: "paula", email: "paula@example.test", password: "a long enough password" } });
});
after(() => reg.close());

function form(fields: Record<string, string>) {
  return { body: new URLSearchParams(fields).toString(), headers: { "content-type": "application/x-www-form-urlencoded" } };
}

test("sign in with the form, then approve a device code on /device", async () => {
  const start = (await (await reg.request("POST", "/oauth/device/code", form({ client_id: "rye-cli" }))).json()) as { user_code: string; device_code: string };
  const anonymous = await reg.request("GET", `/device?user_code=${start.user_code}`);
  assert.equal(anonymous.status, 302);
  assert.equal(anonymous.headers.get("location"), `/login?next=${encodeURIComponent(`/device?user_code=${start.user_code}`)}`);

  const loginPage = await reg.request("GET", "/login?next=/device");
  assert.match(await loginPage.text(), /<form method="post" action="\/login">/);
  assert.match(loginPage.headers.get("content-security-policy")!, /default-src 'none'/);
  const wrong = await reg.request("POST", "/login", form({ login: "paula", password: "nope nope nope", next: "/device" }));
  assert.equal(wrong.status, 401);
  assert.match(await wrong.text(), /Wrong username, email or password/);
  const crossSite = await reg.request("POST", "/login", { ...form({ login: "paula", password: "a long enough password" }), headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" } });
  assert.equal(crossSite.status, 403);
  const evilNext = await reg.request("POST", "/login", form({ login: "paula", password: "a long enough password", next: "//evil.example" }));
  assert.equal(evilNext.status, 400);
  const ok = await reg.request("POST", "/login", form({ login: "paula", password: "a long enough password", next: `/device?user_code=${start.user_code}` }));
  assert.equal(ok.status, 303);
  const cookie = ok.headers.get("set-cookie")!.split(";")[0]!;

  const page = await reg.request("GET", `/device?user_code=${start.user_code}`, { headers: { cookie } });
  const html = await page.text();
  assert.equal(page.status, 200);
  assert.match(html, /Approve sign-in\?/);
  assert.match(html, /rye command-line interface/);
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)![1]!;
  const noCsrf = await reg.request("POST", "/device", { ...form({ user_code: start.user_code, decision: "approve" }), headers: { "content-type": "application/x-www-form-urlencoded", cookie } });
  assert.equal(noCsrf.status, 403);
  const approved = await reg.request("POST", "/device", { ...form({ user_code: start.user_code, decision: "approve", csrf_token: csrf }), headers: { "content-type": "application/x-www-form-urlencoded", cookie } });
  assert.match(await approved.text(), /Device connected/);
  const tokens = await reg.request("POST", "/oauth/token", form({ grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: start.device_code, client_id: "rye-cli" }));
  assert.equal(tokens.status, 200);

  const bad = await reg.request("GET", "/device?user_code=BBBB-BBBB", { headers: { cookie } });
  assert.equal(bad.status, 404);
  for (let i = 0; i < 10; i++) await reg.request("GET", "/device?user_code=CCCC-CCCC", { headers: { cookie } });
  assert.equal((await reg.request("GET", "/device?user_code=DDDD-DDDD", { headers: { cookie } })).status, 429, "wrong codes are rate-limited like the API");
});
