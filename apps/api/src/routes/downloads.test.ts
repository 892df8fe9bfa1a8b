/** GET /v1/downloads: downloads per day and per version, counted by real pulls, private items private. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";

type Json = Record<string, any>;

let reg: TestRegistry;
let token: string;

const knowledge = (name: string, version: string) => `---\nid: ${name}\ntitle: ${name}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\nBody ${version}.\n`;
async function publish(id: string, version: string, visibility?: string): Promise<void> {
  const res = await reg.request("POST", "/v1/push", { token, json: { item_type: "knowledge", item_id: id, content: knowledge(id.split("/").at(-1)!, version), version, metadata: visibility ? { visibility } : undefined } });
  assert.equal(res.status, 201, await res.text());
}
async function pull(path: string, times: number, headers: Record<string, string> = {}, as?: string): Promise<void> {
  for (let i = 0; i < times; i++) assert.equal((await reg.request("GET", `/v1/pull/knowledge/${path}`, { headers, ...(as ? { token: as } : {}) })).status, 200);
}
async function stats(path: string, as?: string): Promise<{ status: number; body: Json; cache: string | null }> {
  const res = await reg.request("GET", `/v1/downloads/knowledge/${path}`, as ? { token: as } : {});
  return { status: res.status, body: (await res.json()) as Json, cache: res.headers.get("cache-control") };
}
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);

before(async () => {
  reg = await createTestRegistry({ config: { rateLimit: { windowSeconds: 60, reads: 100_000, writes: 100_000 } } });
  token = await reg.token(await reg.createUser("alice"));
});
after(() => reg.close());

test("pulls are counted per version and per UTC day; the window has every day, zeros included", async () => {
  await publish("alice/notes/popular", "1.0.0");
  await publish("alice/notes/popular", "1.1.0");
  await pull("alice/notes/popular", 3); // latest: 1.1.0
  await pull("alice/notes/popular?version=1.0.0", 2);
  await pull("alice/notes/popular", 4, { "x-rye-purpose": "view" }); // page views are not downloads
  const { id } = await reg.db.prisma.item.findFirstOrThrow({ where: { name: "popular" } });
  reg.deps.reads.downloads.add(id, "1.0.0", daysAgo(3));
  reg.deps.reads.downloads.add(id, "1.0.0", daysAgo(40)); // outside a 30-day window
  await reg.deps.reads.downloads.flush();

  const { status, body, cache } = await stats("alice/notes/popular");
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(cache, "public, max-age=300");
  assert.equal(body.download_count, 7, "all time");
  assert.equal(body.total, 6, "in the window");
  assert.equal(body.days.length, 30);
  assert.equal(body.until, new Date().toISOString().slice(0, 10));
  assert.equal(body.days.at(-1).date, body.until);
  assert.equal(body.days[0].date, body.since);
  assert.deepEqual([body.days.at(-1).downloads, body.days.at(-4).downloads], [5, 1]);
  assert.equal(body.days.filter((d: Json) => d.downloads > 0).length, 2);
  assert.deepEqual(body.versions, [{ version: "1.0.0", downloads: 3 }, { version: "1.1.0", downloads: 3 }]);

  const week = await stats("alice/notes/popular?days=365");
  assert.deepEqual([week.body.days.length, week.body.total], [365, 7]);
});

test("a private item's statistics are the owner's: others get the same 404 as for a missing item", async () => {
  await publish("alice/notes/secret_stats", "1.0.0", "private");
  await pull("alice/notes/secret_stats", 2, {}, token);
  await reg.deps.reads.downloads.flush();
  const anonymous = await stats("alice/notes/secret_stats");
  const stranger = await stats("alice/notes/secret_stats", await reg.token(await reg.createUser("eve")));
  const missing = await stats("alice/notes/no_such_item");
  for (const r of [anonymous, stranger]) assert.deepEqual([r.status, r.body.error.code, r.body.error.message], [404, missing.body.error.code, missing.body.error.message.replace("no_such_item", "secret_stats")]);
  const owner = await stats("alice/notes/secret_stats", token);
  assert.deepEqual([owner.status, owner.body.total, owner.cache], [200, 2, "private, no-cache"]);
});

test("bad windows and ids are refused with a code and a hint", async () => {
  for (const q of ["?days=0", "?days=366", "?days=abc", "?days=1.5"]) {
    const r = await stats(`alice/notes/popular${q}`);
    assert.deepEqual([r.status, r.body.error.code], [400, "BAD_REQUEST"], q);
    assert.match(r.body.error.hint, /1 to 365/);
  }
  const bad = await reg.request("GET", "/v1/downloads/widget/alice/notes/popular");
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as Json).error.code, "INVALID_ITEM_TYPE");
});

test("a deleted item's daily rows go with it", async () => {
  await publish("alice/notes/short_lived", "1.0.0");
  const { id } = await reg.db.prisma.item.findFirstOrThrow({ where: { name: "short_lived" } });
  reg.deps.reads.downloads.add(id, "1.0.0");
  await reg.deps.reads.downloads.flush();
  assert.equal(await reg.db.prisma.downloadDay.count({ where: { itemId: id } }), 1);
  await reg.db.prisma.item.delete({ where: { id } });
  assert.equal(await reg.db.prisma.downloadDay.count({ where: { itemId: id } }), 0);
  reg.deps.reads.downloads.add(id, "1.0.0"); // a pull answered just before the deletion
  await reg.deps.reads.downloads.flush();
  assert.equal(reg.deps.reads.downloads.pendingTotal(), 0, "dropped, not retried forever");
});
