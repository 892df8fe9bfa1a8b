/**
 * The publish-time review on its labelled corpus (packages/core/src/review/corpus/): detection (malicious samples
 * at medium risk or higher) and false alarms (benign samples at high risk) per attack family and overall, on the
 * tuning half and on the evaluation half the rules were not tuned on; then what it costs: the review of a 1 MiB
 * skill (corpus files repeated; median of runs, wall and CPU time) and the slowest crafted pathological input.
 * Run: npm run bench -- review
 */
import { loadavg } from "node:os";
import { halfOf, loadCorpus, rates, type FamilyRates } from "../src/review/corpus/load.ts";
import { pathologicalInputs } from "../src/review/pathological.ts";
import { reviewFiles, type ReviewFile } from "../src/review/review.ts";

const pct = (n: number, d: number) => (d === 0 ? "   -  " : `${((100 * n) / d).toFixed(1).padStart(5)}%`);
const row = (r: FamilyRates) =>
  `  ${r.family.padEnd(22)} detection ${pct(r.detected, r.malicious)} (${String(r.detected).padStart(3)}/${String(r.malicious).padEnd(3)})  false alarms ${pct(r.falseAlarms, r.benign)} (${String(r.falseAlarms).padStart(2)}/${String(r.benign).padEnd(3)})  benign at medium ${String(r.benignMedium).padStart(2)}`;

const corpus = loadCorpus();
console.log(`review corpus: ${corpus.filter((s) => s.label === "malicious").length} malicious, ${corpus.filter((s) => s.label === "benign").length} benign samples`);
for (const half of ["tuning", "evaluation"] as const) {
  const samples = corpus.filter((s) => halfOf(s.id) === half);
  const r = rates(samples);
  console.log(`\n${half} half (${samples.length} samples)${half === "evaluation" ? ": not tuned on" : ""}`);
  for (const f of r.perFamily) console.log(row(f));
  console.log(row(r.overall));
}

// A 1 MiB skill: corpus files (instructions, scripts, references) under their own folders until 1 MiB.
const skill: ReviewFile[] = [];
let size = 0;
for (let i = 0; size < 1 << 20; i++) {
  const sample = corpus[i % corpus.length]!;
  for (const f of sample.files) {
    skill.push({ path: `part${i}/${f.path}`, text: f.text });
    size += f.text.length;
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function measure(files: readonly ReviewFile[]): { wall: number; cpu: number } {
  const c = process.cpuUsage();
  const t = performance.now();
  reviewFiles(files);
  const wall = performance.now() - t;
  const u = process.cpuUsage(c);
  return { wall, cpu: (u.user + u.system) / 1000 };
}
measure(skill); // warm-up
const runs = Array.from({ length: 7 }, () => measure(skill));
console.log(`\ntiming (load average ${loadavg()[0]!.toFixed(1)} on this machine)`);
console.log(`  1 MiB skill (${skill.length} files): median ${median(runs.map((r) => r.wall)).toFixed(0)} ms wall, ${median(runs.map((r) => r.cpu)).toFixed(0)} ms CPU (budget 200 ms)`);

const slow = pathologicalInputs()
  .map((p) => ({ name: p.name, ...measure([{ path: p.path, text: p.text }]) }))
  .sort((a, b) => b.cpu - a.cpu);
console.log(`  crafted pathological inputs (${slow.length}, 1 MiB each), slowest:`);
for (const s of slow.slice(0, 3)) console.log(`    ${s.name.padEnd(40)} ${s.wall.toFixed(0).padStart(5)} ms wall, ${s.cpu.toFixed(0).padStart(5)} ms CPU (bound 1000 ms)`);
