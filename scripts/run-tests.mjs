#!/usr/bin/env node
// Runs every *.test.ts under apps/ and packages/ with node's test runner (tsx for TypeScript).
// Usage: node scripts/run-tests.mjs [path filter…]   e.g. `npm test -- packages/core`
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
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
// PostgreSQL-backed tests need DATABASE_URL. When it is unset but PostgreSQL is installed, start a
// throwaway cluster for this run (scripts/start-pg.sh) and stop it afterwards, also on Ctrl-C.
function startPostgres() {
  const installed = existsSync("/usr/lib/postgresql") &&
    readdirSync("/usr/lib/postgresql").some((v) => existsSync(join("/usr/lib/postgresql", v, "bin")));
  if (process.env.DATABASE_URL || !installed) return undefined;
  try {
    const out = execFileSync("bash", [join(root, "scripts/start-pg.sh")], {
      env: { ...process.env, PGPORT: process.env.RYE_TEST_PGPORT ?? "54331" },
      encoding: "utf8",
    });
    const vars = Object.fromEntries([...out.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
    console.error(`run-tests: started PostgreSQL for this run (${vars.DATABASE_URL})`);
    return vars;
  } catch (error) {
    console.error(`run-tests: could not start PostgreSQL, its tests will be skipped: ${error.message}`);
    return undefined;
  }
}
const pg = startPostgres();
const stopPostgres = () => {
  if (pg) execFileSync("bash", [join(root, "scripts/stop-pg.sh")], { env: { ...process.env, ...pg }, stdio: "ignore" });
};

const concurrency = process.env.RYE_TEST_CONCURRENCY ?? "2";
const child = spawn(
  process.execPath,
  ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, "--test-timeout=120000", ...files],
  { cwd: root, stdio: "inherit", env: { ...process.env, ...pg, NODE_ENV: "test" } },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  stopPostgres();
  process.exit(code ?? (signal ? 1 : 0));
});
