#!/usr/bin/env node
// Builds the publishable package `ryeos` in place (packages/rye):
//   dist/cli.js, dist/sdk/v1.js (+ .d.ts)   the client as ESM JavaScript for Node ≥ 22, with @rye/core and every
//                                           third-party module it uses bundled in (the package has no dependencies)
//   dist/runners/                           the runtime runners: node-runner.mjs and python_function.py as they are,
//                                           mcp-call.mjs bundled with the MCP SDK client
//   system/.ai/                             the system bundle: a byte-for-byte copy of the repository's signed .ai/
//   THIRD_PARTY_LICENSES.md                 the licence text of every bundled third-party package
// Usage: node scripts/build.mjs   (npm run build -w ryeos; `prepublishOnly` runs it)
import { copyFile, cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "tsdown";

const root = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = join(root, "..", "..");
const started = Date.now();

/** Packages under node_modules that went into the bundle: name → directory. */
const bundled = new Map();
const collectBundled = {
  name: "rye:collect-bundled",
  generateBundle(_options, bundle) {
    for (const chunk of Object.values(bundle)) {
      if (chunk.type !== "chunk") continue;
      for (const id of chunk.moduleIds) {
        const path = id.split("?")[0].split(sep).join("/");
        const match = /^(.*\/node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(path);
        if (match) bundled.set(match[2], match[1]);
      }
    }
  },
};

const common = {
  cwd: root,
  config: false,
  format: "esm",
  platform: "node",
  target: "node22",
  outDir: "dist",
  clean: false,
  sourcemap: false,
  treeshake: true,
  // `dependencies` is empty: everything reachable is bundled. Node built-ins stay imports.
  deps: { onlyBundle: false },
  logLevel: "warn",
  plugins: [collectBundled],
  // @rye/core in one chunk of its own: left to the automatic split, a core module could land in a chunk that itself
  // imports core, and such a cycle between chunks fails at start-up (a binding read before its chunk ran).
  outputOptions: { codeSplitting: { groups: [{ name: "core", test: /[\\/]packages[\\/]core[\\/]src[\\/]/ }] } },
};

await rm(join(root, "dist"), { recursive: true, force: true });
await rm(join(root, "system"), { recursive: true, force: true });

await build({
  ...common,
  entry: { cli: "src/cli/main.ts", "sdk/v1": "src/sdk/v1.ts" },
  // Types for the SDK entry, with @rye/core's inlined (it is not published on its own).
  dts: { resolve: ["@rye/core"], eager: true },
  outExtensions: () => ({ js: ".js", dts: ".d.ts" }),
});
await build({
  ...common,
  entry: { "runners/mcp-call": "runners/mcp-call.mjs" },
  dts: false,
  outExtensions: () => ({ js: ".mjs" }),
});

await mkdir(join(root, "dist", "runners"), { recursive: true });
for (const file of ["node-runner.mjs", "state-graph.mjs", "python_function.py"]) await copyFile(join(root, "runners", file), join(root, "dist", "runners", file));

// The system bundle, copied byte for byte (its signatures cover the content; the engine verifies every item).
for (const folder of ["directives", "tools", "knowledge"]) {
  await cp(join(repoRoot, ".ai", folder), join(root, "system", ".ai", folder), { recursive: true });
}

// Licence texts of the bundled packages (our own workspace packages are not under node_modules).
const notices = ["# Third-party licences", "", "The files in `dist/` include code from these packages, under their own licences.", ""];
for (const [name, dir] of [...bundled].sort(([a], [b]) => a.localeCompare(b))) {
  const pkg = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
  const licenseFile = (await readdir(dir)).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  const text = licenseFile ? (await readFile(join(dir, licenseFile), "utf8")).trim() : `License: ${pkg.license ?? "see the package"}`;
  notices.push(`## ${name}@${pkg.version} (${pkg.license ?? "unknown"})`, "", "```", text, "```", "");
}
await writeFile(join(root, "THIRD_PARTY_LICENSES.md"), notices.join("\n"));

const files = await readdir(join(root, "dist"), { recursive: true });

// Chunks that import each other in a cycle can read a binding before its chunk has run: refuse such a build.
const chunkImports = new Map();
for (const file of files.filter((f) => f.endsWith(".js"))) {
  const text = await readFile(join(root, "dist", file), "utf8");
  const dir = dirname(file);
  chunkImports.set(file.split(sep).join("/"), [...text.matchAll(/^import (?:[^"']*? from )?["'](\.\.?\/[^"']+)["']/gm)].map((m) => join(dir, m[1]).split(sep).join("/")));
}
const visiting = new Set();
const done = new Set();
const findCycle = (file, path) => {
  if (visiting.has(file)) return [...path.slice(path.indexOf(file)), file];
  if (done.has(file)) return null;
  visiting.add(file);
  for (const next of chunkImports.get(file) ?? []) {
    const cycle = findCycle(next, [...path, file]);
    if (cycle) return cycle;
  }
  visiting.delete(file);
  done.add(file);
  return null;
};
for (const file of chunkImports.keys()) {
  const cycle = findCycle(file, []);
  if (cycle) {
    console.error(`ryeos: the build has chunks importing each other in a cycle: ${cycle.join(" -> ")}`);
    process.exit(1);
  }
}
console.log(`ryeos: built ${files.length} files in dist/, system bundle in system/.ai, ${bundled.size} bundled packages (${Date.now() - started} ms)`);
void dirname;
void relative;
