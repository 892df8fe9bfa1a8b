/**
 * Set-up shared by the hostile-registry tests (e2e/hostile-registry.test.ts, e2e/hostile-limits.test.ts):
 * a misbehaving server of our own (hostile-registry.ts) in front of a real rye registry, and four real
 * clients, each in its own workspace, that already pinned the registry's key and 1.1.0 of an item
 * through it: `rye pull` (a project copy), transparent `rye load` (the user-space cache), `rye update`
 * and the MCP server's `load` tool (driven by the MCP SDK client). `refusedEverywhere` runs one attack
 * against all four at once and checks the exact code, that nothing was written (every file under the
 * project's and the user's .ai/ byte-identical, the lock and key pins included) and, for answers that
 * never end, the time and the peak RSS against an honest run.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Attack, HostileRegistry } from "./hostile-registry.ts";
import { startHostileRegistry } from "./hostile-registry.ts";
import { RYE_BIN, runRye } from "./cli.ts";
import { createPublisher, startTestRegistry, type TestRegistry } from "./registry-server.ts";
import type { Workspace } from "./workspace.ts";
import { createWorkspace, nodeTool } from "./workspace.ts";

type Json = Record<string, any>;

export const GUIDE = "alice/notes/guide";
const guide = (version: string) => `---\nid: guide\ntitle: Guide ${version}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\nBody of the guide, version ${version}.\n`;
const other = `---\nid: other\ntitle: Other\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n---\n\nBody of another item.\n`;

/**
 * Short clocks and a small cap, so that hostile answers end quickly; honest answers are far below. These lanes
 * test the limits of one request, so the budget of a whole call (registry/budget.ts, tested in
 * test/e2e/registry-stall.test.ts) is set long enough never to be what ends one.
 */
const LIMITS = {
  RYE_HTTP_CONNECT_TIMEOUT_MS: "4000",
  RYE_HTTP_IDLE_TIMEOUT_MS: "500",
  RYE_HTTP_DEADLINE_MS: "5000",
  RYE_REGISTRY_DEADLINE_MS: "30000",
  RYE_MAX_ITEM_BYTES: "131072",
};
const DEADLINE_MS = Number(LIMITS.RYE_HTTP_DEADLINE_MS);
/** The item answer cap those settings give (6 × 128 KiB + 256 KiB). */
const CAP_BYTES = 131072 * 6 + 256 * 1024;
/** How much more a client may use under attack than in an honest run (peak RSS, VmHWM of the process itself). */
const MAX_RSS_GROWTH = 16 * CAP_BYTES;
const RSS_PRELOAD = fileURLToPath(new URL("./report-max-rss.mjs", import.meta.url));

export let registry: TestRegistry;
export let hostile: HostileRegistry;
let token: string;
export let oldCheckpoint: unknown;

interface Outcome {
  code: string | null;
  /** Peak RSS of the client process during the run (bytes). */
  rss: number;
}

export interface Lane {
  name: "rye pull" | "rye load" | "rye update" | "mcp load";
  ws: Workspace;
  env: Record<string, string>;
  /** Brings the workspace into the state every attack starts from. */
  prepare(): Promise<void>;
  run(): Promise<Outcome>;
}

function laneEnv(ws: Workspace): Record<string, string> {
  const env: NodeJS.ProcessEnv = { ...ws.env, RYE_REGISTRY_URL: hostile.url, RYE_TOKEN: token, ...LIMITS };
  delete env.RYE_OFFLINE;
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** Runs the CLI with the RSS preload; the error code comes from the --json output. */
export async function cli(ws: Workspace, env: Record<string, string>, args: string[], codeOf: (body: Json) => string | null): Promise<Outcome> {
  const rssFile = join(await mkdtemp(join(tmpdir(), "rye-rss-")), "rss");
  const run = await runRye([...args, "--json"], { env: { ...env, RYE_TEST_MAX_RSS_FILE: rssFile }, cwd: ws.projectDir, nodeArgs: ["--import", RSS_PRELOAD] });
  let body: Json;
  try {
    body = JSON.parse(run.stdout) as Json;
  } catch {
    assert.fail(`${args.join(" ")} printed no JSON (exit ${run.code}): ${run.stdout}\n${run.stderr}`);
  }
  return { code: codeOf(body), rss: Number(await readFile(rssFile, "utf8")) };
}

/** A copy of the project's and the user's .ai/ folders, and a function that puts them back as they were. */
async function saveAiDirs(ws: Workspace): Promise<{ restore: () => Promise<void> }> {
  const backup = await mkdtemp(join(tmpdir(), "rye-ai-backup-"));
  const roots = [join(ws.projectDir, ".ai"), join(ws.userBase, ".ai")];
  await Promise.all(roots.map((root, i) => cp(root, join(backup, String(i)), { recursive: true })));
  return {
    async restore() {
      for (const [i, root] of roots.entries()) {
        await rm(root, { recursive: true, force: true });
        await cp(join(backup, String(i)), root, { recursive: true });
      }
      await rm(backup, { recursive: true, force: true });
    },
  };
}

/** Every file under the project's and the user's .ai/, with its SHA-256. */
export async function snapshot(ws: Workspace): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const root of [join(ws.projectDir, ".ai"), join(ws.userBase, ".ai")]) {
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else out[relative(ws.root, path)] = createHash("sha256").update(await readFile(path)).digest("hex");
      }
    };
    await walk(root);
  }
  return out;
}

const vmHwm = async (pid: number): Promise<number> => Number(/VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

export const lanes: Lane[] = [];
let mcpClient: Client;
let mcpPid: number;
const baselineRss: Partial<Record<Lane["name"], number>> = {};

/** Starts the registry and the hostile host, and gives each client its honest history. */
export async function setUpLanes(): Promise<void> {
  registry = await startTestRegistry({ env: { RYE_CHECKPOINT_EVERY_ENTRIES: "1" } });
  const push = await createPublisher(registry);
  await push("knowledge", GUIDE, "1.0.0", guide("1.0.0"));
  // The genuine proof of 1.0.0 in the log of its time (one entry): served later, it is an older checkpoint.
  oldCheckpoint = ((await (await fetch(`${registry.url}/v1/pull/knowledge/${GUIDE}?version=1.0.0&tlog_from=0`)).json()) as { transparency: unknown }).transparency;
  await push("knowledge", GUIDE, "1.1.0", guide("1.1.0"));
  await push("knowledge", "alice/notes/other", "1.0.0", other);
  await push("tool", "alice/tools/hello", "1.0.0", nodeTool("tools", "export function main() { return { hello: 'world' }; }"), ".mjs");
  hostile = await startHostileRegistry(registry.url);
  // A reader's token: the hostile host must never get it sent to another origin.
  const login = await fetch(`${registry.url}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "reader", email: "reader@example.test", password: "correct horse battery staple" }),
  });
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
  const { csrf_token } = (await login.json()) as { csrf_token: string };
  const created = await fetch(`${registry.url}/v1/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie, "x-csrf-token": csrf_token },
    body: JSON.stringify({ name: "reader", scopes: ["items:read"] }),
  });
  token = ((await created.json()) as { token: string }).token;

  const pullWs = await createWorkspace();
  const loadWs = await createWorkspace();
  const updateWs = await createWorkspace();
  const mcpWs = await createWorkspace();
  const cachedGuide = (ws: Workspace) => join(ws.userBase, ".ai", "knowledge", GUIDE + ".md");

  lanes.push(
    {
      name: "rye pull",
      ws: pullWs,
      env: laneEnv(pullWs),
      prepare: async () => undefined,
      run() {
        return cli(this.ws, this.env, ["pull", `${GUIDE}@1.1.0`], (b) => b.error?.code ?? null);
      },
    },
    {
      name: "rye load",
      ws: loadWs,
      env: laneEnv(loadWs),
      // The pinned version is no longer cached: the load must fetch it again.
      prepare: () => rm(cachedGuide(loadWs), { force: true }),
      run() {
        return cli(this.ws, this.env, ["load", "knowledge", GUIDE], (b) => b.error?.code ?? null);
      },
    },
    {
      name: "rye update",
      ws: updateWs,
      env: laneEnv(updateWs),
      prepare: async () => undefined,
      run() {
        return cli(this.ws, this.env, ["update", GUIDE], (b) => b.error?.code ?? b.items?.[0]?.error?.code ?? null);
      },
    },
    {
      name: "mcp load",
      ws: mcpWs,
      env: laneEnv(mcpWs),
      async prepare() {
        await rm(cachedGuide(mcpWs), { force: true });
        await untilRegistryAsked();
      },
      async run() {
        const result = (await mcpClient.callTool({ name: "load", arguments: { item_type: "knowledge", item_id: GUIDE } })) as { isError?: boolean; content: { text: string }[] };
        const body = JSON.parse(result.content[0]!.text) as Json;
        return { code: result.isError ? (body.error?.code ?? "?") : null, rss: await vmHwm(mcpPid) };
      },
    },
  );

  // The honest history of each client, through the (for now honest) host: keys pinned, 1.1.0 pinned.
  const ok = async (lane: Lane, args: string[]) => {
    const run = await runRye([...args, "--json"], { env: lane.env, cwd: lane.ws.projectDir });
    assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
    return JSON.parse(run.stdout) as Json;
  };
  await Promise.all([ok(lanes[0]!, ["pull", `${GUIDE}@1.1.0`]), ok(lanes[1]!, ["load", "knowledge", `${GUIDE}@1.1.0`]), ok(lanes[2]!, ["pull", `${GUIDE}@1.1.0`])]);
  const transport = new StdioClientTransport({ command: process.execPath, args: [RYE_BIN, "mcp"], cwd: mcpWs.projectDir, env: lanes[3]!.env, stderr: "pipe" });
  mcpClient = new Client({ name: "rye-hostile", version: "1.0.0" });
  await mcpClient.connect(transport);
  mcpPid = transport.pid!;
  const first = (await mcpClient.callTool({ name: "load", arguments: { item_type: "knowledge", item_id: `${GUIDE}@1.1.0` } })) as { isError?: boolean; content: { text: string }[] };
  assert.ok(!first.isError, first.content[0]!.text);
  // The lane searches before each attack (untilRegistryAsked): its honest peak memory includes a search.
  await untilRegistryAsked();

  // What the registry publishes after the clients pinned 1.1.0 (the update lane moves to it, honestly).
  await push("knowledge", GUIDE, "1.2.0", guide("1.2.0"));
  // Baselines: an honest run of each CLI lane (peak RSS). The update lane really updates to 1.2.0 (so the
  // baseline pulls and verifies like an attacked run tries to), then its files go back to the 1.1.0 state.
  await lanes[1]!.prepare();
  const saved = await saveAiDirs(updateWs);
  const [pullRun, loadRun, updateRun] = await Promise.all([lanes[0]!.run(), lanes[1]!.run(), lanes[2]!.run()]);
  assert.equal(updateRun.code, null, "the honest update succeeds");
  await saved.restore();
  // A process that waits out the deadline peaks higher than one that ends at once, whatever it reads (garbage is
  // collected lazily: `rye load` about 10 MB over its honest run here): each CLI lane is also measured against a
  // stalled answer (headers, then nothing until the deadline), and an attack is held to the larger of the two, so only
  // what a hostile body itself makes the client hold counts.
  hostile.attack = { kind: "stall" };
  await lanes[1]!.prepare();
  const refused = await Promise.all([lanes[0]!.run(), lanes[1]!.run(), lanes[2]!.run()]).finally(() => (hostile.attack = { kind: "pass" }));
  for (const r of refused) assert.equal(r.code, "TIMEOUT");
  baselineRss["rye pull"] = Math.max(pullRun.rss, refused[0]!.rss);
  baselineRss["rye load"] = Math.max(loadRun.rss, refused[1]!.rss);
  baselineRss["rye update"] = Math.max(updateRun.rss, refused[2]!.rss);
  baselineRss["mcp load"] = await vmHwm(mcpPid);
}

/**
 * The `rye mcp` server outlives each attack, and it remembers a registry that just timed out (registry/health.ts):
 * for up to 2, 4, 8 … s it answers TIMEOUT without asking it. Each attack must reach the registry, so before one the
 * lane searches (honestly) until the registry is asked and answers, which clears that memory.
 */
async function untilRegistryAsked(): Promise<void> {
  const deadline = Date.now() + 70_000;
  for (;;) {
    const result = (await mcpClient.callTool({ name: "search", arguments: { query: "guide" } })) as { structuredContent?: { warnings?: string[]; registries?: { warning?: string }[] } };
    const skipped = [...(result.structuredContent?.warnings ?? []), ...(result.structuredContent?.registries ?? []).flatMap((r) => (r.warning ? [r.warning] : []))];
    if (skipped.length === 0) return;
    if (process.env.RYE_TEST_REPORT) console.error(`report: the MCP server skips the registry: ${skipped.join("; ")}`);
    if (Date.now() > deadline) throw new Error(`the MCP server still does not ask the registry: ${skipped.join("; ")}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function tearDownLanes(): Promise<void> {
  await mcpClient?.close();
  await hostile?.close();
  await registry?.close();
}

/** Runs `attack` against every lane in parallel and checks code, nothing written, time and memory. */
export async function refusedEverywhere(attack: Attack, expected: string | Partial<Record<Lane["name"], string>>, options: { memory?: boolean } = {}): Promise<void> {
  hostile.attack = { kind: "pass" };
  for (const lane of lanes) await lane.prepare();
  const before = await Promise.all(lanes.map((lane) => snapshot(lane.ws)));
  hostile.attack = attack;
  const attackStarted = Date.now();
  try {
    const outcomes = await Promise.all(lanes.map((lane) => lane.run()));
    for (const [i, lane] of lanes.entries()) {
      const outcome = outcomes[i]!;
      const code = typeof expected === "string" ? expected : expected[lane.name];
      assert.equal(outcome.code, code, `${lane.name} under ${attack.kind}: expected ${code}, got ${outcome.code}`);
      assert.deepEqual(await snapshot(lane.ws), before[i], `${lane.name} under ${attack.kind}: nothing may be written (lock, cache, project files, key pins)`);
      if (options.memory) {
        // Run-to-run noise of a ~130 MB CLI process is a few MB; a client that buffered an endless or 10 GB body
        // for the 5 s deadline would grow by hundreds of MB.
        const growth = outcome.rss - baselineRss[lane.name]!;
        assert.ok(growth < MAX_RSS_GROWTH, `${lane.name} under ${attack.kind}: peak RSS grew by ${(growth / 1e6).toFixed(1)} MB over the baseline (an honest run, or one waiting out the deadline; allowed ${MAX_RSS_GROWTH / 1e6} MB; the item cap is ${CAP_BYTES} bytes)`);
        if (process.env.RYE_TEST_REPORT) console.error(`report: ${lane.name} under ${attack.kind}: peak RSS ${(outcome.rss / 1e6).toFixed(1)} MB vs ${(baselineRss[lane.name]! / 1e6).toFixed(1)} MB baseline (×${(outcome.rss / baselineRss[lane.name]!).toFixed(2)})`);
      }
    }
    if (options.memory) {
      // Measured at the server (client start-up aside): every hostile pull answer was cut off within the deadline.
      const pulls = hostile.requests.filter((r) => r.started >= attackStarted && r.path.startsWith("/v1/pull/"));
      assert.ok(pulls.length >= lanes.length, `every client asked (${pulls.length} pulls)`);
      for (const r of pulls) {
        assert.ok(r.ended !== undefined, `${r.path}: the client hung up`);
        assert.ok(r.ended - r.started <= DEADLINE_MS + 1000, `${r.path} stayed open ${r.ended - r.started} ms (deadline ${DEADLINE_MS} ms)`);
        if (process.env.RYE_TEST_REPORT) console.error(`report: ${attack.kind}: a pull stayed open ${r.ended - r.started} ms (deadline ${DEADLINE_MS} ms)`);
      }
    }
  } finally {
    hostile.attack = { kind: "pass" };
  }
}

