/**
 * The client as a new user gets it: from an npm registry, in an empty directory.
 *
 * The package is packed (`npm pack`) from a clean state, with no dist/ nor system/: its `prepack` script builds it
 * (`scripts/build.mjs`), and the tarball must hold the bin and the compiled client. The tarball is published to a real
 * npm registry server (Verdaccio, on loopback, throwaway storage, no uplink: nothing can come from
 * anywhere else, so the package must install with no dependencies). Then, in an empty directory with an
 * empty HOME and an empty npm cache, real `npx` child processes run:
 *
 *   1. `npx -y ryeos --version`;
 *   2. `npx -y ryeos login` against a running rye registry, the device code approved over HTTP by a
 *      signed-in account (as the /device page does);
 *   3. `npx -y ryeos pull …` of an item published on that registry (verified, written, pinned);
 *   4. the MCP server started from the exact JSON config the README shows, driven by the MCP SDK client:
 *      `load` resolves a registry item on demand, and `execute` of the system tool rye/registry/registry
 *      (whoami, with the credentials stored by step 2) proves the shipped system bundle, runners and
 *      compiled SDK entry work together;
 *   5. `npx -y ryeos thread run` of a directive the user signed, against a local server speaking the
 *      Anthropic Messages API: the shipped agent runtime loads through the compiled SDK entry, and the CLI checks
 *      `thread_directive`'s parameters with the validator the build compiled (Ajv's compiler never loads).
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, posix } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { TestRegistry } from "../registry-server.ts";
import { createPublisher, startTestRegistry } from "../registry-server.ts";
import type { Verdaccio } from "../verdaccio.ts";
import { startVerdaccio } from "../verdaccio.ts";
import { startFakeLlm } from "../fake-llm.ts";
import { directive, requestInfo } from "../threads.ts";
import { parse as parseYamlText } from "yaml";
import { readParsedYamlTable, yamlTextHash } from "../../src/sdk/parsed-yaml.ts";
import { extractJsExports, toolBody } from "@rye/core";

const exec = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL("../../", import.meta.url));
const REPO = join(PACKAGE_DIR, "..", "..");
const PACKAGE = JSON.parse(await readFile(join(PACKAGE_DIR, "package.json"), "utf8")) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  exports: Record<string, { types: string; default: string }>;
};
const NPX = process.platform === "win32" ? "npx.cmd" : "npx";
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

let scratch: string;
/** What `npm pack --json` said it packed. */
let packedFiles: string[];
let verdaccio: Verdaccio;
let registry: TestRegistry;
let project: string;
let env: Record<string, string>;
const mcpClients: Client[] = [];

/** Runs `npx …` (or `npm …`) as the new user: only this env, so no config, cache or HOME of ours leaks in. */
function run(command: string, args: string[], options: { cwd: string; timeoutMs?: number }): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd, env, timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024, shell: process.platform === "win32" }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), "rye-published-"));
  // Pack exactly what `npm publish` would upload (the `files` list, the bin, the manifest), from a clean state:
  // no build output left by an earlier run, so the tarball has what `prepack` builds or nothing.
  for (const built of ["dist", "system", "THIRD_PARTY_LICENSES.md"]) await rm(join(PACKAGE_DIR, built), { recursive: true, force: true });
  const packed = await exec(NPM, ["pack", "--json", "--pack-destination", scratch], { cwd: PACKAGE_DIR, shell: process.platform === "win32", maxBuffer: 16 * 1024 * 1024 });
  const [{ filename, files }] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
  packedFiles = files.map((f) => f.path);
  const tarball = join(scratch, filename);

  verdaccio = await startVerdaccio(join(scratch, "verdaccio"));
  await verdaccio.publish(tarball);

  registry = await startTestRegistry();
  // The new user: an empty HOME (so no ~/.npmrc, no ~/.ai), an empty npm cache, an empty project directory.
  const home = join(scratch, "home");
  project = join(scratch, "project");
  await mkdir(home);
  await mkdir(project);
  await writeFile(join(home, ".npmrc"), "");
  env = {
    PATH: [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter),
    HOME: home,
    USERPROFILE: home,
    ...(process.env.SYSTEMROOT ? { SYSTEMROOT: process.env.SYSTEMROOT } : {}),
    TMPDIR: join(scratch, "tmp"),
    npm_config_registry: `${verdaccio.url}/`,
    npm_config_cache: join(scratch, "npm-cache"),
    npm_config_userconfig: join(home, ".npmrc"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    RYE_REGISTRY_URL: registry.url,
    RYE_NO_BROWSER: "1",
  };
  await mkdir(env.TMPDIR!);
});

after(async () => {
  for (const client of mcpClients) await client.close().catch(() => {});
  await registry?.close();
  await verdaccio?.stop();
});

test("npm pack from a clean state builds first: the tarball holds the bin, the compiled client and the system bundle", () => {
  const manifest = PACKAGE;
  const shipped = new Set(packedFiles);
  for (const bin of Object.values(manifest.bin)) assert.ok(shipped.has(bin.replace(/^\.\//, "")), `the bin ${bin} is packed`);
  const sdk = manifest.exports["./sdk/v1"]!;
  const needed = ["dist/cli.js", sdk.default.replace(/^\.\//, ""), sdk.types.replace(/^\.\//, ""), "dist/runners/node-runner.mjs", "system/.ai/tools/rye/registry/registry.mjs", "THIRD_PARTY_LICENSES.md"];
  for (const file of needed) assert.ok(shipped.has(file), `${file} is packed (packed: ${packedFiles.length} files)`);
  // bin/rye.mjs runs ../dist/cli.js when there are no sources: every chunk that loads, statically or on demand, is packed.
  const loaded = new Set<string>();
  const queue = ["dist/cli.js"];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (loaded.has(file)) continue;
    loaded.add(file);
    assert.ok(shipped.has(file), `${file}, loaded by the bin, is packed`);
    // Comment lines are left out: bundled JSDoc mentions modules (`import("./option.js")`) that are not loaded.
    const code = readFileSync(join(PACKAGE_DIR, file), "utf8").split("\n").filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line)).join("\n");
    for (const m of code.matchAll(/\bfrom\s*"(\.\.?\/[^"]+\.js)"|\bimport\(\s*"(\.\.?\/[^"]+\.js)"\s*\)/g)) queue.push(posix.join(posix.dirname(file), (m[1] ?? m[2])!));
  }
  assert.ok(loaded.size > 2, `the client is more than one chunk: ${[...loaded].join(", ")}`);
  assert.ok(!packedFiles.some((f) => f.startsWith("src/")), "no TypeScript sources ship");
});

test("npx -y ryeos --version prints the published version, installed from the npm registry alone", async () => {
  const result = await run(NPX, ["-y", PACKAGE.name, "--version"], { cwd: project });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), PACKAGE.version);
  assert.deepEqual(await readdir(project), [], "npx leaves the user's directory alone");
  // What npx installed: exactly one package (no dependencies), and no TypeScript sources or loader.
  const npxDir = join(env.npm_config_cache!, "_npx");
  const [install] = await readdir(npxDir);
  const installed = (await readdir(join(npxDir, install!, "node_modules"))).filter((name) => !name.startsWith("."));
  assert.deepEqual(installed, [PACKAGE.name]);
  const files = await readdir(join(npxDir, install!, "node_modules", PACKAGE.name), { recursive: true });
  assert.ok(files.includes(join("dist", "cli.js")) && files.includes(join("system", ".ai", "tools", "rye", "registry", "registry.mjs")), files.join("\n"));
  assert.ok(!files.some((f) => f.startsWith(`src`) || f.endsWith(".ts") && !f.endsWith(".d.ts")), "no TypeScript sources ship");
  // V8's compile cache went to the user's own folder (runners/compile-cache.mjs), private to them.
  const cacheDir = join(env.HOME!, ".cache", "rye", "compile-cache");
  assert.equal((await stat(cacheDir)).mode & 0o777, 0o700);
  const [nodeVersion] = await readdir(cacheDir);
  assert.ok(nodeVersion && (await readdir(join(cacheDir, nodeVersion))).length > 0, "the CLI's compiled code is cached there");
});

/** Where npx installed the package (the one install of the npx cache). */
async function installedPackageRoot(): Promise<string> {
  const npxDir = join(env.npm_config_cache!, "_npx");
  const [install] = await readdir(npxDir);
  return join(npxDir, install!, "node_modules", PACKAGE.name);
}

/**
 * A table the build ships in `dist/` (SHA-256 of a file's exact text → the JSON of its reading) holds every one of
 * `files` under `dir`, each exactly as `read` reads it, and nothing else.
 */
async function assertShippedTable(tableName: string, dir: string, files: string[], read: (text: string) => unknown): Promise<void> {
  const table = readParsedYamlTable(join(await installedPackageRoot(), "dist", tableName));
  assert.ok(table, `the package ships dist/${tableName}`);
  const hashes = new Set<string>();
  for (const file of files) {
    const content = await readFile(join(dir, file), "utf8");
    hashes.add(yamlTextHash(content));
    const json = table.get(yamlTextHash(content));
    assert.ok(json !== undefined, `${file} is not in dist/${tableName}`);
    assert.deepEqual(JSON.parse(json), read(content), file);
  }
  assert.equal(table.size, hashes.size, "nothing else is in the table");
}

test("the installed package ships its system bundle's YAML parsed: every file is in dist/system-yaml.json, exactly as yaml parses it", async () => {
  const systemDir = join(await installedPackageRoot(), "system", ".ai");
  const files = (await readdir(systemDir, { recursive: true })).filter((f) => f.endsWith(".yaml"));
  assert.ok(files.some((f) => f.endsWith("anthropic.yaml")) && files.some((f) => f.endsWith("resilience.yaml")), files.join("\n"));
  await assertShippedTable("system-yaml.json", systemDir, files, (text) => parseYamlText(text));
});

test("the installed package ships its system JavaScript tools' exports read: every one is in dist/system-js-exports.json, as @rye/core reads it", async () => {
  const toolsDir = join(await installedPackageRoot(), "system", ".ai", "tools");
  const files = (await readdir(toolsDir, { recursive: true })).filter((f) => /\.(m?js|ts)$/.test(f));
  assert.ok(files.some((f) => f.endsWith("thread_directive.mjs")), files.join("\n"));
  await assertShippedTable("system-js-exports.json", toolsDir, files, (text) => extractJsExports(toolBody(text)));
});

test("npx -y ryeos login: device flow approved over HTTP, credentials stored in the new HOME", async () => {
  const signup = await fetch(`${registry.url}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "carol", email: "carol@example.test", password: "correct horse battery staple" }),
  });
  assert.equal(signup.status, 201, await signup.clone().text());
  const cookie = signup.headers.get("set-cookie")!.split(";")[0]!;
  const { csrf_token } = (await signup.json()) as { csrf_token: string };

  const child = spawn(NPX, ["-y", PACKAGE.name, "login"], { cwd: project, env, stdio: ["ignore", "pipe", "pipe"], shell: process.platform === "win32" });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
  try {
    let userCode: string | undefined;
    const deadline = Date.now() + 60_000;
    while (!userCode) {
      userCode = /enter the code ([A-Z]{4}-[A-Z]{4})/.exec(stderr)?.[1];
      if (child.exitCode !== null || Date.now() > deadline) assert.fail(`no device code printed:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(stderr, new RegExp(`${registry.url}/device\\?user_code=${userCode}`));
    const approve = await fetch(`${registry.url}/v1/device/approve`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", "x-csrf-token": csrf_token },
      body: JSON.stringify({ user_code: userCode }),
    });
    assert.equal(approve.status, 200, await approve.clone().text());
    assert.equal(await exited, 0, stderr);
  } finally {
    child.kill();
  }
  assert.match(stdout, /Signed in to .* as carol/);
  const credentials = join(env.HOME!, ".ai", "auth", "credentials.json");
  assert.ok(JSON.parse(await readFile(credentials, "utf8")).registries[registry.url].access_token);
  if (process.platform !== "win32") assert.equal((await stat(credentials)).mode & 0o777, 0o600);
  const whoami = await run(NPX, ["-y", PACKAGE.name, "whoami", "--json"], { cwd: project });
  assert.equal(whoami.code, 0, whoami.stderr);
  assert.equal(JSON.parse(whoami.stdout).username, "carol");
});

const KNOWLEDGE = (title: string) => `---\nid: ${title.toLowerCase()}\ntitle: ${title}\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n---\n\n${title} from the registry.\n`;

test("npx -y ryeos pull writes a verified, pinned registry item into the project", async () => {
  const push = await createPublisher(registry, "alice");
  await push("knowledge", "alice/notes/hello", "1.0.0", KNOWLEDGE("Hello"));
  await push("knowledge", "alice/notes/guide", "1.0.0", KNOWLEDGE("Guide"));

  const result = await run(NPX, ["-y", PACKAGE.name, "pull", "alice/notes/hello", "--type", "knowledge"], { cwd: project });
  assert.equal(result.code, 0, result.stderr);
  const written = await readFile(join(project, ".ai", "knowledge", "alice", "notes", "hello.md"), "utf8");
  assert.match(written, /^<!-- rye:signed:.*\|rye-registry@alice -->/);
  assert.match(written, /Hello from the registry\./);
  // Verified with the registry key pinned on first contact, in the new user's HOME.
  const pins = JSON.parse(await readFile(join(env.HOME!, ".ai", "trusted_keys", "registries.json"), "utf8"));
  assert.match(JSON.stringify(pins), new RegExp(await registry.activeFingerprint()));
  assert.match(JSON.stringify(pins), new RegExp(registry.url.replace(/[.]/g, "\\.")));
});

test("the MCP server from the README's JSON config resolves registry items on demand and runs the system registry tool", async () => {
  // The exact snippet users copy (Claude Desktop / Cursor), with its placeholder cwd replaced.
  const readme = await readFile(join(REPO, "README.md"), "utf8");
  const snippet = /```json\n(\{ "mcpServers": .*\})\n```/.exec(readme)?.[1];
  assert.ok(snippet, "README shows the mcpServers config");
  const server = (JSON.parse(snippet) as { mcpServers: { rye: { command: string; args: string[]; cwd: string } } }).mcpServers.rye;
  assert.equal(server.command, "npx");
  assert.deepEqual(server.args, ["-y", PACKAGE.name, "mcp"]);

  const started = Date.now();
  const client = new Client({ name: "published-package-e2e", version: "1.0.0" });
  mcpClients.push(client);
  await client.connect(new StdioClientTransport({ command: process.platform === "win32" ? NPX : server.command, args: server.args, cwd: project, env, stderr: "pipe" }));
  const startup = Date.now() - started;
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  assert.deepEqual(tools, ["execute", "load", "search", "sign"]);

  // On demand: alice/notes/guide is in no local space, so load pulls it, verifies it with the pinned
  // registry key and pins it in the project's lock.
  const loaded = await client.callTool({ name: "load", arguments: { item_type: "knowledge", item_id: "alice/notes/guide" } });
  assert.notEqual(loaded.isError, true, JSON.stringify(loaded.content));
  const item = loaded.structuredContent as Record<string, any>;
  assert.match(JSON.stringify(item), /Guide from the registry\./);
  const lock = JSON.parse(await readFile(join(project, ".ai", "rye.lock"), "utf8"));
  assert.match(JSON.stringify(lock), /alice\/notes\/guide/);

  // The system registry tool (shipped in system/.ai, run by dist/runners/node-runner.mjs) reaches the
  // compiled client through ryeos/sdk/v1, with the credentials `npx ryeos login` stored.
  const whoami = await client.callTool({ name: "execute", arguments: { item_type: "tool", item_id: "rye/registry/registry", parameters: { action: "whoami" } } });
  assert.notEqual(whoami.isError, true, JSON.stringify(whoami.content));
  assert.equal((whoami.structuredContent as Record<string, any>).data.username, "carol", JSON.stringify(whoami.structuredContent));
  assert.ok(startup < 60_000, `MCP server answered initialize after ${startup} ms`);
});

test("npx -y ryeos thread run: the shipped agent runtime runs a signed directive against a provider, through the compiled SDK", async () => {
  const llm = await startFakeLlm("anthropic");
  try {
    llm.reply = (request) => {
      const turn = requestInfo(request).turn;
      return turn === 0
        ? { toolCalls: [{ name: "rye_load", input: { item_type: "knowledge", item_id: "alice/notes/hello" } }], usage: { input: 1000, output: 100 } }
        : { text: "It says hello.", usage: { input: 1200, output: 20 } };
    };
    const file = join(project, ".ai", "directives", "team", "greet.md");
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, directive({ name: "greet", category: "team", permissions: "<load><knowledge>alice.*</knowledge></load>" }));
    const signed = await run(NPX, ["-y", PACKAGE.name, "sign", ".ai/directives/team/greet.md"], { cwd: project });
    assert.equal(signed.code, 0, signed.stderr);

    // Every Node process records the files it imported (the CLI, the thread process, and npx's own).
    const probeLog = join(scratch, "imports.log");
    const probe = join(scratch, "imports-probe.mjs");
    await writeFile(
      probe,
      `import { registerHooks } from "node:module";
import { appendFileSync } from "node:fs";
const urls = new Set();
let dataUrls = 0;
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); if (r.url.startsWith("file:")) urls.add(r.url); if (r.url.startsWith("data:")) dataUrls++; return r; } });
process.on("exit", () => appendFileSync(${JSON.stringify(probeLog)}, JSON.stringify({ argv: process.argv.slice(1), urls: [...urls], dataUrls, zodJitless: globalThis.__zod_globalConfig?.jitless ?? null }) + "\\n"));
`,
    );
    const threadEnv = { ANTHROPIC_API_KEY: llm.apiKey!, ANTHROPIC_BASE_URL: llm.url, NODE_OPTIONS: `--import=${pathToFileURL(probe).href}` };
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(NPX, ["-y", PACKAGE.name, "thread", "run", "team/greet", "--json"], { cwd: project, env: { ...env, ...threadEnv }, timeout: 120_000, shell: process.platform === "win32" }, (err, stdout, stderr) =>
        resolve({ code: err ? 1 : 0, stdout, stderr }),
      );
    });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const out = JSON.parse(result.stdout) as Record<string, any>;
    assert.equal(out.status, "completed", result.stdout);
    assert.equal(out.result, "It says hello.");
    assert.equal(llm.requests.length, 2);
    assert.match(JSON.stringify(llm.requests[1]!.body.messages), /Hello from the registry/, "the pulled knowledge reached the model");
    const record = JSON.parse(await readFile(join(project, ".ai", "threads", out.thread_id, "thread.json"), "utf8"));
    assert.equal(record.status, "completed");

    const processes = (await readFile(probeLog, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { argv: string[]; urls: string[]; dataUrls: number; zodJitless: boolean | null });
    const cli = processes.filter((p) => p.urls.some((u) => u.endsWith(`/node_modules/${PACKAGE.name}/dist/cli.js`)));
    const thread = processes.filter((p) => p.argv.some((a) => a.endsWith("thread_directive.mjs")));
    assert.equal(cli.length, 1, `the CLI was probed: ${JSON.stringify(processes.map((p) => p.argv))}`);
    assert.equal(thread.length, 1, `the thread process was probed: ${JSON.stringify(processes.map((p) => p.argv))}`);
    assert.ok(cli[0]!.urls.some((u) => u.endsWith("/dist/system-validators.js")), "the CLI checked thread_directive's parameters with the shipped validators");
    // The runtime modules came from their verified bytes through the module hooks (sdk/verified-modules.ts), not
    // as data: URLs (which reach this probe's resolve hook; the rye-verified: ones are answered before it).
    assert.equal(thread[0]!.dataUrls, 0, "the thread process imported its runtime modules from data: URLs");
    for (const [name, p] of [["the CLI", cli[0]!], ["the thread process", thread[0]!]] as const) {
      // Short-lived: zod parsed without generating code (runners/zod-jitless.mjs).
      assert.equal(p.zodJitless, true, `${name} left zod's JIT on`);
      const withAjv = p.urls.filter((u) => /node_modules\/ajv\/dist\/compile\//.test(readFileSync(fileURLToPath(u), "utf8")));
      assert.deepEqual(withAjv, [], `${name} loaded Ajv's compiler`);
    }
  } finally {
    await llm.close();
  }
});
