#!/usr/bin/env node
// `npm run bench`: every benchmark, one after the other; each prints its figures as ratios against a baseline it
// measures in the same run. `npm run bench -- <text>…` runs only the benches whose path contains one of the texts
// (the client package is built first whenever a bench of packages/rye is among them). Stops at the first failure.
// A new bench is one line in BENCHES.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const BENCHES = [
  "packages/core/bench/verify.bench.ts",
  "packages/core/bench/review.bench.ts",
  "packages/rye/bench/search.bench.ts",
  "packages/rye/bench/startup.bench.ts",
  "packages/rye/bench/load.bench.ts",
  "packages/rye/bench/pull.bench.ts",
  "packages/rye/bench/thread.bench.ts",
  "packages/rye/bench/thread-start.bench.ts",
  "packages/rye/bench/security.bench.ts",
  "packages/rye/bench/graph.bench.ts",
  "packages/rye/bench/mcp-lists.bench.ts",
  "packages/rye/bench/mcp-protocol.bench.ts",
  "packages/rye/bench/durable.bench.ts",
  "packages/rye/bench/closure.bench.ts",
  "apps/api/bench/pull-throughput.bench.ts",
  "apps/api/bench/idle-memory.bench.ts",
  "apps/api/bench/changes.bench.ts",
  "apps/api/bench/blob-store.bench.ts",
  "apps/api/bench/verification.bench.ts",
  "apps/api/bench/mirror-pull.bench.ts",
  "apps/api/bench/mirror-skills.bench.ts",
  "apps/api/bench/relations.bench.ts",
  "apps/api/bench/topology.bench.ts",
  "apps/api/bench/quality.bench.ts",
  "apps/api/bench/mcp.bench.ts",
  "apps/api/bench/tlog.bench.ts",
  "apps/web/bench/pages.bench.ts",
  "apps/web/bench/search.bench.ts",
];
/** Benches of the client that run the built package (`dist/`). */
const NEEDS_BUILD = new Set(["packages/rye/bench/startup.bench.ts", "packages/rye/bench/closure.bench.ts", "packages/rye/bench/thread-start.bench.ts"]);

const filters = process.argv.slice(2);
const selected = filters.length === 0 ? BENCHES : BENCHES.filter((b) => filters.some((f) => b.includes(f)));
if (selected.length === 0) {
  console.error(`bench: nothing matches ${filters.join(", ")}; the benches are:\n  ${BENCHES.join("\n  ")}`);
  process.exit(2);
}

function run(command, args) {
  console.log(`\nbench: ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`bench: ${args.at(-1)} failed (${result.signal ?? `exit ${result.status}`})`);
    process.exit(result.status ?? 1);
  }
}

if (selected.some((b) => NEEDS_BUILD.has(b))) run("npm", ["run", "build", "-w", "ryeos"]);
for (const bench of selected) run(process.execPath, ["--import", "tsx", bench]);
