/**
 * Tool metadata over MCP (SDK client over stdio against a real `rye mcp`): annotations, `_meta` and output schemas
 * are advertised (pinned in a snapshot), and every result — success and error shapes of all four tools — validates
 * against the advertised `outputSchema` with an independent JSON Schema validator (ajv).
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import type { ValidateFunction } from "ajv";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { createWorkspace, nodeTool, type Workspace } from "../../test/workspace.ts";

const BIN = fileURLToPath(new URL("../../bin/rye.mjs", import.meta.url));
const SNAPSHOT = new URL("./tool-metadata.snapshot.json", import.meta.url);

type Json = Record<string, any>;
let ws: Workspace;
let client: Client;
let tools: Tool[];
const validators = new Map<string, ValidateFunction>();
/** Every structuredContent seen, by tool, to check that each advertised shape was exercised. */
const seen: { tool: string; body: Json; isError: boolean }[] = [];

const directive = `# hello

\`\`\`xml
<directive name="hello" version="1.0.0">
  <metadata>
    <description>Say hello to someone</description>
    <category>demo</category>
    <author>tests</author>
  </metadata>
  <inputs><input name="name" type="string" required="true">who</input></inputs>
  <process><step name="s">Say hello to {input:name}.</step></process>
</directive>
\`\`\`
`;

before(async () => {
  ws = await createWorkspace();
  await ws.write("tool", "demo/add.mjs", nodeTool("demo", "export function main(p) { return { sum: p.a + p.b }; }", `{ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] }`));
  await ws.write("tool", "demo/fails.mjs", nodeTool("demo", "export function main() { return { success: false, reason: 'no luck' }; }"));
  await ws.write("tool", "demo/draft.mjs", nodeTool("demo", "export function main() { return {}; }"), { signer: null });
  await ws.write("tool", "broken/bad.mjs", "export const __version__ = 1;\n", { signer: null });
  await ws.write("directive", "demo/hello.md", directive);
  await ws.write("knowledge", "demo/facts.md", "---\nid: facts\ntitle: Facts\nversion: 1.0.0\nentry_type: reference\ncategory: demo\n---\n\nThe sky is blue.\n");
  client = new Client({ name: "rye-metadata-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], cwd: ws.projectDir, env: ws.env as Record<string, string>, stderr: "pipe" }));
  tools = (await client.listTools()).tools;
  const ajv = new Ajv({ strict: false, allErrors: true });
  for (const tool of tools) validators.set(tool.name, ajv.compile(tool.outputSchema as object));
});
after(async () => {
  await client?.close();
});

async function call(name: string, args: Json): Promise<{ isError: boolean; body: Json }> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Json };
  assert.ok(result.structuredContent, `${name} returns structuredContent`);
  assert.deepEqual(result.structuredContent, JSON.parse(result.content[0]!.text), "structuredContent mirrors the JSON text");
  const validate = validators.get(name)!;
  assert.ok(validate(result.structuredContent), `${name} ${JSON.stringify(args)}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(result.structuredContent).slice(0, 2000)}`);
  seen.push({ tool: name, body: result.structuredContent, isError: Boolean(result.isError) });
  return { isError: Boolean(result.isError), body: result.structuredContent };
}

test("annotations, _meta and output schemas are advertised (pinned)", async () => {
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.deepEqual(byName.search!.annotations, { title: "Search rye items", readOnlyHint: true, openWorldHint: true });
  assert.equal(byName.load!.annotations!.readOnlyHint, true);
  assert.equal(byName.execute!.annotations!.destructiveHint, true);
  assert.equal(byName.execute!.annotations!.openWorldHint, true);
  assert.equal(byName.sign!.annotations!.idempotentHint, true);
  assert.equal(byName.sign!.annotations!.openWorldHint, false);
  for (const tool of tools) {
    assert.equal(tool.outputSchema?.type, "object", `${tool.name}: an object schema, as the spec requires`);
    assert.ok(Array.isArray((tool.outputSchema as Json).anyOf), `${tool.name}: one branch per result shape`);
    assert.equal(typeof tool._meta?.["rye/reaches-registry"], "boolean");
  }
  const pinned = Object.fromEntries(tools.map((t) => [t.name, { annotations: t.annotations, _meta: t._meta, outputSchema: t.outputSchema }]));
  if (process.env.UPDATE_SNAPSHOTS === "1") await writeFile(SNAPSHOT, `${JSON.stringify(pinned, null, 2)}\n`);
  assert.deepEqual(pinned, JSON.parse(await readFile(SNAPSHOT, "utf8")), "MCP tool metadata changed: review, then run with UPDATE_SNAPSHOTS=1");
});

test("search: a page and an error validate", async () => {
  const page = await call("search", { query: "add", item_type: "tool" });
  assert.ok(page.body.results.some((r: Json) => r.id === "demo/add"));
  const all = await call("search", { query: "", source: "system", limit: 5 });
  assert.equal(all.body.results.length, 5);
  const refused = await call("search", { query: "x", scope: "registry" });
  assert.equal(refused.isError, true);
  assert.equal(refused.body.error.code, "UNAVAILABLE");
});

test("load: an item, a copy into a space, and errors validate", async () => {
  assert.equal((await call("load", { item_type: "tool", item_id: "demo/add" })).body.status, "success");
  const copy = await call("load", { item_type: "tool", item_id: "rye/file-system/fs_read", destination: "project" });
  assert.equal(copy.body.copied_to, "project");
  assert.match(copy.body.note, /re-sign/);
  assert.equal((await call("load", { item_type: "tool", item_id: "demo/draft" })).body.error.code, "UNSIGNED");
  assert.equal((await call("load", { item_type: "directive", item_id: "../../etc/passwd" })).body.error.code, "INVALID_ITEM_ID");
});

test("execute: a tool run, a failing tool, a directive, a knowledge entry, dry runs and errors validate", async () => {
  const run = await call("execute", { item_type: "tool", item_id: "demo/add", parameters: { a: 1, b: 2 } });
  assert.deepEqual(run.body.data, { sum: 3 });
  const failed = await call("execute", { item_type: "tool", item_id: "demo/fails" });
  assert.equal(failed.body.status, "error");
  assert.equal(failed.body.type, "tool");
  assert.equal((await call("execute", { item_type: "tool", item_id: "demo/add", parameters: { a: 1, b: 2 }, dry_run: true })).body.status, "validation_passed");
  const hello = await call("execute", { item_type: "directive", item_id: "demo/hello", parameters: { name: "Ada" } });
  assert.match(JSON.stringify(hello.body.data), /Say hello to Ada\./);
  assert.equal((await call("execute", { item_type: "directive", item_id: "demo/hello", parameters: { name: "Ada" }, dry_run: true })).body.status, "validation_passed");
  const facts = await call("execute", { item_type: "knowledge", item_id: "demo/facts" });
  assert.match(facts.body.data.body, /sky is blue/);
  assert.equal((await call("execute", { item_type: "knowledge", item_id: "demo/facts", dry_run: true })).body.type, "knowledge");
  assert.equal((await call("execute", { item_type: "tool", item_id: "demo/add", parameters: { a: 1 } })).body.error.code, "INPUT_INVALID");
  assert.equal((await call("execute", { item_type: "directive", item_id: "demo/hello" })).body.error.code, "MISSING_INPUTS");
});

test("sign: one item, a batch with a failure, and an error validate", async () => {
  assert.equal((await call("sign", { item_type: "tool", item_id: "demo/draft" })).body.status, "signed");
  const batch = await call("sign", { item_type: "tool", item_id: "broken/*" });
  assert.equal(batch.body.status, "completed");
  assert.equal(batch.body.failed.length, 1);
  assert.equal((await call("sign", { item_type: "tool", item_id: "demo/none" })).body.error.code, "ITEM_NOT_FOUND");
});

test("every advertised result shape of every tool was exercised", () => {
  const shapes = new Set(seen.map((s) => `${s.tool}:${s.isError ? "error" : `${s.body.type ?? ""}:${s.body.status ?? "page"}`}`));
  for (const shape of ["search:error", "search::page", "load:error", "load::success", "execute:tool:success", "execute:tool:error", "execute:tool:validation_passed", "execute:directive:success", "execute:directive:validation_passed", "execute:knowledge:success", "execute:knowledge:validation_passed", "execute:error", "sign::signed", "sign::completed", "sign:error"]) {
    assert.ok(shapes.has(shape), `${shape} not exercised; seen ${[...shapes].join(", ")}`);
  }
  // The schemas are exact: a field too many or one missing does not validate.
  const loaded = seen.find((s) => s.tool === "load" && !s.isError)!.body;
  assert.equal(validators.get("load")!({ ...loaded, surprise: 1 }), false);
  const { verification: _dropped, ...incomplete } = loaded;
  assert.equal(validators.get("load")!(incomplete), false);
});
