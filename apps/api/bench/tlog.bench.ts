/**
 * The transparency log's serving speed (issue #32), against a registry process on PostgreSQL whose log was generated
 * (tlog-log.ts) at each size of BENCH_TLOG_SIZES (default 1000,100000; the 1000000 is opt-in,
 * BENCH_TLOG_SIZES=1000,1000000: its generation alone takes 2–2.5 min here), with one item published on top:
 *
 * - tiles (full level-0 tiles among the last 64 and among all, the full level-1 tiles, full entry bundles likewise) vs a pinned pull
 *   (`GET /v1/pull/knowledge/…?version=`) at the same concurrency: ratio (target ≥ 1);
 * - inclusion proofs (random index; and one entry's, as the pull path asks) and consistency proofs (random older
 *   size) against the signed checkpoint: throughput, p50/p99;
 * - a pinned pull with its proof (`&tlog_from=`, as the rye client asks) vs the same pull without (target ≥ 0.9×);
 * - a pinned pull's p99 while proofs are built next to it (half the connections each; target ≤ 30 ms at 1 000 000),
 *   against the same pull alone at those connections run just before (what the shared machine allows);
 * - in this process, building one inclusion proof (`inclusionProofFor`) without a cache, with the full tiles cached,
 *   and once built (the proof cache), and a
 *   client's verification of a pull's proof (signed checkpoint opened + audit path checked; target ≤ 1 ms).
 *
 * The load generator discards response bodies (load.ts: autocannon would decode each binary tile as UTF-8, which
 * cost it more than the server spent serving it), for every load alike.
 * PostgreSQL: DATABASE_URL, else a throwaway cluster; none → skipped with the reason. BENCH_SECONDS (default 4),
 * BENCH_CONNECTIONS (50), BENCH_RUNTIME=tsx (default: the compiled server).
 * Run: node --import tsx apps/api/bench/tlog.bench.ts
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { fromBase64, leafHash, openNote, parseCheckpoint, parseNoteVerifierKey, tilePath, TILE_WIDTH, toHex, verifyInclusion } from "@rye/core";
import { openDatabase } from "@rye/db";
import { createScratchPostgresDatabase } from "@rye/db/testing";
import { ensureServerBuild } from "../../../scripts/build-server.mjs";
import { inclusionProofFor } from "../src/services/log-proofs.ts";
import { configureTileCache, DEFAULT_TILE_CACHE_TILES, treeRootAt } from "../src/services/log-tree.ts";
import { startApiProcess } from "./api-process.ts";
import { publishBenchItem } from "./bench-item.ts";
import { type Figures, formatFigures, loadFigures } from "./load.ts";
import { postgresServer } from "./postgres-server.ts";
import { generateLog } from "./tlog-log.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const RUNTIME = process.env.BENCH_RUNTIME === "tsx" ? "tsx" : "dist";
// 1 000 000 entries is opt-in: generating them takes 2–2.5 min of the shared 2-core machine, more than the rest.
const SIZES = (process.env.BENCH_TLOG_SIZES ?? "1000,100000").split(",").map(Number);
const PROOFS_IN_PROCESS = 300;
const VERIFICATIONS = 2_000;

const random = (n: number) => Math.floor(Math.random() * n);
const ms = (x: number) => Number(x.toFixed(3));

function percentiles(samples: number[]): { mean: number; p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { mean: ms(sorted.reduce((a, b) => a + b, 0) / sorted.length), p50: ms(at(0.5)), p99: ms(at(0.99)) };
}

interface LaneResult {
  entries: number;
  generate_seconds: number;
  pinned: Figures;
  tiles: Record<string, Figures & { vs_pinned: number }>;
  inclusion: Figures;
  inclusion_one_entry: Figures & { vs_pinned: number };
  pinned_with_proof: Figures & { vs_pinned: number };
  consistency: Figures;
  mixed: { pinned: Figures; inclusion: Figures; pinned_alone: Figures };
  build_ms: { uncached: ReturnType<typeof percentiles>; tiles_cached: ReturnType<typeof percentiles>; proof_cached: ReturnType<typeof percentiles> };
  client_verify_ms: number;
}

async function lane(serverUrl: string, size: number): Promise<LaneResult> {
  const scratch = await createScratchPostgresDatabase(serverUrl);
  const db = await openDatabase({ databaseUrl: scratch.url });
  let api: Awaited<ReturnType<typeof startApiProcess>> | undefined;
  try {
    const started = performance.now();
    const generated = await generateLog(db, size, { progress: (n) => n % 200_000 === 0 && process.stdout.write(`  generated ${n} entries\r`) });
    const generateSeconds = (performance.now() - started) / 1000;
    if (toHex(await treeRootAt(db.prisma, size)) !== toHex(generated.root)) throw new Error("the generated tiles do not hash to the generated root");

    api = await startApiProcess({ DATABASE_URL: scratch.url, RYE_CHECKPOINT_EVERY_ENTRIES: "1" }, { runtime: RUNTIME, dataDirPrefix: "rye-bench-tlog-" });
    const item = await publishBenchItem(api.url, ["1.0.0"]);
    const keys = ((await (await fetch(`${api.url}/v1/tlog/info`)).json()) as { verifier_keys: string[] }).verifier_keys.map((k) => parseNoteVerifierKey(k)!);
    const note = await (await fetch(`${api.url}/v1/tlog/checkpoint`)).text();
    const opened = await openNote(note, keys);
    if (!opened.ok) throw new Error(`the checkpoint does not open: ${JSON.stringify(opened)}`);
    const cp = parseCheckpoint(opened.text)!;
    const T = cp.size;
    if (T <= size) throw new Error(`checkpoint of ${T} entries, expected more than the ${size} generated`); // the start logs the system items, the publish its version

    const load = (url: string, path?: () => string, connections = CONNECTIONS) => loadFigures(url, { connections, seconds: SECONDS, discardBodies: true, ...(path ? { path } : {}) });
    const pinned = await load(item.pinned);
    const tiles: LaneResult["tiles"] = {};
    // "recent": the last 64 full tiles (what clients following the log fetch); "any": all of them, mostly not cached.
    const full0 = Math.floor(T / TILE_WIDTH);
    const recent = Math.max(0, full0 - 64);
    const tileLoads: [string, number | "entries", number, number][] = [
      ["level 0 (one, fixed URL)", 0, full0 - 1, full0], // no per-request path: the load generator's own cost as the pull's
      ["level 0 (recent 64)", 0, recent, full0],
      ["level 0 (any)", 0, 0, full0],
      ["level 1 (full)", 1, 0, Math.floor(T / TILE_WIDTH ** 2)],
      ["bundle (recent 64)", "entries", recent, full0],
      ["bundle (any)", "entries", 0, full0],
    ];
    for (const [name, level, from, to] of tileLoads) {
      if (to <= from) continue; // the log has no full tile of that kind at this size
      if (name.endsWith("(any)") && to - from <= 64) continue; // the same as the recent ones
      if (name.includes("(recent 64)") && to - from === 1) continue; // the same as the fixed one
      // The machine is shared: each ratio is against a pinned-pull run just before it, not the first one.
      const baseline = await load(item.pinned);
      const f = to - from === 1 ? await load(`${api.url}/v1/tlog/${tilePath(level, from)}`) : await load(api.url, () => `/v1/tlog/${tilePath(level, from + random(to - from))}`);
      tiles[name] = { ...f, vs_pinned: Number((f.rps / baseline.rps).toFixed(2)) };
    }
    const inclusionPath = () => `/v1/tlog/proof/inclusion?index=${random(T)}&tree_size=${T}`;
    const inclusion = await load(api.url, inclusionPath);
    const oneBaseline = await load(item.pinned);
    const inclusionOne = await load(`${api.url}/v1/tlog/proof/inclusion?index=${size}&tree_size=${T}`);
    const consistency = await load(api.url, () => `/v1/tlog/proof/consistency?from=${1 + random(T - 1)}&to=${T}`);
    // The pull as the rye client sends it: with its proof (`tlog_from` = the checkpoint it kept), against the same pull
    // without, run just before (target ≥ 0.9×).
    const provenBaseline = await load(item.pinned);
    const proven = await load(`${item.pinned}&tlog_from=${T}`);
    const half = Math.max(1, Math.floor(CONNECTIONS / 2));
    const mixedAlone = await load(item.pinned, undefined, half);
    const [mixedPinned, mixedInclusion] = await Promise.all([load(item.pinned, undefined, half), load(api.url, inclusionPath, half)]);

    // Proof building in this process, on its own database client: without any cache (every tile from PostgreSQL and
    // hashed); with the full tiles cached and expanded but the proof new (another entry of the same level-0 tile);
    // the same proof again (the pull path's case: one entry at one checkpoint, over and over).
    const indexes = Array.from({ length: PROOFS_IN_PROCESS }, () => random(T - 1));
    const time = async (list: number[]) => {
      const samples: number[] = [];
      for (const index of list) {
        const t = performance.now();
        await inclusionProofFor(db.prisma, index, T);
        samples.push(performance.now() - t);
      }
      return percentiles(samples);
    };
    configureTileCache(db.prisma, 0);
    const uncached = await time(indexes);
    configureTileCache(db.prisma, DEFAULT_TILE_CACHE_TILES);
    await time(indexes);
    const tilesCached = await time(indexes.map((i) => i ^ 1));
    const proofCached = await time(indexes);

    // What a client adds to a pull: open the signed checkpoint, check the entry's audit path against its root.
    const sample = (await (await fetch(`${api.url}${inclusionPath()}`)).json()) as { index: number; leaf: string; proof: string[] };
    const t = performance.now();
    for (let i = 0; i < VERIFICATIONS; i++) {
      const o = await openNote(note, keys);
      const c = parseCheckpoint(o.ok ? o.text : "")!;
      if (!verifyInclusion(sample.index, c.size, leafHash(fromBase64(sample.leaf)), sample.proof.map(fromBase64), c.rootHash)) throw new Error("the served proof does not verify");
    }
    const clientVerifyMs = ms((performance.now() - t) / VERIFICATIONS);

    console.log(`\n${size.toLocaleString("en")} generated entries, tree size ${T} (generated in ${generateSeconds.toFixed(1)} s; ${RUNTIME}, c=${CONNECTIONS}, ${SECONDS} s each, load average ${loadavg()[0]!.toFixed(2)})`);
    console.log(`  pinned pull                 ${formatFigures(pinned)}`);
    for (const [name, f] of Object.entries(tiles)) console.log(`  tile ${name.padEnd(26)}${formatFigures(f)}   ${f.vs_pinned}× pinned (target ≥ 1)`);
    console.log(`  inclusion proof (random)    ${formatFigures(inclusion)}`);
    console.log(`  consistency proof (random)  ${formatFigures(consistency)}`);
    console.log(`  pinned pull alone, c=${half}    ${formatFigures(mixedAlone)}`);
    console.log(`  pinned pull, proofs beside  ${formatFigures(mixedPinned)}   (target p99 ≤ 30 ms; c=${half} each; ${(mixedPinned.p99 / mixedAlone.p99).toFixed(2)}× the p99 alone)`);
    console.log(`  inclusion, pulls beside     ${formatFigures(mixedInclusion)}`);
    console.log(`  inclusionProofFor in-process (mean / p99 ms): no cache ${uncached.mean} / ${uncached.p99}; tiles cached ${tilesCached.mean} / ${tilesCached.p99}; proof cached ${proofCached.mean} / ${proofCached.p99}`);
    console.log(`  inclusion proof (one entry)  ${formatFigures(inclusionOne)}   ${(inclusionOne.rps / oneBaseline.rps).toFixed(2)}× pinned (what a pull's proof costs)`);
    console.log(`  pinned pull with its proof  ${formatFigures(proven)}   ${(proven.rps / provenBaseline.rps).toFixed(2)}× the pull without (target ≥ 0.9)`);
    console.log(`  client verification of a pull's proof (note opened + audit path): ${clientVerifyMs} ms (target ≤ 1 ms)`);
    return {
      entries: size,
      generate_seconds: Number(generateSeconds.toFixed(1)),
      pinned,
      tiles,
      inclusion,
      inclusion_one_entry: { ...inclusionOne, vs_pinned: Number((inclusionOne.rps / oneBaseline.rps).toFixed(2)) },
      pinned_with_proof: { ...proven, vs_pinned: Number((proven.rps / provenBaseline.rps).toFixed(2)) },
      consistency,
      mixed: { pinned: mixedPinned, inclusion: mixedInclusion, pinned_alone: mixedAlone },
      build_ms: { uncached, tiles_cached: tilesCached, proof_cached: proofCached },
      client_verify_ms: clientVerifyMs,
    };
  } finally {
    await api?.stop();
    await db.close();
    await scratch.drop();
  }
}

if (RUNTIME === "dist") await ensureServerBuild("api", (m) => console.log(m));
console.log(`tlog bench: sizes ${SIZES.join(", ")}, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
const server = await postgresServer().catch((err: Error) => `could not start PostgreSQL: ${err.message}`);
if (typeof server === "string") console.log(`PostgreSQL: skipped (${server})`);
else {
  try {
    const results: LaneResult[] = [];
    for (const size of SIZES) results.push(await lane(server.url, size));
    console.log(`\n${JSON.stringify({ bench: "tlog", runtime: RUNTIME, connections: CONNECTIONS, seconds: SECONDS, lanes: results })}`);
  } finally {
    server.stop();
  }
}
