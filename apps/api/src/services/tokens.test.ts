/** Item-id patterns of restricted tokens (pure); minting and revoking are tested through the routes. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { itemMatchesPattern, itemPatternProblem, tokenAllowsItem } from "./tokens.ts";

test("'*' matches within one segment, a final '**' at any depth", () => {
  const cases: [string, string, boolean][] = [
    ["acme/ci/*", "acme/ci/deploy", true],
    ["acme/ci/*", "acme/ci/sub/deploy", false],
    ["acme/ci/*", "acme/cd/deploy", false],
    ["acme/ci/*", "acme/ci", false],
    ["acme/*/deploy", "acme/tools/deploy", true],
    ["acme/ci/deploy-*", "acme/ci/deploy-prod", true],
    ["acme/ci/deploy-*", "acme/ci/build", false],
    ["acme/ci/*-prod", "acme/ci/a-b-prod", true],
    ["acme/**", "acme/ci/deploy", true],
    ["acme/**", "acme/a/b/c/d", true],
    ["acme/**", "acme", false],
    ["acme/**", "acmex/ci/deploy", false],
    ["acme/ci/deploy", "acme/ci/deploy", true],
    ["acme/ci/deploy", "acme/ci/deploy2", false],
    ["acme/ci/de.ploy", "acme/ci/deXploy", false],
    ["acme/ci/*", "ACME/ci/deploy", false],
  ];
  for (const [pattern, id, expected] of cases) assert.equal(itemMatchesPattern(id, pattern), expected, `${pattern} ~ ${id}`);
});

test("matching stays fast on pathological patterns", () => {
  const pattern = `acme/${"*a".repeat(60)}b`;
  assert.equal(itemPatternProblem(pattern), null);
  assert.equal(itemMatchesPattern(`acme/${"a".repeat(250)}`, pattern), false);
});

test("pattern syntax", () => {
  for (const ok of ["acme/ci/*", "acme/**", "acme/*/x", "a/b", "acme/ci/deploy_1.0-x"]) assert.equal(itemPatternProblem(ok), null, ok);
  for (const bad of ["acme", "*", "", "acme//x", "/acme/x", "acme/x/", "acme/**/x", "acme/a**", "acme/ci/$x", "acme/ci/x y", "acme/[ab]", "acme/ci/../x?", `acme/${"x".repeat(260)}`]) {
    assert.notEqual(itemPatternProblem(bad), null, bad);
  }
});

test("tokenAllowsItem: unrestricted principals may write anything", () => {
  assert.equal(tokenAllowsItem({}, "alice/x/y"), true);
  assert.equal(tokenAllowsItem({ itemPattern: null }, "alice/x/y"), true);
  assert.equal(tokenAllowsItem({ itemPattern: "acme/ci/*" }, "acme/ci/y"), true);
  assert.equal(tokenAllowsItem({ itemPattern: "acme/ci/*" }, "acme/prod/y"), false);
});
