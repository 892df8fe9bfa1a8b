/**
 * Writes the review corpus (one JSON file per sample under malicious/<family>/ and benign/<family>/) from the
 * templates in templates-malicious.ts and templates-benign.ts. Every template takes a seeded random source and picks
 * among hand-written alternatives (interpreter, encoding, host, file layout, prose), so one template yields several
 * realistic, different samples. Deterministic: the same templates always write the same files.
 *
 * Run: node --import tsx packages/core/src/review/corpus/generate.ts
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BENIGN_TEMPLATES } from "./templates-benign.ts";
import { MALICIOUS_TEMPLATES } from "./templates-malicious.ts";
import { rngFor, type CorpusSample, type Template } from "./template-kit.ts";

const root = fileURLToPath(new URL(".", import.meta.url));

/** Every variant of every template; a variant identical to an earlier one is drawn again (up to 30 times), else dropped. */
function expand(templates: readonly Template[], label: CorpusSample["label"]): CorpusSample[] {
  const out: CorpusSample[] = [];
  const seen = new Set<string>();
  for (const t of templates) {
    for (let v = 0; v < t.variants; v++) {
      const id = `${label === "malicious" ? "m" : "b"}-${t.family}-${t.id}-${v + 1}`;
      for (let attempt = 0; attempt < 30; attempt++) {
        const made = t.make(rngFor(attempt === 0 ? id : `${id}#${attempt}`), v);
        const key = JSON.stringify(made.files);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ id, label, family: t.family, kind: made.kind, title: made.title, files: made.files });
        break;
      }
    }
  }
  return out;
}

const samples = [...expand(MALICIOUS_TEMPLATES, "malicious"), ...expand(BENIGN_TEMPLATES, "benign")];
const ids = new Set<string>();
for (const s of samples) {
  if (ids.has(s.id)) throw new Error(`duplicate sample id ${s.id}`);
  ids.add(s.id);
}
for (const dir of ["malicious", "benign"]) {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true }).filter((e) => e.isDirectory())) rmSync(join(root, dir, entry.name), { recursive: true });
}
for (const s of samples) {
  const dir = join(root, s.label, s.family);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${s.id}.json`), `${JSON.stringify(s, null, 1)}\n`);
}
const count = (label: string) => samples.filter((s) => s.label === label).length;
console.log(`wrote ${count("malicious")} malicious and ${count("benign")} benign samples`);
