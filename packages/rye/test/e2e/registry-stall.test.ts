/**
 * A registry that hangs: the real registry API on loopback behind a real TCP proxy (test/stalling-proxy.ts) that
 * either accepts connections and sends nothing, or trickles the registry's answers a byte a second. The real
 * `rye` binary (load, search, execute) and a real `rye mcp` (driven by the MCP SDK client) must each end within
 * the call's registry budget plus 1 s, with a TIMEOUT naming the registry (load, execute) or a warning (search),
 * and write nothing. In one `rye mcp` process, the registry is then not asked again for a while: the next calls
 * fail (or answer locally) at once.
 *
 * The wait is measured from the proxy's first accepted connection to the end of the command (process start and
 * module loading on a busy machine, several seconds here, are not the registry's doing); the whole run is
 * reported as a diagnostic. Only upper bounds are asserted.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import type { CliRun } from "../cli.ts";
import { RYE_BIN, runRye } from "../cli.ts";
import type { TestRegistry } from "../registry-server.ts";
import { createPublisher, deadRegistryUrl, startTestRegistry } from "../registry-server.ts";
import type { StallingProxy } from "../stalling-proxy.ts";
import { startStallingProxy } from "../stalling-proxy.ts";
import type { Workspace } from "../workspace.ts";
import { createWorkspace, nodeTool } from "../workspace.ts";

type Json = Record<string, any>;

/** The budget most tests use (set through `deadline_ms` in the project's registries.json, or the variable). */
const BUDGET_MS = 1500;
const SLACK_MS = 1000;

const knowledge = (name: string, body: string) => `---\nid: ${name}\ntitle: ${name}\nversion: "1.0.0"\nentry_type: reference\ncategory: notes\n---\n\n${body}\n`;

let registry: TestRegistry;
let stall: StallingProxy;
let trickle: StallingProxy;
let home: Workspace;
/** Files that must not change: the user space's cached items and the registry key pins. */
let snapshot: () => Promise<string>;

before(async () => {
  registry = await startTestRegistry();
  const push = await createPublisher(registry);
  await push("knowledge", "alice/notes/guide", "1.0.0", knowledge("guide", "How to wait for nobody."));
  await push("knowledge", "alice/notes/fresh", "1.0.0", knowledge("fresh", "Never pulled before."));
  await push("tool", "alice/tools/hello", "1.0.0", nodeTool("tools", "export function main() { return { hello: true }; }"), ".mjs");
  stall = await startStallingProxy(registry.url, { mode: "stall" });
  trickle = await startStallingProxy(registry.url, { mode: "trickle", trickleMs: 1000 });

  // Another project pulled the guide and the tool: the user space holds them, pinned there only.
  home = await createWorkspace();
  const env: NodeJS.ProcessEnv = { ...home.env, RYE_REGISTRY_URL: registry.url };
  delete env.RYE_OFFLINE;
  const load = await runRye(["load", "knowledge", "alice/notes/guide"], { env, cwd: home.projectDir });
  assert.equal(load.code, 0, load.stderr);
  const run = await runRye(["execute", "tool", "alice/tools/hello", "--json"], { env, cwd: home.projectDir });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const cached = ["knowledge/alice/notes/guide.md", "tools/alice/tools/hello.mjs"].map((f) => join(home.userBase, ".ai", f));
  snapshot = async () => (await Promise.all([...cached, join(home.userBase, ".ai", "trusted_keys", "registries.json")].map((f) => readFile(f, "utf8")))).join("\n--\n");
});

after(async () => {
  await stall?.close();
  await trickle?.close();
  await registry?.close();
});

interface Project {
  dir: string;
  env: NodeJS.ProcessEnv;
  rye(args: string[], extra?: NodeJS.ProcessEnv): Promise<CliRun & { ms: number; started: number; ended: number }>;
  lockExists(): boolean;
}

let projects = 0;
/** A new project sharing the user space, its default registry `url`; `deadlineMs` goes to its registries.json. */
async function project(url: string, deadlineMs: number | null = BUDGET_MS, extraConfig: Json = {}): Promise<Project> {
  const dir = join(home.root, `project-${++projects}`);
  await mkdir(join(dir, ".ai", "config"), { recursive: true });
  await writeFile(join(dir, ".ai", "config", "registries.json"), JSON.stringify({ ...(deadlineMs !== null ? { deadline_ms: deadlineMs } : {}), ...extraConfig }));
  const env: NodeJS.ProcessEnv = { ...home.env, RYE_REGISTRY_URL: url };
  delete env.RYE_OFFLINE;
  return {
    dir,
    env,
    async rye(args, extra = {}) {
      const started = performance.now();
      const run = await runRye(args, { env: { ...env, ...extra }, cwd: dir });
      const ended = performance.now();
      return { ...run, ms: ended - started, started, ended };
    },
    lockExists: () => existsSync(join(dir, ".ai", "rye.lock")),
  };
}

type Run = Awaited<ReturnType<Project["rye"]>>;

/** From the command's first connection to `proxy` to its end: at most the budget plus SLACK_MS. */
function assertWithin(t: TestContext, run: Run, proxy: StallingProxy, budgetMs: number, what: string): void {
  const contact = proxy.acceptedAt.find((at) => at >= run.started);
  if (contact === undefined) {
    // A very busy machine spent the budget before the first request went out: the call did not wait at all.
    t.diagnostic(`${what}: the budget ran out before the registry was asked (${Math.round(run.ms)} ms in all)`);
    return;
  }
  const waited = run.ended - contact;
  t.diagnostic(`${what}: ${Math.round(waited)} ms from the first registry connection to the end (${Math.round(run.ms)} ms in all), budget ${budgetMs} ms`);
  assert.ok(waited <= budgetMs + SLACK_MS, `${what} went on for ${Math.round(waited)} ms after reaching the registry: more than the ${budgetMs} ms budget + ${SLACK_MS} ms`);
}

for (const kind of ["stall", "trickle"] as const) {
  test(`${kind}: rye load of a cached item not pinned here ends within the budget with TIMEOUT naming the registry, writing nothing`, async (t) => {
    const proxy = kind === "stall" ? stall : trickle;
    const p = await project(proxy.url);
    const before = await snapshot();
    const args = ["load", "knowledge", "alice/notes/guide"];
    const run = await p.rye(args);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stderr, new RegExp(`^error\\[TIMEOUT\\]: The registry at ${proxy.url} did not answer within the ${BUDGET_MS} ms`, "m"));
    assert.match(run.stderr, /Without it: knowledge alice\/notes\/guide \(user\) failed verification/);
    assert.match(run.stderr, /hint: .*RYE_REGISTRY_DEADLINE_MS or "deadline_ms".*now 1500 ms, from "deadline_ms" in the project/);
    assertWithin(t, run, proxy, BUDGET_MS, `load through the ${kind}ing proxy`);
    assert.equal(p.lockExists(), false, "no lock written");
    assert.equal(await snapshot(), before, "the cached items and key pins are untouched");
  });
}

test("stall: rye load of an item never pulled is TIMEOUT (not ITEM_NOT_FOUND), and nothing lands in the user space", async () => {
  const p = await project(stall.url);
  const run = await p.rye(["load", "knowledge", "alice/notes/fresh", "--json"], { RYE_REGISTRY_DEADLINE_MS: "1000" });
  assert.equal(run.code, 1, run.stderr);
  const error = JSON.parse(run.stdout).error;
  assert.equal(error.code, "TIMEOUT");
  assert.equal(error.details.registry, stall.url);
  assert.equal(error.details.phase, "budget");
  assert.equal(error.details.limit_ms, 1000, "the variable wins over the project's deadline_ms");
  assert.equal(error.details.then.code, "ITEM_NOT_FOUND");
  assert.equal(existsSync(join(home.userBase, ".ai", "knowledge", "alice", "notes", "fresh.md")), false);
  assert.equal(p.lockExists(), false);
});

test("stall: rye execute of a cached tool not pinned here ends within the budget with TIMEOUT", async (t) => {
  const p = await project(stall.url);
  const before = await snapshot();
  const args = ["execute", "tool", "alice/tools/hello", "--json"];
  const run = await p.rye(args);
  assert.equal(run.code, 1, run.stdout + run.stderr);
  const error = JSON.parse(run.stdout).error;
  assert.equal(error.code, "TIMEOUT", JSON.stringify(error));
  assert.equal(error.details.registry, stall.url);
  assertWithin(t, run, stall, BUDGET_MS, "execute through the stalling proxy");
  assert.equal(p.lockExists(), false);
  assert.equal(await snapshot(), before);
});

test("trickle: rye search answers with the local hits and a warning naming the registry within the budget", async (t) => {
  // A longer budget: the search must have reached the registry before it runs out, even on a busy machine.
  const budget = 4000;
  const p = await project(trickle.url, budget);
  const args = ["search", "guide", "--json"];
  const run = await p.rye(args);
  assert.equal(run.code, 0, run.stderr);
  const body = JSON.parse(run.stdout);
  assert.ok(body.results.some((h: Json) => h.id === "alice/notes/guide" && h.space === "user"), JSON.stringify(body.results));
  assert.match(body.warnings?.[0] ?? "", new RegExp(`Registry ${trickle.url} not searched: The registry at ${trickle.url} did not answer within the ${budget} ms`));
  assertWithin(t, run, trickle, budget, "search through the trickling proxy");
});

test("search with one stalled registry among two: the other registry's hits and the local hits, in time", async (t) => {
  // The real registry is the default; a stalled one serves the "bob" namespace.
  // A longer budget here: the live registry's search must fit in it on a busy machine.
  const budget = 4000;
  const p = await project(registry.url, budget, { registries: [{ name: "slow", url: stall.url, scopes: ["bob"] }] });
  const args = ["search", "notes", "--json"];
  const run = await p.rye(args);
  assert.equal(run.code, 0, run.stderr);
  const body = JSON.parse(run.stdout);
  const ids = body.results.map((h: Json) => `${h.space}:${h.id}`);
  assert.ok(ids.includes("user:alice/notes/guide"), `a local hit: ${ids}`);
  assert.ok(ids.includes("registry:alice/notes/fresh"), `the live registry's hit: ${ids} ${JSON.stringify(body.registries)}`);
  const slow = body.registries.find((r: Json) => r.url === stall.url);
  assert.match(slow?.warning ?? "", /did not answer within the 4000 ms/);
  assert.equal(body.registries.find((r: Json) => r.url === registry.url)?.warning, undefined);
  assertWithin(t, run, stall, budget, "search with a stalled scoped registry");
});

test("at the default budget (5 s, nothing configured), rye load through a stalling proxy ends within 6 s", async (t) => {
  const p = await project(stall.url, null);
  const args = ["load", "knowledge", "alice/notes/guide"];
  const run = await p.rye(args);
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /did not answer within the 5000 ms .*from the default/s);
  assertWithin(t, run, stall, 5000, "load at the default budget");
});

test("a registry that refuses connections: UNAVAILABLE naming it, within the budget too", async (t) => {
  const dead = await deadRegistryUrl();
  const p = await project(dead);
  const args = ["load", "knowledge", "alice/notes/guide", "--json"];
  // Nothing listens, so nothing marks the first contact: the bound is against the slower of two offline runs.
  const offline = Math.max((await p.rye(args, { RYE_OFFLINE: "1" })).ms, (await p.rye(args, { RYE_OFFLINE: "1" })).ms);
  const run = await p.rye(args);
  t.diagnostic(`load from a refusing registry: ${Math.round(run.ms)} ms (offline ${Math.round(offline)} ms)`);
  assert.equal(run.code, 1, run.stderr);
  const error = JSON.parse(run.stdout).error;
  // Refused at once, then retried (250 ms, 500 ms): UNAVAILABLE, or TIMEOUT when a busy machine spends the budget first.
  assert.ok(["UNAVAILABLE", "TIMEOUT"].includes(error.code), JSON.stringify(error));
  assert.equal(error.details.registry, dead);
  assert.match(error.message, new RegExp(`^(Cannot reach the registry at ${dead} \\(ECONNREFUSED\\)|The registry at ${dead} did not answer).*\\. Without it: `));
  assert.ok(run.ms <= offline + BUDGET_MS + SLACK_MS, `${Math.round(run.ms)} ms`);
  assert.equal(p.lockExists(), false);
});

test("rye mcp: the first call waits at most the budget (with progress), later calls fail or answer locally at once", async (t) => {
  const p = await project(stall.url);
  const client = new Client({ name: "rye-stall-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [RYE_BIN, "mcp"], cwd: p.dir, env: p.env as Record<string, string>, stderr: "pipe" }));
  try {
    const call = async (name: string, args: Json, onprogress?: (p: Progress) => void) => {
      const started = performance.now();
      const result = await client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : {});
      return { isError: result.isError === true, body: result.structuredContent as Json, ms: performance.now() - started };
    };
    // Warm up the server (module loading) on a call that needs no registry.
    assert.equal((await call("load", { item_type: "tool", item_id: "rye/core/runtimes/node" })).isError, false);

    const progress: Progress[] = [];
    const first = await call("load", { item_type: "knowledge", item_id: "alice/notes/guide" }, (n) => void progress.push(n));
    assert.equal(first.isError, true);
    assert.equal(first.body.error.code, "TIMEOUT", JSON.stringify(first.body));
    assert.equal(first.body.error.details.registry, stall.url);
    t.diagnostic(`mcp: first load ${Math.round(first.ms)} ms, ${progress.length} progress notifications`);
    assert.ok(first.ms <= BUDGET_MS + SLACK_MS, `first load: ${Math.round(first.ms)} ms`);
    assert.ok(progress.some((n) => /^Waiting for the registry at 127\.0\.0\.1:\d+/.test(n.message ?? "")), JSON.stringify(progress));

    const connections = stall.connections;
    const second = await call("load", { item_type: "knowledge", item_id: "alice/notes/guide" });
    assert.equal(second.body.error.code, "TIMEOUT");
    assert.match(second.body.error.message, /not asked again for \d/);
    assert.ok(second.ms <= 1000, `second load: ${Math.round(second.ms)} ms`);

    const search = await call("search", { query: "guide" });
    assert.equal(search.isError, false);
    assert.ok(search.body.results.some((h: Json) => h.id === "alice/notes/guide"), JSON.stringify(search.body));
    assert.match(search.body.warnings?.[0] ?? "", /not searched: .*not asked again/);
    assert.ok(search.ms <= BUDGET_MS, `search: ${Math.round(search.ms)} ms (the local search is most of it)`);

    const execute = await call("execute", { item_type: "tool", item_id: "alice/tools/hello" });
    assert.equal(execute.body.error.code, "TIMEOUT", JSON.stringify(execute.body));
    assert.ok(execute.ms <= BUDGET_MS, `execute: ${Math.round(execute.ms)} ms (resolving the chain locally is most of it)`);
    t.diagnostic(`mcp: second load ${Math.round(second.ms)} ms, search ${Math.round(search.ms)} ms, execute ${Math.round(execute.ms)} ms`);
    assert.equal(stall.connections, connections, "the unhealthy registry was not asked again");
    assert.equal(p.lockExists(), false);
  } finally {
    await client.close();
  }
});
