/**
 * Transparent pull latency over loopback against the real registry API (apps/api, in-process on a
 * loopback port; PostgreSQL from DATABASE_URL when set, else the embedded PGlite):
 * - first load of N distinct registry items not cached yet (pull + verify signature and attestation
 *   with the pinned key + atomic cache write + project lock entry);
 * - later loads of the same items (served from the user-space cache, checked against the pin);
 * - baseline: the first load of N equivalent signed items in the project space (no registry).
 * Run: node --import tsx packages/rye/bench/pull.bench.ts   (PULL_BENCH_ITEMS=200 by default)
 */
import "@rye/core/node";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { signItem } from "@rye/core";
import { Engine } from "../src/engine/engine.ts";
import { KeyStore } from "../src/keys/keystore.ts";
import { readProjectLock } from "../src/registry/project-lock.ts";
import { startTestRegistry } from "../test/registry-server.ts";

const ITEMS = Number(process.env.PULL_BENCH_ITEMS ?? 200);
const PUSH_CONCURRENCY = 8;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const note = (i: number) =>
  `---\nid: note_${i}\ntitle: Note ${i}\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n---\n\n# Note ${i}\n\n${"Some reference text about topic ".repeat(20)}${i}\n`;

async function inParallel<T>(items: T[], limit: number, body: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await body(items[next++]!);
  }));
}

// The registry, with rate limits out of the way (one client does all the requests).
const registry = await startTestRegistry({ env: { RYE_RATE_LIMIT_READS: "10000000", RYE_RATE_LIMIT_WRITES: "10000000" } });
const dbKind = process.env.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : "PGlite";
const root = await mkdtemp(join(tmpdir(), "rye-pull-bench-"));
try {
  // A publisher account and token through the API, then N pushes over HTTP.
  const signup = await fetch(`${registry.url}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "alice", email: "alice@example.test", password: "correct horse battery staple" }),
  });
  if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${await signup.text()}`);
  const cookie = signup.headers.get("set-cookie")!.split(";")[0]!;
  const { csrf_token } = (await signup.json()) as { csrf_token: string };
  const tokenRes = await fetch(`${registry.url}/v1/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie, "x-csrf-token": csrf_token },
    body: JSON.stringify({ name: "bench", scopes: ["items:write"] }),
  });
  const { token } = (await tokenRes.json()) as { token: string };
  const indexes = Array.from({ length: ITEMS }, (_, i) => i);
  const seedStart = performance.now();
  await inParallel(indexes, PUSH_CONCURRENCY, async (i) => {
    const res = await fetch(`${registry.url}/v1/push`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ item_type: "knowledge", item_id: `alice/notes/note_${i}`, version: "1.0.0", content: note(i) }),
    });
    if (res.status !== 201) throw new Error(`push ${i}: ${res.status} ${await res.text()}`);
  });
  const seedMs = performance.now() - seedStart;

  // The consumer: an online project and user space; the baseline items are signed by the user.
  const projectDir = join(root, "project");
  const env: NodeJS.ProcessEnv = { ...process.env, USER_SPACE: join(root, "home"), RYE_REGISTRY_URL: registry.url };
  delete env.RYE_OFFLINE;
  delete env.RYE_TOKEN;
  delete env.RYE_SYSTEM_SPACE;
  const key = await new KeyStore({ env }).create();
  for (const i of indexes) {
    const path = join(projectDir, ".ai/knowledge/notes", `note_${i}.md`);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, (await signItem(note(i), "knowledge", key, { path })).content);
  }
  const engine = await Engine.open({ projectPath: projectDir, env });
  // Warm-up (JIT, module loading) on a system item, outside the measurements.
  for (let i = 0; i < 20; i++) await engine.load({ item_type: "knowledge", item_id: "rye/core/item-formats" });

  const time = async (id: string, out: number[]) => {
    const start = performance.now();
    const result = await engine.load({ item_type: "knowledge", item_id: id });
    out.push(performance.now() - start);
    if (result.status !== "success" || !result.verification.ok) throw new Error(`load ${id} failed`);
  };
  const baseline: number[] = [];
  const first: number[] = [];
  const cached: number[] = [];
  const rawPull: number[] = [];
  const rawKeys: number[] = [];
  for (const i of indexes) await time(`notes/note_${i}`, baseline);
  for (const i of indexes) await time(`alice/notes/note_${i}`, first);
  for (const i of indexes) await time(`alice/notes/note_${i}`, cached);
  // For reference: the bare HTTP round trips a first load makes (the key list is reconciled on every pull).
  for (const i of indexes) {
    const start = performance.now();
    const res = await fetch(`${registry.url}/v1/pull/knowledge/alice/notes/note_${i}`);
    await res.arrayBuffer();
    rawPull.push(performance.now() - start);
    const keysStart = performance.now();
    await (await fetch(`${registry.url}/v1/keys`)).arrayBuffer();
    rawKeys.push(performance.now() - keysStart);
  }
  const pinned = (await readProjectLock(projectDir)).items.length;
  if (pinned !== ITEMS) throw new Error(`expected ${ITEMS} lock entries, found ${pinned}`);

  const rows: [string, number[]][] = [
    ["local project item (baseline)", baseline],
    ["first load: pull + verify + pin", first],
    ["cached registry item", cached],
    ["(raw GET /v1/pull, for reference)", rawPull],
    ["(raw GET /v1/keys, for reference)", rawKeys],
  ];
  const base = percentile([...baseline].sort((a, b) => a - b), 50);
  console.log(`pull bench: ${ITEMS} knowledge items, registry on loopback (${dbKind}); seeded by HTTP push in ${(seedMs / 1000).toFixed(1)} s`);
  console.log(`${"engine.load".padEnd(36)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"p50/baseline".padStart(13)}`);
  for (const [name, samples] of rows) {
    const sorted = [...samples].sort((a, b) => a - b);
    const p50 = percentile(sorted, 50);
    console.log(`${name.padEnd(36)} ${p50.toFixed(2).padStart(8)} ${percentile(sorted, 99).toFixed(2).padStart(8)} ${(p50 / base).toFixed(2).padStart(13)}`);
  }
} finally {
  await registry.close();
  await rm(root, { recursive: true, force: true });
}
