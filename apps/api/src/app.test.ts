import assert from "node:assert/strict";
import { test } from "node:test";
import { createApp } from "./app.ts";

test("GET /health answers with status and version", async () => {
  const res = await createApp({ version: "9.9.9" }).request("/health");
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: "healthy", version: "9.9.9" });
});

test("unknown routes answer 404 in the shared error envelope", async () => {
  const res = await createApp({ version: "0" }).request("/v1/nope");
  assert.equal(res.status, 404);
  const body = (await res.json()) as { error: { code: string; hint: string } };
  assert.equal(body.error.code, "NOT_FOUND");
  assert.ok(body.error.hint.length > 0);
});
