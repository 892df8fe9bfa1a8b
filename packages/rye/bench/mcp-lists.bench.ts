/**
 * `rye mcp` at 10 000 items, driven by the MCP SDK client over stdio against a real child process (as a desktop
 * client would): warm resources/list and prompts/list latency (the whole listing, every page, and the first page),
 * and notification latency (a subscribed item's file rewritten → notifications/resources/updated; a new item →
 * notifications/resources/list_changed). Baseline from the same run and the same server: a `search` tool call on
 * the same tree (a local search over the same cached indexes, 10 hits).
 * Run: node --import tsx packages/rye/bench/mcp-lists.bench.ts
 */
import "@rye/core/node";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { signItem } from "@rye/core";
import { KeyStore } from "../src/keys/keystore.ts";

const ITEMS = 10_000;
const LIST_SAMPLES = 15;
const SEARCH_SAMPLES = 200;
const NOTIFY_SAMPLES = 30;
const BIN = fileURLToPath(new URL("../bin/rye.mjs", import.meta.url));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summary(name: string, samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  console.log(`${name.padEnd(52)} p50 ${p50.toFixed(2).padStart(8)} ms   p95 ${percentile(sorted, 95).toFixed(2).padStart(8)} ms   (n=${samples.length})`);
  return p50;
}

async function timed(samples: number, body: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    await body();
    out.push(performance.now() - start);
  }
  return out;
}

const directive = (i: number, category: string, note = "") => `# Step ${i}

\`\`\`xml
<directive name="step_${i}" version="1.0.0">
  <metadata>
    <description>Runs step ${i} of the ${category} topic${note}</description>
    <category>${category}</category>
    <author>bench</author>
  </metadata>
  <inputs><input name="target" type="string" required="true">What to run it on</input></inputs>
  <process>
    <step name="run">Run step ${i} on {input:target}.</step>
  </process>
</directive>
\`\`\`
`;

const root = await mkdtemp(join(tmpdir(), "rye-mcp-bench-"));
const env: Record<string, string> = Object.fromEntries(Object.entries({ ...process.env, USER_SPACE: join(root, "home"), RYE_OFFLINE: "1" }).filter((e): e is [string, string] => typeof e[1] === "string"));
const key = await new KeyStore({ env }).create();
const project = join(root, "project");
const pathOf = (i: number, category: string) => join(project, ".ai", "directives", category, `step_${i}.md`);
const categoryOf = (i: number) => `area${i % 50}/topic${i % 7}`;
async function writeDirective(i: number, note = ""): Promise<string> {
  const path = pathOf(i, categoryOf(i));
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, (await signItem(directive(i, categoryOf(i), note), "directive", key, { path })).content);
  return path;
}
for (let i = 0; i < ITEMS; i++) await writeDirective(i);
console.log(`generated ${ITEMS} signed directives (each a prompt and a resource)`);

const client = new Client({ name: "rye-mcp-bench", version: "1.0.0" });
const updates: { uri: string; at: number }[] = [];
const listChanges: number[] = [];
client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => void updates.push({ uri: n.params.uri, at: performance.now() }));
client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => void listChanges.push(performance.now()));
await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], cwd: project, env, stderr: "inherit" }));

async function allResources(): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await client.listResources(cursor ? { cursor } : {});
    count += page.resources.length;
    cursor = page.nextCursor;
  } while (cursor);
  return count;
}
async function allPrompts(): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await client.listPrompts(cursor ? { cursor } : {});
    count += page.prompts.length;
    cursor = page.nextCursor;
  } while (cursor);
  return count;
}

// Warm-up: the first listing indexes and verifies every file once (that cost is reported, not compared).
let start = performance.now();
const resourceCount = await allResources();
console.log(`first resources/list (cold: index + verify ${ITEMS} files): ${(performance.now() - start).toFixed(0)} ms, ${resourceCount} resources`);
start = performance.now();
const promptCount = await allPrompts();
console.log(`first prompts/list (parses every directive once): ${(performance.now() - start).toFixed(0)} ms, ${promptCount} prompts`);
if (resourceCount < ITEMS || promptCount < ITEMS) throw new Error(`expected ≥ ${ITEMS} resources and prompts, got ${resourceCount} / ${promptCount}`);
await client.callTool({ name: "search", arguments: { query: "topic3 step", scope: "local", limit: 10 } });

const search = summary("baseline: search tool call (local, 10 hits)", await timed(SEARCH_SAMPLES, () => client.callTool({ name: "search", arguments: { query: "topic3 step", scope: "local", limit: 10 } })));
const resourcesAll = summary(`resources/list, all pages (${resourceCount} resources)`, await timed(LIST_SAMPLES, allResources));
const resourcesFirst = summary("resources/list, first page", await timed(LIST_SAMPLES, () => client.listResources()));
const promptsAll = summary(`prompts/list, all pages (${promptCount} prompts)`, await timed(LIST_SAMPLES, allPrompts));
const promptsFirst = summary("prompts/list, first page", await timed(LIST_SAMPLES, () => client.listPrompts()));

// Notification latency: file written → notification received by the client.
async function waitFor(check: () => number | undefined): Promise<number> {
  for (;;) {
    const at = check();
    if (at !== undefined) return at;
    await new Promise((r) => setTimeout(r, 1));
  }
}
const target = 4242;
const uri = `rye://directive/${categoryOf(target)}/step_${target}`;
await client.subscribeResource({ uri });
const updated: number[] = [];
for (let i = 0; i < NOTIFY_SAMPLES; i++) {
  const from = updates.length;
  const begin = performance.now();
  await writeDirective(target, ` (revision ${i + 1})`);
  const at = await waitFor(() => updates.slice(from).find((u) => u.uri === uri)?.at);
  updated.push(at - begin);
}
const added: number[] = [];
for (let i = 0; i < NOTIFY_SAMPLES; i++) {
  const from = listChanges.length;
  const begin = performance.now();
  await writeDirective(ITEMS + i);
  const at = await waitFor(() => listChanges[from]);
  added.push(at - begin);
}
const notifyUpdated = summary("file rewritten → resources/updated", updated);
const notifyAdded = summary("item added → resources/list_changed", added);

console.log(`\nratios against the search tool call p50 (${search.toFixed(2)} ms), same server, same ${ITEMS}-item tree:`);
console.log(`  resources/list all pages ${(resourcesAll / search).toFixed(1)}x, first page ${(resourcesFirst / search).toFixed(1)}x`);
console.log(`  prompts/list   all pages ${(promptsAll / search).toFixed(1)}x, first page ${(promptsFirst / search).toFixed(1)}x`);
console.log(`  notification: resources/updated ${(notifyUpdated / search).toFixed(1)}x, list_changed ${(notifyAdded / search).toFixed(1)}x (both include the watcher's debounce)`);

await client.close();
await rm(root, { recursive: true, force: true });
