/**
 * `load` latency over a project of 10 000 signed items (the first and later loads), against a baseline in
 * the same process that only reads the file and verifies it with @rye/core (no resolution, no parsing).
 * Run: node --import tsx packages/rye/bench/load.bench.ts
 */
import "@rye/core/node";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { keyResolverFrom, signItem, verifyItem } from "@rye/core";
import { Engine } from "../src/engine/engine.ts";
import { KeyStore } from "../src/keys/keystore.ts";

const ITEMS = 10_000;
const SAMPLES = 2000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summary(name: string, samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  console.log(`${name.padEnd(40)} p50 ${p50.toFixed(3)} ms   p95 ${percentile(sorted, 95).toFixed(3)} ms   p99 ${percentile(sorted, 99).toFixed(3)} ms`);
  return p50;
}

const root = await mkdtemp(join(tmpdir(), "rye-load-bench-"));
const env = { ...process.env, USER_SPACE: join(root, "home") };
const key = await new KeyStore({ env }).create();
const ids: string[] = [];
for (let i = 0; i < ITEMS; i++) {
  const category = `area${i % 50}/topic${i % 7}`;
  const id = `${category}/note_${i}`;
  const content = `---\nid: note_${i}\ntitle: Note ${i}\nversion: 1.0.0\nentry_type: reference\ncategory: ${category}\n---\n\n# Note ${i}\n\n${"Some reference text about topic ".repeat(20)}${i}\n`;
  const path = join(root, "project/.ai/knowledge", `${id}.md`);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, (await signItem(content, "knowledge", key, { path })).content);
  ids.push(id);
}
console.log(`generated ${ITEMS} signed knowledge items`);

const pick = () => ids[Math.floor(Math.random() * ids.length)]!;
const keys = keyResolverFrom([key.publicKey]);
const baseline: number[] = [];
for (let i = 0; i < SAMPLES; i++) {
  const id = pick();
  const start = performance.now();
  const text = await readFile(join(root, "project/.ai/knowledge", `${id}.md`), "utf8");
  if (!(await verifyItem(text, "knowledge", keys)).ok) throw new Error("baseline verify failed");
  baseline.push(performance.now() - start);
}

const engine = await Engine.open({ projectPath: join(root, "project"), env });
const first: number[] = [];
const later: number[] = [];
for (let i = 0; i < SAMPLES; i++) {
  const id = pick();
  for (const bucket of [first, later]) {
    const start = performance.now();
    const result = await engine.load({ item_type: "knowledge", item_id: id });
    bucket.push(performance.now() - start);
    if (result.status !== "success") throw new Error("load failed");
  }
}
const base = summary("baseline: readFile + verifyItem", baseline);
const cold = summary("engine.load (first load of an item)", first);
const warm = summary("engine.load (same item again)", later);
console.log(`\nratio engine.load p50 / baseline p50: first ${(cold / base).toFixed(2)}, again ${(warm / base).toFixed(2)}`);
await rm(root, { recursive: true, force: true });
