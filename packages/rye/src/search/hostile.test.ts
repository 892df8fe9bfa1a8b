/** Hostile and random queries: a clean answer or a BAD_REQUEST, never a crash or a long stall. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import fc from "fast-check";
import { RyeError } from "@rye/core";
import { parseQuery } from "./query.ts";
import type { SearchResult } from "./search.ts";
import { searchItems } from "./search.ts";
import type { TestSpaces } from "./test-fixtures.ts";
import { directiveFile, knowledgeFile, makeSpaces, pythonToolFile, removeTestSpaces, writeItem } from "./test-fixtures.ts";

let s: TestSpaces;

after(removeTestSpaces);

before(async () => {
  s = await makeSpaces();
  const words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda".split(" ");
  for (let i = 0; i < 60; i++) {
    const text = Array.from({ length: 40 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(" ");
    await writeItem(s.project, "knowledge", `k/note_${i}`, knowledgeFile(`k/note_${i}`, `Note ${i}`, `${text} ${"a".repeat(200)} aaaaaaaaab`));
    await writeItem(s.user, "tool", `t/tool_${i}`, pythonToolFile(`t/tool_${i}`, `Tool ${words[i % words.length]}`, `# ${text}`));
    await writeItem(s.system, "directive", `d/dir_${i}`, directiveFile(`d/dir_${i}`, `Directive ${text.slice(0, 60)}`));
  }
});

/** Runs the query; returns the result or the BAD_REQUEST error, fails on anything else or on a pathological (20 s+) answer. */
async function answer(query: string, budgetMs = 20_000): Promise<SearchResult | RyeError> {
  const start = performance.now();
  try {
    return await searchItems({ query, spaces: s.spaces, limit: 100 });
  } catch (err) {
    assert.ok(err instanceof RyeError && err.code === "BAD_REQUEST", `unexpected ${String(err)} for ${JSON.stringify(query)}`);
    return err;
  } finally {
    const elapsed = performance.now() - start;
    assert.ok(elapsed < budgetMs, `${JSON.stringify(query.slice(0, 80))} took ${elapsed.toFixed(0)} ms`);
  }
}

test("regex metacharacters are plain characters", async () => {
  const queries = [".*+?^${}()|[]\\", ".*", "a.*b", "[abc]", "^alpha$", "(alpha|beta)", "\\d+", "$(rm -rf /)", "{1,3}", "alpha+", "a{1000}", "(?=x)", "\\", "|", "^", "$", "*", "?", "**", "*?*?*", "[", "]", "{", "}", "a\\b", "alpha\\*"];
  for (const query of queries) await answer(query);
  const star = await answer("*");
  assert.ok(!(star instanceof RyeError));
  assert.equal(star.total, 180, "a bare * matches every item with any token");
  const dotStar = await answer(".*");
  assert.ok(!(dotStar instanceof RyeError));
  assert.equal(dotStar.total, 0, "'.*' is not a regex: no token is a dot followed by anything");
  const grouped = await answer("(alpha|beta)");
  assert.ok(!(grouped instanceof RyeError), "parentheses group; the | is just text inside the term");
});

test("limits are enforced with BAD_REQUEST, not by slowing down", async () => {
  assert.ok((await answer("alpha ".repeat(200))) instanceof RyeError, "too long");
  assert.ok((await answer(Array.from({ length: 65 }, (_, i) => `w${i}`).join(" "))) instanceof RyeError, "too many terms");
  assert.ok((await answer(`${"(".repeat(40)}alpha${")".repeat(40)}`)) instanceof RyeError, "too deep");
  assert.ok((await answer(`${"-".repeat(40)}alpha`)) instanceof RyeError, "too many NOTs");
  assert.ok((await answer("(".repeat(999))) instanceof RyeError);
  assert.ok((await answer('"'.repeat(999))) instanceof RyeError);
});

test("expensive shapes within the limits stay fast", async () => {
  const broad = Array.from({ length: 64 }, (_, i) => `*${"abcdefghijklmnopqrstuvwxyz"[i % 26]}*`).join(" OR ");
  await answer(broad);
  await answer(Array.from({ length: 64 }, (_, i) => `alph${i % 10}~3`).join(" "));
  await answer(Array.from({ length: 64 }, () => "*a*a*a*a*a*a*a*a*b").join(" OR "));
  await answer(Array.from({ length: 32 }, () => '"alpha beta gamma delta"~100').join(" OR "));
  await answer(`${"(".repeat(32)}alpha${" OR NOT beta)".repeat(32)}`);
  await answer("a".repeat(1000));
  await answer(`${"x".repeat(995)}~3`);
});

test("odd characters: NUL, control characters, emoji, RTL, combining marks, lone surrogates", async () => {
  for (const query of ["\u0000", "alpha\u0000beta", "\u0007\u001b[31m", "🚀🔥", "שלום עולם", "e\u0301\u0301\u0301", "\ud800", "a\udfffb", "\u202eevil", "\ufeffalpha"]) {
    await answer(query);
  }
  const result = await answer("\ufeffalpha");
  assert.ok(!(result instanceof RyeError) && result.total > 0, "a BOM in the query does not hide a word");
});

test("random strings: the parser returns an AST or throws BAD_REQUEST", () => {
  const alphabet = fc.constantFrom(..."ab (): \"*?~-AND OR NOT name:tag:x1~3\\^$.|[]{}".split(""), "AND", "OR", "NOT", "name:", "~2", '"');
  fc.assert(
    fc.property(fc.oneof(fc.string({ maxLength: 120 }), fc.array(alphabet, { maxLength: 60 }).map((parts) => parts.join(""))), (query) => {
      try {
        parseQuery(query);
      } catch (err) {
        assert.ok(err instanceof RyeError && err.code === "BAD_REQUEST", `unexpected ${String(err)} for ${JSON.stringify(query)}`);
        assert.equal(typeof (err.details as { position: unknown }).position, "number");
      }
    }),
    { numRuns: 3000 },
  );
});

test("random queries against a real index never crash", async () => {
  const pieces = fc.constantFrom("alpha", "beta", "gam*", "?eta", "kappa~", "lambda~2", '"alpha beta"', '"beta alpha"~3', "AND", "OR", "NOT", "-", "(", ")", "name:", "tag:", "type:tool", "space:user", "*", ".*", "\\");
  await fc.assert(
    fc.asyncProperty(fc.array(pieces, { maxLength: 14 }), async (parts) => {
      await answer(parts.join(" "));
    }),
    { numRuns: 300 },
  );
});
