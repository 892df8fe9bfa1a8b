/** Sign-up, sign-in, sign-out, session and whoami: happy paths, errors, security, on PostgreSQL and PGlite. */
import assert from "node:assert/strict";
import { scryptSync } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { postgresAvailable } from "@rye/db/testing";
import { type Json, testClient } from "../../test/session-client.ts";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";
import { needsRehash } from "../auth/passwords.ts";
import { rateLimit } from "../middleware/rate-limit.ts";

for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
describe(`accounts on ${kind}`, () => {
  let reg: TestRegistry;
  let client: ReturnType<typeof testClient>;
  let call: ReturnType<typeof testClient>["call"];
  const login = (loginName: string, password: string, headers?: Record<string, string>) => call("POST", "/v1/auth/login", { json: { login: loginName, password }, ...(headers ? { headers } : {}) });

  before(async () => {
    reg = await createTestRegistry({ kind, config: { rateLimit: { windowSeconds: 60, reads: 100_000, writes: 100_000 } } });
    client = testClient(reg.deps);
    call = client.call;
  });
  after(() => reg.close());

  describe("happy paths", () => {
    test("sign-up creates the user, the namespace and a session; the session reads back", async () => {
      const r = await call("POST", "/v1/auth/signup", { json: { username: "Alice", email: " Alice@Example.TEST ", password: "correct horse battery" } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.deepEqual(Object.keys(r.body).sort(), ["csrf_token", "user"]);
      assert.deepEqual({ ...r.body.user, id: undefined }, { id: undefined, username: "alice", email: "alice@example.test", email_verified: false });
      const setCookie = r.res.headers.getSetCookie().join("\n");
      assert.match(setCookie, /rye_session=[A-Za-z0-9_-]{43};/);
      assert.match(setCookie, /HttpOnly/);
      assert.match(setCookie, /SameSite=Lax/);
      assert.doesNotMatch(setCookie, /Secure/, "the test registry is served over http");
      const session = client.sessionOf(r.res, r.body);
      const read = await call("GET", "/v1/auth/session", { session });
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, r.body);
      const user = await reg.db.prisma.user.findUniqueOrThrow({ where: { username: "alice" }, include: { namespace: true } });
      assert.equal(user.namespace?.name, "alice");
      assert.match(user.passwordHash!, /^scrypt\$15\$8\$1\$/);
      const audit = await reg.db.prisma.auditEvent.findMany({ where: { action: "user.signup", targetId: user.id } });
      assert.equal(audit.length, 1);
      assert.equal(audit[0]!.requestId, r.res.headers.get("x-request-id"));
    });

    test("sign-in by username or email, any case; sign-out ends that session only", async () => {
      const first = await login("ALICE", "correct horse battery");
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.user.username, "alice");
      const second = await login(" alice@EXAMPLE.test", "correct horse battery");
      assert.equal(second.status, 200);
      const a = client.sessionOf(first.res, first.body);
      const b = client.sessionOf(second.res, second.body);
      assert.notEqual(a.cookie, b.cookie);
      assert.notEqual(a.csrf, b.csrf);
      const out = await call("POST", "/v1/auth/logout", { session: a });
      assert.equal(out.status, 204);
      assert.match(out.res.headers.getSetCookie().join(), /rye_session=;.*Max-Age=0/);
      assert.equal((await call("GET", "/v1/auth/session", { session: a })).status, 401);
      assert.equal((await call("GET", "/v1/auth/session", { session: b })).status, 200);
    });

    test("GET /v1/me: whoami for personal tokens and for sessions", async () => {
      const session = await client.signUp("carol");
      const token = await reg.token({ id: session.id, username: "carol" }, { scopes: ["items:read"], namespace: "carol" });
      const me = await call("GET", "/v1/me", { token });
      assert.equal(me.status, 200);
      assert.equal(me.body.username, "carol");
      assert.equal(me.body.email, "carol@example.test");
      assert.deepEqual(me.body.scopes, ["items:read"]);
      assert.equal(me.body.token.type, "pat");
      assert.equal(me.body.token.namespace, "carol");
      const bySession = await call("GET", "/v1/me", { session });
      assert.deepEqual(bySession.body.scopes, ["items:read", "items:write", "org:admin"]);
      assert.equal(bySession.body.token, null);
    });

    test("a hash made with older scrypt parameters is upgraded at sign-in", async () => {
      const session = await client.signUp("dave");
      const salt = Buffer.alloc(16, 1);
      const old = `scrypt$14$8$1$${salt.toString("base64url")}$${scryptSync("dave-long-password", salt, 32, { N: 2 ** 14 }).toString("base64url")}`;
      await reg.db.prisma.user.update({ where: { id: session.id }, data: { passwordHash: old } });
      assert.equal((await login("dave", "dave-long-password")).status, 200);
      const upgraded = (await reg.db.prisma.user.findUniqueOrThrow({ where: { id: session.id } })).passwordHash!;
      assert.notEqual(upgraded, old);
      assert.equal(needsRehash(upgraded), false);
      assert.equal((await login("dave", "dave-long-password")).status, 200);
    });
  });

  describe("errors", () => {
    test("sign-up validation lists every problem by field", async () => {
      const r = await call("POST", "/v1/auth/signup", { json: { username: "-x", email: "not-an-email", password: "short" } });
      assert.equal(r.status, 400);
      assert.equal(r.body.error.code, "VALIDATION_FAILED");
      assert.deepEqual(r.body.error.details.map((d: Json) => d.field).sort(), ["email", "password", "username"]);
      const same = await call("POST", "/v1/auth/signup", { json: { username: "erin-erin-erin", email: "erin@example.test", password: "Erin-Erin-Erin" } });
      assert.match(same.body.error.details[0].message, /username/);
      const mail = await call("POST", "/v1/auth/signup", { json: { username: "erin", email: "erin@example.test", password: "ERIN@example.test" } });
      assert.match(mail.body.error.details[0].message, /email/);
      assert.equal(await reg.db.prisma.user.count({ where: { username: { startsWith: "erin" } } }), 0);
    });

    test("taken usernames (also by organizations) and emails: 409 CONFLICT naming the field", async () => {
      await reg.createOrg("acme", []);
      for (const [username, email, field] of [["alice", "new@example.test", "username"], ["ACME", "new@example.test", "username"], ["newbie", "ALICE@example.test", "email"]] as const) {
        const r = await call("POST", "/v1/auth/signup", { json: { username, email, password: "correct horse battery" } });
        assert.equal(r.status, 409, username);
        assert.equal(r.body.error.code, "CONFLICT");
        assert.equal(r.body.error.details.field, field);
      }
      const email = await call("POST", "/v1/auth/signup", { json: { username: "newbie", email: "alice@example.test", password: "correct horse battery" } });
      assert.equal(email.body.error.message, "An account with this email exists");
    });

    test("sign-in failures: one message for unknown accounts and wrong passwords", async () => {
      const unknown = await login("nobody", "whatever-password");
      const wrong = await login("alice", "wrong password!");
      const wrongByEmail = await login("alice@example.test", "wrong password!");
      for (const r of [unknown, wrong, wrongByEmail]) {
        assert.equal(r.status, 401);
        assert.equal(r.body.error.code, "UNAUTHORIZED");
        assert.equal(r.body.error.message, "Wrong username, email or password");
        assert.equal(r.res.headers.getSetCookie().length, 0);
      }
      await reg.createUser("sso-only"); // no password: only an identity provider signs it in
      assert.equal((await login("sso-only", "anything at all")).status, 401);
    });

    test("bad bodies: not JSON, wrong content type, wrong shape, unknown fields, too large", async () => {
      const garbage = await call("POST", "/v1/auth/login", { body: "{nope", headers: { "content-type": "application/json" } });
      assert.equal(garbage.status, 400);
      const form = await call("POST", "/v1/auth/login", { body: "login=alice&password=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
      assert.equal(form.status, 400);
      const plain = await call("POST", "/v1/auth/login", { json: { login: "alice", password: "correct horse battery" }, headers: { "content-type": "text/plain" } });
      assert.equal(plain.status, 400, "cross-site forms can send text/plain: refused");
      const shape = await call("POST", "/v1/auth/login", { json: { login: ["alice"], password: 1 } });
      assert.equal(shape.body.error.code, "BAD_REQUEST");
      const extra = await call("POST", "/v1/auth/signup", { json: { username: "mallory", email: "m@example.test", password: "correct horse battery", is_admin: true } });
      assert.equal(extra.status, 400);
      const big = await call("POST", "/v1/auth/login", { json: { login: "alice", password: "x".repeat(20_000) } });
      assert.equal(big.status, 413);
    });

    test("no session: 401 from the session endpoint and whoami; sign-out is harmless", async () => {
      assert.equal((await call("GET", "/v1/auth/session")).status, 401);
      assert.equal((await call("GET", "/v1/me")).status, 401);
      assert.equal((await call("GET", "/v1/auth/session", { headers: { cookie: "rye_session=forged" } })).status, 401);
      assert.equal((await call("POST", "/v1/auth/logout")).status, 204);
    });
  });

  describe("security", () => {
    test("brute force: the 11th failed attempt per account and IP is answered 429, even with the right password", async () => {
      await client.signUp("frank");
      const from = (ip: string) => ({ "x-forwarded-for": ip });
      for (let i = 0; i < 10; i++) assert.equal((await login("frank", `guess number ${i}`)).status, 401);
      const blocked = await login("frank", "frank-long-password");
      assert.equal(blocked.status, 429);
      assert.equal(blocked.body.error.code, "RATE_LIMITED");
      assert.ok(Number(blocked.res.headers.get("retry-after")) > 0);
      assert.equal((await login("frank@example.test", "frank-long-password")).status, 429, "the email is the same account");
      assert.equal((await login("alice", "correct horse battery")).status, 200, "other accounts are unaffected");
      // client IPs only count apart behind a trusted proxy; this registry does not trust one
      assert.equal((await login("frank", "frank-long-password", from("203.0.113.9"))).status, 429);
      for (let i = 0; i < 10; i++) await login("ghost-account", `guess ${i}`);
      assert.equal((await login("ghost-account", "guess 11")).status, 429, "unknown accounts are throttled alike");
    });

    test("concurrent guesses are counted as they start", async () => {
      await client.signUp("grace");
      const results = await Promise.all(Array.from({ length: 25 }, (_, i) => login("grace", `guess ${i}`)));
      assert.equal(results.filter((r) => r.status === 401).length, 10);
      assert.equal(results.filter((r) => r.status === 429).length, 15);
    });

    test("disabled users cannot sign in, and their sessions and tokens stop working", async () => {
      const session = await client.signUp("heidi");
      const token = await reg.token({ id: session.id, username: "heidi" });
      await reg.db.prisma.user.update({ where: { id: session.id }, data: { disabledAt: new Date() } });
      const r = await login("heidi", "heidi-long-password");
      assert.equal(r.status, 403);
      assert.equal(r.res.headers.getSetCookie().length, 0);
      assert.equal((await login("heidi", "not the password")).body.error.message, "Wrong username, email or password", "disabled accounts are not revealed without the password");
      assert.equal((await call("GET", "/v1/auth/session", { session })).status, 401);
      assert.equal((await call("GET", "/v1/me", { session })).status, 401);
      assert.equal((await call("GET", "/v1/me", { token })).status, 401);
    });

    test("sign-out needs the CSRF token; expired sessions are gone", async () => {
      const session = await client.signUp("ivan");
      assert.equal((await call("POST", "/v1/auth/logout", { session, csrf: null })).status, 403);
      assert.equal((await call("POST", "/v1/auth/logout", { session, csrf: "x".repeat(32) })).status, 403);
      assert.equal((await call("GET", "/v1/auth/session", { session })).status, 200, "still signed in");
      await reg.db.prisma.webSession.updateMany({ where: { userId: session.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      assert.equal((await call("GET", "/v1/auth/session", { session })).status, 401);
    });

    test("reserved and hostile names are refused; nothing sensitive is answered", async () => {
      for (const username of ["admin", "Root", "rye", "api", "www", "signup", "null", "alice'; DROP TABLE users;--", "../admin", "\u0430lice", "a", "x".repeat(40), "bob\u0000"]) {
        const r = await call("POST", "/v1/auth/signup", { json: { username, email: `${username.length}x@example.test`, password: "correct horse battery" } });
        assert.equal(r.status, 400, JSON.stringify(username));
        assert.equal(r.body.error.details[0].field, "username");
      }
      for (const email of ["a@b", "x@example.test\r\nBcc: y@example.test", "<script>@x.y"]) {
        const r = await call("POST", "/v1/auth/signup", { json: { username: "judy", email, password: "correct horse battery" } });
        assert.equal(r.status, 400, email);
      }
      for (const loginName of ["%", "' OR 1=1 --"]) {
        assert.equal((await login(loginName, "correct horse battery")).status, 401, JSON.stringify(loginName));
      }
      // NUL is refused for every JSON body before its route (it names no account: nothing is revealed).
      for (const loginName of ["ali\u0000ce", "alice\u0000@example.test"]) {
        const r = await login(loginName, "correct horse battery");
        assert.equal(r.status, 400, JSON.stringify(loginName));
        assert.equal(r.body.error.code, "BAD_REQUEST");
        assert.equal(r.body.error.details[0].field, "login");
      }
      const ok = await call("POST", "/v1/auth/signup", { json: { username: "judy", email: "judy@example.test", password: "correct horse battery" } });
      assert.doesNotMatch(JSON.stringify(ok.body), /scrypt|password/i);
      assert.ok((await reg.db.prisma.user.count()) > 0, "the users table is still there");
    });

    test("20 concurrent sign-ups of one name: one account", async () => {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call("POST", "/v1/auth/signup", { json: { username: "race", email: `race${i}@example.test`, password: "correct horse battery" } })));
      assert.equal(results.filter((r) => r.status === 201).length, 1);
      assert.ok(results.every((r) => r.status === 201 || (r.status === 409 && r.body.error.details.field === "username")), JSON.stringify(results.map((r) => r.body.error)));
      assert.equal(await reg.db.prisma.user.count({ where: { username: "race" } }), 1);
    });
  });
});
}
