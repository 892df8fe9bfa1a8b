/** The shipped system bundle: every item verifies with the release key, validates, and every tool's chain resolves on a fresh install. */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { ITEM_TYPES, parseItem, verifyItem, keyResolverFrom } from "@rye/core";
import { listItemFiles, repoSystemAiDir } from "../spaces/spaces.ts";
import { createWorkspace } from "../../test/workspace.ts";
import { releasePublicKey, RELEASE_PUBLIC_KEY_PATH } from "./release-key.ts";

const system = { name: "system" as const, root: repoSystemAiDir() };

test("every shipped item is valid and signed by the release key", async () => {
  const keys = keyResolverFrom([releasePublicKey()]);
  let count = 0;
  for (const type of ITEM_TYPES) {
    for (const file of await listItemFiles(system, type)) {
      const content = await readFile(file.path, "utf8");
      const result = await verifyItem(content, type, keys);
      assert.equal(result.code, "OK", `${type} ${file.itemId}: ${result.message} — run npm run sign:system`);
      assert.deepEqual(parseItem(content, type, { path: file.path }).issues, [], `${type} ${file.itemId}`);
      count++;
    }
  }
  assert.ok(count >= 20, `expected the full standard library, found ${count} items`);
});

test("a fresh install (no trusted keys) can resolve and verify every shipped tool's chain", async () => {
  const ws = await createWorkspace();
  const engine = await ws.engine();
  const tools = await listItemFiles(system, "tool");
  const runnable = [];
  for (const file of tools) {
    const content = await readFile(file.path, "utf8");
    const parsed = parseItem(content, "tool", { path: file.path });
    if (["runtime", "primitive", "library", "config"].includes(String(parsed.summary.toolType))) continue;
    runnable.push(file.itemId);
    const result = (await engine.execute({ item_type: "tool", item_id: file.itemId, parameters: {}, dry_run: true }).catch((e) => e)) as any;
    // Dry runs validate parameters too: a tool with required parameters reports INPUT_INVALID, never a trust problem.
    if (result.status !== "validation_passed") assert.equal(result.code, "INPUT_INVALID", `${file.itemId}: ${result.message}`);
  }
  assert.deepEqual(runnable.sort(), [
    "rye/agent/providers/anthropic",
    "rye/agent/providers/openai",
    "rye/agent/providers/openai_compatible",
    "rye/agent/threads/orchestrator",
    "rye/agent/threads/thread_directive",
    "rye/bash/bash",
    "rye/file-system/fs_glob",
    "rye/file-system/fs_grep",
    "rye/file-system/fs_list",
    "rye/file-system/fs_read",
    "rye/file-system/fs_write",
    "rye/mcp/manager",
    "rye/registry/registry",
    "rye/web/fetch",
  ]);
  for (const id of ["rye/core/create_directive", "rye/core/create_tool", "rye/core/create_knowledge"]) {
    assert.equal((await engine.load({ item_type: "directive", item_id: id })).verification.ok, true, id);
  }
});

test("only the release public key ships; no private key is committed", async () => {
  const pem = await readFile(RELEASE_PUBLIC_KEY_PATH, "utf8");
  assert.match(pem, /^-----BEGIN PUBLIC KEY-----\n/);
  const releaseDir = join(RELEASE_PUBLIC_KEY_PATH, "..");
  for (const name of await readdir(releaseDir)) {
    assert.doesNotMatch(await readFile(join(releaseDir, name), "utf8"), /PRIVATE KEY/, name);
  }
});
