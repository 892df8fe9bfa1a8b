/**
 * Bundle pull throughput by blob store (issue #14): the same bundle pulled from an API process whose blobs are in
 * PostgreSQL (the `blobs` table, the default) and from one whose blobs are in an S3 protocol server (s3rver, in a
 * process of its own), in the same run, on PostgreSQL. The figure is S3 ÷ PostgreSQL req/s of a pinned pull.
 * Each pull reads every file of the bundle from the store (no answer cache on this route).
 *
 * BENCH_SECONDS (default 10), BENCH_CONNECTIONS (20), BENCH_BUNDLE_FILES (8), BENCH_FILE_BYTES (8192),
 * BENCH_RUNTIME=tsx runs the sources instead of the compiled server. No PostgreSQL → PGlite, said in the output.
 * Run: node --import tsx apps/api/bench/blob-store.bench.ts
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createScratchPostgresDatabase } from "@rye/db/testing";
import { ensureServerBuild } from "../../../scripts/build-server.mjs";
import { pushBundle, signUpPublisher } from "../test/bundle-publisher.ts";
import { startApiProcess } from "./api-process.ts";
import { postgresServer } from "./postgres-server.ts";
import { type Figures, formatFigures, loadFigures } from "./load.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const FILES = Number(process.env.BENCH_BUNDLE_FILES ?? 8);
const FILE_BYTES = Number(process.env.BENCH_FILE_BYTES ?? 8192);
const RUNTIME = process.env.BENCH_RUNTIME === "tsx" ? "tsx" : "dist";
const root = fileURLToPath(new URL("../../../", import.meta.url));

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
}

/** s3rver in its own process (apps/api/test/s3-server.ts run as a program): the env an API process needs. */
async function startS3Process(): Promise<{ env: Record<string, string>; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(root, "apps/api/test/s3-server.ts")], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  return { env: JSON.parse(line) as Record<string, string>, stop: () => stopChild(child) };
}

const load = (url: string) => loadFigures(url, { connections: CONNECTIONS, seconds: SECONDS });

/** One registry process on a fresh database with `env`'s blob store: publish the bundle, load its pinned pull. */
async function lane(name: string, databaseUrl: string | undefined, env: Record<string, string>): Promise<Figures> {
  const dataDir = await mkdtemp(join(tmpdir(), "rye-bench-blobs-"));
  const scratch = databaseUrl ? await createScratchPostgresDatabase(databaseUrl) : undefined;
  const api = await startApiProcess({ ...env, RYE_DATA_DIR: dataDir, DATABASE_URL: scratch?.url ?? "" }, { runtime: RUNTIME, logLevel: "warn" });
  try {
    const publisher = await signUpPublisher(api.url, "bench");
    const files = Object.fromEntries(Array.from({ length: FILES }, (_, i) => [`.ai/knowledge/bench/kit/part-${i}.bin`, new Uint8Array(randomBytes(FILE_BYTES))]));
    await pushBundle(api.url, publisher, "bench/kit", "1.0.0", files);
    const target = `${api.url}/v1/bundle/pull/bench/kit?version=1.0.0`;
    const bytes = (await (await fetch(target)).arrayBuffer()).byteLength;
    const figures = await load(target);
    console.log(`  ${name.padEnd(18)} ${formatFigures(figures)}   (answer ${bytes} B)`);
    return figures;
  } finally {
    await api.stop();
    await scratch?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (RUNTIME === "dist") await ensureServerBuild("api", (m) => console.log(m));
const server = await postgresServer().catch((err: Error) => `could not start PostgreSQL: ${err.message}`);
const databaseUrl = typeof server === "string" ? undefined : server.url;
console.log(
  `blob store bench: bundle of ${FILES} × ${FILE_BYTES} B pulled pinned, c=${CONNECTIONS}, ${SECONDS} s, ${RUNTIME}, database ${databaseUrl ? "PostgreSQL" : `PGlite (${server as string})`}, load average ${loadavg()[0]!.toFixed(2)}`,
);
const s3 = await startS3Process();
try {
  const postgres = await lane("PostgreSQL store", databaseUrl, {});
  const bucket = await lane("S3 store (s3rver)", databaseUrl, s3.env);
  console.log(`  S3 ÷ PostgreSQL store: ${(bucket.rps / postgres.rps).toFixed(2)}× req/s; p99 ${bucket.p99} ms vs ${postgres.p99} ms`);
} finally {
  await s3.stop();
  if (typeof server !== "string") server.stop();
}
