/**
 * Relations between items, on the embedded PGlite (or PostgreSQL when DATABASE_URL is set):
 * - publish cost: pushing a directive that uses 64 items (the limit; half of them published, half not) against
 *   pushing the same directive using none, in the same run (the ratio is the figure);
 * - read cost: GET /v1/relations of a tool used by 100 directives against GET /v1/items of the same tool.
 * Run: node --import tsx apps/api/bench/relations.bench.ts   (BENCH_ROUNDS scales it)
 */
import "@rye/core/node";
import { loadavg } from "node:os";
import { MAX_REFERENCES_PER_ITEM } from "@rye/core";
import { createTestRegistry } from "../test/harness.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const USERS = 100;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const reg = await createTestRegistry({ config: { rateLimit: { windowSeconds: 60, reads: 1_000_000, writes: 1_000_000 } } });
const token = await reg.token(await reg.createUser("bench"));

const directive = (name: string, actions: string[]) =>
  `# ${name}\n\n\`\`\`xml\n<directive name="${name}" version="1.0.0">\n  <metadata>\n    <description>Bench ${name}.</description>\n    <category>flows</category>\n    <author>bench</author>\n  </metadata>\n  <process>\n${actions.map((a) => `    <step>${a}</step>`).join("\n")}\n  </process>\n</directive>\n\`\`\`\n`;
const tool = (name: string) => `__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = None\n__category__ = "tools"\n__tool_description__ = "Bench ${name}"\n`;
async function push(json: Record<string, unknown>): Promise<number> {
  const started = performance.now();
  const res = await reg.request("POST", "/v1/push", { token, json });
  if (res.status !== 201) throw new Error(`push ${res.status}: ${await res.text()}`);
  return performance.now() - started;
}

const half = MAX_REFERENCES_PER_ITEM / 2;
for (let i = 0; i < half; i++) await push({ item_type: "tool", item_id: `bench/tools/t${i}`, content: tool(`t${i}`), version: "1.0.0", file_extension: ".py" });
const uses = Array.from({ length: MAX_REFERENCES_PER_ITEM }, (_, i) => `<execute item_type="tool" item_id="bench/tools/t${i}"/>`);
const plain: number[] = [];
const related: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // Alternate so that the database's growth weighs on both the same.
  plain.push(await push({ item_type: "directive", item_id: `bench/flows/plain_${round}`, content: directive(`plain_${round}`, []), version: "1.0.0" }));
  related.push(await push({ item_type: "directive", item_id: `bench/flows/related_${round}`, content: directive(`related_${round}`, uses), version: "1.0.0" }));
}

for (let i = 0; i < USERS - ROUNDS; i++) await push({ item_type: "directive", item_id: `bench/flows/user_${i}`, content: directive(`user_${i}`, [uses[0]!]), version: "1.0.0" });
async function timeGet(path: string): Promise<number> {
  const started = performance.now();
  const res = await reg.request("GET", path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  await res.arrayBuffer();
  return performance.now() - started;
}
const relationsMs: number[] = [];
const itemsMs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  itemsMs.push(await timeGet("/v1/items/tool/bench/tools/t0"));
  relationsMs.push(await timeGet("/v1/relations/tool/bench/tools/t0"));
}
const check = (await (await reg.request("GET", "/v1/relations/tool/bench/tools/t0")).json()) as { used_by_total: number };
await reg.close();

const f = (ms: number) => `${ms.toFixed(1)} ms`;
console.log(`relations between items (${reg.db.kind}; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")})`);
console.log(`  publish: a directive using ${MAX_REFERENCES_PER_ITEM} items (${half} published) ${f(median(related))}; using none ${f(median(plain))} → ×${(median(related) / median(plain)).toFixed(2)}`);
console.log(`  read:    GET /v1/relations of a tool used by ${check.used_by_total} directives ${f(median(relationsMs))}; GET /v1/items of it ${f(median(itemsMs))} → ×${(median(relationsMs) / median(itemsMs)).toFixed(2)}`);
