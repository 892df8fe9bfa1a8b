/**
 * Search at scale (services/search.ts): the paths a broad query takes — the walk of precomputed ranks
 * (item_search_terms) for one word, the planner's estimate for the total, facets counted on a sample —
 * forced with tiny thresholds on a small registry and compared with the exact answers of the default
 * path. Real publishes, so the trigger that keeps item_search_terms runs as in production. Typo queries
 * page the nearest names (GiST KNN) and several words rank each word's best postings that hold the others.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { SearchResponse } from "@rye/core";
import { postgresAvailable } from "@rye/db/testing";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";
import type { SearchInput, SearchTuning } from "./search.ts";
import { searchItems } from "./search.ts";

const knowledge = (name: string, category: string, description: string, body: string) =>
  `---\nid: ${name}\ntitle: ${name}\nversion: 1.0.0\nentry_type: reference\ncategory: ${category}\ndescription: ${description}\n---\n\n${body}\n`;

/** Forces the broad paths with a handful of items. */
const BROAD: SearchTuning = { exactCountMax: 3, facetSampleRows: 4, candidatesPerTerm: 1000, candidateMatchesPerTerm: 1000, fuzzyExactCountMax: 0, fuzzySampleRows: 4, oneStatement: true, jsonRows: "auto" };
/** The default thresholds, with the page, count and facets of an exact relevance page as separate queries. */
const SEPARATE: SearchTuning = { exactCountMax: 5_000, facetSampleRows: 2_000, candidatesPerTerm: 1_000, candidateMatchesPerTerm: 100, fuzzyExactCountMax: 1_000, fuzzySampleRows: 100, oneStatement: false, jsonRows: "auto" };
const ONE_STATEMENT: SearchTuning = { ...SEPARATE, oneStatement: true };

for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
  describe(`search at scale on ${kind}`, () => {
    let reg: TestRegistry;

    before(async () => {
      reg = await createTestRegistry({ kind, config: { rateLimit: { windowSeconds: 60, reads: 100_000, writes: 100_000 } } });
      const alice = await reg.createUser("alice");
      const token = await reg.token(alice);
      const push = async (id: string, description: string, body: string) => {
        const [, category, name] = id.split("/");
        const res = await reg.request("POST", "/v1/push", { token, json: { item_type: "knowledge", item_id: id, content: knowledge(name!, category!, description, body), version: "1.0.0" } });
        assert.equal(res.status, 201, await res.text());
      };
      // Varied weights of "heron": in the name, the description, the body; several ties.
      await push("alice/birds/heron", "The bird itself", "Grey and tall.");
      for (let i = 0; i < 9; i++) await push(`alice/birds/heron_watch_${i}`, `Watching herons, part ${i}`, "Patience.");
      for (let i = 0; i < 9; i++) await push(`alice/ponds/pond_${i}`, i % 2 ? "A pond with a heron" : "A quiet pond", i % 3 ? "Fish and a heron and a heron." : "Only fish.");
      await push("alice/tools/wader", "Wading boots", "Not about birds at all.");
      // The broad path starts from the planner's row estimate, which needs statistics.
      await reg.db.raw.query("ANALYZE items", []);
    });
    after(() => reg.close());

    const run = (input: Partial<SearchInput>, tuning?: SearchTuning) => searchItems(reg.db, null, { query: "", limit: 5, ...input }, tuning);
    const rows = (r: SearchResponse) => r.results.map((h) => [h.item_id, h.score]);

    /** Every page by cursor, concatenated. */
    async function walk(input: Partial<SearchInput>, tuning?: SearchTuning): Promise<unknown[]> {
      const out: unknown[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const r = await run({ ...input, ...(cursor ? { cursor } : {}) }, tuning);
        out.push(...rows(r));
        if (!r.next_cursor) return out;
        cursor = r.next_cursor;
      }
      throw new Error("too many pages");
    }

    test("a one-word query ranks, orders and pages exactly as ranking every match does", async () => {
      const exact = await run({ query: "heron" });
      const broad = await run({ query: "heron" }, BROAD);
      assert.equal(exact.total_estimated, undefined);
      assert.equal(broad.total_estimated, true);
      assert.deepEqual(rows(broad), rows(exact));
      assert.equal(broad.results[0]!.item_id, "alice/birds/heron", "the item named like the query first (score 2 + rank)");
      assert.ok(broad.results[0]!.score! > 2);
      assert.deepEqual(await walk({ query: "heron" }, BROAD), await walk({ query: "heron" }));
      assert.deepEqual(rows(await run({ query: "heron", offset: 3 }, BROAD)), rows(await run({ query: "heron", offset: 3 })));
      assert.deepEqual(rows(await run({ query: "heron", itemType: "knowledge", limit: 100 }, BROAD)), rows(await run({ query: "heron", itemType: "knowledge", limit: 100 })));
    });

    test("a cursor from the exact path continues on the broad path and the other way round", async () => {
      const first = await run({ query: "heron" });
      const second = await run({ query: "heron", cursor: first.next_cursor! }, BROAD);
      const exactSecond = await run({ query: "heron", cursor: first.next_cursor! });
      assert.deepEqual(rows(second), rows(exactSecond));
    });

    test("broad totals are the planner's estimate; facets are counted on a sample and scaled to it", async () => {
      const exact = await run({ query: "heron", facets: true });
      const broad = await run({ query: "heron", facets: true }, BROAD);
      assert.equal(exact.total, 17, "1 named heron, 9 watching herons, 7 ponds with a heron");
      assert.equal(broad.total_estimated, true);
      assert.ok(broad.total > 0);
      const sampledTotal = broad.facets!.item_type.reduce((n, f) => n + f.count, 0);
      assert.equal(broad.facets!.item_type.length, 1);
      assert.ok(Math.abs(sampledTotal - broad.total) <= 1, "the sample's counts are scaled to the estimated total");
      // A sample that holds the whole match set counts exactly, and says so.
      const whole = await run({ query: "heron", facets: true }, { ...BROAD, facetSampleRows: 1000 });
      assert.equal(whole.total_estimated, undefined);
      assert.equal(whole.total, exact.total);
      assert.deepEqual(whole.facets, exact.facets);
    });

    test("several words, filters and trigram matches keep their results on the broad path", async () => {
      for (const input of [{ query: "heron pond" }, { query: "heron", category: "ponds" }, { query: "herron" }, { query: "heron", sort: "downloads" as const }]) {
        assert.deepEqual(rows(await run({ ...input, limit: 100 }, BROAD)), rows(await run({ ...input, limit: 100 })), JSON.stringify(input));
      }
    });

    test("several words rank among each word's best items: the exact order of those candidates, the exact page when they cannot fill it", async () => {
      const exact = await run({ query: "heron pond", limit: 100 });
      // Each word's 3 best items: the candidates are few, the page is their exact ranking.
      const bounded = await run({ query: "heron pond", limit: 2 }, { ...BROAD, candidatesPerTerm: 3 });
      const scores = new Map(exact.results.map((h) => [h.item_id, h.score]));
      for (const hit of bounded.results) assert.equal(hit.score, scores.get(hit.item_id), "every candidate is a match with its exact score");
      assert.deepEqual(bounded.results.map((h) => h.score), [...bounded.results.map((h) => h.score!)].sort((a, b) => b - a));
      // One candidate per word cannot fill a page of 5: every match is ranked instead.
      assert.deepEqual(rows(await run({ query: "heron pond", limit: 5 }, { ...BROAD, candidatesPerTerm: 1 })), rows(await run({ query: "heron pond", limit: 5 })));
      // OR is not bounded.
      assert.deepEqual(rows(await run({ query: "heron OR boots", limit: 100 }, { ...BROAD, candidatesPerTerm: 1 })), rows(await run({ query: "heron OR boots", limit: 100 })));
    });

    test("several words: each word's best postings that hold the other words, probed in item_search_terms", async () => {
      const exact = await run({ query: "heron pond", limit: 100 });
      // Far enough: every match is a candidate, so every page is the exact one.
      assert.deepEqual(rows(await run({ query: "heron pond", limit: 3 }, BROAD)), rows(await run({ query: "heron pond", limit: 3 })));
      assert.deepEqual(rows(await run({ query: "heron pond", limit: 3, offset: 2 }, BROAD)), rows(await run({ query: "heron pond", limit: 3, offset: 2 })));
      // Only items holding both words are candidates: a walk of each word's 4 best postings keeps the pond items
      // among them (they hold both), and ranks them exactly.
      const walked = await run({ query: "heron pond", limit: 2 }, { ...BROAD, candidatesPerTerm: 4, candidateMatchesPerTerm: 1 });
      const scores = new Map(exact.results.map((h) => [h.item_id, h.score]));
      assert.ok(walked.results.length === 2);
      for (const hit of walked.results) assert.equal(hit.score, scores.get(hit.item_id), `${hit.item_id} is a match of both words with its exact score`);
      assert.equal(walked.total_estimated, true);
    });

    test("a typo query pages the nearest names: a typo of a name finds that item first", async () => {
      for (const [typo, intended] of [["heron_wacth_3", "alice/birds/heron_watch_3"], ["ponnd_7", "alice/ponds/pond_7"], ["herron", "alice/birds/heron"]] as const) {
        const near = await run({ query: typo, limit: 3 }, BROAD);
        assert.equal(near.results[0]?.item_id, intended, typo);
        assert.equal(near.total_estimated, true, `${typo}: an estimated total on the nearest-names path`);
        const exact = await run({ query: typo, limit: 3 });
        assert.equal(exact.total_estimated, undefined);
        assert.equal(exact.results[0]?.item_id, intended, `${typo} (exact path)`);
        // The same scores in the same order as ranking every match (names of equal score may differ: the index's order).
        assert.deepEqual(near.results.map((h) => h.score), exact.results.map((h) => h.score), typo);
        const all = new Map((await run({ query: typo, limit: 100 })).results.map((h) => [h.item_id, h.score]));
        for (const hit of near.results) assert.equal(hit.score, all.get(hit.item_id), `${typo}: ${hit.item_id} is a match with its exact score`);
      }
    });

    test("typo pages by cursor visit each name once; full-text matches stay ahead; facets are sampled and marked", async () => {
      const seen = new Set<string>();
      let cursor: string | undefined;
      let previous = Number.POSITIVE_INFINITY;
      for (let page = 0; page < 20; page++) {
        const r = await run({ query: "herons", limit: 3, ...(cursor ? { cursor } : {}) }, BROAD);
        for (const hit of r.results) {
          assert.ok(!seen.has(hit.item_id), `${hit.item_id} twice`);
          assert.ok(hit.score! <= previous, "scores never increase across pages");
          seen.add(hit.item_id);
          previous = hit.score!;
        }
        if (!r.next_cursor) break;
        cursor = r.next_cursor;
      }
      const exact = await walk({ query: "herons" });
      assert.equal(seen.size, exact.length, "every match is visited (the walk falls back to the exact pages when the nearest names run out)");
      // "herons" is a full-text match of the watching items' descriptions (score > 1): they come first.
      const first = await run({ query: "herons", limit: 3 }, BROAD);
      assert.ok(first.results.every((h) => h.score! > 1));
      const faceted = await run({ query: "herron", facets: true, limit: 3 }, BROAD);
      assert.equal(faceted.total_estimated, true);
      assert.ok(faceted.facets!.item_type.length > 0);
      // A sample larger than the nearest names is counted exactly instead.
      const whole = await run({ query: "herron", facets: true, limit: 3 }, { ...BROAD, fuzzySampleRows: 1000 });
      const exact3 = await run({ query: "herron", facets: true, limit: 3 });
      assert.deepEqual(whole.facets, exact3.facets);
    });

    test("a typo's first page with facets shares one nearest-names walk between page and facet sample: the same page and facets as separate walks", async () => {
      for (const query of ["herron", "heron_wacth_3", "ponnd_7", "herons"]) {
        const shared = await run({ query, limit: 3, facets: true }, BROAD);
        // Without facets the page comes from its own walk; with a cursor the facets come from their own sample.
        assert.deepEqual(rows(shared), rows(await run({ query, limit: 3 }, BROAD)), query);
        if (!shared.next_cursor) continue;
        const second = await run({ query, limit: 3, facets: true, cursor: shared.next_cursor }, BROAD);
        assert.deepEqual([second.facets, second.total, second.total_estimated], [shared.facets, shared.total, shared.total_estimated], query);
      }
      assert.equal((await run({ query: "herron", limit: 3, facets: true }, BROAD)).total_estimated, true, "more nearest names than the sample: scaled");
      // Fewer nearest names than the sample: facets and total are counted exactly, as the separate sample does.
      const whole = await run({ query: "herron", facets: true, limit: 3 }, { ...BROAD, fuzzySampleRows: 1000 });
      const exact = await run({ query: "herron", facets: true, limit: 3 });
      assert.deepEqual([whole.facets, whole.total, whole.total_estimated], [exact.facets, exact.total, undefined]);
    });

    test("an exact relevance page with its total and facets in one statement answers as the separate queries do", async () => {
      const inputs: Partial<SearchInput>[] = [
        { query: "heron", facets: true },
        { query: "heron", facets: true, offset: 4 },
        { query: "heron", facets: true, offset: 40 },
        { query: "heron", facets: true, category: "ponds" },
        { query: "heron pond" },
        { query: "herron", facets: true },
        { query: "herron", limit: 2 },
        { query: "nothing-like-this", facets: true },
        { query: "heron", facets: true, itemType: "knowledge" },
      ];
      for (const input of inputs) {
        const one = await run(input, ONE_STATEMENT);
        assert.deepEqual(one, await run(input, SEPARATE), JSON.stringify(input));
        assert.equal(one.total_estimated, undefined);
      }
      // Cursors continue across both ways, and past the last match.
      const first = await run({ query: "heron", limit: 16 });
      for (const tuning of [ONE_STATEMENT, SEPARATE]) {
        const last = await run({ query: "heron", limit: 16, cursor: first.next_cursor! }, tuning);
        assert.deepEqual(rows(last), rows(await run({ query: "heron", limit: 16, cursor: first.next_cursor! }, SEPARATE)));
        assert.equal(last.results.length, 1);
        assert.equal(last.next_cursor, null);
      }
      assert.deepEqual(await walk({ query: "herron" }, ONE_STATEMENT), await walk({ query: "herron" }, SEPARATE));
    });

    test("rows fetched as one JSON value (PGlite's shape) answer exactly as rows fetched one by one", async () => {
      const inputs: Partial<SearchInput>[] = [
        { query: "heron", facets: true },
        { query: "heron", offset: 3 },
        { query: "heron pond", facets: true },
        { query: "herron", facets: true },
        { query: "heron_wacth_3", limit: 3 },
        { query: "", facets: true },
        { query: "", sort: "downloads" },
        { query: "heron", sort: "quality" },
        { query: "heron", category: "ponds", facets: true },
        { query: "heron", itemType: "knowledge", facets: true },
      ];
      for (const base of [SEPARATE, ONE_STATEMENT, BROAD]) {
        for (const input of inputs) {
          const json = await run(input, { ...base, jsonRows: true });
          assert.deepEqual(json, await run(input, { ...base, jsonRows: false }), `${JSON.stringify(input)} ${JSON.stringify(base)}`);
        }
        for (const input of [{ query: "heron" }, { query: "herons" }, { query: "", sort: "recent" as const }]) {
          assert.deepEqual(await walk(input, { ...base, jsonRows: true }), await walk(input, { ...base, jsonRows: false }), JSON.stringify(input));
        }
      }
      // The timestamps survive the JSON form to the millisecond, as Date values read from rows do.
      const [json, plain] = [await run({ query: "heron", limit: 20 }, { ...SEPARATE, jsonRows: true }), await run({ query: "heron", limit: 20 }, { ...SEPARATE, jsonRows: false })];
      assert.deepEqual(json.results.map((h) => [h.created_at, h.updated_at]), plain.results.map((h) => [h.created_at, h.updated_at]));
    });

    test("item_search_terms follows publishes and deletions", async () => {
      const terms = async () => (await reg.db.raw.query<{ term: string; rank: number }>(`SELECT t.term, t.rank FROM item_search_terms t JOIN items i ON i.id = t.item_id WHERE i.name = 'wader' ORDER BY t.term`, [])).rows;
      const before = await terms();
      assert.ok(before.some((t) => t.term === "boots"));
      const { rows: [computed] } = await reg.db.raw.query<{ rank: number }>(
        `SELECT ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', search_document, websearch_to_tsquery('simple', 'boots'), 32) AS rank FROM items WHERE name = 'wader'`,
        [],
      );
      assert.equal(before.find((t) => t.term === "boots")!.rank, computed!.rank, "the stored rank is the one a query computes");
      await reg.db.prisma.item.deleteMany({ where: { name: "wader" } });
      assert.deepEqual(await terms(), []);
    });
  });
}
