import assert from "node:assert/strict";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import { assertStorableDeclaration, assertStorableText, unstorableTextIn } from "./json-text.ts";

test("NUL and unpaired surrogates are found in any value or key, with the field's path", () => {
  assert.equal(unstorableTextIn({ a: ["tab\there", "emoji 😀", "\u202eRTL", 1, null, true], b: { c: "line\nbreak" } }), null);
  assert.deepEqual(unstorableTextIn({ a: ["ok", { b: "x\u0000y" }] }), { field: "a.1.b", problem: "contains NUL (U+0000)" });
  assert.deepEqual(unstorableTextIn({ files: { "x\u0000y": {} } }), { field: "files.x\u0000y", problem: "(its name) contains NUL (U+0000)" });
  assert.deepEqual(unstorableTextIn(["\ud800"]), { field: "0", problem: "contains an unpaired UTF-16 surrogate" });
  assert.deepEqual(unstorableTextIn("a\udc00"), { field: "", problem: "contains an unpaired UTF-16 surrogate" });
});

test("a body nested 100 000 levels deep is walked without overflowing the stack, and cycles end", () => {
  let deep: unknown = "x\u0000";
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.equal(unstorableTextIn(deep)?.problem, "contains NUL (U+0000)");
  const cyclic: Record<string, unknown> = { name: "ok" };
  cyclic.self = cyclic;
  assert.equal(unstorableTextIn(cyclic), null);
});

test("a request body is refused as BAD_REQUEST, a declaration as VALIDATION_FAILED, naming the field", () => {
  assert.throws(() => assertStorableText({ reason: "a\u0000b" }), (e: unknown) => {
    assert.ok(e instanceof RyeError && e.code === "BAD_REQUEST" && e.status === 400);
    assert.equal(e.message, "The request body's field reason contains NUL (U+0000)");
    assert.deepEqual(e.details, [{ field: "reason", message: "contains NUL (U+0000): text may not contain NUL or unpaired surrogates" }]);
    return true;
  });
  assert.throws(() => assertStorableDeclaration({ summary: { description: "\u0000" } }, "knowledge alice/notes/x"), (e: unknown) => {
    assert.ok(e instanceof RyeError && e.code === "VALIDATION_FAILED");
    assert.equal(e.message, "knowledge alice/notes/x is not valid: its summary.description contains NUL (U+0000)");
    return true;
  });
  // The field path as reported is printable: a control character in a key is not echoed.
  assert.throws(() => assertStorableText({ "k\u0000\u001b": 1 }), (e: unknown) => e instanceof RyeError && !/[\u0000-\u001f]/.test(e.message));
  assertStorableText({ ok: "fine" });
});
