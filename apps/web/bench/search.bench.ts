/**
 * Search at scale: 100 000 items seeded straight into PostgreSQL (SQL, not publishes: the search path
 * reads only `items`, `namespaces` and `item_search_terms`), then the API (or, with BENCH_SITE=1, the real
 * one-origin server, apps/web/server/main.ts, built first when stale) is timed over one keep-alive
 * connection, sequentially, against `GET /health` in the same run:
 *
 *   API   GET /v1/search for an empty query, a broad word, a rare word, two words, a typo (trigram
 *         fallback), with filters, with facets=1 and with sort=downloads, as anonymous and as an
 *         organization member (private items visible); GET /v1/stats.
 *   Site  (BENCH_SITE=1) /search?q=… and / : time to first byte (the page streams: the shell comes before
 *         the results) and time to the last byte (results rendered).
 *
 * Then PGlite against PostgreSQL at 10 000 items (BENCH_COMPARE_ITEMS; 0 skips it, as BENCH_ITEMS=0 skips the
 * first part): both engines seeded alike, each query class timed on PostgreSQL and right after on PGlite,
 * and PGlite ÷ PostgreSQL per class (the issue's target: ≤ 2).
 *
 * Figures are p50 / p95 / p99 in ms and the p50 ratio to /health (the API's cheapest route, one SELECT 1).
 * PostgreSQL is DATABASE_URL when set, else a throwaway cluster this bench starts and stops
 * (apps/api/bench/postgres-server.ts).
 *
 *   node --import tsx apps/web/bench/search.bench.ts      # BENCH_ITEMS=100000 BENCH_SAMPLES=60 BENCH_COMPARE_ITEMS=10000
 *   BENCH_DB=pglite BENCH_ITEMS=10000 node --import tsx apps/web/bench/search.bench.ts   # the first part on PGlite
 *   DATABASE_URL=… BENCH_KEEP_DB=1 …   keeps the seeded databases for EXPLAIN ANALYZE (URLs printed; a
 *                                      throwaway cluster, without DATABASE_URL, is stopped at the end)
 *
 * Broad queries answer with an estimated total (services/search.ts); the note column says "≈" then.
 */
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import pg from "pg";
import { MEMORY, openDatabase } from "@rye/db";
import { createScratchPostgresDatabase } from "@rye/db/testing";
import { createApp } from "../../api/src/app.ts";
import { loadConfig } from "../../api/src/config.ts";
import { silentLogger } from "../../api/src/logger.ts";
import { openRegistry } from "../../api/src/registry.ts";
import { startServer } from "../../../e2e/helpers/server.ts";
import { seed, type SeedSql, WORDS } from "./search-seed.ts";
import { postgresServer } from "../../api/bench/postgres-server.ts";

const ITEMS = Number(process.env.BENCH_ITEMS ?? 100_000);
const COMPARE_ITEMS = Number(process.env.BENCH_COMPARE_ITEMS ?? 10_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 60);
const WARMUP = 5;
/** The site part builds the site first when it is stale (a Next build of minutes), so it runs only when asked. */
const SITE = process.env.BENCH_SITE === "1";

type Engine = "postgres" | "pglite";
/** BENCH_DB=pglite runs the first part on the embedded PGlite (in memory) instead of PostgreSQL. */
const ENGINE: Engine = process.env.BENCH_DB === "pglite" ? "pglite" : "postgres";

// ------------------------------------------------------------------ timing
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function timedGet(url: string, headers: Record<string, string> = {}): Promise<{ ttfb: number; total: number; status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = request(url, { agent, headers: { accept: "text/html,application/json", ...headers } }, (res) => {
      let ttfb: number | undefined;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => {
        ttfb ??= performance.now() - start;
        chunks.push(c);
      });
      res.on("end", () => {
        const total = performance.now() - start;
        resolve({ ttfb: ttfb ?? total, total, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

interface Row {
  name: string;
  p50: number;
  p95: number;
  p99: number;
  ttfbP50?: number;
  note?: string;
}

async function measure(name: string, url: string, headers: Record<string, string> = {}, samples = SAMPLES): Promise<Row & { sample: string }> {
  let sample = "";
  for (let i = 0; i < WARMUP; i++) {
    const r = await timedGet(url, headers);
    if (r.status !== 200) throw new Error(`${name}: ${url} answered ${r.status}: ${r.body.slice(0, 300)}`);
    sample = r.body;
  }
  const total: number[] = [];
  const ttfb: number[] = [];
  for (let i = 0; i < samples; i++) {
    const r = await timedGet(url, headers);
    total.push(r.total);
    ttfb.push(r.ttfb);
  }
  return { name, p50: pct(total, 50), p95: pct(total, 95), p99: pct(total, 99), ttfbP50: pct(ttfb, 50), sample };
}

// ------------------------------------------------------------------ run
/** The one-origin server (site + API) as `npm start` runs it, or the API alone on a scratch database. */
async function start(engine: Engine, site: boolean): Promise<{ baseURL: string; sql: SeedSql; stop(): Promise<void> }> {
  const connect = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return client;
  };
  if (site && engine === "postgres") {
    const server = await startServer();
    if (!server.databaseUrl) throw new Error("expected a PostgreSQL server (DATABASE_URL)");
    const client = await connect(server.databaseUrl);
    return { baseURL: server.baseURL, sql: client, stop: async () => (await client.end(), await server.stop()) };
  }
  await import("@rye/core/node");
  const scratch = engine === "postgres" ? await createScratchPostgresDatabase() : null;
  const db = await openDatabase(scratch ? { databaseUrl: scratch.url } : { dataDir: MEMORY });
  const client = scratch ? await connect(scratch.url) : null;
  const dataDir = await mkdtemp(join(tmpdir(), "rye-search-bench-"));
  const config = { ...loadConfig({ NODE_ENV: "production", RYE_DATA_DIR: dataDir, RYE_LOG_LEVEL: "silent" }), rateLimit: { windowSeconds: 60, reads: 10_000_000, writes: 10_000_000 } };
  const deps = await openRegistry(config, silentLogger, { db, env: { NODE_ENV: "production", RYE_REGISTRY_KEY_DIR: join(dataDir, "keys") } });
  const http = serve({ fetch: createApp(deps).fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((r) => http.once("listening", r));
  const { port } = http.address() as { port: number };
  return {
    baseURL: `http://127.0.0.1:${port}`,
    sql: client ?? db.raw,
    async stop() {
      http.close();
      await client?.end();
      await db.close();
      if (!scratch) return;
      // BENCH_KEEP_DB=1 keeps the seeded database for EXPLAIN ANALYZE (its URL is printed).
      if (process.env.BENCH_KEEP_DB === "1") console.log(`kept ${scratch.url}`);
      else await scratch.drop();
    },
  };
}

const health = (base: string) => measure("GET /health (baseline)", `${base}/health`);
const api = (base: string, params: Record<string, string>) => `${base}/v1/search?${new URLSearchParams(params)}`;
const broad = WORDS[0]!; // the most frequent word
const rare = WORDS[350]!;
/** The issue's query classes (target: p50 ≤ 20 ms and p99 ≤ 80 ms at 100 000 items on PostgreSQL). */
const CLASSES: [name: string, params: Record<string, string>][] = [
  [`broad "${broad}"`, { query: broad }],
  [`broad "${broad}" + facets`, { query: broad, facets: "1" }],
  [`rare "${rare}" + facets`, { query: rare, facets: "1" }],
  [`two words "${WORDS[1]} ${WORDS[3]}" + facets`, { query: `${WORDS[1]} ${WORDS[3]}`, facets: "1" }],
  [`typo "kubernets" + facets`, { query: "kubernets", facets: "1" }],
];
const loadAverage = () => loadavg().map((l) => l.toFixed(2)).join(" ");
const total = (b: Record<string, any>) => `total ${b.total_estimated ? "≈" : ""}${b.total}`;

async function atScale(): Promise<void> {
  const server = await start(ENGINE, SITE);
  try {
    const { memberToken } = await seed(server.sql, ITEMS);
    const base = server.baseURL;
    const member = { authorization: `Bearer ${memberToken}` };
    const rows: Row[] = [];
    const add = (row: Row & { sample?: string }, note?: (body: Record<string, any>) => string) => {
      if (note && row.sample) row.note = note(JSON.parse(row.sample) as Record<string, any>);
      delete row.sample;
      rows.push(row);
    };
    const baseline = await health(base);
    add(baseline);
    add(await measure("search: empty query (recent)", api(base, { query: "" })), total);
    add(await measure("search: empty query + facets", api(base, { query: "", facets: "1" })), total);
    for (const [name, params] of CLASSES) add(await measure(`search: ${name}`, api(base, params)), total);
    add(await measure(`search: broad, sort=downloads`, api(base, { query: broad, sort: "downloads" })), total);
    add(await measure(`search: typo of a whole name`, api(base, { query: "cacheq1_kubernetsh3_50264", facets: "1" })), total);
    add(await measure(`search: typo "relese" (few word matches)`, api(base, { query: "relese", facets: "1" })), total);
    add(await measure(`search: filters type+category`, api(base, { query: WORDS[2]!, item_type: "tool", category: "area7", facets: "1" })), total);
    add(await measure(`search: namespace filter`, api(base, { query: "", namespace: "user42", facets: "1" })), total);
    add(await measure(`search: member, broad + facets`, api(base, { query: broad, facets: "1" }), member), total);
    add(await measure(`search: offset 2000`, api(base, { query: broad, offset: "2000" })), total);
    add(await measure("GET /v1/stats (cached)", `${base}/v1/stats`), (b) => `${b.items.total} public items`);

    const page = async (name: string, path: string) => {
      if (!SITE) return;
      const row = await measure(name, `${base}${path}`);
      if (!/results?/.test(row.sample) && path.startsWith("/search")) throw new Error(`${path}: no results in the page`);
      delete (row as { sample?: string }).sample;
      rows.push(row);
    };
    await page("page: / (home)", "/");
    await page("page: /search (browse)", "/search");
    await page(`page: /search?q=${broad}`, `/search?q=${broad}`);
    await page(`page: /search?q=${broad}&type=tool&sort=downloads`, `/search?q=${broad}&type=tool&sort=downloads`);
    await page(`page: /search?q=${rare}`, `/search?q=${rare}`);

    const ratio = (v: number) => `${(v / baseline.p50).toFixed(1)}×`;
    console.log(`\n${ITEMS} items, ${ENGINE === "pglite" ? "PGlite (in memory)" : "PostgreSQL"}, ${SAMPLES} sequential samples each (keep-alive), after ${WARMUP} warm-up requests, load average ${loadAverage()}`);
    console.log(`${"".padEnd(52)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"ratio".padStart(7)} ${"TTFB p50".padStart(9)}`);
    for (const r of rows) {
      console.log(`${r.name.padEnd(52)} ${r.p50.toFixed(1).padStart(8)} ${r.p95.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${ratio(r.p50).padStart(7)} ${(r.ttfbP50 ?? r.p50).toFixed(1).padStart(9)}  ${r.note ?? ""}`);
    }
    console.log("ratio = p50 / p50 of GET /health in this run" + (SITE ? "; pages stream, so TTFB is the shell and p50 the whole page with results." : "."));
  } finally {
    await server.stop();
  }
}

/**
 * PGlite against PostgreSQL at COMPARE_ITEMS items: both servers up and seeded alike, every class warmed up
 * on both, then each class timed on PostgreSQL and right after on PGlite, so a change of the machine's load
 * during the run falls on both engines alike.
 */
async function pgliteAgainstPostgres(): Promise<void> {
  const servers = { postgres: await start("postgres", false), pglite: await start("pglite", false) };
  try {
    for (const server of Object.values(servers)) await seed(server.sql, COMPARE_ITEMS);
    // PGlite's WebAssembly is compiled to optimized code as it runs: every class runs a few times on both
    // engines before any is timed, or the first class timed would pay for it alone.
    for (let round = 0; round < WARMUP; round++) for (const server of Object.values(servers)) for (const [, params] of CLASSES) await timedGet(api(server.baseURL, params));
    const rows: [name: string, postgres: Row, pglite: Row][] = [["GET /health (baseline)", await health(servers.postgres.baseURL), await health(servers.pglite.baseURL)]];
    for (const [name, params] of CLASSES) {
      const timed = async (server: { baseURL: string }) => {
        const row = await measure(name, api(server.baseURL, params));
        row.note = total(JSON.parse(row.sample) as Record<string, any>);
        return row;
      };
      rows.push([name, await timed(servers.postgres), await timed(servers.pglite)]);
    }
    console.log(`\nPGlite (in memory) ÷ PostgreSQL, ${COMPARE_ITEMS} items each, ${SAMPLES} samples, load average ${loadAverage()}`);
    console.log(`${"".padEnd(44)} ${"PG p50".padStart(8)} ${"PG p99".padStart(8)} ${"PGlite p50".padStart(11)} ${"PGlite p99".padStart(11)} ${"PGlite÷PG".padStart(10)}`);
    for (const [name, a, b] of rows) {
      console.log(`${name.padEnd(44)} ${a.p50.toFixed(1).padStart(8)} ${a.p99.toFixed(1).padStart(8)} ${b.p50.toFixed(1).padStart(11)} ${b.p99.toFixed(1).padStart(11)} ${`${(b.p50 / a.p50).toFixed(1)}×`.padStart(10)}  ${b.note ?? ""}`);
    }
    console.log("PGlite÷PG = PGlite p50 / PostgreSQL p50 of the same class (target ≤ 2). PGlite answers one query at a time, in this");
    console.log("process (with the HTTP server and this client); PostgreSQL's backends run beside it on the other core.");
  } finally {
    await servers.postgres.stop();
    await servers.pglite.stop();
  }
}

const postgres = ENGINE === "postgres" || COMPARE_ITEMS > 0 ? await postgresServer() : null;
if (typeof postgres === "string") {
  console.error(`search bench: ${postgres}`);
  process.exit(2);
}
if (postgres) process.env.DATABASE_URL = postgres.url;
try {
  if (ITEMS > 0) await atScale();
  if (COMPARE_ITEMS > 0) await pgliteAgainstPostgres();
} finally {
  postgres?.stop();
}
