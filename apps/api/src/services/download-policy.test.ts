/** countsAsDownload: the one rule, on a real Hono context (routes' uses: routes/skills.test.ts, routes/items.test.ts). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Hono } from "hono";
import { countsAsDownload, type VersionRead } from "./download-policy.ts";

async function decide(read: VersionRead, init: { method?: string; headers?: Record<string, string> } = {}): Promise<boolean> {
  let decided: boolean | undefined;
  const app = new Hono().get("/", (c) => {
    decided = countsAsDownload(c, read);
    return c.body(null, 204);
  });
  await app.request("/", { method: init.method ?? "GET", headers: init.headers });
  assert.notEqual(decided, undefined, "the handler ran");
  return decided!;
}

const install: VersionRead = { status: "published", whole: true };

test("a GET of a whole published version counts", async () => {
  assert.equal(await decide(install), true);
  assert.equal(await decide(install, { headers: { "x-rye-purpose": "install" } }), true, "only `view` opts out");
});

test("a view never counts (any case, surrounding spaces)", async () => {
  for (const value of ["view", "View", " VIEW "]) assert.equal(await decide(install, { headers: { "x-rye-purpose": value } }), false, value);
});

test("HEAD, a part or the metadata of a version, a held version and a mirror's cached answer do not count", async () => {
  assert.equal(await decide(install, { method: "HEAD" }), false, "HEAD");
  assert.equal(await decide({ ...install, whole: false }), false, "not the whole version");
  for (const status of ["pending", "rejected"]) assert.equal(await decide({ ...install, status }), false, status);
  assert.equal(await decide({ ...install, mirrored: true }), false, "mirrored");
});
