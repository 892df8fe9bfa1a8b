/**
 * Registry throughput and latency on PostgreSQL with 10 000 published items, measured with autocannon
 * over real HTTP: pull (latest and pinned), search, and GET /health as the same-run baseline.
 * Agent Skills discovery: a namespace with 2 000 skills (pushed through the push path's service, publishSkill)
 * and the root index, against a one-skill namespace's index and /health in the same run: one-at-a-time latency
 * (p50/p99, bytes) and throughput with 16 connections.
 * Run: DATABASE_URL=postgresql://… node --import tsx apps/api/bench/registry.bench.ts
 * (`bash scripts/start-pg.sh` starts a throwaway server.) BENCH_ITEMS, BENCH_SKILLS and BENCH_SECONDS scale it.
 */
import "@rye/core/node";
import { randomBytes } from "node:crypto";
import type { KeyPair, SkillFile } from "@rye/core";
import { buildSkillManifest, generateKeyPair, sha256Hex, signSkillManifest } from "@rye/core";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { serve } from "@hono/node-server";
import { openDatabase } from "@rye/db";
import { createScratchPostgresDatabase } from "@rye/db/testing";
import { createApp } from "../src/app.ts";
import { hashToken, TOKEN_PREFIX } from "../src/auth/api-tokens.ts";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/logger.ts";
import { openRegistry } from "../src/registry.ts";
import { PostgresBlobStore } from "../src/services/blob-store.ts";
import { publishItem } from "../src/services/publish.ts";
import { publishSkill } from "../src/services/skills/publish-skill.ts";

const ITEMS = Number(process.env.BENCH_ITEMS ?? 10_000);
const SKILLS = Number(process.env.BENCH_SKILLS ?? 2_000);
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const WORDS = "deploy release build test lint format fetch parse render index search query cache queue schedule notify report audit sync backup restore migrate validate sign verify".split(" ");

if (!process.env.DATABASE_URL) {
  console.error("Set DATABASE_URL (e.g. eval \"$(bash scripts/start-pg.sh)\") — this benchmark measures the registry on PostgreSQL.");
  process.exit(2);
}

const scratch = await createScratchPostgresDatabase();
const db = await openDatabase({ databaseUrl: scratch.url });
const dataDir = await mkdtemp(join(tmpdir(), "rye-registry-bench-"));
const config = { ...loadConfig({ RYE_DATA_DIR: dataDir, RYE_LOG_LEVEL: "silent" }), rateLimit: { windowSeconds: 60, reads: 10_000_000, writes: 10_000_000 } };
const deps = await openRegistry(config, silentLogger, { db, env: { RYE_REGISTRY_KEY_DIR: join(dataDir, "keys") } });

const user = await db.prisma.user.create({ data: { username: "bench" } });
await db.prisma.namespace.create({ data: { name: "bench", userId: user.id } });
const token = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
await db.prisma.apiToken.create({ data: { userId: user.id, name: "bench", tokenHash: hashToken(token), scopes: ["items:read", "items:write"] } });
const principal = { userId: user.id, username: "bench", isAdmin: false, scopes: ["items:write"], tokenId: "bench", namespace: null };

const ids: string[] = [];
const started = performance.now();
const registryKey = await deps.keyring.signer();
const pick = (i: number, k: number) => WORDS[(i * 7 + k * 13) % WORDS.length]!;
for (let batch = 0; batch < ITEMS; batch += 16) {
  await Promise.all(
    Array.from({ length: Math.min(16, ITEMS - batch) }, async (_, j) => {
      const i = batch + j;
      const category = `area${i % 40}`;
      const id = `note_${i}`;
      const content = `---\nid: ${id}\ntitle: ${pick(i, 1)} ${pick(i, 2)} guide ${i}\nversion: 1.0.0\nentry_type: reference\ncategory: ${category}\ndescription: How to ${pick(i, 3)} and ${pick(i, 4)} with rye\n---\n\n# ${pick(i, 5)}\n\n${Array.from({ length: 60 }, (_, k) => pick(i, k)).join(" ")}\n`;
      await publishItem(
        { item_type: "knowledge", item_id: `bench/${category}/${id}`, content, version: "1.0.0" },
        { db, principal, registryKey, registryUrl: config.publicUrl, maxItemBytes: config.limits.maxItemBytes, ip: null, requestId: "bench" },
      );
      ids.push(`bench/${category}/${id}`);
    }),
  );
}
console.log(`published ${ITEMS} items in ${((performance.now() - started) / 1000).toFixed(1)} s (${(ITEMS / ((performance.now() - started) / 1000)).toFixed(0)} publishes/s)`);

// Skills: namespace "skills" with SKILLS skills (a third of them multi-file, i.e. archive entries), "solo" with one.
// A user has one namespace: each is its own user, with a registered key its manifests are signed with.
const blobs = new PostgresBlobStore(db);
const enc = (text: string) => new TextEncoder().encode(text);
const publishers = new Map<string, { key: KeyPair; principal: typeof principal }>();
for (const username of ["skills", "solo"]) {
  const owner = await db.prisma.user.create({ data: { username } });
  await db.prisma.namespace.create({ data: { name: username, userId: owner.id } });
  const key: KeyPair = await generateKeyPair();
  await db.prisma.userKey.create({ data: { userId: owner.id, fingerprint: key.publicKey.fingerprint, publicKeyPem: key.publicKey.pem } });
  publishers.set(username, { key, principal: { ...principal, userId: owner.id, username, tokenId: username } });
}
async function pushSkill(namespace: string, i: number): Promise<void> {
  const { key, principal: publisher } = publishers.get(namespace)!;
  const name = `skill-${pick(i, 1)}-${i}`;
  const files: SkillFile[] = [
    { path: "SKILL.md", bytes: enc(`---\nname: ${name}\ndescription: ${pick(i, 2)} and ${pick(i, 3)} files with rye. Use when asked to ${pick(i, 4)} a project (${i}).\nmetadata:\n  version: "1.0.0"\n---\n\n# ${name}\n\n${Array.from({ length: 40 }, (_, k) => pick(i, k)).join(" ")}\n`) },
    ...(i % 3 === 0 ? [{ path: "references/guide.md", bytes: enc(`# Guide ${i}\n\n${Array.from({ length: 80 }, (_, k) => pick(i, k + 3)).join(" ")}\n`) }] : []),
  ];
  const manifest = await signSkillManifest(buildSkillManifest(files), key);
  await publishSkill(
    { namespace, manifest, files: files.map((f) => ({ path: f.path, bytes: f.bytes, sha256: sha256Hex(f.bytes) })) },
    { db, principal: publisher, registryKey, registryUrl: config.publicUrl, blobs, ip: null, requestId: "bench" },
  );
}
const skillsStarted = performance.now();
await pushSkill("solo", 0);
for (let batch = 0; batch < SKILLS; batch += 8) {
  await Promise.all(Array.from({ length: Math.min(8, SKILLS - batch) }, (_, j) => pushSkill("skills", batch + j)));
}
console.log(`pushed ${SKILLS + 1} skills in ${((performance.now() - skillsStarted) / 1000).toFixed(1)} s`);

const server = serve({ fetch: createApp(deps).fetch, port: 0, hostname: "127.0.0.1" });
await new Promise((r) => server.once("listening", r));
const port = (server.address() as { port: number }).port;
const base = `http://127.0.0.1:${port}`;

async function run(name: string, path: () => string): Promise<{ rps: number; p50: number; p99: number }> {
  const result = await autocannon({
    url: base,
    connections: 16,
    duration: DURATION,
    requests: [{ setupRequest: (req) => ({ ...req, path: path() }) }],
  });
  if (result.non2xx > 0) throw new Error(`${name}: ${result.non2xx} non-2xx responses`);
  const row = { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
  console.log(`${name.padEnd(28)} ${row.rps.toFixed(0).padStart(7)} req/s   p50 ${String(row.p50).padStart(4)} ms   p99 ${String(row.p99).padStart(4)} ms`);
  return row;
}

/** One request at a time (no queueing): latency p50/p99 and the body's size. */
async function latency(name: string, path: string, n = 40): Promise<{ p50: number; p99: number; bytes: number; first: number }> {
  const times: number[] = [];
  let bytes = 0;
  let first = 0;
  for (let i = 0; i < n + 3; i++) {
    const t = performance.now();
    const res = await fetch(base + path);
    const body = new Uint8Array(await res.arrayBuffer());
    if (!res.ok) throw new Error(`${name}: HTTP ${res.status}`);
    if (i === 0) first = performance.now() - t;
    if (i >= 3) times.push(performance.now() - t); // the first three warm up
    bytes = body.length;
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  const row = { p50: at(0.5), p99: at(0.99), bytes, first };
  console.log(`${name.padEnd(44)} p50 ${row.p50.toFixed(1).padStart(7)} ms   p99 ${row.p99.toFixed(1).padStart(7)} ms   ${String(bytes).padStart(9)} bytes   first ${first.toFixed(0)} ms`);
  return row;
}

const random = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
const health = await run("GET /health (baseline)", () => "/health");
const pullLatest = await run("pull latest", () => `/v1/pull/knowledge/${random(ids)}`);
const pullPinned = await run("pull ?version=1.0.0", () => `/v1/pull/knowledge/${random(ids)}?version=1.0.0`);
const search = await run("search (full text)", () => `/v1/search?query=${encodeURIComponent(`${random(WORDS)} ${random(WORDS)}`)}&limit=20`);
const fuzzy = await run("search (typo → trigram)", () => `/v1/search?query=${encodeURIComponent(random(WORDS).replace(/.$/, "x"))}&limit=20`);
console.log(
  `\nthroughput ratios vs /health: pull ${(pullLatest.rps / health.rps).toFixed(2)}, pinned pull ${(pullPinned.rps / health.rps).toFixed(2)}, search ${(search.rps / health.rps).toFixed(2)}, fuzzy search ${(fuzzy.rps / health.rps).toFixed(2)}`,
);

console.log(`\nAgent Skills discovery (${SKILLS} skills in one namespace; one request at a time):`);
const idx = "/.well-known/agent-skills/index.json";
const healthOne = await latency("GET /health (baseline)", "/health");
const soloOne = await latency("one-skill namespace index (baseline)", `/solo${idx}`);
const nsOne = await latency(`namespace index (${SKILLS} skills)`, `/skills${idx}`);
const rootOne = await latency("root index", idx);
const soloRps = await run("one-skill index, 16 conns", () => `/solo${idx}`);
const indexRps = await run(`namespace index (${SKILLS}), 16 conns`, () => `/skills${idx}`);
const rootRps = await run("root index, 16 conns", () => idx);
console.log(
  `\nskills index latency p50 vs one-skill index: namespace ${(nsOne.p50 / soloOne.p50).toFixed(1)}×, root ${(rootOne.p50 / soloOne.p50).toFixed(1)}× (vs /health: ${(nsOne.p50 / healthOne.p50).toFixed(1)}×, ${(rootOne.p50 / healthOne.p50).toFixed(1)}×); ` +
    `throughput vs /health: namespace ${(indexRps.rps / health.rps).toFixed(3)}, root ${(rootRps.rps / health.rps).toFixed(3)}, one-skill ${(soloRps.rps / health.rps).toFixed(3)}; ` +
    `bytes per entry ${(nsOne.bytes / SKILLS).toFixed(0)}`,
);
server.close();
await db.close();
await scratch.drop();
