#!/usr/bin/env node
// Entry point of the `rye` command.
// - Installed from npm (package `ryeos`): runs the compiled client in dist/ (plain JavaScript, no loader).
// - In a repository checkout (src/ is present): runs the TypeScript sources through tsx, so the repository's
//   `rye` needs no build step; RYE_FROM_DIST=1 runs the build in dist/ instead (what the package ships).
import { existsSync } from "node:fs";

const [major] = process.versions.node.split(".").map(Number);
if (major < 22) {
  process.stderr.write(`error[UNSUPPORTED_NODE]: rye needs Node.js 22 or newer; this is Node.js ${process.versions.node}\nhint: Install a current Node.js LTS (https://nodejs.org) or use a version manager (nvm, fnm, volta).\n`);
  process.exit(1);
}

// A reader that stops early (`rye search … | head`) closes the pipe: what is left to print has nowhere to go, which
// ends the command quietly (as with git or grep), not with an unhandled EPIPE and its stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err) => {
    if (err.code !== "EPIPE") throw err;
    process.exit(process.exitCode ?? 0);
  });
}

const source = new URL("../src/cli/main.ts", import.meta.url);
const fromSource = existsSync(source) && process.env.RYE_FROM_DIST !== "1";
// Zod without its JIT: this process exits before compiled parsers would pay for themselves (see the module).
(await import(fromSource ? "../runners/zod-jitless.mjs" : "../dist/runners/zod-jitless.mjs")).preferJitlessZod();
if (fromSource) {
  const { register } = await import("tsx/esm/api");
  register();
} else {
  // V8's code cache for the bundle (Node ≥ 22.1), in a folder only this user can write (see the module):
  // later starts skip compiling the JavaScript. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
  (await import("../dist/runners/compile-cache.mjs")).enablePrivateCompileCache();
}
const argv = process.argv.slice(2);
// Opt-in (docs/client.md, "Search daemon"): a local search asks this user's search daemon first, loading only
// the small client (no CLI); null means no usable answer, and the search runs here as it always does.
let served = null;
if (process.env.RYE_SEARCH_DAEMON === "1" && argv[0] === "search") {
  const client = fromSource ? await import(new URL("../src/cli/search-daemon/client.ts", import.meta.url).href) : await import("../dist/search-client.js");
  served = await client.searchViaDaemon(argv);
}
if (served !== null) process.exitCode = served;
else {
  const cli = fromSource ? await import(source.href) : await import("../dist/cli.js");
  process.exitCode = await cli.runCli(argv);
}
