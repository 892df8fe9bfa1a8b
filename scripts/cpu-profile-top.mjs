#!/usr/bin/env node
// Prints the top self-time and inclusive-time frames of a V8 .cpuprofile (node --cpu-prof), grouped by function
// and file, so a profile can be read without a browser. Usage: node scripts/cpu-profile-top.mjs <file.cpuprofile> [count]
import { readFileSync } from "node:fs";

const [file, countArg] = process.argv.slice(2);
if (!file) {
  console.error("usage: node scripts/cpu-profile-top.mjs <file.cpuprofile> [count]");
  process.exit(2);
}
const count = Number(countArg ?? 20);
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const hits = new Map();
for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
const total = profile.samples.length;
const short = (url) => url.replace(/^file:\/\//, "").replace(/^.*\/node_modules\//, "~/").replace(/^.*\/(apps|packages)\//, "$1/");
const label = (n) => `${n.callFrame.functionName || "(anonymous)"} ${short(n.callFrame.url)}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ""}`;

const self = new Map();
for (const [id, n] of hits) {
  const key = label(byId.get(id));
  self.set(key, (self.get(key) ?? 0) + n);
}
// Inclusive: a frame counts once per sample however deep it recurses.
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map();
for (const [id, n] of hits) {
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const key = label(byId.get(cur));
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + n);
  }
}
const pct = (n) => `${((100 * n) / total).toFixed(1).padStart(5)}%`;
const top = (map) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count);
console.log(`${file}: ${total} samples`);
console.log("self time:");
for (const [k, n] of top(self)) console.log(`  ${pct(n)}  ${k}`);
console.log("inclusive time:");
for (const [k, n] of top(inclusive).filter(([k]) => !/^\((root|program|idle)\)/.test(k))) console.log(`  ${pct(n)}  ${k}`);
