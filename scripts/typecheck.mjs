#!/usr/bin/env node
// `npm run typecheck`: every TypeScript project of the repository, checked with `tsc --noEmit`.
// tsc uses one core, so the projects run side by side, as many at once as there are cores (RYE_TYPECHECK_CONCURRENCY
// overrides), the slowest first: on 2 cores the root project runs beside all the others (~75 s of CPU) instead of
// before them (~130 s one after another). Each project's output is printed whole when it ends, never interleaved.
// Usage: node scripts/typecheck.mjs [tsconfig…]   (default: PROJECTS)
//        node scripts/typecheck.mjs --list        (prints PROJECTS, one a line)
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Every project, slowest first (CPU seconds measured on the CI machine in the comments). */
const PROJECTS = [
  "tsconfig.json", // 58 s: apps/api, packages/rye, packages/db, scripts, e2e
  "apps/web/server/tsconfig.json", // 31 s
  "apps/web/tsconfig.json", // 19 s
  "packages/rye/runners/tsconfig.json", // 9 s
  "packages/core/tsconfig.json", // 9 s: also that @rye/core stays free of Node.js types
  "packages/rye/runtime.tsconfig.json", // 5 s
];

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

/** Runs `tsc -p project --noEmit`; resolves to its exit code and everything it printed. */
function check(project) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [tsc, "-p", project, "--noEmit"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (error) => resolve({ project, code: 1, output: `${output}${error.message}\n`, ms: Date.now() - started }));
    child.on("close", (code, signal) => resolve({ project, code: code ?? (signal ? 1 : 0), output, ms: Date.now() - started }));
  });
}

if (process.argv[2] === "--list") {
  console.log(PROJECTS.join("\n"));
  process.exit(0);
}
const projects = process.argv.slice(2).length > 0 ? process.argv.slice(2) : PROJECTS;
const wanted = Number(process.env.RYE_TYPECHECK_CONCURRENCY ?? availableParallelism());
if (!Number.isInteger(wanted) || wanted < 1) {
  console.error(`typecheck: RYE_TYPECHECK_CONCURRENCY must be a whole number of at least 1, got ${JSON.stringify(process.env.RYE_TYPECHECK_CONCURRENCY)}`);
  process.exit(2);
}
const queue = [...projects];
const failed = [];
async function worker() {
  for (let project = queue.shift(); project !== undefined; project = queue.shift()) {
    const result = await check(project);
    process.stdout.write(result.output);
    console.error(`typecheck: ${result.project} ${result.code === 0 ? "ok" : "FAILED"} (${(result.ms / 1000).toFixed(1)} s)`);
    if (result.code !== 0) failed.push(result.project);
  }
}
await Promise.all(Array.from({ length: Math.min(wanted, projects.length) }, worker));
if (failed.length > 0) {
  console.error(`typecheck: type errors in ${failed.join(", ")}`);
  process.exit(1);
}
