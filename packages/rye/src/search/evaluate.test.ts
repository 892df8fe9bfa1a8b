/**
 * Boolean logic of the evaluator (sorted merges since the rewrite) against plain set arithmetic on a
 * random corpus spread over two spaces and two types: every AND / OR / NOT combination must select exactly
 * the documents the sets say, whatever order the segments and document ids come in.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { evaluateQuery } from "./evaluate.ts";
import { segmentIndex } from "./index.ts";
import { FIELD_BITS } from "./postings.ts";
import { parseQuery } from "./query.ts";
import { searchItems } from "./search.ts";
import { defaultSearchConfig } from "./weights.ts";
import { knowledgeFile, makeSpaces, pythonToolFile, removeTestSpaces, writeItem } from "./test-fixtures.ts";

after(removeTestSpaces);

const WORDS = ["amber", "basalt", "cobalt", "dune", "ember"];

test("AND, OR and NOT select exactly the documents set arithmetic gives", async () => {
  const { project, user } = await makeSpaces();
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const holding = new Map<string, Set<string>>(WORDS.map((w) => [w, new Set()]));
  const all = new Set<string>();
  for (let i = 0; i < 60; i++) {
    const words = WORDS.filter(() => random() < 0.45);
    const space = i % 3 === 0 ? user : project;
    const id = `c/item_${i}`;
    const key = `${space.name}:${i % 2 ? "tool" : "knowledge"}:${id}`;
    all.add(key);
    for (const w of words) holding.get(w)!.add(key);
    const text = `Item ${i} ${words.join(" ")}`;
    if (i % 2) await writeItem(space, "tool", id, pythonToolFile(id, text));
    else await writeItem(space, "knowledge", id, knowledgeFile(id, `Title ${i}`, text));
  }
  const set = (w: string) => holding.get(w)!;
  const and = (a: Set<string>, b: Set<string>) => new Set([...a].filter((k) => b.has(k)));
  const or = (a: Set<string>, b: Set<string>) => new Set([...a, ...b]);
  const not = (a: Set<string>) => new Set([...all].filter((k) => !a.has(k)));
  const cases: [string, Set<string>][] = [
    ["amber basalt", and(set("amber"), set("basalt"))],
    ["amber OR cobalt", or(set("amber"), set("cobalt"))],
    ["NOT dune", not(set("dune"))],
    ["amber -ember", and(set("amber"), not(set("ember")))],
    ["(amber OR basalt) cobalt", and(or(set("amber"), set("basalt")), set("cobalt"))],
    ["amber OR basalt OR cobalt OR dune", or(or(set("amber"), set("basalt")), or(set("cobalt"), set("dune")))],
    ["NOT (amber OR ember) dune", and(not(or(set("amber"), set("ember"))), set("dune"))],
    ["amber basalt cobalt -dune", and(and(and(set("amber"), set("basalt")), set("cobalt")), not(set("dune")))],
  ];
  for (const [query, expected] of cases) {
    const keys = new Set<string>();
    for (let offset = 0; ; offset += 100) {
      const page = await searchItems({ query, spaces: [project, user], limit: 100, offset });
      for (const hit of page.results) if (hit.id.startsWith("c/")) keys.add(`${hit.space}:${hit.type}:${hit.id}`);
      if (offset + 100 >= page.total) break;
    }
    assert.deepEqual([...keys].sort(), [...expected].sort(), query);
  }
});

test("scores read from the postings' counts equal the scores read from the documents' field data", async () => {
  const { project } = await makeSpaces();
  const texts = ["heron heron pelican", "pelican", "heron grebe heron heron", "grebe and heron in the title too", "herons and pelicans, herons again, one heron"];
  for (const [i, text] of texts.entries()) await writeItem(project, "knowledge", `k/bird_${i}`, knowledgeFile(`k/bird_${i}`, i === 3 ? "Heron" : `Bird ${i}`, text, { tags: i === 1 ? ["heron"] : [] }));
  const segment = segmentIndex(project, "knowledge");
  await segment.refresh();
  const config = defaultSearchConfig();
  // A plural twin or a fuzzy match makes a leaf of several terms: their counts are summed per field.
  const queries = ["heron", "pelican", "grebe", "title:heron", "heron pelican", "heron OR grebe", "herons", "pelicans", "heorn~", "heron -grebe"];
  const withCounts = queries.map((q) => evaluateQuery(parseQuery(q), { segments: [segment], config }));
  let counted = 0;
  for (const [term, list] of [...segment.postings]) {
    counted += [...list.masks].filter((entry) => entry >>> 12 > 0).length;
    segment.postings.set(term, { ids: [...list.ids], masks: [...list.masks].map((entry) => entry & FIELD_BITS) });
  }
  assert.ok(counted > 0, "the postings carry counts");
  const fromData = queries.map((q) => evaluateQuery(parseQuery(q), { segments: [segment], config }));
  queries.forEach((q, i) => {
    assert.deepEqual([...withCounts[i]!.keys.subarray(0, withCounts[i]!.length)], [...fromData[i]!.keys.subarray(0, fromData[i]!.length)], q);
    assert.deepEqual([...withCounts[i]!.scores.subarray(0, withCounts[i]!.length)], [...fromData[i]!.scores.subarray(0, fromData[i]!.length)], q);
  });
});
