/** GET /v1/search and GET /v1/items/{type}/{id}: happy paths, errors, security. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Hono } from "hono";
import { RyeError } from "@rye/core";
import { postgresAvailable } from "@rye/db/testing";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";
import { testClient } from "../../test/session-client.ts";
import type { AppEnv } from "../env.ts";
import { errorHandler } from "../middleware/errors.ts";
import { rateLimit } from "../middleware/rate-limit.ts";
import { requestContext } from "../middleware/request-context.ts";
import type { AppDeps } from "../services/deps.ts";
import { searchRoutes } from "./search.ts";

type Json = Record<string, any>;

/** The routes under test, wrapped like app.ts wraps them. */
function buildApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requestContext({ authenticator: deps.authenticator, logger: deps.logger, trustProxy: deps.config.trustProxy }));
  app.use("/v1/*", rateLimit(deps.config.rateLimit));
  app.route("/", searchRoutes(deps));
  app.notFound((c) => c.json(new RyeError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`).toEnvelope(), 404));
  app.onError(errorHandler(deps.logger));
  return app;
}

const knowledge = (name: string, o: { version?: string; category?: string; description?: string; body?: string } = {}) =>
  `---\nid: ${name}\ntitle: ${name}\nversion: ${o.version ?? "1.0.0"}\nentry_type: reference\ncategory: ${o.category ?? "notes"}\n${o.description ? `description: ${o.description}\n` : ""}---\n\n${o.body ?? `Body of ${name}.`}\n`;
const yamlTool = (toolType: string) => `version: "1.0.0"\ntool_type: ${toolType}\nexecutor_id: rye/core/primitives/http_client\ncategory: web\ndescription: "Fetch things"\nconfig:\n  url: "{url}"\n`;

// Full-text and trigram search must behave the same on PostgreSQL and the embedded PGlite.
for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
describe(`search on ${kind}`, () => {
  let reg: TestRegistry;
  let app: Hono<AppEnv>;
  let alice: TestUser;
  let bob: TestUser;
  let aliceToken: string;
  let bobToken: string;

  async function push(token: string, body: Json): Promise<void> {
    const res = await reg.request("POST", "/v1/push", { token, json: body });
    assert.equal(res.status, 201, JSON.stringify(await res.json()));
  }
  const note = (id: string, o: Parameters<typeof knowledge>[1] & { visibility?: string } = {}) => {
    const category = id.split("/").slice(1, -1).join("/");
    const name = id.split("/").at(-1)!;
    return push(aliceToken, { item_type: "knowledge", item_id: id, content: knowledge(name, { ...o, category }), version: o.version ?? "1.0.0", metadata: o.visibility ? { visibility: o.visibility } : undefined });
  };

  async function get(path: string, token?: string): Promise<{ status: number; body: Json }> {
    const res = await app.request(path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, body: (await res.json()) as Json };
  }
  const search = (params: Record<string, string>, token?: string) => get(`/v1/search?${new URLSearchParams(params)}`, token);
  const ids = (body: Json) => (body.results as Json[]).map((r) => r.item_id);

  before(async () => {
    reg = await createTestRegistry({ kind, config: { rateLimit: { windowSeconds: 60, reads: 100_000, writes: 100_000 } } });
    app = buildApp(reg.deps);
    alice = await reg.createUser("alice");
    bob = await reg.createUser("bob");
    aliceToken = await reg.token(alice);
    bobToken = await reg.token(bob);
    await reg.createOrg("acme", [{ user: alice, role: "member" }]);
    await note("alice/ops/kubernetes", { description: "Cluster notes" });
    await note("alice/ops/cluster_guide", { description: "How to run kubernetes in production" });
    await note("alice/kubernetes/setup", { description: "Setting things up" });
    await note("alice/ops/platform_notes", { description: "Platform things", body: "We run kubernetes here." });
    await note("alice/rye/core/core_doc", { description: "Core documentation" });
    await note("alice/rye/core/x/nested_doc", { description: "Nested core documentation" });
    await note("alice/rye/corex/other_doc", { description: "Other documentation" });
    await note("alice/ops/hidden_runbook", { description: "Unlisted runbook", visibility: "unlisted" });
    await note("acme/ops/secret_runbook", { description: "Private runbook", visibility: "private" });
    await push(aliceToken, { item_type: "tool", item_id: "alice/web/fetch", content: yamlTool("http"), version: "1.0.0", file_extension: ".yaml" });
    await note("alice/ops/legacy_runbook", { description: "Old runbook" });
    await reg.db.prisma.item.updateMany({ where: { name: "legacy_runbook" }, data: { deprecated: true, deprecationMessage: "Use runbook v2" } });
    for (let i = 0; i < 25; i++) await note(`alice/bulk/page_item_${i}`, { description: `Paging fixture number ${i}` });
  });
  after(() => reg.close());

  describe("happy paths", () => {
    test("results keep the original field names; name beats description beats category beats content; exact name first", async () => {
      const { status, body } = await search({ query: "kubernetes" });
      assert.equal(status, 200);
      assert.deepEqual(ids(body), ["alice/ops/kubernetes", "alice/ops/cluster_guide", "alice/kubernetes/setup", "alice/ops/platform_notes"]);
      assert.equal(body.total, 4);
      assert.equal(body.limit, 20);
      assert.equal(body.query, "kubernetes");
      assert.equal(body.next_cursor, null);
      const first = body.results[0] as Json;
      for (const key of ["item_type", "item_id", "namespace", "category", "name", "description", "version", "author", "download_count", "created_at", "updated_at", "tool_type", "deprecated", "score"]) {
        assert.ok(key in first, key);
      }
      assert.equal(first.version, "1.0.0");
      assert.equal(first.author, "alice");
      assert.ok(first.score >= 2, "an exact name match is boosted above every other full-text match");
      const scores = (body.results as Json[]).map((r) => r.score as number);
      assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
    });

    test("typos fall back to trigram similarity; full-text hits stay ahead", async () => {
      const typo = await search({ query: "kubernets" });
      assert.equal(typo.body.results[0].item_id, "alice/ops/kubernetes");
      assert.ok(typo.body.results[0].score < 1);
      const partial = await search({ query: "runbok" });
      assert.ok(ids(partial.body).includes("alice/ops/legacy_runbook"), JSON.stringify(ids(partial.body)));
    });

    test("filters: item_type, namespace, category prefix on whole segments, tool_type", async () => {
      assert.deepEqual(ids((await search({ query: "", item_type: "tool" })).body), ["alice/web/fetch"]);
      assert.deepEqual(ids((await search({ query: "fetch", tool_type: "http" })).body), ["alice/web/fetch"]);
      assert.deepEqual(ids((await search({ query: "", tool_type: "python" })).body), []);
      assert.deepEqual(ids((await search({ query: "", category: "rye/core" })).body).sort(), ["alice/rye/core/core_doc", "alice/rye/core/x/nested_doc"]);
      assert.deepEqual(ids((await search({ query: "documentation", category: "rye/core/" })).body).sort(), ["alice/rye/core/core_doc", "alice/rye/core/x/nested_doc"]);
      assert.deepEqual(ids((await search({ query: "", category: "rye/corex" })).body), ["alice/rye/corex/other_doc"]);
      assert.deepEqual((await search({ query: "", namespace: "bob" })).body.results, []);
      assert.equal((await search({ query: "", namespace: "ALICE", item_type: "knowledge", limit: "100" })).body.total, 33);
      assert.deepEqual((await search({ query: "kubernetes", item_type: "directive" })).body.results, []);
    });

    test("an empty query lists by recency; deprecated items are listed and flagged", async () => {
      const { body } = await search({ query: "", limit: "100" });
      const times = (body.results as Json[]).map((r) => Date.parse(r.updated_at));
      assert.deepEqual(times, [...times].sort((a, b) => b - a));
      assert.ok((body.results as Json[]).every((r) => r.score === null));
      const legacy = (body.results as Json[]).find((r) => r.name === "legacy_runbook")!;
      assert.equal(legacy.deprecated, true);
    });

    test("sort: relevance by default with a query, recent without; downloads and recent on demand", async () => {
      await reg.db.prisma.item.updateMany({ where: { name: "page_item_3" }, data: { downloadCount: 50 } });
      await reg.db.prisma.item.updateMany({ where: { name: "page_item_7" }, data: { downloadCount: 20 } });
      try {
        assert.equal((await search({ query: "paging fixture" })).body.sort, "relevance");
        assert.equal((await search({ query: "" })).body.sort, "recent");
        assert.equal((await search({ query: "", sort: "relevance" })).body.sort, "recent", "an empty query has no relevance");
        const popular = await search({ query: "paging fixture", sort: "downloads", limit: "3" });
        assert.equal(popular.body.sort, "downloads");
        assert.deepEqual(ids(popular.body).slice(0, 2), ["alice/bulk/page_item_3", "alice/bulk/page_item_7"]);
        assert.equal(popular.body.total, 25);
        assert.ok((popular.body.results as Json[]).every((r) => r.score === null), "no relevance is computed for another order");
        const everything = await search({ query: "", sort: "downloads", limit: "100" });
        const counts = (everything.body.results as Json[]).map((r) => r.download_count as number);
        assert.deepEqual(counts, [...counts].sort((a, b) => b - a));
        const recent = await search({ query: "paging fixture", sort: "recent", limit: "100" });
        const times = (recent.body.results as Json[]).map((r) => Date.parse(r.updated_at));
        assert.deepEqual(times, [...times].sort((a, b) => b - a));
        assert.equal(recent.body.total, 25);
      } finally {
        await reg.db.prisma.item.updateMany({ where: { name: { in: ["page_item_3", "page_item_7"] } }, data: { downloadCount: 0 } });
      }
    });

    test("facets count the visible match set: each facet ignores its own filter; categories drill down", async () => {
      const plain = await search({ query: "" });
      assert.equal(plain.body.facets, undefined, "facets only when asked");
      const { body } = await search({ query: "", facets: "1" });
      const f = body.facets as Record<string, { value: string; count: number }[]>;
      assert.deepEqual(Object.keys(f).sort(), ["category", "item_type", "namespace", "tool_type"]);
      assert.equal(f.item_type!.reduce((n, v) => n + v.count, 0), body.total);
      assert.deepEqual(f.item_type!.find((v) => v.value === "tool"), { value: "tool", count: 1 });
      assert.deepEqual(f.namespace, [{ value: "alice", count: body.total }]);
      assert.deepEqual(f.tool_type, [{ value: "http", count: 1 }]);
      assert.equal(f.category!.reduce((n, v) => n + v.count, 0), body.total, "top-level segments partition the items");
      assert.deepEqual(f.category!.find((v) => v.value === "rye"), { value: "rye", count: 3 });
      const counts = f.category!.map((v) => v.count);
      assert.deepEqual(counts, [...counts].sort((a, b) => b - a));
      // Filtering by a facet value gives the count the facet showed.
      for (const { value, count } of f.category!) assert.equal((await search({ query: "", category: value })).body.total, count, value);

      const rye = (await search({ query: "", category: "rye", facets: "true" })).body.facets;
      assert.deepEqual(rye.category, [{ value: "rye/core", count: 2 }, { value: "rye/corex", count: 1 }]);
      assert.deepEqual((await search({ query: "", category: "rye/core", facets: "1" })).body.facets.category, [{ value: "rye/core/x", count: 1 }]);

      const tools = await search({ query: "", item_type: "tool", facets: "1" });
      assert.equal(tools.body.total, 1);
      assert.ok(tools.body.facets.item_type.some((v: Json) => v.value === "knowledge" && v.count > 1), "other types stay selectable");
      assert.deepEqual(tools.body.facets.namespace, [{ value: "alice", count: 1 }], "other facets apply the type filter");
      assert.deepEqual(tools.body.facets.category, [{ value: "web", count: 1 }]);

      const text = await search({ query: "kubernetes", facets: "1" });
      assert.equal(text.body.facets.item_type.reduce((n: number, v: Json) => n + v.count, 0), text.body.total, "facets count the same match set");
      // With facets the total comes from the facet scan: the same number as the plain count.
      for (const params of <Record<string, string>[]>[{ query: "" }, { query: "kubernetes" }, { query: "kubernets" }, { query: "", item_type: "knowledge", namespace: "alice" }, { query: "doc", category: "rye", tool_type: "http" }, { query: "", category: "rye/core" }]) {
        const plain = (await search(params)).body.total;
        assert.equal((await search({ ...params, facets: "1" })).body.total, plain, JSON.stringify(params));
        assert.equal((await search({ ...params, facets: "1" }, aliceToken)).body.total, (await search(params, aliceToken)).body.total, `member ${JSON.stringify(params)}`);
      }
      const none = await search({ query: "zzzqqqxxx", facets: "1" });
      assert.equal(none.body.total, 0);
      assert.deepEqual(none.body.facets, { item_type: [], namespace: [], category: [], tool_type: [] });
      const cursor = (await search({ query: "paging fixture", limit: "5", facets: "1" })).body.next_cursor;
      const second = await search({ query: "paging fixture", limit: "5", cursor, facets: "1" });
      assert.equal(second.status, 200);
      assert.deepEqual(second.body.facets.namespace, [{ value: "alice", count: 25 }], "later pages count the same set");
    });

    test("cursor pagination walks every result once and agrees with total; offset still works", async () => {
      for (const [query, sort] of [["", ""], ["paging fixture", ""], ["page_itme", ""], ["", "downloads"], ["paging fixture", "recent"], ["paging fixture", "downloads"], ["page_itme", "downloads"]] as const) {
        const seen: string[] = [];
        let cursor: string | null = null;
        let total = -1;
        do {
          const page: { status: number; body: Json } = await search({ query, limit: "7", ...(sort ? { sort } : {}), ...(cursor ? { cursor } : {}) });
          assert.equal(page.status, 200, JSON.stringify(page.body));
          seen.push(...ids(page.body));
          total = page.body.total;
          cursor = page.body.next_cursor;
        } while (cursor);
        assert.equal(new Set(seen).size, seen.length, `${query} ${sort}: no duplicates`);
        assert.equal(seen.length, total, `${query} ${sort}: pages add up to total`);
        if (query !== "") assert.ok(seen.filter((id) => id.includes("page_item_")).length === 25, query);
      }
      const all = ids((await search({ query: "paging fixture", limit: "100" })).body);
      const offset = await search({ query: "paging fixture", limit: "5", offset: "10" });
      assert.deepEqual(ids(offset.body), all.slice(10, 15));
      assert.equal(offset.body.offset, 10);
    });

    test("item metadata lists versions newest first with their provenance", async () => {
      await note("alice/ops/versioned", { version: "1.0.0" });
      await note("alice/ops/versioned", { version: "1.10.0" });
      await note("alice/ops/versioned", { version: "1.2.0" });
      const { status, body } = await get("/v1/items/knowledge/alice/ops/versioned");
      assert.equal(status, 200);
      assert.equal(body.item_id, "alice/ops/versioned");
      assert.equal(body.latest_version, "1.10.0");
      assert.equal(body.visibility, "public");
      assert.equal(body.deprecated, false);
      assert.equal(body.download_count, 0);
      assert.deepEqual(body.versions.map((v: Json) => v.version), ["1.10.0", "1.2.0", "1.0.0"]);
      const v = body.versions[0] as Json;
      assert.deepEqual(Object.keys(v).sort(), ["content_hash", "created_at", "log_index", "publisher", "size_bytes", "version", "yanked", "yanked_reason"]);
      assert.equal(v.publisher, "alice");
      assert.match(v.content_hash, /^[0-9a-f]{64}$/);
      assert.equal(typeof v.log_index, "number");
      const legacy = await get("/v1/items/knowledge/alice/ops/legacy_runbook");
      assert.equal(legacy.body.deprecation_message, "Use runbook v2");
    });
  });

  describe("errors", () => {
    test("bad parameters are 400 with codes", async () => {
      for (const limit of ["0", "101", "abc", "1.5", "-1"]) {
        const r = await search({ query: "x", limit });
        assert.equal(r.status, 400, limit);
        assert.equal(r.body.error.code, "BAD_REQUEST");
      }
      assert.equal((await search({ query: "x", offset: "-1" })).body.error.code, "BAD_REQUEST");
      assert.equal((await search({ query: "x", item_type: "widget" })).body.error.code, "INVALID_ITEM_TYPE");
      const long = await search({ query: "a".repeat(257) });
      assert.equal(long.status, 400);
      assert.match(long.body.error.message, /256/);
      assert.equal((await search({ query: "é".repeat(256) })).status, 200, "the limit counts characters, not bytes");
      for (const sort of ["popular", "RELEVANCE", "score", "downloads;"]) assert.equal((await search({ query: "x", sort })).body.error.code, "BAD_REQUEST", sort);
      for (const facets of ["yes", "2", "facets"]) assert.equal((await search({ query: "x", facets })).body.error.code, "BAD_REQUEST", facets);
      assert.equal((await search({ query: "x", sort: "", facets: "" })).status, 200, "empty parameters are absent, as forms send them");
    });

    test("cursors are checked: garbage, a cursor from another query, cursor plus offset", async () => {
      const first = await search({ query: "paging fixture", limit: "3" });
      const cursor = first.body.next_cursor as string;
      assert.ok(cursor);
      const [match, order, key, id, fingerprint] = JSON.parse(Buffer.from(cursor, "base64url").toString()) as unknown[];
      const forge = (...parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString("base64url");
      assert.equal((await search({ query: "paging fixture", cursor: forge(match, order, key, id, fingerprint) })).status, 200, "the forge helper is faithful");
      const forged = [
        forge(match, order, key, id, "other"), forge(match, order, "1", id, fingerprint), forge("all", order, key, id, fingerprint), forge(match, "updated_at", key, id, fingerprint),
        forge(match, "download_count", key, id, fingerprint), forge(match, "download_count; DROP TABLE items", key, id, fingerprint), forge(match, order, key, "1' OR '1'='1", fingerprint),
        forge(match, order, key, id), forge("sql", order, key, id, fingerprint), forge(match, key, id, fingerprint),
      ];
      for (const bad of ["garbage", "%%%", "e30", ...forged]) {
        const r = await search({ query: "paging fixture", cursor: bad });
        assert.equal(r.status, 400, bad);
        assert.equal(r.body.error.code, "BAD_REQUEST");
      }
      assert.equal((await search({ query: "other words", cursor })).status, 400);
      assert.equal((await search({ query: "paging fixture", cursor, offset: "3" })).status, 400);
      assert.equal((await search({ query: "paging fixture", cursor, sort: "downloads" })).status, 400, "a cursor is bound to its sort");
      const downloads = (await search({ query: "", sort: "downloads", limit: "3" })).body.next_cursor as string;
      assert.equal((await search({ query: "", sort: "recent", cursor: downloads })).status, 400);
      const [dm, , , did, dfp] = JSON.parse(Buffer.from(downloads, "base64url").toString()) as unknown[];
      for (const bad of [-1, 1.5, "5", 1e300]) assert.equal((await search({ query: "", sort: "downloads", cursor: forge(dm, "download_count", bad, did, dfp) })).status, 400, String(bad));
    });

    test("item metadata: unknown items, bad types and ids", async () => {
      assert.equal((await get("/v1/items/knowledge/alice/ops/nothing")).body.error.code, "ITEM_NOT_FOUND");
      assert.equal((await get("/v1/items/widget/alice/ops/kubernetes")).body.error.code, "INVALID_ITEM_TYPE");
      assert.equal((await get("/v1/items/knowledge/alice")).body.error.code, "INVALID_ITEM_ID");
    });
  });

  describe("security", () => {
    test("private items are listed only for members; unlisted items never", async () => {
      assert.deepEqual(ids((await search({ query: "runbook" })).body), ["alice/ops/legacy_runbook"]);
      assert.deepEqual(ids((await search({ query: "runbook" }, bobToken)).body), ["alice/ops/legacy_runbook"]);
      const member = await search({ query: "runbook" }, aliceToken);
      assert.deepEqual(ids(member.body).sort(), ["acme/ops/secret_runbook", "alice/ops/legacy_runbook"]);
      assert.equal((member.body.results as Json[]).find((r) => r.namespace === "acme")!.visibility, "private");
      assert.equal((await search({ query: "", namespace: "acme" })).body.total, 0);
      assert.equal((await search({ query: "", namespace: "acme" }, aliceToken)).body.total, 1);
      assert.ok(!ids((await search({ query: "hidden_runbook" }, aliceToken)).body).includes("alice/ops/hidden_runbook"));
      const admin = await reg.createUser("root", { admin: true });
      const adminView = await search({ query: "secret_runbook" }, await reg.token(admin));
      assert.ok(!ids(adminView.body).includes("acme/ops/secret_runbook"), "search lists private items of the caller's own namespaces only");
    });

    test("facets count private items for members only, unlisted items never", async () => {
      const namespaces = async (params: Record<string, string>, token?: string) => (await search({ ...params, facets: "1" }, token)).body.facets.namespace as Json[];
      for (const token of [undefined, bobToken, await reg.token(await reg.createUser("root2", { admin: true }))]) {
        assert.deepEqual(await namespaces({ query: "runbook" }, token), [{ value: "alice", count: 1 }]);
        assert.deepEqual(await namespaces({ query: "", namespace: "acme" }, token), [{ value: "alice", count: await countAll(bobToken) }], "the namespace facet ignores its own filter, never visibility");
        const secret = await search({ query: "secret_runbook", category: "ops", facets: "1" }, token);
        assert.ok(!JSON.stringify(secret.body.facets).includes("acme"));
      }
      assert.deepEqual(await namespaces({ query: "runbook" }, aliceToken), [{ value: "acme", count: 1 }, { value: "alice", count: 1 }]);
      // A member's browse listing is never shared with anonymous visitors (only anonymous counts are).
      const memberBrowse = await search({ query: "", facets: "1" }, aliceToken);
      assert.ok(memberBrowse.body.facets.namespace.some((v: Json) => v.value === "acme"));
      const anonymousBrowse = await search({ query: "", facets: "1" });
      assert.ok(!JSON.stringify(anonymousBrowse.body.facets).includes("acme"));
      const ops = await search({ query: "runbook", facets: "1" });
      assert.deepEqual(ops.body.facets.category, [{ value: "ops", count: 1 }], "the unlisted and the private runbooks are not counted");
      const member = await search({ query: "runbook", facets: "1" }, aliceToken);
      assert.deepEqual(member.body.facets.category, [{ value: "ops", count: 2 }]);
    });
    test("a member's website session (cookie) finds private items too; another session does not", async () => {
      const client = testClient(reg.deps);
      const member = await client.signUp(`m${kind}`);
      const outsider = await client.signUp(`o${kind}`);
      const acme = await reg.db.prisma.organization.findUniqueOrThrow({ where: { name: "acme" } });
      await reg.db.prisma.membership.create({ data: { orgId: acme.id, userId: member.id, role: "member" } });
      const viaCookie = async (cookie: string) => {
        const res = await app.request(`/v1/search?${new URLSearchParams({ query: "runbook", facets: "1" })}`, { headers: { cookie } });
        return (await res.json()) as Json;
      };
      const seen = await viaCookie(member.cookie);
      assert.deepEqual(ids(seen).sort(), ["acme/ops/secret_runbook", "alice/ops/legacy_runbook"]);
      assert.deepEqual(seen.facets.namespace, [{ value: "acme", count: 1 }, { value: "alice", count: 1 }]);
      const other = await viaCookie(outsider.cookie);
      assert.deepEqual(ids(other), ["alice/ops/legacy_runbook"]);
      assert.ok(!JSON.stringify(other.facets).includes("acme"));
      assert.deepEqual(ids(await viaCookie("rye_session=forged")), ["alice/ops/legacy_runbook"], "an unknown session is anonymous");
    });
    /** Counted live: a signed-in caller's counts are never shared (anonymous browse counts are, for 5 s). */
    const countAll = async (token: string) => (await search({ query: "", limit: "1" }, token)).body.total as number;

    test("private item metadata is 404 for anonymous callers and non-members", async () => {
      assert.equal((await get("/v1/items/knowledge/acme/ops/secret_runbook")).status, 404);
      assert.equal((await get("/v1/items/knowledge/acme/ops/secret_runbook", bobToken)).status, 404);
      assert.equal((await get("/v1/items/knowledge/acme/ops/secret_runbook", aliceToken)).status, 200);
      assert.equal((await get("/v1/items/knowledge/alice/ops/hidden_runbook")).status, 200, "unlisted items are reachable by id");
    });

    test("an invalid token is 401 even on search", async () => {
      assert.equal((await search({ query: "x" }, "rye_not_a_token")).status, 401);
    });

    test("SQL-ish, operator-laden, unicode and long queries are data, never syntax", async () => {
      const hostile = [
        "'; DROP TABLE items;--", "%", "_", "\\", "\\\\", ":*", "!", "&|", "!!!", "a & b | c", "(kubernetes", "kubernetes)", '"kubernetes', "'",
        "kuber*", "-kubernetes", "or", "<->", "kubernetes:A", "$1", "日本語のテスト", "🎉🎉", "Ωmega ß", "x".repeat(256), "\u202e\u200b",
        "' OR 1=1 --", "%' OR '1'='1", "kubernetes' UNION SELECT * FROM users --",
      ];
      // NUL is no text at all: refused before any route (middleware/request-target.ts).
      const nul = await search({ query: "\u0000kubernetes" });
      assert.equal(nul.status, 400);
      assert.equal(nul.body.error.code, "INVALID_PARAMETER");
      for (const query of hostile) {
        const r = await search({ query });
        assert.equal(r.status, 200, `${JSON.stringify(query)}: ${JSON.stringify(r.body)}`);
        assert.ok(Array.isArray(r.body.results));
        assert.equal(typeof r.body.total, "number");
        assert.ok(!ids(r.body).includes("acme/ops/secret_runbook"));
        for (const filter of ["namespace", "category", "tool_type"]) {
          const f = await search({ query: "x", [filter]: query.slice(0, 60) });
          assert.ok([200, 400].includes(f.status), `${filter}=${JSON.stringify(query)}: ${f.status}`);
        }
      }
      assert.ok((await reg.db.prisma.item.count()) > 30, "the items table survived");
      assert.equal((await search({ query: "%" })).body.total, 0, "% is not a wildcard");
      assert.equal((await search({ query: "", category: "%" })).body.total, 0);
      assert.equal((await search({ query: "", category: "rye/%" })).body.total, 0);
      assert.equal((await search({ query: "", category: "rye/_ore" })).body.total, 0);
      const negated = await search({ query: "-kubernetes", limit: "10" });
      assert.equal(negated.body.results.length, 10);
      assert.equal(negated.body.results.some((r: Json) => /kubernetes/.test(r.item_id)), false, "websearch negation works");
    });

    test("hostile ids on item metadata are rejected or not found", async () => {
      for (const id of ["alice/../bob/x/y", "alice/ops/%00", "../../etc/passwd", "alice/ops/x'; DROP TABLE items;--", "alice/ops/kubernetes%27"]) {
        const r = await get(`/v1/items/knowledge/${id}`);
        assert.ok([400, 404].includes(r.status), `${id}: ${r.status}`);
      }
    });
  });

});
}
