/** Asserts that `promise` rejects with a RyeError of `code` (and a message matching `message`); returns it. */
import assert from "node:assert/strict";
import { RyeError } from "@rye/core";

export async function rejects(promise: Promise<unknown>, code: string, message?: RegExp): Promise<RyeError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof RyeError, `expected a RyeError, got ${String(err)}`);
    assert.equal(err.code, code, `${err.code}: ${err.message}`);
    if (message) assert.match(err.message, message);
    return err;
  }
  assert.fail(`expected ${code}`);
}
