import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createTestRegistry, type TestRegistry } from "../test/harness.ts";

let reg: TestRegistry;
before(async () => {
  reg = await createTestRegistry();
});
after(() => reg.close());

test("GET /health reports the database", async () => {
  const res = await reg.request("GET", "/health");
  assert.equal(res.status, 200);
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(body.status, "healthy");
  assert.equal(body.database, "connected");
  assert.ok(res.headers.get("x-request-id"));
});

test("unknown routes answer 404 in the shared error envelope", async () => {
  const res = await reg.request("GET", "/v1/nope");
  assert.equal(res.status, 404);
  const body = (await res.json()) as { error: { code: string; hint: string } };
  assert.equal(body.error.code, "NOT_FOUND");
  assert.ok(body.error.hint.length > 0);
});

test("GET /v1/public-key and /v1/keys publish the registry key", async () => {
  const pem = await (await reg.request("GET", "/v1/public-key")).text();
  assert.match(pem, /^-----BEGIN PUBLIC KEY-----/);
  const keys = (await (await reg.request("GET", "/v1/keys")).json()) as { active: string; keys: { fingerprint: string; public_key: string; active: boolean }[] };
  assert.equal(keys.keys.length, 1);
  assert.equal(keys.keys[0]!.public_key, pem);
  assert.equal(keys.keys[0]!.fingerprint, keys.active);
});

test("a bad bearer token is refused with 401, even on public routes", async () => {
  for (const token of ["nonsense", "rye_pat_unknown", ""]) {
    const res = await reg.request("GET", "/v1/keys", { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 401, token);
  }
});
