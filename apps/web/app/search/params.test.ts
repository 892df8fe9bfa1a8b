import assert from "node:assert/strict";
import { test } from "node:test";
import { apiSearchPath, MAX_OFFSET_PAGE, pageLinks, parseSearchState, searchHref } from "./params.ts";

test("the URL is the state: parse, then build the same address", () => {
  const s = parseSearchState({ q: " http client ", type: "tool", namespace: "acme", category: "web", tool_type: "http", sort: "downloads", page: "3" });
  assert.deepEqual(s, { q: "http client", type: "tool", namespace: "acme", category: "web", tool_type: "http", sort: "downloads", page: 3, cursor: undefined });
  assert.equal(searchHref(s, { page: 3 }), "/search?q=http+client&type=tool&namespace=acme&category=web&tool_type=http&sort=downloads&page=3");
  assert.equal(searchHref(parseSearchState({})), "/search");
});

test("changing the query, a filter or the sort goes back to page 1", () => {
  const s = parseSearchState({ q: "x", page: "4", cursor: "abc" });
  assert.equal(searchHref(s, { type: "tool" }), "/search?q=x&type=tool");
  assert.equal(searchHref(s, { sort: "recent" }), "/search?q=x&sort=recent");
  assert.equal(searchHref(s, { namespace: undefined }), "/search?q=x");
});

test("bad values fall back to defaults; arrays take the first value", () => {
  assert.deepEqual(parseSearchState({ q: ["a", "b"], sort: "popular", page: "-2" }), { q: "a", type: undefined, namespace: undefined, category: undefined, tool_type: undefined, sort: undefined, page: 1, cursor: undefined });
  assert.equal(parseSearchState({ page: "abc" }).page, 1);
  assert.equal(parseSearchState({ page: "99999" }).page, MAX_OFFSET_PAGE, "offset pages end at the API's offset limit");
  assert.equal(parseSearchState({ page: "99999", cursor: "c" }).page, 99999, "cursor pages go further");
  assert.equal(parseSearchState({ q: "x".repeat(300) }).q.length, 256);
});

test("API paths use offset for early pages and the cursor beyond", () => {
  assert.equal(apiSearchPath(parseSearchState({ q: "a b", type: "tool" })), "/v1/search?query=a+b&limit=20&facets=1&item_type=tool");
  assert.equal(apiSearchPath(parseSearchState({ q: "a", page: "3" })), "/v1/search?query=a&limit=20&facets=1&offset=40");
  assert.equal(apiSearchPath(parseSearchState({ q: "a", page: "600", cursor: "cur" })), "/v1/search?query=a&limit=20&facets=1&cursor=cur");
});

test("prev/next links keep the address shareable", () => {
  const s = parseSearchState({ q: "a", page: "2" });
  assert.deepEqual(pageLinks(s, "next"), { prev: "/search?q=a", next: "/search?q=a&page=3" });
  assert.deepEqual(pageLinks(parseSearchState({ q: "a" }), null), {});
  const last = parseSearchState({ q: "a", page: String(MAX_OFFSET_PAGE) });
  assert.equal(pageLinks(last, "cur").next, `/search?q=a&page=${MAX_OFFSET_PAGE + 1}&cursor=cur`);
  const deep = parseSearchState({ q: "a", page: String(MAX_OFFSET_PAGE + 5), cursor: "c" });
  assert.equal(pageLinks(deep, null).prev, undefined, "deep cursor pages go back with the browser");
});
