#!/usr/bin/env node
// Compiles the servers to JavaScript so production runs no TypeScript compiler (issue #15):
//   api       apps/api/src/main.ts                → apps/api/dist/main.js          (`npm run start:api`)
//   web       apps/web/server/main.ts             → apps/web/server/dist/main.js   (`npm start`: API + website)
//   registry  apps/api/src/cli/registry-main.ts   → apps/api/dist/registry-cli.js  (`npm run registry`, operator CLI)
//   migrate   packages/db/scripts/migrate.ts      → packages/db/dist/migrate.js    (`npm run db:migrate` compiled: the
//                                                                                  container image's migrations Job)
// One ESM bundle per server with our workspace packages (@rye/*) inlined and every third-party package left
// as an import from node_modules. `import.meta.url` keeps naming the original source file, so paths the code
// computes from it (prisma/migrations, the repository's .ai/, the site's directory) are those of the checkout.
// A build is stale when any source it depends on (the workspace packages, the lockfile) is newer than it.
// Usage: node scripts/build-server.mjs [api|web|registry] [--run [args…]]   (--run: then run it in this process, with args)
import { existsSync, readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

export const SERVER_TARGETS = {
  api: { entry: "apps/api/src/main.ts", outfile: "apps/api/dist/main.js" },
  web: { entry: "apps/web/server/main.ts", outfile: "apps/web/server/dist/main.js" },
  registry: { entry: "apps/api/src/cli/registry-main.ts", outfile: "apps/api/dist/registry-cli.js" },
  migrate: { entry: "packages/db/scripts/migrate.ts", outfile: "packages/db/dist/migrate.js" },
};

// Everything a server bundle is made of (the site's own Next build has its own staleness check: apps/web/server/build.ts).
const INPUTS = ["apps/api/src", "apps/web/server", "packages/core/src", "packages/db/src", "packages/db/scripts", "packages/rye/src", "package-lock.json", "scripts/build-server.mjs"];
const SKIP = new Set(["node_modules", "dist", ".next"]);

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) if (!SKIP.has(entry)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** True when the bundle is missing or older than any of its inputs. */
export function serverBuildIsStale(target) {
  const outfile = join(root, SERVER_TARGETS[target].outfile);
  if (!existsSync(outfile)) return true;
  const built = statSync(outfile).mtimeMs;
  return INPUTS.some((input) => newestMtime(join(root, input)) > built);
}

/** Our TypeScript keeps its own `import.meta.url` (see the header); everything outside node_modules is ours. */
const keepSourceUrls = {
  name: "rye:source-import-meta-url",
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
      if (args.path.includes(`${"/"}node_modules${"/"}`)) return undefined;
      const source = await readFile(args.path, "utf8");
      return { contents: source.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)), loader: "ts" };
    });
  },
};

/** Third-party packages stay imports (resolved from node_modules at run time); @rye/* workspace packages are bundled. */
const externalThirdParty = {
  name: "rye:external-third-party",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith("@rye/") ? undefined : { path: args.path, external: true }));
  },
};

export async function buildServer(target) {
  const { build } = await import("esbuild");
  const { entry, outfile } = SERVER_TARGETS[target];
  await build({
    entryPoints: [join(root, entry)],
    outfile: join(root, outfile),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node22",
    sourcemap: "linked",
    logLevel: "warning",
    plugins: [keepSourceUrls, externalThirdParty],
  });
}

/** Builds `target` when stale; `log` hears about it. */
export async function ensureServerBuild(target, log = (message) => console.error(message)) {
  if (!serverBuildIsStale(target)) return false;
  const started = Date.now();
  log(`building the ${target} ${target === "registry" ? "CLI" : target === "migrate" ? "command" : "server"} (${relative(root, join(root, SERVER_TARGETS[target].outfile))}); this happens once after each change`);
  await buildServer(target);
  log(`built in ${Date.now() - started} ms`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = process.argv[2] ?? "web";
  if (!(target in SERVER_TARGETS)) {
    console.error(`usage: node scripts/build-server.mjs [${Object.keys(SERVER_TARGETS).join("|")}] [--run]`);
    process.exit(2);
  }
  await ensureServerBuild(target);
  if (process.argv[3] === "--run") {
    // The bundle sees the arguments after --run, as if it had been started itself.
    const outfile = join(root, SERVER_TARGETS[target].outfile);
    process.argv = [process.argv[0], outfile, ...process.argv.slice(4)];
    await import(pathToFileURL(outfile).href);
  }
}
