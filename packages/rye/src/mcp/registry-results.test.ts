/**
 * Every tool's results against real registries, through clients that check `outputSchema`: the MCP SDK's Client
 * (it validates `structuredContent` against the schema `tools/list` advertised, and throws when it does not match)
 * drives a real `rye mcp` whose default registry (apps/api on a loopback port) and scoped organization registry hold
 * published items, with a third scoped registry that is down. Search pages that mix local and registry hits from
 * both registries with the down one's warning, paging, registry-only and local-only pages; loads, pulls, copies,
 * runs and signatures of registry items. The official MCP Inspector CLI's `tools/call search` returns the
 * registry hit without an error.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { TestRegistry } from "../../test/registry-server.ts";
import { createPublisher, deadRegistryUrl, startTestRegistry } from "../../test/registry-server.ts";
import { createWorkspace, nodeTool, type Workspace } from "../../test/workspace.ts";

const BIN = fileURLToPath(new URL("../../bin/rye.mjs", import.meta.url));
type Json = Record<string, any>;

const knowledge = (name: string, title: string, body: string) => `---\nid: ${name}\ntitle: ${title}\nversion: "1.0.0"\nentry_type: reference\ncategory: notes\n---\n\n${body}\n`;
const directive = (name: string) => `# ${name}

\`\`\`xml
<directive name="${name}" version="1.0.0">
  <metadata>
    <description>Deploy a service to an environment</description>
    <category>flows</category>
    <author>alice</author>
  </metadata>
  <inputs><input name="env" type="string" required="true">where</input></inputs>
  <process><step name="s">Deploy to {input:env}.</step></process>
</directive>
\`\`\`
`;

let pub: TestRegistry;
let org: TestRegistry;
let dead: string;
let ws: Workspace;
let client: Client;
const clients: Client[] = [];

/** A real `rye mcp` whose default registry is `registryUrl`, connected with the SDK client, tools listed (that arms its output validation). */
async function connect(registryUrl: string): Promise<Client> {
  const env: NodeJS.ProcessEnv = { ...ws.env, RYE_REGISTRY_URL: registryUrl };
  delete env.RYE_OFFLINE; // this test talks to the registries
  delete env.RYE_TOKEN;
  const c = new Client({ name: "rye-registry-results-test", version: "1.0.0" });
  await c.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], cwd: ws.projectDir, env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === "string")), stderr: "pipe" }));
  clients.push(c);
  const { tools } = await c.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ["execute", "load", "search", "sign"]);
  return c;
}

/** A call the SDK client accepted (it throws when structuredContent does not match the advertised outputSchema). */
async function call(name: string, args: Json, on: Client = client): Promise<Json> {
  const result = (await on.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent?: Json };
  assert.ok(result.structuredContent, `${name} returns structuredContent: ${result.content[0]?.text}`);
  assert.equal(result.isError ?? false, false, `${name} ${JSON.stringify(args)}: ${result.content[0]?.text}`);
  return result.structuredContent;
}

before(async () => {
  [pub, org, dead] = await Promise.all([startTestRegistry(), startTestRegistry(), deadRegistryUrl()]);
  const alice = await createPublisher(pub, "alice");
  await alice("knowledge", "alice/notes/guide", "1.0.0", knowledge("guide", "Deploy guide", "How to deploy the service."));
  await alice("tool", "alice/tools/deploy", "1.0.0", nodeTool("tools", "export function main(p) { return { deployed: p.env }; }", `{ type: "object", properties: { env: { type: "string" } }, required: ["env"] }`), ".mjs");
  await alice("directive", "alice/flows/deploy", "1.0.0", directive("deploy"));
  const acme = await createPublisher(org, "acme");
  await acme("knowledge", "acme/notes/runbook", "1.0.0", knowledge("runbook", "Deploy runbook", "The organization's deploy checklist."));

  ws = await createWorkspace();
  await ws.write("knowledge", "demo/deploy-notes.md", knowledge("deploy-notes", "Local deploy notes", "We deploy on Fridays."));
  await ws.write("tool", "demo/add.mjs", nodeTool("demo", "export function main(p) { return { sum: p.a + p.b }; }", `{ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] }`));
  // acme/… routes to the organization's registry; gone/… to one that is down.
  const config = join(ws.projectDir, ".ai", "config", "registries.json");
  await mkdir(dirname(config), { recursive: true });
  await writeFile(config, JSON.stringify({ registries: [{ name: "acme", url: org.url, scopes: ["acme"] }, { name: "gone", url: dead, scopes: ["gone"] }] }));
  client = await connect(pub.url);
});

after(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await Promise.all([pub?.close(), org?.close()]);
});

test("search: local and registry hits from two registries, with the down registry's warning, validate", async () => {
  const page = await call("search", { query: "deploy" });
  const where = page.results.map((h: Json) => `${h.space}:${h.registry ?? ""}:${h.id}`);
  assert.equal(page.results[0].space, "project", "local hits first");
  assert.ok(where.includes("project::demo/deploy-notes"), where.join(", "));
  for (const id of ["alice/notes/guide", "alice/tools/deploy", "alice/flows/deploy"]) assert.ok(where.includes(`registry:${pub.url}:${id}`), `${id} in ${where.join(", ")}`);
  assert.ok(where.includes(`registry:${org.url}:acme/notes/runbook`), where.join(", "));
  const hit = page.results.find((h: Json) => h.id === "alice/notes/guide");
  assert.equal(typeof hit.quality_score, "number", "the registry's quality score is part of the hit");
  assert.equal(page.registry.url, pub.url);
  assert.deepEqual(page.registries.map((r: Json) => r.url), [pub.url, org.url, dead]);
  assert.match(page.registries[2].warning, /not searched/);
  assert.equal(page.warnings.length, 1);
  assert.match(page.warnings[0], new RegExp(`Registry ${dead} not searched`));
});

test("search: paging, registry-only, local-only and one item type validate", async () => {
  const first = await call("search", { query: "deploy", limit: 2 });
  assert.equal(first.results.length, 2);
  assert.equal(first.limit, 2);
  const second = await call("search", { query: "deploy", limit: 2, offset: 1 });
  assert.equal(second.offset, 1);
  const remote = await call("search", { query: "deploy", scope: "registry" });
  assert.ok(remote.results.length >= 4 && remote.results.every((h: Json) => h.space === "registry"), JSON.stringify(remote.results));
  const local = await call("search", { query: "deploy", scope: "local" });
  assert.ok(local.results.length >= 1 && local.results.every((h: Json) => h.space !== "registry"));
  assert.equal(local.registry, undefined);
  const typed = await call("search", { query: "deploy", item_type: "tool" });
  assert.equal(typed.item_type, "tool");
  assert.ok(typed.results.some((h: Json) => h.id === "alice/tools/deploy") && typed.results.every((h: Json) => h.type === "tool"));
});

test("search: a default registry that is down still answers with local hits and a warning", async () => {
  const offline = await connect(dead);
  const page = await call("search", { query: "deploy" }, offline);
  assert.ok(page.results.some((h: Json) => h.id === "demo/deploy-notes"));
  assert.deepEqual(page.registry, { url: dead, total: 0 });
  assert.ok(page.warnings.some((w: string) => w.includes(dead)), JSON.stringify(page.warnings));
});

test("load: registry items from both registries (pulled, with the key notice) and a copy into the project validate", async () => {
  const guide = await call("load", { item_type: "knowledge", item_id: "alice/notes/guide" });
  assert.equal(guide.source, "user");
  assert.equal(guide.verification.ok, true);
  assert.match(guide.registry_notice, /first use/);
  const runbook = await call("load", { item_type: "knowledge", item_id: "acme/notes/runbook" });
  assert.match(runbook.content, /deploy checklist/);
  assert.match(runbook.registry_notice, /first use/, "the organization registry's own key");
  const copy = await call("load", { item_type: "tool", item_id: "alice/tools/deploy", destination: "project" });
  assert.equal(copy.copied_to, "project");
  assert.equal(await stat(copy.destination_path).then(() => true, () => false), true);
});

test("execute: a registry tool, a dry run, a registry directive and registry knowledge validate", async () => {
  const run = await call("execute", { item_type: "tool", item_id: "alice/tools/deploy", parameters: { env: "prod" } });
  assert.equal(run.status, "success", JSON.stringify(run));
  assert.deepEqual(run.data, { deployed: "prod" });
  assert.equal((await call("execute", { item_type: "tool", item_id: "alice/tools/deploy", parameters: { env: "prod" }, dry_run: true })).status, "validation_passed");
  const flow = await call("execute", { item_type: "directive", item_id: "alice/flows/deploy", parameters: { env: "staging" } });
  assert.match(JSON.stringify(flow.data), /Deploy to staging\./);
  assert.equal((await call("execute", { item_type: "directive", item_id: "alice/flows/deploy", parameters: { env: "staging" }, dry_run: true })).type, "directive");
  const guide = await call("execute", { item_type: "knowledge", item_id: "alice/notes/guide" });
  assert.match(guide.data.body, /How to deploy/);
});

test("sign: one item, and a batch where the project's copy of a registry item fails, validate", async () => {
  const one = await call("sign", { item_type: "tool", item_id: "demo/add" });
  assert.equal(one.status, "signed");
  assert.equal(one.location, "project");
  // The copy keeps the registry's category ("tools"), which a local item must match with its folder.
  const batch = await call("sign", { item_type: "tool", item_id: "**" });
  assert.equal(batch.status, "completed");
  assert.deepEqual(batch.signed, ["demo/add"]);
  assert.deepEqual(batch.failed.map((f: Json) => [f.item, f.error.code]), [["alice/tools/deploy", "VALIDATION_FAILED"]]);
});

/** The inspector's launcher (its `mcp-inspector` bin), as inspector.test.ts finds it. */
async function inspectorLauncher(): Promise<string> {
  const dir = process.env.MCP_INSPECTOR_DIR ?? dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json"));
  return join(dir, "clients/launcher/build/index.js");
}

test("the MCP Inspector CLI's tools/call search returns the registry hit without an error", async () => {
  // A machine that has not pulled the item yet (the other tests did), so it is a registry hit.
  const fresh = await createWorkspace();
  const catalog = join(await mkdtemp(join(tmpdir(), "rye-inspector-")), "mcp.json");
  const serverEnv = ["-e", `USER_SPACE=${fresh.env.USER_SPACE}`, "-e", `RYE_REGISTRY_URL=${pub.url}`];
  const args = [await inspectorLauncher(), "--cli", "--cwd", fresh.projectDir, ...serverEnv, "--method", "tools/call", "--tool-name", "search", "--tool-arg", "query=deploy", "item_type=knowledge", "--", process.execPath, BIN, "mcp"];
  const { stdout, stderr } = await promisify(execFile)(process.execPath, args, { env: { ...fresh.env, MCP_CATALOG_PATH: catalog, NO_COLOR: "1" } as Record<string, string>, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`inspector tools/call search failed: ${err.message}\n${err.stdout ?? ""}\n${err.stderr ?? ""}`);
  });
  assert.deepEqual(stderr.split("\n").filter((line) => /error|failed|must/i.test(line) && !line.startsWith("Schema portability: 0 errors")), [], stderr);
  const result = JSON.parse(stdout) as Json;
  assert.equal(result.isError ?? false, false, stdout);
  const hit = result.structuredContent.results.find((h: Json) => h.id === "alice/notes/guide");
  assert.ok(hit, stdout);
  assert.equal(hit.space, "registry");
  assert.equal(hit.registry, pub.url);
});
