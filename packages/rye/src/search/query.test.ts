import assert from "node:assert/strict";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import type { QueryNode } from "./query.ts";
import { parseQuery } from "./query.ts";

const t = (value: string, extra: object = {}): QueryNode => ({ kind: "term", value, ...extra }) as QueryNode;
const and = (...children: QueryNode[]): QueryNode => ({ kind: "and", children });
const or = (...children: QueryNode[]): QueryNode => ({ kind: "or", children });
const not = (child: QueryNode): QueryNode => ({ kind: "not", child });

test("empty and whitespace-only queries match everything", () => {
  assert.deepEqual(parseQuery(""), { kind: "all" });
  assert.deepEqual(parseQuery("   \t\n "), { kind: "all" });
});

test("juxtaposition is AND; AND binds tighter than OR; NOT tighter than AND", () => {
  assert.deepEqual(parseQuery("a"), t("a"));
  assert.deepEqual(parseQuery("a b c"), and(t("a"), t("b"), t("c")));
  assert.deepEqual(parseQuery("a AND b OR c"), or(and(t("a"), t("b")), t("c")));
  assert.deepEqual(parseQuery("a OR b c"), or(t("a"), and(t("b"), t("c"))));
  assert.deepEqual(parseQuery("a OR b OR c"), or(t("a"), t("b"), t("c")));
  assert.deepEqual(parseQuery("NOT a b"), and(not(t("a")), t("b")));
  assert.deepEqual(parseQuery("NOT a OR b"), or(not(t("a")), t("b")));
  assert.deepEqual(parseQuery("NOT NOT a"), not(not(t("a"))));
  assert.deepEqual(parseQuery("(a OR b) c"), and(or(t("a"), t("b")), t("c")));
  assert.deepEqual(parseQuery("a (b (c OR d))"), and(t("a"), t("b"), or(t("c"), t("d"))));
  assert.deepEqual(parseQuery("NOT (a OR b)"), not(or(t("a"), t("b"))));
});

test("only UPPERCASE operators are operators; lowercase and/or/not are words", () => {
  assert.deepEqual(parseQuery("search and replace"), and(t("search"), t("and"), t("replace")));
  assert.deepEqual(parseQuery("this or that not those"), and(t("this"), t("or"), t("that"), t("not"), t("those")));
  assert.deepEqual(parseQuery("And Or Not"), and(t("and"), t("or"), t("not")));
});

test("-term is NOT; a dash inside a word is part of the word", () => {
  assert.deepEqual(parseQuery("-a"), not(t("a")));
  assert.deepEqual(parseQuery("a -b -c"), and(t("a"), not(t("b")), not(t("c"))));
  assert.deepEqual(parseQuery("-(a OR b)"), not(or(t("a"), t("b"))));
  assert.deepEqual(parseQuery('-"x y"'), not({ kind: "phrase", value: "x y" }));
  assert.deepEqual(parseQuery("well-known"), t("well-known"));
});

test("terms are lowercased (and NFKC-folded)", () => {
  assert.deepEqual(parseQuery("Docker"), t("docker"));
  assert.deepEqual(parseQuery("ＡＢＣ"), t("abc"));
});

test("phrases and proximity", () => {
  assert.deepEqual(parseQuery('"Deploy the App"'), { kind: "phrase", value: "deploy the app" });
  assert.deepEqual(parseQuery('"a b"~3'), { kind: "phrase", value: "a b", proximity: 3 });
  assert.deepEqual(parseQuery('"a b" c'), and({ kind: "phrase", value: "a b" }, t("c")));
  assert.deepEqual(parseQuery('x"a b"'), and(t("x"), { kind: "phrase", value: "a b" }));
  assert.deepEqual(parseQuery('"AND OR NOT ( )"'), { kind: "phrase", value: "and or not ( )" });
});

test("wildcards", () => {
  assert.deepEqual(parseQuery("fs_w*"), { kind: "wildcard", pattern: "fs_w*" });
  assert.deepEqual(parseQuery("d?cker"), { kind: "wildcard", pattern: "d?cker" });
  assert.deepEqual(parseQuery("*"), { kind: "wildcard", pattern: "*" });
});

test("fields: field:value, field:\"phrase\", field:(group), case-insensitive names, tag", () => {
  assert.deepEqual(parseQuery("name:fs_write"), t("fs_write", { field: "name" }));
  assert.deepEqual(parseQuery("Name:Deploy"), t("deploy", { field: "name" }));
  assert.deepEqual(parseQuery("tag:formats"), t("formats", { field: "tag" }));
  assert.deepEqual(parseQuery('title:"search tips"'), { kind: "phrase", value: "search tips", field: "title" });
  assert.deepEqual(parseQuery('title:"a b"~2'), { kind: "phrase", value: "a b", field: "title", proximity: 2 });
  assert.deepEqual(parseQuery("category:rye/core*"), { kind: "wildcard", pattern: "rye/core*", field: "category" });
  assert.deepEqual(parseQuery("name:(a OR b)"), or(t("a", { field: "name" }), t("b", { field: "name" })));
  assert.deepEqual(parseQuery("name:(a description:b)"), and(t("a", { field: "name" }), t("b", { field: "description" })));
  assert.deepEqual(parseQuery("-type:tool"), not(t("tool", { field: "type" })));
  for (const field of ["content", "space", "id", "version", "tool_type", "author"]) {
    assert.deepEqual(parseQuery(`${field}:x`), t("x", { field }));
  }
  // A colon after something that is not a field name is just text.
  assert.deepEqual(parseQuery("12:30"), t("12:30"));
});

test("fuzzy: term~ picks 1 up to 5 characters and 2 above; term~N sets N", () => {
  assert.deepEqual(parseQuery("docke~"), t("docke", { fuzzy: 1 }));
  assert.deepEqual(parseQuery("dockerr~"), t("dockerr", { fuzzy: 2 }));
  assert.deepEqual(parseQuery("x~0"), t("x", { fuzzy: 0 }));
  assert.deepEqual(parseQuery("x~3"), t("x", { fuzzy: 3 }));
  assert.deepEqual(parseQuery("name:deploi~"), t("deploi", { field: "name", fuzzy: 2 }));
  assert.deepEqual(parseQuery("~"), t("~"));
});

function assertQueryError(query: string, position: number, pattern: RegExp): void {
  assert.throws(
    () => parseQuery(query),
    (err: unknown) => {
      assert.ok(err instanceof RyeError, `expected a RyeError for ${JSON.stringify(query)}`);
      assert.equal(err.code, "BAD_REQUEST");
      assert.match(err.message, pattern);
      assert.ok(err.hint.length > 10, "every error carries a hint");
      assert.deepEqual(err.details, { position }, `position for ${JSON.stringify(query)}`);
      return true;
    },
  );
}

test("syntax errors name the problem and its position", () => {
  assertQueryError("(a", 0, /unbalanced '\('/);
  assertQueryError("a (b (c)", 2, /unbalanced '\('/);
  assertQueryError("a)", 1, /unbalanced '\)'/);
  assertQueryError(")", 0, /unbalanced '\)'/);
  assertQueryError("()", 0, /empty parentheses/);
  assertQueryError('say "hello', 4, /unbalanced quote/);
  assertQueryError('""', 0, /empty phrase/);
  assertQueryError('"  "', 0, /empty phrase/);
  assertQueryError("a AND", 2, /AND needs a term after it/);
  assertQueryError("a OR", 2, /OR needs a term after it/);
  assertQueryError("a OR OR b", 2, /OR needs a term after it/);
  assertQueryError("a AND OR b", 2, /AND needs a term after it/);
  assertQueryError("AND a", 0, /AND needs a term before it/);
  assertQueryError("OR a", 0, /OR needs a term before it/);
  assertQueryError("(OR a)", 1, /OR needs a term before it/);
  assertQueryError("NOT", 0, /NOT needs a term after it/);
  assertQueryError("a NOT", 2, /NOT needs a term after it/);
  assertQueryError("a (NOT)", 3, /NOT needs a term after it/);
  assertQueryError("-", 0, /'-' must be followed/);
  assertQueryError("a - b", 2, /'-' must be followed/);
  assertQueryError("(a -)", 3, /'-' must be followed/);
  assertQueryError("color:red", 0, /unknown field "color"/);
  assertQueryError("a http://x", 2, /unknown field "http"/);
  assertQueryError("name:", 0, /needs a value/);
  assertQueryError("name: deploy", 0, /needs a value/);
  assertQueryError("x~4", 0, /fuzzy distance 4 is above 3/);
  assertQueryError("te*st~", 0, /both a wildcard and fuzzy/);
  assertQueryError('"a b"~', 5, /proximity needs a number/);
  assertQueryError('"a b"~x', 5, /proximity needs a number/);
  assertQueryError('"a b"~101', 5, /proximity 101 is above 100/);
});

test("limits: 1000 characters, 64 terms, 32 levels of nesting", () => {
  assert.doesNotThrow(() => parseQuery("a".repeat(1000)));
  assertQueryError("a".repeat(1001), 1000, /longer than 1000 characters/);

  const terms = (n: number): string => Array.from({ length: n }, (_, i) => `t${i}`).join(" ");
  assert.doesNotThrow(() => parseQuery(terms(64)));
  assertQueryError(terms(65), terms(64).length + 1, /more than 64 terms/);

  const nested = (n: number): string => `${"(".repeat(n)}a${")".repeat(n)}`;
  assert.doesNotThrow(() => parseQuery(nested(32)));
  assertQueryError(nested(33), 32, /nesting deeper than 32/);
  assertQueryError(`${"NOT ".repeat(33)}a`, 128, /nesting deeper than 32/);
  assertQueryError(`${"-".repeat(33)}a`, 32, /nesting deeper than 32/);
});
