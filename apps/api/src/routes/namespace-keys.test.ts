/** GET /v1/namespaces/{name}/keys: public, a user's keys or an organization's members', revoked ones dated, bounded, 404 with a hint. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { generateKeyPair, MAX_NAMESPACE_KEYS, namespaceKeysResponseSchema } from "@rye/core";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";

type Json = Record<string, any>;

describe("a namespace's public key list", () => {
  let reg: TestRegistry;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  const keys: Record<string, string> = {};

  async function list(name: string, token?: string): Promise<{ status: number; body: Json; headers: Headers }> {
    const res = await reg.request("GET", `/v1/namespaces/${name}/keys`, token ? { token } : {});
    return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
  }

  async function register(user: TestUser, name: string): Promise<string> {
    const key = await generateKeyPair();
    const res = await reg.request("POST", "/v1/me/keys", { token: await reg.token(user), json: { public_key: key.publicKey.pem, label: `${name} secret label` } });
    assert.equal(res.status, 201);
    keys[name] = key.publicKey.fingerprint;
    return key.publicKey.fingerprint;
  }

  before(async () => {
    reg = await createTestRegistry();
    alice = await reg.createUser("alice");
    bob = await reg.createUser("bob");
    carol = await reg.createUser("carol");
    await reg.createOrg("acme", [
      { user: alice, role: "owner" },
      { user: bob, role: "member" },
    ]);
    await register(alice, "alice1");
    await register(alice, "alice2");
    await register(bob, "bob1");
    await register(carol, "carol1");
    const revoked = await reg.request("DELETE", `/v1/me/keys/${keys.alice2}`, { token: await reg.token(alice) });
    assert.equal(revoked.status, 200);
  });
  after(() => reg.close());

  test("a user namespace: its user's keys, oldest first, revoked ones with their time; no token needed, no label or user named", async () => {
    const { status, body, headers } = await list("alice");
    assert.equal(status, 200, JSON.stringify(body));
    assert.ok(namespaceKeysResponseSchema.strict().safeParse(body).success);
    assert.equal(body.namespace, "alice");
    assert.equal(body.kind, "user");
    assert.equal(body.truncated, false);
    assert.deepEqual(body.keys.map((k: Json) => [k.fingerprint, k.revoked_at === null]), [[keys.alice1, true], [keys.alice2, false]]);
    assert.match(body.keys[0].public_key, /^-----BEGIN PUBLIC KEY-----/);
    assert.ok(!Number.isNaN(Date.parse(body.keys[1].revoked_at)) && !Number.isNaN(Date.parse(body.keys[0].created_at)));
    assert.deepEqual(Object.keys(body.keys[0]).sort(), ["created_at", "fingerprint", "public_key", "revoked_at"]);
    assert.ok(!JSON.stringify(body).includes("secret label"), "labels are the user's own notes, not published");
    assert.equal(headers.get("cache-control"), "public, no-cache");
    assert.deepEqual((await list("ALICE")).body, body, "names are case-insensitive");
  });

  test("an organization: the keys of its members (any role), not of others", async () => {
    const { status, body } = await list("acme");
    assert.equal(status, 200);
    assert.equal(body.kind, "org");
    assert.deepEqual(body.keys.map((k: Json) => k.fingerprint).sort(), [keys.alice1, keys.alice2, keys.bob1].sort());
    assert.ok(!body.keys.some((k: Json) => k.fingerprint === keys.carol1), "carol is no member");
  });

  test("an unknown namespace, or a name no one can have: 404 NOT_FOUND with a hint", async () => {
    for (const name of ["nobody", "..%2Fetc", "x".repeat(300)]) {
      const { status, body } = await list(name);
      assert.equal(status, 404, name);
      assert.equal(body.error.code, "NOT_FOUND");
      assert.match(body.error.hint, /user's or an organization's name/);
    }
  });

  test(`at most ${MAX_NAMESPACE_KEYS} keys per answer; more is said (truncated), never silently cut`, async () => {
    const many = await reg.createUser("many");
    const pem = (await generateKeyPair()).publicKey.pem;
    await reg.db.prisma.userKey.createMany({
      data: Array.from({ length: MAX_NAMESPACE_KEYS + 1 }, (_, i) => ({ userId: many.id, fingerprint: i.toString(16).padStart(16, "0"), publicKeyPem: pem, createdAt: new Date(1_700_000_000_000 + i) })),
    });
    const { status, body } = await list("many");
    assert.equal(status, 200);
    assert.equal(body.keys.length, MAX_NAMESPACE_KEYS);
    assert.equal(body.truncated, true);
    assert.equal(body.keys[0].fingerprint, "0".repeat(16), "oldest first");
  });
});
