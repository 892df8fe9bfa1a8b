/**
 * Scale-out (issue #14): pull throughput through haproxy with 1 vs 2 API processes on one PostgreSQL, in the same
 * run, with the same balancer and database (apps/api/test/topology/topology.ts): the "1 process" lane pins every
 * request to process A (X-Rye-Target), the "2 processes" lane lets haproxy balance. The figure is the ratio.
 * Then the cost of the shared rate-limit counter (one UPSERT per request): the same pull through one process whose
 * windows are counted in memory (RYE_RATE_LIMIT_STORE=memory, what PGlite uses), and the counter alone (hits per
 * second of each store at the same concurrency).
 *
 * autocannon c=BENCH_CONNECTIONS (50) for BENCH_SECONDS (10) per lane, after a 2 s warm-up. On a machine with
 * fewer cores than processes + PostgreSQL + haproxy + autocannon, the ratio says more about the machine than
 * about the registry: the core count is printed with it.
 * Run: node --import tsx apps/api/bench/topology.bench.ts
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { openDatabase } from "@rye/db";
import { createScratchPostgresDatabase } from "@rye/db/testing";
import { hashToken, TOKEN_PREFIX } from "../src/auth/api-tokens.ts";
import { MemoryWindowCounters, PostgresWindowCounters, type WindowCounters } from "../src/services/window-counters.ts";
import { HAPROXY, startTopology, type Topology } from "../test/topology/topology.ts";
import { postgresServer } from "./postgres-server.ts";
import { type Figures, formatFigures, knowledgeItem, loadFigures } from "./load.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

const load = (url: string, headers: Record<string, string> = {}) => loadFigures(url, { connections: CONNECTIONS, seconds: SECONDS, headers });

/** A user, its namespace and a read/write token, straight in the database. */
async function publisher(databaseUrl: string): Promise<string> {
  const db = await openDatabase({ databaseUrl, migrate: false });
  try {
    const user = await db.prisma.user.create({ data: { username: "bench", email: "bench@example.test" } });
    await db.prisma.namespace.create({ data: { name: "bench", userId: user.id } });
    const token = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
    await db.prisma.apiToken.create({ data: { userId: user.id, name: "bench", tokenHash: hashToken(token), scopes: ["items:read", "items:write"] } });
    return token;
  } finally {
    await db.close();
  }
}

/** Hits per second of `counters` at CONNECTIONS concurrent callers, each on its own key (as distinct clients). */
async function counterRate(counters: WindowCounters, ms: number): Promise<number> {
  let hits = 0;
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      while (Date.now() < end) {
        await counters.hit(`bench:${i}`, 60_000);
        hits++;
      }
    }),
  );
  return hits / (ms / 1000);
}

if (!existsSync(HAPROXY)) {
  console.log(`topology bench: skipped: no haproxy at ${HAPROXY} (apt install haproxy)`);
  process.exit(0);
}
const server = await postgresServer().catch((err: Error) => `could not start PostgreSQL: ${err.message}`);
if (typeof server === "string") {
  console.log(`topology bench: skipped: ${server}`);
  process.exit(0);
}
process.env.DATABASE_URL = server.url;
try {
  console.log(`topology bench: ${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(2)}; c=${CONNECTIONS}, ${SECONDS} s per lane`);
  const limits = { RYE_LOG_LEVEL: "warn", RYE_RATE_LIMIT_READS: "1000000000", RYE_RATE_LIMIT_WRITES: "1000000000", NODE_ENV: "production" };
  const pinnedPull = async (topo: Topology) => {
    const token = await publisher(topo.databaseUrl);
    const pushed = await fetch(`${topo.url}/v1/push`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ item_type: "knowledge", item_id: "bench/notes/hot", content: knowledgeItem("hot"), version: "1.0.0" }),
    });
    if (pushed.status !== 201) throw new Error(`push failed: ${pushed.status} ${await pushed.text()}`);
    return `${topo.url}/v1/pull/knowledge/bench/notes/hot?version=1.0.0`;
  };
  let one: Figures;
  const topo = await startTopology({ processes: 2, env: limits });
  try {
    const url = await pinnedPull(topo);
    one = await load(url, { "x-rye-target": "a" });
    console.log(`  pinned pull, 1 process   ${formatFigures(one)}`);
    const two = await load(url);
    console.log(`  pinned pull, 2 processes ${formatFigures(two)}`);
    console.log(`  2 processes ÷ 1 process: ${(two.rps / one.rps).toFixed(2)}× (ideal 2.00× needs ≥ 2 free cores per API process beside PostgreSQL, haproxy and the load generator)`);
  } finally {
    await topo.stop();
  }
  const single = await startTopology({ processes: 1, env: { ...limits, RYE_RATE_LIMIT_STORE: "memory" } });
  try {
    const memory = await load(await pinnedPull(single), { "x-rye-target": "a" });
    console.log(`  pinned pull, 1 process, rate limits in memory ${formatFigures(memory)}`);
    console.log(`  shared (PostgreSQL) rate-limit windows ÷ in-memory windows, 1 process: ${(one.rps / memory.rps).toFixed(2)}×`);
  } finally {
    await single.stop();
  }

  // The shared rate-limit counter, without HTTP: the PostgreSQL UPSERT against the in-memory map.
  const scratch = await createScratchPostgresDatabase();
  const db = await openDatabase({ databaseUrl: scratch.url });
  try {
    const ms = Math.min(SECONDS, 5) * 1000;
    const memory = await counterRate(new MemoryWindowCounters(), ms);
    const shared = await counterRate(new PostgresWindowCounters(db), ms);
    console.log(`  rate-limit counter alone, ${CONNECTIONS} callers: memory ${memory.toFixed(0)} hits/s, PostgreSQL UPSERT ${shared.toFixed(0)} hits/s (${(1e6 / shared).toFixed(0)} µs of pool time per hit)`);
  } finally {
    await db.close();
    await scratch.drop();
  }
} finally {
  server.stop();
}
