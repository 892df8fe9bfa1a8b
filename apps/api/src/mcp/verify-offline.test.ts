/**
 * get_item's "verify offline" steps, followed literally with the real `rye` CLI and no network (RYE_OFFLINE=1): the
 * content saved to a file, the registry key from the answer trusted, `rye verify` says OK; a changed byte fails it.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { startMcpFixture, type McpFixture } from "../../test/mcp-registry.ts";

const RYE = fileURLToPath(new URL("../../../../packages/rye/bin/rye.mjs", import.meta.url));
const run = promisify(execFile);

let f: McpFixture;
before(async () => {
  f = await startMcpFixture();
});
after(() => f?.close());

async function rye(cwd: string, home: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, USER_SPACE: home, RYE_OFFLINE: "1", RYE_REGISTRY_URL: "http://127.0.0.1:9" };
  return run(process.execPath, [RYE, ...args], { cwd, env, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

test("a get_item answer verifies offline with rye verify against the registry key it names; a tampered copy does not", async () => {
  const client = await f.client();
  const result = await client.callTool({ name: "get_item", arguments: { item_type: "knowledge", item_id: "alice/notes/style" } });
  const answer = result.structuredContent as { item: { content: string; name: string; file_extension: string }; registry_key: { public_key: string }; verify_offline: string };
  const dir = await mkdtemp(join(tmpdir(), "rye-mcp-verify-"));
  const home = join(dir, "home");
  const file = `${answer.item.name}${answer.item.file_extension}`;
  assert.match(answer.verify_offline, new RegExp(`Save item.content exactly as ${file.replace(".", "\\.")}`));
  await writeFile(join(dir, file), answer.item.content);
  await writeFile(join(dir, "registry.pem"), answer.registry_key.public_key);

  const trust = await rye(dir, home, ["trust", "add", "registry.pem"]);
  assert.equal(trust.code, 0, trust.stderr);
  const ok = await rye(dir, home, ["verify", file, "--type", "knowledge", "--json"]);
  assert.equal(ok.code, 0, ok.stderr + ok.stdout);
  assert.equal(JSON.parse(ok.stdout).ok, true);

  await writeFile(join(dir, file), answer.item.content.replace("Write short sentences.", "Write long sentences."));
  const tampered = await rye(dir, home, ["verify", file, "--type", "knowledge", "--json"]);
  assert.notEqual(tampered.code, 0);
  assert.equal(JSON.parse(tampered.stdout).ok, false);
});
