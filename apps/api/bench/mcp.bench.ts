/**
 * The registry's remote MCP server against its HTTP API, same process, same run (issue #31): at 10 000 items seeded
 * into the embedded database (apps/web/bench/search-seed.ts), `tools/call search` over `POST /mcp` against
 * `GET /v1/search` for the same queries, and `tools/call get_item` against a pinned pull (`GET /v1/pull/…?version=`)
 * of the same published item. Sequential over one keep-alive connection, the HTTP and the MCP request alternating;
 * p50 / p95 / p99 in ms and the ratio of p50s, each target printed with its baseline and met / MISSED.
 * Targets: search ≤ 1.5×, get_item ≤ 1.5×.
 *
 *   node --import tsx apps/api/bench/mcp.bench.ts      # BENCH_ITEMS=10000 BENCH_SAMPLES=200 BENCH_CPU_PROF=<dir>
 */
import { Agent, request } from "node:http";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { serve } from "@hono/node-server";
import { MEMORY, openDatabase } from "@rye/db";
import { createApp } from "../src/app.ts";
import { hashToken, TOKEN_PREFIX } from "../src/auth/api-tokens.ts";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/logger.ts";
import { openRegistry } from "../src/registry.ts";
import { seed, WORDS } from "../../web/bench/search-seed.ts";
import { knowledgeItem } from "./load.ts";

const ITEMS = Number(process.env.BENCH_ITEMS ?? 10_000);
/** BENCH_CPU_PROF=<dir>: a CPU profile of this process (client and server) while each row's pairs are timed. */
const CPU_PROFILE = process.env.BENCH_CPU_PROF;
const profiler = CPU_PROFILE ? new Session() : null;
if (profiler) {
  profiler.connect();
  await profiler.post("Profiler.enable");
}

/** Profiles `run` when BENCH_CPU_PROF is set, into <dir>/mcp-<name>.cpuprofile (Chrome DevTools or a per-function sum reads it). */
async function profiled<T>(name: string, run: () => Promise<T>): Promise<T> {
  if (!profiler || !CPU_PROFILE) return await run();
  await profiler.post("Profiler.start");
  try {
    return await run();
  } finally {
    const { profile } = await profiler.post("Profiler.stop");
    await mkdir(CPU_PROFILE, { recursive: true });
    await writeFile(join(CPU_PROFILE, `mcp-${name}.cpuprofile`), JSON.stringify(profile));
  }
}
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WARMUP = 20;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function timed(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ ms: number; status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = request(url, { agent, method: init.method ?? "GET", headers: init.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ ms: performance.now() - start, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;
const fmt = (v: number[]) => `p50 ${pct(v, 50).toFixed(2)}  p95 ${pct(v, 95).toFixed(2)}  p99 ${pct(v, 99).toFixed(2)}`;

type Timed = { ms: number; status: number; body: string };

function check(r: Timed): void {
  if (r.status !== 200) throw new Error(`status ${r.status}: ${r.body.slice(0, 300)}`);
  if (r.body.includes('"isError":true')) throw new Error(`tool error: ${r.body.slice(0, 300)}`);
}

/**
 * The HTTP and the MCP request of a pair, alternating (so a burst of load on this shared machine weighs on both),
 * WARMUP pairs first, then SAMPLES pairs (profiled when asked).
 */
async function pairs(name: string, http: (i: number) => Promise<Timed>, viaMcp: (i: number) => Promise<Timed>): Promise<[number[], number[]]> {
  const base: number[] = [];
  const mcp: number[] = [];
  for (let i = 0; i < WARMUP; i++) {
    check(await http(i));
    check(await viaMcp(i));
  }
  await profiled(name, async () => {
    for (let i = 0; i < SAMPLES; i++) {
      const h = await http(i);
      check(h);
      const m = await viaMcp(i);
      check(m);
      base.push(h.ms);
      mcp.push(m.ms);
    }
  });
  return [base, mcp];
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "rye-bench-mcp-"));
  const db = await openDatabase({ dataDir: MEMORY });
  const config = loadConfig({ RYE_DATA_DIR: dataDir, RYE_LOG_LEVEL: "silent", RYE_RATE_LIMIT_READS: "1000000000", RYE_RATE_LIMIT_WRITES: "1000000000" });
  const deps = await openRegistry(config, silentLogger, { db, env: { NODE_ENV: "production", RYE_REGISTRY_KEY_DIR: join(dataDir, "keys") } });
  const http = serve({ fetch: createApp(deps).fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((r) => http.once("listening", r));
  const url = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  try {
    const t = performance.now();
    await seed({ query: (sql: string, params?: unknown[]) => db.raw.query(sql, params) } as never, ITEMS);
    console.log(`seeded ${ITEMS} items in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    // One published item for get_item and the pinned pull.
    const user = await db.prisma.user.create({ data: { username: "bencher", email: "bencher@bench.test" } });
    await db.prisma.namespace.create({ data: { name: "bencher", userId: user.id } });
    const token = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
    await db.prisma.apiToken.create({ data: { userId: user.id, name: "bench", tokenHash: hashToken(token), scopes: ["items:read", "items:write"] } });
    const pushed = await fetch(`${url}/v1/push`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ item_type: "knowledge", item_id: "bencher/notes/guide", version: "1.0.0", content: knowledgeItem("guide") }),
    });
    if (pushed.status !== 201) throw new Error(`push: ${pushed.status} ${await pushed.text()}`);

    const mcp = (name: string, args: Record<string, unknown>, id: number) =>
      timed(`${url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }),
      });
    const queries = WORDS.slice(0, 20);
    // Both sides must do the same work: the same query answers the same items (an unknown parameter such as `q`
    // would be ignored by the route and time the unranked listing instead).
    for (const query of queries.slice(0, 3)) {
      const viaHttp = JSON.parse((await timed(`${url}/v1/search?query=${encodeURIComponent(query)}&limit=20`)).body) as { results: { item_id: string }[] };
      const viaMcp = JSON.parse((await mcp("search", { query, limit: 20 }, 0)).body) as { result: { structuredContent: { results: { item_id: string }[] } } };
      const ids = (r: { results: { item_id: string }[] }) => r.results.map((x) => x.item_id).join(",");
      if (viaHttp.results.length === 0 || ids(viaHttp) !== ids(viaMcp.result.structuredContent)) throw new Error(`search "${query}": HTTP and MCP answer different items`);
    }
    const rows: { what: string; target: number | null; times: [number[], number[]] }[] = [];
    rows.push({
      what: "fixed cost (GET /health ↔ ping)",
      target: null,
      times: await pairs(
        "ping",
        () => timed(`${url}/health`),
        (i) =>
          timed(`${url}/mcp`, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
            body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "ping" }),
          }),
      ),
    });
    rows.push({
      what: "search (GET /v1/search ↔ tools/call search)",
      target: 1.5,
      times: await pairs(
        "search",
        (i) => timed(`${url}/v1/search?query=${encodeURIComponent(queries[i % queries.length]!)}&limit=20`),
        (i) => mcp("search", { query: queries[i % queries.length], limit: 20 }, i),
      ),
    });
    rows.push({
      what: "get_item (pinned pull ↔ tools/call get_item)",
      target: 1.5,
      times: await pairs(
        "get_item",
        () => timed(`${url}/v1/pull/knowledge/bencher/notes/guide?version=1.0.0`),
        (i) => mcp("get_item", { item_type: "knowledge", item_id: "bencher/notes/guide", version: "1.0.0" }, i),
      ),
    });
    console.log(`\nMCP over POST /mcp against the HTTP API, ${ITEMS} items, ${SAMPLES} sequential pairs each, HTTP and MCP alternating (load ${loadavg()[0]!.toFixed(2)}${CPU_PROFILE ? ", profiling the MCP requests" : ""})`);
    for (const { what, times: [base, viaMcp] } of rows) console.log(`${what}\n  HTTP  ${fmt(base)}\n  MCP   ${fmt(viaMcp)}`);
    console.log("\ntarget                                        baseline (HTTP p50)  MCP p50    ratio   target   result");
    for (const { what, target, times: [base, viaMcp] } of rows) {
      const ratio = pct(viaMcp, 50) / pct(base, 50);
      const verdict = target === null ? "(reference)" : ratio <= target ? "met" : "MISSED";
      console.log(
        `${what.padEnd(46)}${`${pct(base, 50).toFixed(2)} ms`.padStart(19)}${`${pct(viaMcp, 50).toFixed(2)} ms`.padStart(11)}${`${ratio.toFixed(2)}×`.padStart(9)}${target === null ? "      —" : `   ≤ ${target}×`}   ${verdict}`,
      );
    }
  } finally {
    http.close();
    await deps.reads.close();
    await db.close();
  }
}

await main();
