#!/usr/bin/env node
// Runs one JavaScript/TypeScript tool: `node node-runner.mjs <tool_path>` with the parameters as JSON on stdin.
// Calls the tool's `main(params, context)` (or its default export) and prints the result as one JSON document on
// stdout. Anything the tool itself prints goes to stderr so that stdout stays parseable.
import { existsSync, readFileSync, writeSync } from "node:fs";
import { dirname, extname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { preferJitlessZod } from "./zod-jitless.mjs";

const TYPESCRIPT_EXTENSIONS = new Set([".ts", ".mts", ".cts", ".tsx"]);

// A short-lived process: zod (the SDK's, or the tool's own zod 4) parses without compiling code (see the module).
preferJitlessZod();

const resultOut = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);

let finished = false;

/** Prints the one JSON document and exits, even if the tool left timers or sockets open. */
function finish(value, exitCode) {
  const text = JSON.stringify(value) ?? "{}"; // undefined for functions and symbols
  if (finished) return;
  finished = true;
  resultOut(`${text}\n`, () => process.exit(exitCode));
}

function fail(error) {
  // A RyeError is an expected refusal (its code and hint say what to do); anything else is a bug: its stack helps.
  const coded = error instanceof Error && error.name === "RyeError" && typeof error.code === "string";
  if (error instanceof Error && error.stack && !coded) process.stderr.write(`${error.stack}\n`);
  const message = error instanceof Error ? error.message : String(error);
  const type = error instanceof Error ? error.name : typeof error;
  finish({ success: false, error: { message, type, ...(coded ? { code: error.code, ...(typeof error.hint === "string" ? { hint: error.hint } : {}) } : {}) } }, 1);
}

async function readStdin() {
  let text = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

async function readParams() {
  const text = (await readStdin()).trim();
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new Error("The parameters on stdin are not valid JSON");
  }
}

/**
 * TypeScript tools: Node's own type stripping where this Node has it (22.18+ and 23.6+ by default: erasable
 * syntax only, relative imports spelled with .ts), else tsx when it resolves from this package (a repository
 * checkout; never from the tool's directory). tsImport loads the tool as an ES module even where no
 * package.json says "type": "module".
 */
async function importTypeScript(toolPath) {
  if (process.features.typescript && extname(toolPath) !== ".tsx") return import(pathToFileURL(toolPath).href);
  let tsx;
  try {
    tsx = await import("tsx/esm/api");
  } catch {
    const error = new Error(
      `${toolPath} is TypeScript and Node.js ${process.versions.node} cannot strip types: run rye on Node.js 22.18 or newer (or 23.6+), or ship the tool as .mjs`,
    );
    error.name = "TYPESCRIPT_UNSUPPORTED";
    throw error;
  }
  return tsx.tsImport(pathToFileURL(toolPath).href, import.meta.url);
}

async function loadEntryPoint(toolPath) {
  const module = TYPESCRIPT_EXTENSIONS.has(extname(toolPath)) ? await importTypeScript(toolPath) : await import(pathToFileURL(toolPath).href);
  const entry = typeof module.main === "function" ? module.main : module.default;
  if (typeof entry !== "function") {
    throw new Error(`Tool ${toolPath} exports neither a main function nor a default function`);
  }
  return entry;
}

/**
 * The rye client's versioned SDK entry (`ryeos/sdk/v<major>`, docs/sdk.md) for the tool: from the package this
 * runner belongs to (the nearest package.json above it, named ryeos). Installed from npm, the compiled entry
 * named by the package's exports; in a repository checkout, the TypeScript source through tsx (registered
 * once for this short-lived process so the whole client shares one module graph).
 */
let sdkPromise;
async function loadSdk(major = "1") {
  sdkPromise ??= (async () => {
    const runnerDir = dirname(fileURLToPath(import.meta.url));
    for (let dir = runnerDir; ; dir = dirname(dir)) {
      const pkgPath = join(dir, "package.json");
      if (existsSync(pkgPath)) {
        const pkg = JSON.parse(readFileSync(pkgPath, "utf8"));
        if (pkg.name !== "ryeos") break;
        const built = !relative(dir, runnerDir).startsWith("runners");
        if (built) {
          // V8's code cache for the client's bundle and the runtime modules, in the user's folder as bin/rye.mjs keeps
          // it (compile-cache.mjs): a thread process imports the SDK, and compiling it again on every start was ~18%
          // of its start-up (profiled).
          (await import("./compile-cache.mjs")).enablePrivateCompileCache();
          const entry = pkg.exports?.[`./sdk/v${major}`];
          const target = typeof entry === "string" ? entry : entry?.import ?? entry?.default;
          if (!target) throw new Error(`The installed ryeos ${pkg.version} has no sdk/v${major} entry`);
          return import(pathToFileURL(join(dir, target)).href);
        }
        const tsx = await import("tsx/esm/api");
        tsx.register();
        return import(pathToFileURL(join(dir, "src", "sdk", `v${major}.ts`)).href);
      }
      if (dirname(dir) === dir) break;
    }
    throw new Error("Cannot find the ryeos package this runner belongs to");
  })();
  const sdk = await sdkPromise;
  if (String(sdk.SDK_VERSION ?? "").split(".")[0] !== String(major)) throw new Error(`ryeos/sdk/v${major} reports version ${sdk.SDK_VERSION}`);
  return sdk;
}

/**
 * `context.reportProgress({ progress, total?, message?, phase? })`: one JSON line on the progress pipe rye opens
 * (RYE_PROGRESS_FD) when the caller listens for progress (an MCP client with a progress token); a no-op otherwise.
 */
const progressFd = /^\d+$/.test(process.env.RYE_PROGRESS_FD ?? "") ? Number(process.env.RYE_PROGRESS_FD) : null;
function reportProgress(report) {
  if (progressFd === null || !report || typeof report !== "object") return;
  try {
    writeSync(progressFd, `${JSON.stringify(report)}\n`);
  } catch {
    // Progress is advisory: a closed pipe never fails the tool.
  }
}

async function run() {
  const arg = process.argv[2];
  if (!arg) throw new Error("Usage: node-runner.mjs <tool_path> (parameters as JSON on stdin)");
  const toolPath = resolve(arg);
  const params = await readParams();
  const entry = await loadEntryPoint(toolPath);
  const result = await entry(params, { projectPath: process.env.RYE_PROJECT_PATH, toolPath, loadSdk, reportProgress });
  finish(result === undefined ? {} : result, 0);
}

process.on("uncaughtException", fail);
process.on("unhandledRejection", fail);
run().catch(fail);
