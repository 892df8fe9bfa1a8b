/**
 * Search at scale: 100 000 items seeded straight into PostgreSQL (SQL, not publishes: the search path
 * reads only `items` and `namespaces`), then the real one-origin server (apps/web/server/main.ts) is
 * timed over one keep-alive connection, sequentially, against `GET /health` in the same run:
 *
 *   API   GET /v1/search for an empty query, a broad word, a rare word, a phrase, a typo (trigram
 *         fallback), with filters, with facets=1 and with sort=downloads, as anonymous and as an
 *         organization member (private items visible); GET /v1/stats.
 *   Site  /search?q=… and / : time to first byte (the page streams: the shell comes before the
 *         results) and time to the last byte (results rendered).
 *
 * Figures are p50 / p95 in ms and the p50 ratio to /health (the API's cheapest route, one SELECT 1).
 *
 *   eval "$(PGPORT=54377 bash scripts/start-pg.sh)"
 *   node --import tsx apps/web/bench/search.bench.ts      # BENCH_ITEMS=100000 BENCH_SAMPLES=60
 *   BENCH_SITE=0 node --import tsx apps/web/bench/search.bench.ts   # the API alone (no site build)
 *   BENCH_DB=pglite BENCH_ITEMS=10000 node --import tsx apps/web/bench/search.bench.ts   # the API on PGlite
 *
 * Broad queries answer with an estimated total (services/search.ts); the note column says "≈" then. Compare
 * PGlite with PostgreSQL at 10 000 items by running both (the /health ratio column makes runs comparable).
 *   bash scripts/stop-pg.sh
 */
import { randomBytes } from "node:crypto";
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
import { hashToken, TOKEN_PREFIX } from "../../api/src/auth/api-tokens.ts";
import { loadConfig } from "../../api/src/config.ts";
import { silentLogger } from "../../api/src/logger.ts";
import { openRegistry } from "../../api/src/registry.ts";
import { startServer } from "../../../e2e/helpers/server.ts";

const ITEMS = Number(process.env.BENCH_ITEMS ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 60);
const WARMUP = 5;
const SITE = process.env.BENCH_SITE !== "0";

/** BENCH_DB=pglite runs the API on the embedded PGlite (in memory) instead of PostgreSQL. */
const ENGINE = process.env.BENCH_DB === "pglite" ? "pglite" : "postgres";

if (ENGINE === "postgres" && !process.env.DATABASE_URL) {
  console.error('Set DATABASE_URL (eval "$(PGPORT=54377 bash scripts/start-pg.sh)"): this benchmark measures search on PostgreSQL.');
  process.exit(2);
}

// ------------------------------------------------------------------ data
// 400 words, Zipf-like use (word k appears about 1/k as often), so a query can be broad or rare.
const WORDS = Array.from({ length: 400 }, (_, k) => {
  const base = ["deploy", "release", "build", "test", "lint", "format", "fetch", "parse", "render", "index", "search", "query", "cache", "queue", "schedule", "notify", "report", "audit", "sync", "backup", "restore", "migrate", "validate", "sign", "verify", "kubernetes", "terraform", "docker", "python", "review"];
  return k < base.length ? base[k]! : `${base[k % base.length]}${String.fromCharCode(97 + (k % 26))}${Math.floor(k / 26)}`;
});

/** What seeding needs of a database connection (a pg.Client, or PGlite's raw query). */
interface SeedSql {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

/** Seeds users, organizations, namespaces and ITEMS items in a few INSERT … SELECT statements. */
async function seed(client: SeedSql): Promise<{ memberToken: string }> {
  {
    const t = performance.now();
    await client.query("BEGIN");
    // The read-generation triggers are deferred; pending events would forbid the ALTER TABLE below.
    await client.query("SET CONSTRAINTS ALL IMMEDIATE");
    await client.query(`CREATE TEMP TABLE words (k int PRIMARY KEY, w text) ON COMMIT DROP`);
    await client.query(`INSERT INTO words SELECT k - 1, w FROM unnest($1::text[]) WITH ORDINALITY AS u(w, k)`, [WORDS]);
    // 300 users and 30 organizations (with namespaces); the bench user is a member of every organization.
    await client.query(`
      INSERT INTO users (id, username, email, display_name, created_at, updated_at)
      SELECT gen_random_uuid(), 'user' || g, 'user' || g || '@bench.test', '', now(), now() FROM generate_series(1, 300) g`);
    await client.query(`INSERT INTO namespaces (id, name, user_id, created_at) SELECT gen_random_uuid(), username, id, now() FROM users WHERE username LIKE 'user%'`);
    await client.query(`INSERT INTO organizations (id, name, display_name, created_at) SELECT gen_random_uuid(), 'org' || g, '', now() FROM generate_series(1, 30) g`);
    await client.query(`INSERT INTO namespaces (id, name, org_id, created_at) SELECT gen_random_uuid(), name, id, now() FROM organizations WHERE name LIKE 'org%'`);
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM users WHERE username = 'user1'`);
    const memberId = rows[0]!.id;
    await client.query(`INSERT INTO memberships (org_id, user_id, role, created_at) SELECT id, $1::uuid, 'member', now() FROM organizations WHERE name LIKE 'org%'`, [memberId]);
    const memberToken = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
    await client.query(
      `INSERT INTO api_tokens (id, user_id, name, token_hash, scopes, created_at) VALUES (gen_random_uuid(), $1::uuid, 'bench', $2, ARRAY['items:read'], now())`,
      [memberId, hashToken(memberToken)],
    );
    // Items: types 40 % tool / 35 % knowledge / 25 % directive; 3 % private (organizations), 2 % unlisted;
    // 40 top-level categories with 5 sub-categories; heavy-tailed download counts; a year of updates.
    const w = (expr: string) => `(SELECT w FROM words WHERE k = (${expr})::int % 400)`;
    const zipf = (salt: number) => `floor(exp(ln(400) * ((hashint4(g * ${salt}) & 65535)::float8 / 65536)))::int - 1`;
    await client.query(
      `
      WITH ns AS (SELECT id, name, row_number() OVER (ORDER BY name) - 1 AS n, org_id IS NOT NULL AS org FROM namespaces WHERE name ~ '^(user|org)[0-9]+$'),
      g AS (SELECT g, (hashint4(g) & 2147483647) AS h FROM generate_series(1, $1::int) g)
      INSERT INTO items (id, type, namespace_id, category, name, description, visibility, deprecated, latest_version, download_count, tool_type, file_extension, created_at, updated_at)
      SELECT gen_random_uuid(),
             (CASE WHEN h % 100 < 40 THEN 'tool' WHEN h % 100 < 75 THEN 'knowledge' ELSE 'directive' END)::item_type,
             ns.id,
             'area' || (h / 7 % 40) || CASE WHEN h % 3 = 0 THEN '' ELSE '/sub' || (h / 11 % 5) END,
             ${w(zipf(3))} || '_' || ${w(zipf(5))} || '_' || g,
             initcap(${w(zipf(7))}) || ' and ' || ${w(zipf(11))} || ' for ' || ${w(zipf(13))} || ' ' || ${w(zipf(17))} || ' with ' || ${w(zipf(19))} || ' pipelines',
             (CASE WHEN ns.org AND h % 100 < 60 THEN 'private' WHEN h % 100 = 99 THEN 'unlisted' ELSE 'public' END)::visibility,
             h % 97 = 0,
             '1.' || (h % 10) || '.0',
             CASE WHEN h % 10 = 0 THEN (h % 5000) ELSE h % 40 END,
             CASE WHEN h % 100 < 40 THEN (ARRAY['python','javascript','bash','http','mcp'])[1 + h % 5] END,
             CASE WHEN h % 100 < 40 THEN '.py' WHEN h % 100 < 75 THEN '.md' ELSE '.md' END,
             now() - ((h % 365) || ' days')::interval,
             now() - ((h % 365) || ' days')::interval + ((h % 86400) || ' seconds')::interval
      FROM g JOIN ns ON ns.n = g.h % (SELECT count(*) FROM ns)`,
      [ITEMS],
    );
    // The same document the publish path writes (services/search-document.ts), with generated content.
    // The per-row trigger that keeps item_search_terms is replaced by one set-based insert (same ranks).
    await client.query(`ALTER TABLE items DISABLE TRIGGER items_search_terms`);
    await client.query(`
      UPDATE items SET search_document =
        setweight(to_tsvector('simple', regexp_replace(name, '[_/.-]', ' ', 'g') || ' ' || name), 'A') ||
        setweight(to_tsvector('simple', coalesce(description, '')), 'B') ||
        setweight(to_tsvector('simple', regexp_replace(category, '[_/.-]', ' ', 'g')), 'C') ||
        setweight(to_tsvector('simple', description || ' ' || name || ' notes about ' || category), 'D')
      WHERE namespace_id IN (SELECT id FROM namespaces WHERE name ~ '^(user|org)[0-9]+$')`);
    await client.query(`
      INSERT INTO item_search_terms (term, item_id, rank)
      SELECT u.lexeme, i.id, ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', i.search_document, quote_literal(u.lexeme)::tsquery, 32)
      FROM items i, unnest(i.search_document) AS u(lexeme, positions, weights)
      WHERE i.namespace_id IN (SELECT id FROM namespaces WHERE name ~ '^(user|org)[0-9]+$')`);
    await client.query(`ALTER TABLE items ENABLE TRIGGER items_search_terms`);
    await client.query("COMMIT");
    await client.query("VACUUM ANALYZE items");
    await client.query("VACUUM ANALYZE item_search_terms");
    await client.query("ANALYZE namespaces");
    const count = await client.query<{ n: string; public: string }>(`SELECT count(*) AS n, count(*) FILTER (WHERE visibility = 'public') AS public FROM items`);
    console.log(`seeded ${count.rows[0]!.n} items (${count.rows[0]!.public} public) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    return { memberToken };
  }
}

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
async function start(): Promise<{ baseURL: string; sql: SeedSql; stop(): Promise<void> }> {
  const connect = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return client;
  };
  if (SITE && ENGINE === "postgres") {
    const server = await startServer();
    if (!server.databaseUrl) throw new Error("expected a PostgreSQL server (DATABASE_URL)");
    const client = await connect(server.databaseUrl);
    return { baseURL: server.baseURL, sql: client, stop: async () => (await client.end(), await server.stop()) };
  }
  await import("@rye/core/node");
  const scratch = ENGINE === "postgres" ? await createScratchPostgresDatabase() : null;
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

const server = await start();
try {
  const { memberToken } = await seed(server.sql);
  const base = server.baseURL;
  const member = { authorization: `Bearer ${memberToken}` };
  const rows: Row[] = [];
  const add = (row: Row & { sample?: string }, note?: (body: Record<string, any>) => string) => {
    if (note && row.sample) row.note = note(JSON.parse(row.sample) as Record<string, any>);
    delete row.sample;
    rows.push(row);
  };
  const total = (b: Record<string, any>) => `total ${b.total_estimated ? "≈" : ""}${b.total}`;

  const health = await measure("GET /health (baseline)", `${base}/health`);
  add(health);
  const broad = WORDS[0]!; // the most frequent word
  const rare = WORDS[350]!;
  const api = (params: Record<string, string>) => `${base}/v1/search?${new URLSearchParams(params)}`;
  add(await measure("search: empty query (recent)", api({ query: "" })), total);
  add(await measure("search: empty query + facets", api({ query: "", facets: "1" })), total);
  add(await measure(`search: broad "${broad}"`, api({ query: broad })), total);
  add(await measure(`search: broad "${broad}" + facets`, api({ query: broad, facets: "1" })), total);
  add(await measure(`search: broad, sort=downloads`, api({ query: broad, sort: "downloads" })), total);
  add(await measure(`search: rare "${rare}" + facets`, api({ query: rare, facets: "1" })), total);
  add(await measure(`search: two words`, api({ query: `${WORDS[1]} ${WORDS[3]}`, facets: "1" })), total);
  add(await measure(`search: typo "kubernets" (trigram)`, api({ query: "kubernets", facets: "1" })), total);
  add(await measure(`search: filters type+category`, api({ query: WORDS[2]!, item_type: "tool", category: "area7", facets: "1" })), total);
  add(await measure(`search: namespace filter`, api({ query: "", namespace: "user42", facets: "1" })), total);
  add(await measure(`search: member, broad + facets`, api({ query: broad, facets: "1" }), member), total);
  add(await measure(`search: offset 2000`, api({ query: broad, offset: "2000" })), total);
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

  const ratio = (v: number) => `${(v / health.p50).toFixed(1)}×`;
  console.log(`\n${ITEMS} items, ${ENGINE === "pglite" ? "PGlite (in memory)" : "PostgreSQL"}, ${SAMPLES} sequential samples each (keep-alive), after ${WARMUP} warm-up requests, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  console.log(`${"".padEnd(48)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"ratio".padStart(7)} ${"TTFB p50".padStart(9)}`);
  for (const r of rows) {
    console.log(`${r.name.padEnd(48)} ${r.p50.toFixed(1).padStart(8)} ${r.p95.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${ratio(r.p50).padStart(7)} ${(r.ttfbP50 ?? r.p50).toFixed(1).padStart(9)}  ${r.note ?? ""}`);
  }
  console.log("\nratio = p50 / p50 of GET /health in this run; pages stream, so TTFB is the shell and p50 the whole page with results.");
} finally {
  await server.stop();
}
