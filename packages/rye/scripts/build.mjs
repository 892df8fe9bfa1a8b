#!/usr/bin/env node
// Builds the publishable package `ryeos` in place (packages/rye):
//   dist/cli.js, dist/sdk/v1.js (+ .d.ts)   the client as ESM JavaScript for Node ≥ 22, with @rye/core and every
//                                           third-party module it uses bundled in (the package has no dependencies)
//   dist/runners/                           the runtime runners: node-runner.mjs and python_function.py as they are,
//                                           mcp-call.mjs bundled with the MCP SDK client
//   dist/system-yaml.json                   the system bundle's YAML files parsed (sdk/parsed-yaml.ts)
//   dist/system-js-exports.json             its JavaScript tools' export metadata (sdk/shipped-js-exports-table.ts)
//   dist/system-validators.js               the system tools' parameter schemas compiled (execute/shipped-validators.ts)
//   system/.ai/                             the system bundle: a byte-for-byte copy of the repository's signed .ai/
//   THIRD_PARTY_LICENSES.md                 the licence text of every bundled third-party package
// Usage: node scripts/build.mjs   (npm run build -w ryeos; `npm pack` and `npm publish` run it: `prepack`)
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFile, cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { build } from "tsdown";
import { parse as parseYaml } from "yaml";

const root = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = join(root, "..", "..");
const started = Date.now();

/** Packages under node_modules that went into the bundle: name → directory. */
const bundled = new Map();
/** Every chunk written: file name → its static imports and the modules in it. */
const chunks = new Map();
const collectBundled = {
  name: "rye:collect-bundled",
  generateBundle(_options, bundle) {
    for (const chunk of Object.values(bundle)) {
      if (chunk.type !== "chunk") continue;
      chunks.set(chunk.fileName, { imports: chunk.imports, code: chunk.code, moduleIds: chunk.moduleIds.map((id) => id.split("?")[0].split(sep).join("/")) });
      for (const id of chunk.moduleIds) {
        const path = id.split("?")[0].split(sep).join("/");
        const match = /^(.*\/node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(path);
        if (match) bundled.set(match[2], match[1]);
      }
    }
  },
};

/**
 * commander requires node:child_process when it is evaluated, for the one thing it spawns (a git-style executable
 * subcommand, which rye has none of); loading that built-in costs every command ~5 ms of start-up. The require
 * is made lazy; a commander whose source no longer has that line fails the build instead of going unnoticed.
 */
const COMMANDER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
const lazyCommanderChildProcess = {
  name: "rye:lazy-commander-child-process",
  transform(code, id) {
    if (!/[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/.test(id)) return null;
    if (!code.includes(COMMANDER_CHILD_PROCESS)) throw new Error(`commander's ${id} no longer has ${COMMANDER_CHILD_PROCESS}: update scripts/build.mjs`);
    return code.replace(COMMANDER_CHILD_PROCESS, "let childProcessModule; const childProcess = { spawn: (...args) => (childProcessModule ??= require('node:child_process')).spawn(...args) };");
  },
};

/** @rye/core's modules free of zod, yaml and the XML parser (they may import only each other and @noble). */
const CORE_BASE = /[\\/]packages[\\/]core[\\/]src[\\/](?:(?:errors|text|hash|semver|item-types|registry-types|canonical-json|client-package|skills[\\/]skill-name|parsers[\\/]shipped-readings)\.ts|(?:crypto|signature|node)[\\/])/;

/** @rye/core's registry side and its index (see codeSplitting below), and the rest of core but node-gc.ts. */
const CORE_REGISTRY = /[\\/]packages[\\/]core[\\/]src[\\/](?:index\.ts$|(?:contracts|review|skills|quality|bundle|registry)[\\/])/;
const CORE_ENGINE = /[\\/]packages[\\/]core[\\/]src[\\/](?!node-gc\.ts|index\.ts$|(?:contracts|review|skills|quality|bundle|registry)[\\/])/;

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
  plugins: [collectBundled, lazyCommanderChildProcess],
  // @rye/core in chunks of its own: left to the automatic split, a core module could land in a chunk that itself
  // imports core, and such a cycle between chunks fails at start-up (a binding read before its chunk ran). A group
  // also takes in the modules its own import (not already taken by a group of higher priority), hence the order.
  // `core-base` holds the modules that import neither zod, yaml nor the XML parser (errors, item types, text, hashes,
  // keys, signatures): what a cold `rye search` needs. `core` is what the engine uses (parsers, item validation,
  // capabilities, the security gate, graphs); `core-registry` the registry's side (API contracts, review, skills,
  // quality, bundle manifests, the log's formats: most of the ~200 zod schemas) and the package's index (its
  // namespace object, which the CLI's few `await import("@rye/core")` need, refers to every export). core-registry
  // imports core, never the reverse, so a thread process, which talks to no registry, does not evaluate it.
  outputOptions: {
    codeSplitting: {
      groups: [
        { name: "core-base", test: CORE_BASE, priority: 4 },
        // The libraries every part of core uses, in a chunk of their own (else a group would take them in).
        { name: "core-libs", test: /[\\/]node_modules[\\/](?:zod|yaml|fast-xml-parser|strnum|@nodable[\\/]entities|path-expression-matcher)[\\/]/, priority: 3 },
        // node-gc.ts (node:v8, node:vm) goes with its one importer, the MCP server, not into every command's start-up.
        { name: "core", test: CORE_ENGINE, priority: 2 },
        { name: "core-registry", test: CORE_REGISTRY, priority: 1 },
      ],
    },
  },
};

await rm(join(root, "dist"), { recursive: true, force: true });
await rm(join(root, "system"), { recursive: true, force: true });

await build({
  ...common,
  entry: { cli: "src/cli/main.ts", "sdk/v1": "src/sdk/v1.ts", "search-client": "src/cli/search-daemon/client.ts" },
  // Types for the SDK entry, with @rye/core's inlined (it is not published on its own).
  dts: { resolve: ["@rye/core"], eager: true },
  outExtensions: () => ({ js: ".js", dts: ".d.ts" }),
});
await build({
  ...common,
  entry: { "runners/mcp-call": "runners/mcp-call.mjs" },
  dts: false,
  outExtensions: () => ({ js: ".mjs" }),
  // One self-contained file: it uses no @rye/core, and the libraries' group would split zod out of it.
  outputOptions: { codeSplitting: { groups: common.outputOptions.codeSplitting.groups.filter((group) => group.name !== "core-libs") } },
});

await mkdir(join(root, "dist", "runners"), { recursive: true });
for (const file of ["node-runner.mjs", "compile-cache.mjs", "zod-jitless.mjs", "state-graph.mjs", "python_function.py"]) await copyFile(join(root, "runners", file), join(root, "dist", "runners", file));

// The system bundle, copied byte for byte (its signatures cover the content; the engine verifies every item).
for (const folder of ["directives", "tools", "knowledge"]) {
  await cp(join(repoRoot, ".ai", folder), join(root, "system", ".ai", folder), { recursive: true });
}

// The system bundle's YAML files shipped parsed (src/sdk/shipped-yaml-table.ts): SHA-256 of each file's exact text →
// the JSON of what `yaml`'s parse gives for it. A file whose parse does not survive JSON unchanged fails the build,
// as does one that @rye/core's tool parser (parsers/tool.ts, which takes these values too) would read differently
// with its own options.
const parsedYaml = {};
for (const rel of (await readdir(join(root, "system", ".ai"), { recursive: true })).filter((f) => /\.ya?ml$/.test(f)).sort()) {
  const text = await readFile(join(root, "system", ".ai", rel), "utf8");
  const value = parseYaml(text);
  const json = JSON.stringify(value);
  if (!isDeepStrictEqual(JSON.parse(json), value)) {
    console.error(`ryeos: system/.ai/${rel} does not parse to plain JSON data; it cannot be shipped parsed`);
    process.exit(1);
  }
  if (!isDeepStrictEqual(parseYaml(text, { schema: "core", maxAliasCount: 64 }), value)) {
    console.error(`ryeos: system/.ai/${rel} parses differently with the tool parser's options; it cannot be shipped parsed`);
    process.exit(1);
  }
  parsedYaml[createHash("sha256").update(text, "utf8").digest("hex")] = json;
}
await writeFile(join(root, "dist", "system-yaml.json"), JSON.stringify(parsedYaml));

// The system bundle's JavaScript tools' `export const` metadata shipped read (src/sdk/shipped-js-exports-table.ts),
// by @rye/core's own reader: the tool parser takes it instead of tokenizing those very bytes in every process.
execFileSync(process.execPath, ["--import", "tsx", join(root, "scripts", "system-js-exports.ts"), join(root, "system", ".ai", "tools"), join(root, "dist", "system-js-exports.json")], { cwd: root, stdio: "inherit" });

// The system tools' parameter validators, compiled ahead (src/execute/shipped-validators.ts): Ajv's standalone code,
// generated from the copied bundle's tools by the same parser and options the engine uses, bundled with the Ajv
// helpers it calls into one self-contained file.
const validatorsSource = join(root, "dist", ".system-validators.src.mjs");
execFileSync(process.execPath, ["--import", "tsx", join(root, "scripts", "system-validators.ts"), join(root, "system", ".ai", "tools"), validatorsSource], { cwd: root, stdio: "inherit" });
await build({
  ...common,
  entry: { "system-validators": validatorsSource },
  dts: false,
  outExtensions: () => ({ js: ".js" }),
  outputOptions: { codeSplitting: { groups: [] } },
});
await rm(validatorsSource);

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

// Chunks that import each other in a cycle can read a binding before its chunk has run: refuse such a build. The
// static imports between chunks come from the bundler's own record of each chunk (`chunks`, collected above).
const chunkImports = new Map([...chunks].map(([file, chunk]) => [file, chunk.imports.filter((next) => chunks.has(next))]));
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
// A cold `rye search` must not evaluate zod, the YAML parser or the XML parser (~30 ms of start-up): the chunks it
// imports statically (the CLI, the search command, the engine) may not contain them.
const chunkWith = (module) => [...chunks].find(([, c]) => c.moduleIds.some((id) => id.endsWith(module)))?.[0];
const searchPath = new Set();
const addWithImports = (file) => {
  if (!file || searchPath.has(file)) return;
  searchPath.add(file);
  for (const next of chunkImports.get(file) ?? []) addWithImports(next);
};
for (const module of ["/src/cli/main.ts", "/src/cli/commands/search.ts", "/src/engine/engine.ts", "/src/search/search.ts"]) {
  const file = chunkWith(module);
  if (!file) {
    console.error(`ryeos: no chunk holds ${module}`);
    process.exit(1);
  }
  addWithImports(file);
}
const heavy = [...searchPath].flatMap((file) => chunks.get(file).moduleIds.filter((id) => /\/node_modules\/(?:zod|yaml|fast-xml-parser)\//.test(id)).map((id) => `${file}: ${id}`));
if (heavy.length > 0) {
  console.error(`ryeos: a cold \`rye search\` would load a parser or schema library:\n  ${heavy.slice(0, 5).join("\n  ")}`);
  process.exit(1);
}

// Every thread process imports the SDK entry before its first model request: the registry client, the MCP client, the
// PostgreSQL back end and the graph walker load on first use (sdk/v1.ts, mcp-servers/manage.ts, threads/budget.ts),
// never with the entry.
const sdkPath = new Set();
const addSdkChunk = (file) => {
  if (!file || sdkPath.has(file)) return;
  sdkPath.add(file);
  for (const next of chunkImports.get(file) ?? []) addSdkChunk(next);
};
addSdkChunk("sdk/v1.js");
// Nor @rye/core's registry side (core-registry: the API contracts' schemas, review, skills; ~2 MB of a thread's RSS).
const SDK_LAZY = /\/node_modules\/(?:@modelcontextprotocol\/sdk|pg-boss|pg|openid-client)\/|\/src\/registry\/(?:publish|bundle-transfer|login|pull-command|remote-search)\.ts$|\/src\/graphs\/walker\.ts$|\/packages\/core\/src\/(?:index\.ts$|(?:contracts|review|quality)\/|skills\/(?!skill-name\.ts))/;
const sdkHeavy = [...sdkPath].flatMap((file) => chunks.get(file).moduleIds.filter((id) => SDK_LAZY.test(id)).map((id) => `${file}: ${id}`));
if (sdkPath.size < 2 || sdkHeavy.length > 0) {
  console.error(`ryeos: importing sdk/v1 would load what a thread process never needs at start:\n  ${sdkHeavy.slice(0, 5).join("\n  ") || "(no sdk/v1.js chunk)"}`);
  process.exit(1);
}

// Nor may executing an item (what `rye thread run` and every thread process do before the first model request) load
// the registry client or core's registry side statically: registry/resolve-remote.ts imports the pull path on use.
const closureOf = (file, out = new Set()) => {
  if (!file || out.has(file)) return out;
  out.add(file);
  for (const next of chunkImports.get(file) ?? []) closureOf(next, out);
  return out;
};
const REGISTRY_SIDE = /\/packages\/core\/src\/(?:index\.ts$|(?:contracts|review|quality)\/|skills\/(?!skill-name\.ts))|\/src\/registry\/(?:install|cache|pull|key-pinning|session|publish)\.ts$/;
const executeFile = chunkWith("/src/engine/execute.ts");
const executeHeavy = executeFile ? [...closureOf(executeFile)].flatMap((file) => chunks.get(file).moduleIds.filter((id) => REGISTRY_SIDE.test(id)).map((id) => `${file}: ${id}`)) : ["(no chunk holds src/engine/execute.ts)"];
if (executeHeavy.length > 0) {
  console.error(`ryeos: executing an item would load the registry client at start:\n  ${executeHeavy.slice(0, 5).join("\n  ")}`);
  process.exit(1);
}

// Nor may the cold search path import these built-ins statically (each costs a cold start several ms; they load when first used).
const eager = [...searchPath].flatMap((file) => [...chunks.get(file).code.matchAll(/^import\b[^;]*?["'](node:(?:crypto|child_process|readline(?:\/promises)?))["'];?$/gm)].map((m) => `${file}: ${m[1]}`));
if (eager.length > 0) {
  console.error(`ryeos: a cold \`rye search\` would load a built-in it does not need:\n  ${eager.join("\n  ")}`);
  process.exit(1);
}

// The search daemon's client (bin/rye.mjs loads it before the CLI when RYE_SEARCH_DAEMON=1) must stay small: its
// own modules and the package version, nothing of the CLI, of @rye/core or of any library.
const clientModules = [...closureOf("search-client.js")].flatMap((file) => chunks.get(file)?.moduleIds ?? [`(no chunk ${file})`]);
const clientHeavy = clientModules.filter((id) => !/\/src\/cli\/search-daemon\/(?:client|protocol)\.ts$|\/packages\/rye\/package\.json$/.test(id));
if (clientModules.length === 0 || clientHeavy.length > 0) {
  console.error(`ryeos: the search daemon's client would load more than itself:\n  ${clientHeavy.slice(0, 5).join("\n  ") || "(no search-client.js)"}`);
  process.exit(1);
}

// The MCP runner is one file that imports only built-ins (it runs from dist/runners/ as it is).
const mcpCallImports = chunks.get("runners/mcp-call.mjs")?.imports.filter((next) => chunks.has(next)) ?? ["(no runners/mcp-call.mjs)"];
if (mcpCallImports.length > 0) {
  console.error(`ryeos: runners/mcp-call.mjs is not self-contained: it imports ${mcpCallImports.join(", ")}`);
  process.exit(1);
}

// The precompiled validators are one file the CLI imports on a tool call: no chunk of the client with it.
const validatorImports = chunks.get("system-validators.js")?.imports.filter((next) => chunks.has(next)) ?? ["(no system-validators.js)"];
if (validatorImports.length > 0) {
  console.error(`ryeos: system-validators.js is not self-contained: it imports ${validatorImports.join(", ")}`);
  process.exit(1);
}

// On stderr: `npm pack --json` runs this build (prepack) and its stdout must stay the JSON alone.
console.error(`ryeos: built ${files.length} files in dist/, system bundle in system/.ai, ${bundled.size} bundled packages (${Date.now() - started} ms)`);
