import assert from "node:assert/strict";
import { test } from "node:test";
import { POSIX, WINDOWS } from "../../fs/platform.ts";
import { taskkillCommand, terminateProcessGroup, treeSpawnOptions } from "./process-group.ts";

test("Windows: children are not detached (no console of their own) and the tree ends with taskkill /T /F", () => {
  assert.deepEqual(treeSpawnOptions(WINDOWS), { detached: false, windowsHide: true });
  assert.deepEqual(treeSpawnOptions(POSIX), { detached: true, windowsHide: true });
  assert.deepEqual(taskkillCommand(4242), { command: "taskkill", args: ["/pid", "4242", "/T", "/F"] });
  const killed: number[] = [];
  terminateProcessGroup(4242, 1000, WINDOWS, (pid) => killed.push(pid));
  assert.deepEqual(killed, [4242], "no POSIX group signal is attempted on Windows");
});

test("POSIX: a group that no longer exists is left alone", () => {
  let called = false;
  // A pid far above pid_max: its group does not exist, so nothing is signalled and no taskkill runs.
  terminateProcessGroup(2 ** 30, 10, POSIX, () => (called = true));
  assert.equal(called, false);
});
