#!/usr/bin/env node
// Runs every *.test.ts under apps/ and packages/ with node's test runner (tsx for TypeScript).
// Usage: node scripts/run-tests.mjs [path filter…]   e.g. `npm test -- packages/core`
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const SKIP = new Set(["node_modules", ".git", "dist", ".next", ".rye-data"]);

function collect(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) collect(full, out);
    else if (entry.name.endsWith(".test.ts")) out.push(relative(root, full));
  }
  return out;
}

const filters = process.argv.slice(2);
const files = ["packages", "apps"]
  .flatMap((d) => collect(join(root, d), []))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(1);
}
const concurrency = process.env.RYE_TEST_CONCURRENCY ?? "2";
const child = spawn(
  process.execPath,
  ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, "--test-timeout=120000", ...files],
  { cwd: root, stdio: "inherit", env: { ...process.env, NODE_ENV: "test" } },
);
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
