/** The term dictionary: a sorted table adopted from a stored index, and terms added after it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { adoptSortedTerms, dictionarySize, forEachTerm, lookupTermId, termId, termOf } from "./dictionary.ts";

// Each test file runs in a process of its own: the dictionary starts empty here.
test("a sorted table is adopted once, as ids 0…n−1; terms met later get the ids after it", () => {
  assert.equal(adoptSortedTerms(["b", "a"]), false, "not ascending");
  assert.equal(adoptSortedTerms(["a", "a"]), false, "a term twice");
  assert.equal(dictionarySize(), 0, "a refused table leaves the dictionary empty");
  assert.equal(adoptSortedTerms(["apple", "heron", "zebra", "日本"]), true);
  assert.equal(adoptSortedTerms(["other"]), false, "only into an empty dictionary");
  assert.deepEqual(["apple", "heron", "zebra", "日本"].map((t) => lookupTermId(t)), [0, 1, 2, 3]);
  assert.equal(lookupTermId("pelican"), undefined, "lookup never adds");
  assert.equal(termId("heron"), 1, "a known term keeps its id");
  assert.equal(termId("pelican"), 4);
  assert.equal(termId("aardvark"), 5, "a term sorting before the table still comes after it");
  assert.equal(termId("pelican"), 4);
  assert.equal(lookupTermId("aardvark"), 5);
  assert.deepEqual([0, 1, 4, 5].map(termOf), ["apple", "heron", "pelican", "aardvark"]);
  const seen: string[] = [];
  forEachTerm((term, id) => seen.push(`${id}:${term}`));
  assert.deepEqual(seen, ["0:apple", "1:heron", "2:zebra", "3:日本", "4:pelican", "5:aardvark"]);
  assert.throws(() => termOf(6), RangeError);
});
