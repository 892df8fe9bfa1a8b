/**
 * Local search benchmark: 10 000 generated items (directives, tools in several languages, knowledge)
 * in nested categories across the three spaces, then cold latency (first search builds the index),
 * warm p50/p95 over ~200 varied queries, and a few special cases.
 *
 *   node --import tsx packages/rye/bench/search.bench.ts [itemCount]
 */
import { rm, writeFile } from "node:fs/promises";
import type { ItemType } from "@rye/core";
import { searchIndexCounters } from "../src/search/index.ts";
import type { SearchOptions } from "../src/search/search.ts";
import { searchItems } from "../src/search/search.ts";
import { directiveFile, knowledgeFile, makeSpaces, pythonToolFile, writeItem, yamlToolFile } from "../src/search/test-fixtures.ts";

const ITEM_COUNT = Number(process.argv[2] ?? 10_000);
const WARM_QUERIES = 200;

/** Deterministic pseudo-random numbers (mulberry32), so every run indexes the same corpus. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = random(42);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
const between = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));

const VERBS = "read write deploy build test lint format parse validate sign verify fetch upload download sync merge split index search rank cache compress encrypt decrypt render publish schedule monitor alert rotate backup restore migrate scan audit notify resize convert translate summarize classify extract transform load export import provision".split(" ");
const NOUNS = "file directory image container cluster database table record schema message queue topic stream token key certificate secret config manifest bundle package release branch commit repository issue ticket report dashboard metric log trace span event webhook endpoint request response session user account invoice payment order customer document page section paragraph sentence word model prompt thread budget lockfile runtime executor primitive registry namespace category".split(" ");
const ADJECTIVES = "fast safe small large remote local encrypted signed unsigned nested parallel incremental daily weekly hourly internal external public private legacy modern simple complex secure reliable".split(" ");
const TECH = "docker kubernetes postgres redis kafka s3 github gitlab slack email http grpc json yaml toml csv markdown python node typescript bash terraform ansible nginx prometheus grafana openai anthropic sqlite".split(" ");
const FILLER = "the a of to and for with on in by from into when then after before each every all any this that it its".split(" ");
const TOP = ["rye", "acme", "team", "ops", "data", "web"];
const MIDDLE = ["core", "infra", "ml", "api", "tools", "docs", "security", "billing", "search", "agents"];
const LEAF = ["runtimes", "primitives", "deploy", "k8s", "etl", "reports", "auth", "storage", "notify", "parsers", "extractors"];

/** A fixed catalog of nested categories (1–4 levels), as a real tree has, rather than one folder per item. */
const CATEGORIES = Array.from({ length: 150 }, () => {
  const depth = between(1, 4);
  const parts = [pick(TOP)];
  if (depth > 1) parts.push(pick(MIDDLE));
  if (depth > 2) parts.push(pick(LEAF));
  if (depth > 3) parts.push(pick(LEAF));
  return parts.join("/");
});

function category(): string {
  // Skewed: a few categories hold many items, most hold a few.
  return CATEGORIES[Math.floor(rnd() ** 2 * CATEGORIES.length)]!;
}

function sentence(words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const r = rnd();
    out.push(r < 0.3 ? pick(FILLER) : r < 0.55 ? pick(NOUNS) : r < 0.7 ? pick(VERBS) : r < 0.85 ? pick(ADJECTIVES) : pick(TECH));
  }
  const text = out.join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1) + ".";
}

function paragraph(sentences: number): string {
  return Array.from({ length: sentences }, () => sentence(between(6, 16))).join(" ");
}

async function generate(): Promise<Awaited<ReturnType<typeof makeSpaces>>> {
  const spaces = await makeSpaces("rye-search-bench-");
  const used = new Set<string>();
  for (let i = 0; i < ITEM_COUNT; i++) {
    const r = rnd();
    const space = r < 0.2 ? spaces.project : r < 0.4 ? spaces.user : spaces.system;
    const t = rnd();
    const type: ItemType = t < 0.4 ? "tool" : t < 0.75 ? "directive" : "knowledge";
    const name = `${pick(VERBS)}_${pick(NOUNS)}${rnd() < 0.5 ? `_${pick(TECH)}` : ""}`;
    const itemId = `${category()}/${name}`;
    const key = `${space.name}:${type}:${itemId}`;
    if (used.has(key)) {
      i--;
      continue;
    }
    used.add(key);
    const description = sentence(between(6, 14));
    const body = paragraph(between(3, 12));
    if (type === "directive") {
      await writeItem(space, type, itemId, directiveFile(itemId, description, body));
    } else if (type === "knowledge") {
      const tags = Array.from({ length: between(1, 4) }, () => pick(rnd() < 0.5 ? TECH : NOUNS));
      await writeItem(space, type, itemId, knowledgeFile(itemId, description.slice(0, -1), body, { tags }));
    } else if (rnd() < 0.7) {
      await writeItem(space, type, itemId, pythonToolFile(itemId, description, `# ${body}\ndef main():\n    pass\n`, { toolType: pick(["python", "runtime", "http", "primitive"]) }));
    } else {
      await writeItem(space, type, itemId, yamlToolFile(itemId, description), ".yaml");
    }
  }
  return spaces;
}

type Shape = [label: string, make: () => Omit<SearchOptions, "spaces">];

function queries(): { label: string; options: Omit<SearchOptions, "spaces"> }[] {
  const shapes: Shape[] = [
    ["word", () => ({ query: pick(NOUNS) })],
    ["two words", () => ({ query: `${pick(VERBS)} ${pick(NOUNS)}` })],
    ["a OR b", () => ({ query: `${pick(TECH)} OR ${pick(TECH)}` })],
    ["phrase", () => ({ query: `"${pick(VERBS)} ${pick(NOUNS)}"` })],
    ["name:field", () => ({ query: `name:${pick(VERBS)}_${pick(NOUNS)}` })],
    ["prefix*", () => ({ query: `${pick(NOUNS).slice(0, 3)}*` })],
    ["fuzzy~", () => ({ query: `${pick(NOUNS)}~` })],
    ["a -b", () => ({ query: `${pick(TECH)} -${pick(ADJECTIVES)}` })],
    ["proximity", () => ({ query: `"${pick(NOUNS)} ${pick(TECH)}"~6` })],
    ["boolean mix", () => ({ query: `(${pick(VERBS)} OR ${pick(VERBS)}) AND ${pick(NOUNS)} NOT ${pick(TECH)}` })],
    ["type filter", () => ({ query: pick(NOUNS), itemTypes: [pick(["tool", "directive", "knowledge"] as const)] })],
    ["category prefix", () => ({ query: pick(VERBS), categoryPrefix: `${pick(TOP)}/${pick(MIDDLE)}` })],
    ["source filter", () => ({ query: `${pick(ADJECTIVES)} ${pick(NOUNS)}`, source: pick(["project", "user", "system"] as const) })],
    ["type:/tool_type:", () => ({ query: `type:tool tool_type:${pick(["python", "http", "runtime"])} ${pick(VERBS)}` })],
    ["plural + offset", () => ({ query: `${pick(NOUNS)}s ${pick(VERBS)}`, offset: 10 })],
    ["fuzzy option", () => ({ query: `${pick(TECH)}x`, fuzzy: { enabled: true } })],
  ];
  return Array.from({ length: WARM_QUERIES }, (_, i) => {
    const [label, make] = shapes[i % shapes.length]!;
    return { label, options: make() };
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const ms = (n: number): string => `${n.toFixed(2)} ms`;

async function main(): Promise<void> {
  const started = performance.now();
  const spaces = await generate();
  console.log(`generated ${ITEM_COUNT} items in ${((performance.now() - started) / 1000).toFixed(1)} s under ${spaces.base}`);
  try {
    const list = queries();
    const coldStart = performance.now();
    const first = await searchItems({ ...list[0]!.options, spaces: spaces.spaces });
    const cold = performance.now() - coldStart;
    const afterCold = searchIndexCounters();

    const timings: number[] = [];
    const byShape = new Map<string, number[]>();
    let totalHits = 0;
    for (const { label, options } of list) {
      const t = performance.now();
      const result = await searchItems({ ...options, spaces: spaces.spaces });
      const elapsed = performance.now() - t;
      timings.push(elapsed);
      byShape.set(label, [...(byShape.get(label) ?? []), elapsed]);
      totalHits += result.total;
    }
    const afterWarm = searchIndexCounters();
    timings.sort((a, b) => a - b);
    const p50 = percentile(timings, 50);
    const p95 = percentile(timings, 95);

    const emptyStart = performance.now();
    await searchItems({ query: "zzzz_nothing", spaces: spaces.spaces });
    const freshnessOnly = performance.now() - emptyStart;

    const edited = `${spaces.project.root}/tools/bench_edit.py`;
    await writeFile(edited, pythonToolFile("bench_edit", "A freshly edited quokka tool"));
    const editStart = performance.now();
    const editHit = await searchItems({ query: "quokka", spaces: spaces.spaces });
    const afterEdit = performance.now() - editStart;

    const hostile = `${"(".repeat(30)}a* OR *e* OR ${"x~2 ".repeat(20)}${")".repeat(30)} .*+?^\${}|[]\\`;
    const hostileStart = performance.now();
    await searchItems({ query: hostile, spaces: spaces.spaces }).catch(() => undefined);
    const hostileTime = performance.now() - hostileStart;

    const heap = process.memoryUsage().heapUsed / 1024 / 1024;
    console.log(`cold search (builds the index, ${afterCold.filesRead} files read, first query ${first.total} hits): ${ms(cold)}`);
    console.log(`warm over ${timings.length} queries (${totalHits} hits in total): p50 ${ms(p50)}, p95 ${ms(p95)}, max ${ms(timings.at(-1)!)}`);
    console.log(`warm p50 / cold: ${(p50 / cold).toFixed(4)} (${(cold / p50).toFixed(0)}× faster)`);
    console.log(`files read during the warm queries: ${afterWarm.filesRead - afterCold.filesRead}; files stat-ed per search: ${((afterWarm.filesStatted - afterCold.filesStatted) / timings.length).toFixed(0)}`);
    console.log(`freshness check + trivial query: ${ms(freshnessOnly)}; search right after adding one file: ${ms(afterEdit)} (found: ${editHit.total === 1})`);
    console.log(`hostile query (30 nested groups, broad wildcards, 20 fuzzy terms): ${ms(hostileTime)}`);
    console.log(`heap used: ${heap.toFixed(0)} MiB`);
    console.log("warm median per query shape:");
    for (const [label, times] of byShape) console.log(`  ${label.padEnd(18)} ${ms(percentile(times.sort((a, b) => a - b), 50))}`);
  } finally {
    await rm(spaces.base, { recursive: true, force: true });
  }
}

await main();
