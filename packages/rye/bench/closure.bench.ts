/**
 * `rye pull --with-deps` (registry/pull-closure.ts) over loopback against the real registry API (in-process; PGlite,
 * or PostgreSQL from DATABASE_URL): a directive that uses 3 tools and a knowledge entry, pulled with its closure
 * into a fresh project, against the baseline of pulling the same 5 items one `rye pull` at a time (pullCommand)
 * into a fresh project, in the same run. Both verify every item the same way; the ratio is the figure.
 * Run: node --import tsx packages/rye/bench/closure.bench.ts   (CLOSURE_BENCH_ROUNDS=15 by default)
 */
import "@rye/core/node";
import { mkdir, mkdtemp } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pullClosure } from "../src/registry/pull-closure.ts";
import { pullCommand } from "../src/registry/pull-command.ts";
import { createPublisher, startTestRegistry } from "../test/registry-server.ts";
import { nodeTool } from "../test/workspace.ts";

const ROUNDS = Number(process.env.CLOSURE_BENCH_ROUNDS ?? 15);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const registry = await startTestRegistry({ env: { RYE_RATE_LIMIT_READS: "10000000", RYE_RATE_LIMIT_WRITES: "10000000" } });
const push = await createPublisher(registry, "bench");
const tools = ["fetch", "parse", "store"];
for (const t of tools) await push("tool", `bench/tools/${t}`, "1.0.0", nodeTool("tools", `export function main() { return { ${t}: true }; }`), ".mjs");
await push("knowledge", "bench/notes/style", "1.0.0", `---\nid: style\ntitle: style\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n---\n\nBe brief.\n`);
const actions = [...tools.map((t) => `<execute item_type="tool" item_id="bench/tools/${t}"/>`), `<load item_type="knowledge" item_id="bench/notes/style"/>`];
await push("directive", "bench/flows/triage", "1.0.0", `# triage\n\n\`\`\`xml\n<directive name="triage" version="1.0.0">\n  <metadata>\n    <description>Triage.</description>\n    <category>flows</category>\n    <author>bench</author>\n  </metadata>\n  <process>\n${actions.map((a) => `    <step>${a}</step>`).join("\n")}\n  </process>\n</directive>\n\`\`\`\n`);

const items: [("directive" | "tool" | "knowledge"), string][] = [["directive", "bench/flows/triage"], ...tools.map((t): ["tool", string] => ["tool", `bench/tools/${t}`]), ["knowledge", "bench/notes/style"]];
const root = await mkdtemp(join(tmpdir(), "rye-closure-bench-"));
const userBase = join(root, "home");
await mkdir(userBase, { recursive: true });
const env: NodeJS.ProcessEnv = { ...process.env, USER_SPACE: userBase, RYE_REGISTRY_URL: registry.url };
delete env.RYE_OFFLINE;
delete env.RYE_TOKEN;
let n = 0;
async function freshProject(): Promise<string> {
  const dir = join(root, `p${n++}`);
  await mkdir(join(dir, ".ai"), { recursive: true });
  return dir;
}

const closureMs: number[] = [];
const oneByOneMs: number[] = [];
for (let round = 0; round < ROUNDS + 1; round++) {
  let project = await freshProject();
  let started = performance.now();
  for (const [type, id] of items) await pullCommand({ id, type, to: "project" }, { projectPath: project, env });
  const single = performance.now() - started;
  project = await freshProject();
  started = performance.now();
  const result = await pullClosure({ id: "bench/flows/triage", type: "directive", to: "project" }, { projectPath: project, env });
  const closure = performance.now() - started;
  if (result.items.length !== 5) throw new Error(`closure of ${result.items.length} items`);
  if (round === 0) continue; // warm-up: the first round pins the registry key
  oneByOneMs.push(single);
  closureMs.push(closure);
}
await registry.close();

const f = (ms: number) => `${ms.toFixed(1)} ms`;
console.log(`rye pull --with-deps (${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")})`);
console.log(`  a directive + 3 tools + 1 knowledge entry: closure ${f(median(closureMs))}; the 5 pulled one at a time ${f(median(oneByOneMs))} → ×${(median(closureMs) / median(oneByOneMs)).toFixed(2)}`);
