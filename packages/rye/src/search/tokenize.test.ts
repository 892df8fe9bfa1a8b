import assert from "node:assert/strict";
import { test } from "node:test";
import { autoFuzzyDistance, boundedEditDistance, compileWildcard, pluralTwin } from "./term-match.ts";
import { MAX_TERM_LENGTH, tokenize, wordsOf } from "./tokenize.ts";

const show = (text: string): string[] => tokenize(text).tokens.map((t) => `${t.term}@${t.position}${t.compound ? "+" : ""}`);

test("words are lowercase runs of Unicode letters and digits", () => {
  assert.deepEqual(wordsOf("Deploy the App, v2 NOW!"), ["deploy", "the", "app", "v2", "now"]);
  assert.deepEqual(wordsOf("Café naïve Straße 東京 Ελλάδα"), ["café", "naïve", "straße", "東京", "ελλάδα"]);
  assert.deepEqual(wordsOf("ｆｕｌｌ－ｗｉｄｔｈ"), ["full", "width"], "NFKC folds full-width forms");
  assert.deepEqual(wordsOf("e\u0301te\u0301"), ["été"], "combining marks stay inside the word (NFKC composes them)");
  assert.deepEqual(wordsOf("emoji 🚀 rocket"), ["emoji", "rocket"]);
  assert.deepEqual(wordsOf(""), []);
});

test("identifiers are split into words and also kept whole, at the position of their first word", () => {
  assert.deepEqual(show("use fs_write now"), ["use@0", "fs@1", "write@2", "fs_write@1+", "now@3"]);
  assert.deepEqual(show("rye/core/fs_write"), ["rye@0", "core@1", "fs@2", "write@3", "fs_write@2+", "rye/core/fs_write@0+"]);
  assert.deepEqual(show("v1.2.3"), ["v1@0", "2@1", "3@2", "v1.2.3@0+"]);
  assert.deepEqual(show("my-tool"), ["my@0", "tool@1", "my-tool@0+"]);
  assert.deepEqual(show("end. Next"), ["end@0", "next@1"], "a sentence's full stop does not glue words");
  assert.deepEqual(show("__init__"), ["init@0"]);
});

test("positions count words only; the word count is the field length", () => {
  const { tokens, wordCount } = tokenize("a_b c");
  assert.equal(wordCount, 3);
  assert.deepEqual(
    tokens.filter((t) => !t.compound).map((t) => t.position),
    [0, 1, 2],
  );
  assert.equal(tokenize("x y", 10).tokens[1]!.position, 11, "positions can start anywhere (gaps between tags)");
});

test("over-long words take a position but are not indexed", () => {
  const long = "x".repeat(MAX_TERM_LENGTH + 1);
  const { tokens, wordCount } = tokenize(`a ${long} b`);
  assert.deepEqual(tokens.map((t) => t.term), ["a", "b"]);
  assert.equal(wordCount, 3);
});

test("wildcards: * any run, ? one character, everything else literal", () => {
  const matches = (pattern: string, term: string): boolean => compileWildcard(pattern)(term);
  assert.ok(matches("dock*", "docker"));
  assert.ok(matches("dock*", "dock"));
  assert.ok(matches("*er", "docker"));
  assert.ok(matches("d?cker", "docker"));
  assert.ok(!matches("d?cker", "dcker"));
  assert.ok(matches("*", ""));
  assert.ok(matches("a*b*c", "aXXbYYc"));
  assert.ok(!matches("a*b*c", "aXXbYY"));
  assert.ok(matches("rye/core*", "rye/core/fs_write"));
  assert.ok(!matches(".*", "anything"), "regex syntax is literal");
  assert.ok(matches("[a]", "[a]"));
  // Exponential backtracking on this input would never finish; the test timeout catches it.
  assert.ok(!compileWildcard(`${"*a".repeat(30)}*b`)("a".repeat(5000)));
});

test("bounded edit distance", () => {
  assert.equal(boundedEditDistance("docker", "docker", 2), 0);
  assert.equal(boundedEditDistance("docker", "dockr", 2), 1);
  assert.equal(boundedEditDistance("docker", "dokcer", 2), 2);
  assert.equal(boundedEditDistance("docker", "kitten", 2), 3, "stops at max + 1");
  assert.equal(boundedEditDistance("a", "abcdef", 2), 3);
  assert.equal(boundedEditDistance("", "ab", 2), 2);
  assert.equal(autoFuzzyDistance("abcde"), 1);
  assert.equal(autoFuzzyDistance("abcdef"), 2);
});

test("plural twins", () => {
  assert.equal(pluralTwin("tools"), "tool");
  assert.equal(pluralTwin("tool"), "tools");
  assert.equal(pluralTwin("class"), null);
  assert.equal(pluralTwin("is"), null);
  assert.equal(pluralTwin("gas"), null);
  assert.equal(pluralTwin("v2"), null);
  assert.equal(pluralTwin("tool_kit"), null, "a non-letter");
  assert.equal(pluralTwin("cafés"), "café", "letters beyond ASCII");
  assert.equal(pluralTwin("ключ"), "ключs");
  assert.equal(pluralTwin("naïve1"), null);
});
