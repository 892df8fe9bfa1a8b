/**
 * For tuning the rules: the rates on the tuning half and the tuning samples the review gets wrong (with their
 * findings). It never prints anything about the evaluation half; `npm run bench -- review` measures that.
 * Run: node --import tsx packages/core/src/review/corpus/tune.ts [--verbose]
 */
import { reviewFiles } from "../review.ts";
import { halfOf, loadCorpus, rates } from "./load.ts";

const tuning = loadCorpus().filter((s) => halfOf(s.id) === "tuning");
const r = rates(tuning);
for (const f of [...r.perFamily, r.overall]) console.log(`${f.family.padEnd(22)} detected ${f.detected}/${f.malicious}  false alarms ${f.falseAlarms}/${f.benign}  benign medium ${f.benignMedium}`);
const verbose = process.argv.includes("--verbose");
for (const s of [...r.missed, ...r.alarms]) {
  console.log(`\n${s.label === "malicious" ? "MISSED" : "FALSE ALARM"} ${s.id}: ${s.title}`);
  if (verbose) for (const f of reviewFiles(s.files).findings) console.log(`  ${f.risk} ${f.rule} ${f.path}:${f.line} ${f.excerpt}`);
}
