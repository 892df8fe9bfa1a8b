/** rye:// URIs and what completions read from a prompt argument's name (units; the wire is in resources.test.ts). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { idQuery, promptArgumentKind } from "./completions.ts";
import { itemMimeType, itemUri, parseItemUri } from "./item-uri.ts";

const code = (uri: string) => {
  try {
    parseItemUri(uri);
  } catch (err) {
    return (err as { code: string }).code;
  }
  return "accepted";
};

test("itemUri and parseItemUri round-trip ids", () => {
  for (const [type, id] of [["knowledge", "rye/core/item-formats"], ["tool", "rye/file-system/fs_read"], ["directive", "demo/greet"], ["knowledge", "acme/guides/setup@1.2.0"]] as const) {
    assert.deepEqual(parseItemUri(itemUri(type, id)), { type, id });
  }
  assert.equal(itemUri("directive", "demo/greet"), "rye://directive/demo/greet");
  assert.equal(code("rye://directive/a%20b"), "INVALID_ITEM_ID", "decoded, then checked like load");
  assert.deepEqual(parseItemUri("rye://knowledge/rye/core/item-formats?x=1#y"), { type: "knowledge", id: "rye/core/item-formats" });
});

test("parseItemUri refuses unknown types, traversal, hidden separators and bad versions with rye's codes", () => {
  assert.equal(code("rye://skill/x"), "INVALID_ITEM_TYPE");
  assert.equal(code("rye://knowledge"), "INVALID_ITEM_ID");
  assert.equal(code("rye://knowledge/../etc/passwd"), "INVALID_ITEM_ID");
  assert.equal(code("rye://knowledge/a/%2e%2e/b"), "INVALID_ITEM_ID");
  assert.equal(code("rye://knowledge/a%2F..%2Fb"), "PATH_TRAVERSAL");
  assert.equal(code("rye://knowledge/a%5Cb"), "PATH_TRAVERSAL");
  assert.equal(code("rye://knowledge/a/%E0%A4%A"), "BAD_REQUEST");
  assert.equal(code("rye://knowledge/acme/x/y@1.x"), "INVALID_ITEM_ID");
  assert.equal(code("skill://x/SKILL.md"), "BAD_REQUEST");
});

test("MIME types by extension, text/plain otherwise", () => {
  assert.equal(itemMimeType(".md"), "text/markdown");
  assert.equal(itemMimeType(".PY"), "text/x-python");
  assert.equal(itemMimeType(".yaml"), "application/yaml");
  assert.equal(itemMimeType(".weird"), "text/plain");
});

test("prompt argument names that hold item types, ids or categories", () => {
  assert.deepEqual(promptArgumentKind("item_type"), { kind: "type" });
  assert.deepEqual(promptArgumentKind("type"), { kind: "type" });
  assert.deepEqual(promptArgumentKind("item_id"), { kind: "id" });
  assert.deepEqual(promptArgumentKind("tool_id"), { kind: "id", type: "tool" });
  assert.deepEqual(promptArgumentKind("Directive_Id"), { kind: "id", type: "directive" });
  assert.deepEqual(promptArgumentKind("category"), { kind: "category" });
  for (const name of ["thread_id", "entry_type", "name", "identity", "types"]) assert.equal(promptArgumentKind(name), null, name);
});

test("the id query: typed text as a prefix, query syntax stripped", () => {
  assert.equal(idQuery(""), "");
  assert.equal(idQuery("rye/core/cr"), "id:rye/core/cr*");
  assert.equal(idQuery('a") OR (b'), "id:aORb*");
  assert.equal(idQuery("acme/x/y@1.0"), "id:acme/x/y*");
  assert.equal(idQuery("()*?"), "");
});
