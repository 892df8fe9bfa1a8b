import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import { assertThreadId, isValidThreadId, ledgerLockPath, ledgerPath, threadDir, threadFile, threadsDir } from "./paths.ts";

test("thread paths live under <project>/.ai/threads", () => {
  assert.equal(threadsDir("/p"), resolve("/p/.ai/threads"));
  assert.equal(threadDir("/p", "triage-20250102t030405-9f3a1c"), join(resolve("/p/.ai/threads"), "triage-20250102t030405-9f3a1c"));
  assert.equal(threadFile("/p", "a1", "record"), join(resolve("/p/.ai/threads/a1"), "thread.json"));
  assert.equal(threadFile("/p", "a1", "cancel"), join(resolve("/p/.ai/threads/a1"), "cancel"));
  assert.equal(ledgerPath("/p"), join(resolve("/p/.ai/threads"), "ledger.json"));
  assert.equal(ledgerLockPath("/p"), join(resolve("/p/.ai/threads"), ".ledger.lock"));
});

test("ids are validated before a path is built: '..' is PATH_TRAVERSAL, anything else off the pattern BAD_REQUEST", () => {
  for (const ok of ["a", "0", "x.y_z-1", "a".repeat(160)]) assert.equal(isValidThreadId(ok), true, ok);
  const code = (id: unknown) => {
    try {
      assertThreadId(id);
      return "ok";
    } catch (err) {
      assert.ok(err instanceof RyeError);
      assert.ok(err.hint.length > 0);
      return err.code;
    }
  };
  for (const traversal of ["..", "a..b", "../etc", "x/../../y"]) assert.equal(code(traversal), "PATH_TRAVERSAL", traversal);
  for (const bad of ["", ".hidden", "-x", "_x", "A", "a/b", "a\\b", "a b", "/abs", "a\0b", "é", "a".repeat(161), 42, undefined, null]) {
    assert.equal(code(bad), "BAD_REQUEST", String(bad));
  }
  assert.throws(() => threadDir("/p", "../../etc"), (e: RyeError) => e.code === "PATH_TRAVERSAL");
  assert.throws(() => threadFile("/p", "Up", "record"), (e: RyeError) => e.code === "BAD_REQUEST");
});
