/**
 * A pinned pull's p99 beside random inclusion proofs (issue #32's target: ≤ 30 ms at 1 000 000 entries), comparing
 * built servers against the same generated log, interleaved so the shared machine's load weighs on each alike.
 *
 * One PostgreSQL database gets BENCH_TLOG_SIZE generated entries (default 1 000 000; 2–2.5 min here) and the bench
 * item. Then for BENCH_ROUNDS rounds (default 2), for each store of BENCH_STORES (`database,memory`:
 * RYE_RATE_LIMIT_STORE) and each server of BENCH_SERVERS (`name=path/to/main.js[+VAR=value…],…`, default the
 * current build only; the variables are that server's environment): the server is started on that database, a pinned pull runs alone at BENCH_CONNECTIONS (25), then the same
 * pull beside random inclusion proofs at BENCH_CONNECTIONS each, BENCH_SECONDS (4) each after autocannon's warm-up.
 * Control lanes (BENCH_CONTROL, default `pull,health`; empty for none): the same pinned pull beside an equal load
 * (BENCH_CONNECTIONS) of something that is not a proof — `pull`, the pinned pull itself from a second load generator;
 * `health`, GET /health — so the p99 beside proofs can be read against what sharing the machine alone costs (two
 * cores for the server, PostgreSQL and the load generator running both loads). `proofs-elsewhere` (opt-in): the same
 * random proofs served by a second server process on the same database (its own event loop and heap, the same
 * cores), with that process's CPU time per proof. BENCH_PROOF_CONNECTIONS: the proofs' connections alone;
 * BENCH_PROOF_RATE: a cap on the proofs' requests per second in both proof lanes (equal proof work in each).
 * BENCH_WARM_TILES=1 reads every full level-0 tile once after the server starts (a tile cache large enough to hold
 * them, RYE_TLOG_TILE_CACHE, then starts full).
 * BENCH_LANE_SIGNAL=1 sends the server SIGUSR2 before and after each lane (warm-up included), for a server run with
 * an instrumenting `--import` (in its NODE_OPTIONS) that prints and resets its figures on that signal.
 * Prints one line per run (with the load average) and a JSON line of every run at the end.
 * PostgreSQL: DATABASE_URL, else a throwaway cluster.
 * Run: node --import tsx apps/api/bench/tlog-beside-proofs.bench.ts
 */
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tilePath, TILE_WIDTH } from "@rye/core";
import { openDatabase } from "@rye/db";
import { createScratchPostgresDatabase } from "@rye/db/testing";
import { ensureServerBuild } from "../../../scripts/build-server.mjs";
import { startApiProcess } from "./api-process.ts";
import { publishBenchItem } from "./bench-item.ts";
import { type Figures, formatFigures, loadFigures } from "./load.ts";
import { postgresServer } from "./postgres-server.ts";
import { generateLog } from "./tlog-log.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const SIZE = Number(process.env.BENCH_TLOG_SIZE ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 25);
const WARM_TILES = process.env.BENCH_WARM_TILES === "1";
// The proofs' own connections (default BENCH_CONNECTIONS): with one build at a time, all but one of them wait.
const PROOF_CONNECTIONS = Number(process.env.BENCH_PROOF_CONNECTIONS ?? CONNECTIONS);
// A cap on the proofs' requests per second (0: none), the same for the proof lane and `proofs-elsewhere`, so the two
// compare the same proof work in the server's process and in another one.
const PROOF_RATE = Number(process.env.BENCH_PROOF_RATE ?? 0);
const CONTROLS = (process.env.BENCH_CONTROL ?? "pull,health").split(",").filter(Boolean);
for (const c of CONTROLS) if (c !== "pull" && c !== "health" && c !== "proofs-elsewhere") throw new Error(`BENCH_CONTROL: pull, health or proofs-elsewhere, not ${c}`);
const LANE_SIGNAL = process.env.BENCH_LANE_SIGNAL === "1";
const STORES = (process.env.BENCH_STORES ?? "database,memory").split(",");
// `name=path[+VAR=value…]`: a built server and settings of its own (e.g. +RYE_TLOG_TILE_CACHE=4096).
const SERVERS = (process.env.BENCH_SERVERS ?? "current=apps/api/dist/main.js").split(",").map((s) => {
  const [name, rest] = [s.slice(0, s.indexOf("=")), s.slice(s.indexOf("=") + 1)];
  const [path, ...vars] = rest.split("+");
  return { name, entry: join(root, path!), env: Object.fromEntries(vars.map((v) => [v.slice(0, v.indexOf("=")), v.slice(v.indexOf("=") + 1)])) };
});

/** The database `name` on the server at `serverUrl`, created when missing, never dropped. */
async function keptDatabase(serverUrl: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`BENCH_TLOG_KEEP: a plain database name, not ${name}`);
  const server = await openDatabase({ databaseUrl: serverUrl, migrate: false });
  try {
    const { rows } = await server.raw.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rows.length === 0) await server.raw.query(`CREATE DATABASE ${name}`);
  } finally {
    await server.close();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: async () => {} };
}

interface Run {
  server: string;
  store: string;
  round: number;
  load_average: number;
  alone: Figures;
  beside: Figures;
  proofs: Figures;
  /** The pinned pull beside each control load, and that load's own figures. */
  controls: { control: string; beside: Figures; load: Figures }[];
}

await ensureServerBuild("api", (m) => console.log(m));
const pg = await postgresServer();
if (typeof pg === "string") {
  console.log(`PostgreSQL: skipped (${pg})`);
  process.exit(0);
}
// BENCH_TLOG_KEEP=<database name>: the log is generated into that database once and kept for the next runs.
const KEEP = process.env.BENCH_TLOG_KEEP;
const scratch = KEEP ? await keptDatabase(pg.url, KEEP) : await createScratchPostgresDatabase(pg.url);
const runs: Run[] = [];
try {
  const db = await openDatabase({ databaseUrl: scratch.url });
  const { rows } = await db.raw.query<{ n: string }>("SELECT count(*) AS n FROM publish_log_entries");
  if (Number(rows[0]!.n) === 0) {
    const t = performance.now();
    await generateLog(db, SIZE);
    console.log(`generated ${SIZE} entries in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  } else console.log(`kept log of ${rows[0]!.n} entries in ${KEEP}`);
  await db.close();
  let pinnedPath: string | undefined = KEEP ? "/v1/pull/knowledge/bench/notes/fs_read?version=1.0.0" : undefined;
  for (let round = 1; round <= ROUNDS; round++) {
    for (const store of STORES) {
      for (const server of SERVERS) {
        const api = await startApiProcess({ DATABASE_URL: scratch.url, RYE_CHECKPOINT_EVERY_ENTRIES: "1", RYE_RATE_LIMIT_STORE: store, ...server.env }, { entry: server.entry });
        try {
          if (pinnedPath && (await fetch(`${api.url}${pinnedPath}`)).status === 404) pinnedPath = undefined;
          pinnedPath ??= new URL((await publishBenchItem(api.url, ["1.0.0"])).pinned).pathname + "?version=1.0.0";
          const size = ((await (await fetch(`${api.url}/v1/tlog/checkpoint`)).text()).split("\n")[1] ?? "").trim();
          const proofPath = () => `/v1/tlog/proof/inclusion?index=${Math.floor(Math.random() * Number(size))}&tree_size=${size}`;
          const load = (path?: () => string, connections = CONNECTIONS, overallRate = 0) => loadFigures(path ? api.url : `${api.url}${pinnedPath}`, { connections, seconds: SECONDS, discardBodies: true, overallRate, ...(path ? { path } : {}) });
          if (WARM_TILES) {
            // Every full level-0 tile read once, so a cache that can hold them all starts full, as after a while in production.
            const tiles = Math.floor(Number(size) / TILE_WIDTH);
            for (let from = 0; from < tiles; from += 64) {
              await Promise.all(Array.from({ length: Math.min(64, tiles - from) }, (_, i) => fetch(`${api.url}/v1/tlog/${tilePath(0, from + i)}`).then((r) => r.arrayBuffer())));
            }
          }
          const lane = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
            if (!LANE_SIGNAL) return run();
            process.kill(api.pid, "SIGUSR2");
            await new Promise((r) => setTimeout(r, 100));
            console.log(`  lane ${name}:`);
            try {
              return await run();
            } finally {
              process.kill(api.pid, "SIGUSR2");
              await new Promise((r) => setTimeout(r, 100));
            }
          };
          const alone = await lane("alone", () => load());
          const [beside, proofs] = await lane("beside proofs", () => Promise.all([load(), load(proofPath, PROOF_CONNECTIONS, PROOF_RATE)]));
          const controls: Run["controls"] = [];
          for (const control of CONTROLS) {
            if (control === "proofs-elsewhere") {
              // The same proofs served by a second server process on the same database: the machine's share of them.
              const other = await startApiProcess({ DATABASE_URL: scratch.url, RYE_CHECKPOINT_EVERY_ENTRIES: "1", RYE_RATE_LIMIT_STORE: store, ...server.env }, { entry: server.entry });
              try {
                const [pulls, elsewhere] = await lane(`beside ${control}`, () => Promise.all([load(), loadFigures(other.url, { connections: PROOF_CONNECTIONS, seconds: SECONDS, discardBodies: true, path: proofPath, serverPid: other.pid, overallRate: PROOF_RATE })]));
                controls.push({ control, beside: pulls, load: elsewhere });
              } finally {
                await other.stop();
              }
              continue;
            }
            const [pulls, other] = await lane(`beside ${control}`, () => Promise.all([load(), control === "pull" ? load() : load(() => "/health")]));
            controls.push({ control, beside: pulls, load: other });
          }
          const run = { server: server.name, store, round, load_average: Number(loadavg()[0]!.toFixed(1)), alone, beside, proofs, controls };
          runs.push(run);
          console.log(`${server.name.padEnd(8)} ${store.padEnd(8)} round ${round} load ${run.load_average}: alone ${formatFigures(alone)} | beside proofs ${formatFigures(beside)} | proofs ${formatFigures(proofs)}`);
          for (const c of controls) console.log(`${"".padEnd(37)}beside ${c.control.padEnd(6)} ${formatFigures(c.beside)} | ${c.control} ${formatFigures(c.load)}`);
        } finally {
          await api.stop();
        }
      }
    }
  }
} finally {
  await scratch.drop();
  pg.stop();
}
console.log(JSON.stringify({ bench: "tlog-beside-proofs", size: SIZE, connections: CONNECTIONS, seconds: SECONDS, runs }));
