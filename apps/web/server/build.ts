/**
 * `npm start` builds the website when its production build is missing or older than its sources (the
 * site, @rye/core, the lockfile), so a fresh clone needs no separate build step.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

// Not part of the site: the one-origin server, benchmarks (run with tsx, typechecked by the root tsconfig), outputs.
const SKIP = new Set(["node_modules", ".next", "server", "bench", "test-results"]);

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (!SKIP.has(entry)) newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** The newest modification time of anything the build depends on: the site, @rye/core, the lockfile. */
export function newestWebInputMtime(webDir: string): number {
  const repo = resolve(webDir, "../..");
  return Math.max(newestMtime(webDir), newestMtime(join(repo, "packages/core/src")), newestMtime(join(repo, "package-lock.json")));
}

/** True when `.next/BUILD_ID` is missing or older than anything the build depends on. */
export function webBuildIsStale(webDir: string): boolean {
  const buildId = join(webDir, ".next", "BUILD_ID");
  return !existsSync(buildId) || newestWebInputMtime(webDir) > statSync(buildId).mtimeMs;
}

/** Runs `next build` in `webDir` (no shell), streaming its output to stderr. */
export function buildWeb(webDir: string): Promise<void> {
  const nextBin = createRequire(join(webDir, "package.json")).resolve("next/dist/bin/next");
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [nextBin, "build"], {
      cwd: webDir,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
      stdio: ["ignore", process.stderr, process.stderr],
    });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolvePromise() : reject(new Error(`next build exited with ${code}`))));
  });
}

export async function ensureWebBuild(webDir: string, log: (message: string) => void): Promise<void> {
  if (!webBuildIsStale(webDir)) return;
  log("building the website (next build); this happens once after each change");
  await buildWeb(webDir);
}
