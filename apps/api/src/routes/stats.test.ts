/** GET /v1/stats: happy paths, errors, security (private and unlisted items never count). */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Hono } from "hono";
import { registryStatsSchema, RyeError } from "@rye/core";
import type { Database } from "@rye/db";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";
import type { AppEnv } from "../env.ts";
import { errorHandler } from "../middleware/errors.ts";
import { rateLimit } from "../middleware/rate-limit.ts";
import { requestContext } from "../middleware/request-context.ts";
import type { AppDeps } from "../services/deps.ts";
import { StatsCache, STATS_TTL_MS } from "../services/stats.ts";
import { statsRoutes } from "./stats.ts";

type Json = Record<string, any>;

function buildApp(deps: AppDeps, cache: StatsCache): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requestContext({ authenticator: deps.authenticator, logger: deps.logger, trustProxy: deps.config.trustProxy }));
  app.use("/v1/*", rateLimit(deps.config.rateLimit));
  app.route("/", statsRoutes(deps, cache));
  app.notFound((c) => c.json(new RyeError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`).toEnvelope(), 404));
  app.onError(errorHandler(deps.logger));
  return app;
}

const knowledge = (name: string) => `---\nid: ${name}\ntitle: ${name}\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n---\n\nBody of ${name}.\n`;
const directive = (name: string) =>
  `# ${name}\n\n\`\`\`xml\n<directive name="${name}" version="1.0.0">\n  <metadata>\n    <description>Say hello</description>\n    <category>greet</category>\n    <author>alice</author>\n  </metadata>\n  <process><step name="one">Say hello.</step></process>\n</directive>\n\`\`\`\n`;
const yamlTool = `version: "1.0.0"\ntool_type: http\nexecutor_id: rye/core/primitives/http_client\ncategory: web\ndescription: "Fetch things"\nconfig:\n  url: "{url}"\n`;

describe("GET /v1/stats", () => {
  let reg: TestRegistry;
  let alice: TestUser;
  let aliceToken: string;
  let now = Date.parse("2026-05-01T10:00:00Z");
  let cache: StatsCache;
  let app: Hono<AppEnv>;

  async function push(body: Json): Promise<void> {
    const res = await reg.request("POST", "/v1/push", { token: aliceToken, json: body });
    assert.equal(res.status, 201, JSON.stringify(await res.json()));
  }
  const note = (id: string, visibility?: string) =>
    push({ item_type: "knowledge", item_id: id, content: knowledge(id.split("/").at(-1)!), version: "1.0.0", metadata: visibility ? { visibility } : undefined });
  async function stats(token?: string, path = "/v1/stats"): Promise<{ status: number; body: Json; headers: Headers }> {
    const res = await app.request(path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
  }
  /** A fresh computation (the clock moves past the cache's lifetime). */
  const fresh = (token?: string) => {
    now += STATS_TTL_MS + 1;
    return stats(token);
  };
  const setDownloads = (name: string, downloadCount: number) => reg.db.prisma.item.updateMany({ where: { name }, data: { downloadCount } });

  before(async () => {
    reg = await createTestRegistry({ config: { rateLimit: { windowSeconds: 60, reads: 100_000, writes: 100_000 } } });
    cache = new StatsCache(reg.db, STATS_TTL_MS, () => now);
    app = buildApp(reg.deps, cache);
    alice = await reg.createUser("alice");
    aliceToken = await reg.token(alice);
    await reg.createUser("idle");
    await reg.createOrg("acme", [{ user: alice, role: "owner" }]);
  });
  after(() => reg.close());

  describe("happy paths", () => {
    test("an empty registry counts zero", async () => {
      const { status, body, headers } = await stats();
      assert.equal(status, 200);
      assert.deepEqual(body, { items: { total: 0, directive: 0, tool: 0, knowledge: 0, skill: 0 }, namespaces: 0, downloads: 0, generated_at: new Date(now).toISOString() });
      assert.ok(registryStatsSchema.safeParse(body).success);
      assert.match(headers.get("cache-control")!, /^public, max-age=[1-5]$/);
    });

    test("items per type, namespaces with public items and their downloads", async () => {
      await note("alice/notes/one");
      await note("alice/notes/two");
      await note("acme/notes/three");
      await push({ item_type: "tool", item_id: "alice/web/fetch", content: yamlTool, version: "1.0.0", file_extension: ".yaml" });
      await push({ item_type: "directive", item_id: "alice/greet/hello", content: directive("hello"), version: "1.0.0" });
      await setDownloads("one", 7);
      await setDownloads("fetch", 5);
      const { body } = await fresh();
      assert.deepEqual(body.items, { total: 5, directive: 1, tool: 1, knowledge: 3, skill: 0 });
      assert.equal(body.namespaces, 2, "alice and acme; a namespace without items does not count");
      assert.equal(body.downloads, 12);
    });

    test("the answer is cached for a few seconds, then recomputed", async () => {
      const first = await fresh();
      await note("alice/notes/four");
      now += STATS_TTL_MS - 1;
      const cached = await stats();
      assert.deepEqual(cached.body, first.body, "within the lifetime: the cached answer");
      now += 2;
      const later = await stats();
      assert.equal(later.body.items.knowledge, first.body.items.knowledge + 1);
      assert.equal(later.body.generated_at, new Date(now).toISOString());
    });

    test("with the read generation, a change made by any process shows at once; downloads wait for the lifetime", async () => {
      const tracked = new StatsCache(reg.db, STATS_TTL_MS, () => now, () => reg.deps.reads.generation.current());
      const first = await tracked.get();
      await setDownloads("one", 1000);
      assert.deepEqual(await tracked.get(), first, "download counts do not move the generation: cached");
      // A write straight to the database, as another process would make it.
      await reg.db.prisma.item.updateMany({ where: { name: "two" }, data: { visibility: "private" } });
      const after = await tracked.get();
      assert.equal(after.items.knowledge, first.items.knowledge - 1, "the generation moved: recomputed within the lifetime");
      assert.equal(after.downloads, first.downloads + 1000 - 7);
      await reg.db.prisma.item.updateMany({ where: { name: "two" }, data: { visibility: "public" } });
    });

    test("concurrent callers share one computation", async () => {
      now += STATS_TTL_MS + 1;
      let queries = 0;
      const counting = { ...reg.db, raw: { ...reg.db.raw, query: (...args: Parameters<Database["raw"]["query"]>) => (queries++, reg.db.raw.query(...args)) } } as Database;
      const shared = new StatsCache(counting, STATS_TTL_MS, () => now);
      const answers = await Promise.all(Array.from({ length: 10 }, () => shared.get()));
      assert.equal(queries, 1);
      assert.ok(answers.every((a) => a === answers[0]));
    });

    test("the registry app mounts the route", async () => {
      const res = await reg.request("GET", "/v1/stats");
      assert.equal(res.status, 200);
      assert.ok(registryStatsSchema.safeParse(await res.json()).success);
    });
  });

  describe("errors", () => {
    test("a database failure is a 500 envelope without internals, and is not cached", async () => {
      let fail = true;
      const flaky = { ...reg.db, raw: { ...reg.db.raw, query: (...args: Parameters<Database["raw"]["query"]>) => (fail ? Promise.reject(new Error("connection refused: SELECT count(*) FROM items")) : reg.db.raw.query(...args)) } } as Database;
      const failing = buildApp(reg.deps, new StatsCache(flaky, STATS_TTL_MS, () => now));
      const res = await failing.request("/v1/stats");
      assert.equal(res.status, 500);
      const body = (await res.json()) as Json;
      assert.equal(typeof body.error.code, "string");
      assert.doesNotMatch(JSON.stringify(body), /SELECT|connection refused/);
      fail = false;
      assert.equal((await failing.request("/v1/stats")).status, 200, "the failure was not cached");
    });

    test("other methods are not routes", async () => {
      const res = await app.request("/v1/stats", { method: "POST" });
      assert.equal(res.status, 404);
    });
  });

  describe("security", () => {
    test("private and unlisted items (and their downloads) never count, whoever asks", async () => {
      const before = (await fresh()).body;
      await note("acme/notes/private_one", "private");
      await note("alice/notes/unlisted_one", "unlisted");
      await setDownloads("private_one", 1000);
      await setDownloads("unlisted_one", 1000);
      const admin = await reg.token(await reg.createUser("root", { admin: true }));
      for (const token of [undefined, aliceToken, admin]) {
        const { body } = await fresh(token);
        assert.deepEqual(body.items, before.items, `items for ${token ? "a member" : "anonymous"}`);
        assert.equal(body.downloads, before.downloads);
        assert.equal(body.namespaces, before.namespaces);
      }
      // A namespace whose only item is private does not count either.
      await reg.createOrg("stealth", [{ user: alice, role: "owner" }]);
      await note("stealth/notes/hidden", "private");
      assert.equal((await fresh(aliceToken)).body.namespaces, before.namespaces);
      // Made public, it counts.
      await reg.db.prisma.item.updateMany({ where: { name: "hidden" }, data: { visibility: "public" } });
      assert.equal((await fresh()).body.namespaces, before.namespaces + 1);
    });

    test("an invalid token is 401; query parameters are ignored", async () => {
      assert.equal((await stats("rye_pat_invalid")).status, 401);
      const hostile = await stats(undefined, "/v1/stats?visibility=private&namespace=acme%27%3B--&items=1");
      assert.equal(hostile.status, 200);
      assert.deepEqual(hostile.body, (await stats()).body);
    });
  });
});
