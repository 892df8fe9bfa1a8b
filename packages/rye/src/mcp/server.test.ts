/** `rye mcp` driven over stdio by the MCP SDK client, as Claude Desktop or Cursor would. */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createWorkspace, nodeTool, type Workspace } from "../../test/workspace.ts";

const BIN = fileURLToPath(new URL("../../bin/rye.mjs", import.meta.url));
const SNAPSHOT = new URL("./tool-schemas.snapshot.json", import.meta.url);

let ws: Workspace;
let client: Client;

before(async () => {
  ws = await createWorkspace();
  await ws.write("tool", "demo/add.mjs", nodeTool("demo", "export function main(p) { return { sum: p.a + p.b }; }", `{ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] }`));
  await ws.write("tool", "demo/draft.mjs", nodeTool("demo", "export function main() { return {}; }"), { signer: null });
  client = new Client({ name: "rye-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], cwd: ws.projectDir, env: ws.env as Record<string, string>, stderr: "pipe" }),
  );
});

after(async () => {
  await client?.close();
});

type Json = Record<string, any>;
async function call(name: string, args: Json): Promise<{ isError: boolean; body: Json }> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Json };
  const body = JSON.parse(result.content[0]!.text) as Json;
  assert.deepEqual(result.structuredContent, body, "structuredContent mirrors the JSON text");
  return { isError: Boolean(result.isError), body };
}

test("exactly four tools, with pinned input schemas (surface pin)", async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ["execute", "load", "search", "sign"]);
  const schemas = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
  if (process.env.UPDATE_SNAPSHOTS === "1") await writeFile(SNAPSHOT, `${JSON.stringify(schemas, null, 2)}\n`);
  assert.deepEqual(schemas, JSON.parse(await readFile(SNAPSHOT, "utf8")), "MCP tool schemas changed: review, then run with UPDATE_SNAPSHOTS=1");
  for (const tool of tools) {
    assert.ok(tool.description && tool.description.length > 20, tool.name);
    assert.ok((tool.inputSchema.properties as Json).project_path, `${tool.name} takes project_path`);
  }
  const required = Object.fromEntries(tools.map((t) => [t.name, [...((t.inputSchema.required as string[]) ?? [])].sort()]));
  assert.deepEqual(required, { execute: ["item_id", "item_type"], load: ["item_id", "item_type"], search: ["query"], sign: ["item_id", "item_type"] });
});

test("search finds project and system items with verification status", async () => {
  const { isError, body } = await call("search", { query: "add", item_type: "tool" });
  assert.equal(isError, false);
  const hit = body.results.find((r: Json) => r.id === "demo/add");
  assert.ok(hit, JSON.stringify(body));
  assert.equal(hit.space, "project");
  assert.equal(hit.verified, true);
  assert.ok(body.total >= 1);
  const system = await call("search", { query: "fs_read", source: "system" });
  assert.equal(system.body.results[0].id, "rye/file-system/fs_read");
  assert.equal(system.body.results[0].verified, true, "shipped items verify with the release key");
  const draft = await call("search", { query: "name:draft" });
  assert.equal(draft.body.results[0].signed, false);
});

test("load returns content, metadata and verification; execute runs a tool; errors use the envelope", async () => {
  const loaded = await call("load", { item_type: "tool", item_id: "demo/add" });
  assert.equal(loaded.body.status, "success");
  assert.match(loaded.body.content, /^\/\/ rye:signed:/);
  assert.equal(loaded.body.verification.ok, true);
  assert.equal(loaded.body.metadata.version, "1.0.0");

  const executed = await call("execute", { item_type: "tool", item_id: "demo/add", parameters: { a: 2, b: 40 } });
  assert.equal(executed.body.status, "success");
  assert.deepEqual(executed.body.data, { sum: 42 });

  const bad = await call("execute", { item_type: "tool", item_id: "demo/add", parameters: { a: 1 } });
  assert.equal(bad.isError, true);
  assert.equal(bad.body.status, "error");
  assert.equal(bad.body.error.code, "INPUT_INVALID");
  assert.ok(bad.body.error.hint);

  const unsigned = await call("load", { item_type: "tool", item_id: "demo/draft" });
  assert.equal(unsigned.body.error.code, "UNSIGNED");
  const missing = await call("load", { item_type: "directive", item_id: "../../etc/passwd" });
  assert.equal(missing.body.error.code, "INVALID_ITEM_ID");
});

test("sign signs a project item so it loads, and rejects the system space", async () => {
  const signed = await call("sign", { item_type: "tool", item_id: "demo/draft" });
  assert.equal(signed.body.status, "signed");
  assert.equal(signed.body.signature.pubkey_fp, ws.key.publicKey.fingerprint);
  assert.equal((await call("load", { item_type: "tool", item_id: "demo/draft" })).body.status, "success");
  const batch = await call("sign", { item_type: "tool", item_id: "demo/*" });
  assert.equal(batch.body.status, "completed");
  assert.deepEqual(batch.body.signed.sort(), ["demo/add", "demo/draft"]);
  const dry = await call("execute", { item_type: "tool", item_id: "rye/file-system/fs_list", dry_run: true });
  assert.equal(dry.body.status, "validation_passed");
});

test("bad arguments are rejected by the schema with a clear message", async () => {
  const result = (await client.callTool({ name: "load", arguments: { item_type: "widget", item_id: "x" } })) as { isError?: boolean; content: { text: string }[] };
  assert.equal(result.isError, true);
  assert.match(result.content[0]!.text, /item_type|invalid/i);
});
