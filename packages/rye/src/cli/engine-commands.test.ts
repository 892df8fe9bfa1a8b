/** search, load, execute, sign by glob, trust and init through the real binary. */
import assert from "node:assert/strict";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { generateKeyPair } from "@rye/core";
import { runRye } from "../../test/cli.ts";
import { createWorkspace, nodeTool } from "../../test/workspace.ts";

test("init, search, load, execute and glob signing from the command line", async () => {
  const ws = await createWorkspace();
  const rye = (args: string[]) => runRye(args, { env: ws.env, cwd: ws.projectDir });

  const init = await rye(["init", "--json"]);
  assert.equal(init.code, 0, init.stderr);
  const initJson = JSON.parse(init.stdout);
  assert.ok((await stat(join(ws.projectDir, ".ai/tools"))).isDirectory());
  assert.equal(initJson.mcp_config.mcpServers.rye.args.at(-1), "mcp");

  await mkdir(join(ws.projectDir, ".ai/tools/calc"), { recursive: true });
  await writeFile(join(ws.projectDir, ".ai/tools/calc/double.mjs"), nodeTool("calc", "export function main(p) { return { value: p.n * 2 }; }", `{ type: "object", properties: { n: { type: "integer" } }, required: ["n"] }`));
  await writeFile(join(ws.projectDir, ".ai/tools/calc/triple.mjs"), nodeTool("calc", "export function main(p) { return { value: p.n * 3 }; }"));

  const unsignedRun = await rye(["execute", "tool", "calc/double", "--param", "n=2"]);
  assert.equal(unsignedRun.code, 1);
  assert.match(unsignedRun.stderr, /error\[UNSIGNED\]/);

  const signed = await rye(["sign", "calc/*", "--type", "tool", "--json"]);
  assert.equal(signed.code, 0, signed.stderr);
  assert.deepEqual(JSON.parse(signed.stdout).signed.sort(), ["calc/double", "calc/triple"]);

  const run = await rye(["execute", "tool", "calc/double", "--param", "n=21", "--json"]);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout).data, { value: 42 });
  const human = await rye(["execute", "tool", "calc/double", "--params", '{"n": 5}']);
  assert.deepEqual(JSON.parse(human.stdout), { value: 10 });
  const invalid = await rye(["execute", "tool", "calc/double", "--params", "[1]"]);
  assert.equal(invalid.code, 2, "a non-object --params is a usage error");
  const dry = await rye(["execute", "tool", "calc/double", "--param", "n=1", "--dry-run"]);
  assert.match(dry.stdout, /calc\/double → rye\/core\/runtimes\/node → rye\/core\/primitives\/subprocess/);

  const search = await rye(["search", "double", "--json"]);
  const hits = JSON.parse(search.stdout).results;
  assert.equal(hits[0].id, "calc/double");
  assert.equal(hits[0].verified, true);
  const text = await rye(["search", "fs_read", "--source", "system"]);
  assert.match(text.stdout, /✓ tool\s+rye\/file-system\/fs_read@1\.0\.0/);

  const load = await rye(["load", "knowledge", "rye/core/item-formats"]);
  assert.equal(load.code, 0);
  assert.match(load.stdout, /# rye item formats/);
  assert.match(load.stderr, /system/);
  const missing = await rye(["load", "tool", "nope/nothing"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /error\[ITEM_NOT_FOUND\][\s\S]*hint: Search for it/);
  assert.equal((await rye(["load", "widget", "x"])).code, 2);
});

test("trust add, list and remove", async () => {
  const ws = await createWorkspace();
  const rye = (args: string[], input?: string) => runRye(args, { env: ws.env, cwd: ws.projectDir, ...(input ? { input } : {}) });
  const other = await generateKeyPair();
  const pemFile = join(ws.root, "other.pem");
  await writeFile(pemFile, other.publicKey.pem);
  const added = await rye(["trust", "add", pemFile, "--json"]);
  assert.deepEqual(JSON.parse(added.stdout), { status: "trusted", fingerprint: other.publicKey.fingerprint });
  const list = JSON.parse((await rye(["trust", "list", "--json"])).stdout);
  assert.deepEqual(list.keys.map((k: { fingerprint: string }) => k.fingerprint).sort(), [other.publicKey.fingerprint, ws.key.publicKey.fingerprint].sort());
  assert.equal(list.release_key.scope, "system space only");
  // A file named after a fingerprint it does not have is listed as ignored.
  await writeFile(join(ws.userBase, ".ai/trusted_keys/0000000000000000.pem"), other.publicKey.pem);
  const forged = JSON.parse((await rye(["trust", "list", "--json"])).stdout).keys.find((k: { fingerprint: string }) => k.fingerprint === "0000000000000000");
  assert.equal(forged.valid, false);
  assert.equal((await rye(["trust", "remove", other.publicKey.fingerprint])).code, 0);
  assert.equal((await rye(["trust", "remove", other.publicKey.fingerprint])).code, 1);
  assert.equal((await rye(["trust", "remove", "../../etc"])).code, 1);
  const stdinAdd = await rye(["trust", "add", "-", "--json"], other.publicKey.pem);
  assert.equal(JSON.parse(stdinAdd.stdout).fingerprint, other.publicKey.fingerprint);
  const bad = await rye(["trust", "add", pemFile.replace("other", "missing")]);
  assert.equal(bad.code, 1);
  assert.equal(await readFile(join(ws.userBase, `.ai/trusted_keys/${other.publicKey.fingerprint}.pem`), "utf8"), other.publicKey.pem);
});
