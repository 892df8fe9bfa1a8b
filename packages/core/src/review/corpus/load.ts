/**
 * Reads the review corpus from disk (Node only: used by the tests and the bench, never by @rye/core's exports) and
 * splits it into a tuning half and an evaluation half by a hash of each sample's id, so the split never depends on
 * how the review does on a sample.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { atLeast, reviewFiles } from "../review.ts";
import { FAMILIES, type CorpusSample } from "./template-kit.ts";

const root = fileURLToPath(new URL(".", import.meta.url));

export function loadCorpus(): CorpusSample[] {
  const out: CorpusSample[] = [];
  for (const label of ["malicious", "benign"]) {
    for (const family of readdirSync(join(root, label)).sort()) {
      for (const file of readdirSync(join(root, label, family)).sort()) out.push(JSON.parse(readFileSync(join(root, label, family, file), "utf8")) as CorpusSample);
    }
  }
  return out;
}

/** FNV-1a of the id: even goes to tuning, odd to evaluation. */
export function halfOf(id: string): "tuning" | "evaluation" {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h % 2 === 0 ? "tuning" : "evaluation";
}

export interface FamilyRates {
  family: string;
  malicious: number;
  detected: number;
  benign: number;
  falseAlarms: number;
  benignMedium: number;
}

/** Detection = malicious samples at medium risk or higher; a false alarm = a benign sample at high risk. */
export function rates(samples: readonly CorpusSample[]): { perFamily: FamilyRates[]; overall: FamilyRates; missed: CorpusSample[]; alarms: CorpusSample[] } {
  const missed: CorpusSample[] = [];
  const alarms: CorpusSample[] = [];
  const rows = new Map<string, FamilyRates>();
  const row = (family: string) => rows.get(family) ?? rows.set(family, { family, malicious: 0, detected: 0, benign: 0, falseAlarms: 0, benignMedium: 0 }).get(family)!;
  for (const f of [...FAMILIES, "ordinary"]) row(f);
  for (const s of samples) {
    const risk = reviewFiles(s.files).risk;
    const r = row(s.family);
    if (s.label === "malicious") {
      r.malicious++;
      if (atLeast(risk, "medium")) r.detected++;
      else missed.push(s);
    } else {
      r.benign++;
      if (risk === "high") {
        r.falseAlarms++;
        alarms.push(s);
      } else if (risk === "medium") r.benignMedium++;
    }
  }
  const perFamily = [...rows.values()];
  const overall = perFamily.reduce((a, r) => ({ family: "overall", malicious: a.malicious + r.malicious, detected: a.detected + r.detected, benign: a.benign + r.benign, falseAlarms: a.falseAlarms + r.falseAlarms, benignMedium: a.benignMedium + r.benignMedium }), { family: "overall", malicious: 0, detected: 0, benign: 0, falseAlarms: 0, benignMedium: 0 });
  return { perFamily, overall, missed, alarms };
}
