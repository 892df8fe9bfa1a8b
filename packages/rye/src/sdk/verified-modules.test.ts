/**
 * Runtime modules imported from verified bytes (verified-modules.ts), and V8's compile cache kept where only the user
 * can write (runners/compile-cache.mjs): a forged cache entry changes what a module runs, so the folder must be private.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { compileCacheDir, enablePrivateCompileCache, privateToUser } from "../../runners/compile-cache.mjs";
import { searchIndexDir } from "../spaces/paths.ts";
import { dataUrlOf } from "./verified-modules.ts";

const exec = promisify(execFile);
let work: string;
before(async () => {
  work = await mkdtemp(join(tmpdir(), "rye-verified-modules-"));
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

const MODULE = pathToFileURL(fileURLToPath(new URL("./verified-modules.ts", import.meta.url))).href;

/**
 * Checks run in a fresh Node process (plain Node strips the module's types; under this test's tsx loader Node does not
 * ask in-thread hooks at all, which the last check covers). Prints what each check saw.
 */
const CHECKS = `const { importVerified, throughHooks } = await import(${JSON.stringify(MODULE)});
const out = {};
const source = 'import { basename } from "node:path";\\nexport const name = basename("/a/b/c.mjs");\\nexport const made = {};\\n';
const first = await importVerified(source);
out.name = first.name;
out.hooks = throughHooks();
out.same = (await importVerified(source)).made === first.made;
out.other = (await importVerified(source + "// another\\n")).made !== first.made;
out.relative = await importVerified('import "./next.mjs";\\nexport const x = 1;\\n').then(() => "imported", (e) => e.code);
out.unregistered = await import("rye-verified:" + "0".repeat(64)).then(() => "imported", (e) => e.code);
console.log(JSON.stringify(out));`;

test("from verified bytes through the module hooks: exactly those bytes, one instance per bytes, no folder, no other URL", async () => {
  const out = JSON.parse(await node(CHECKS, {})) as Record<string, unknown>;
  assert.deepEqual(out, { name: "c.mjs", hooks: true, same: true, other: true, relative: "ERR_UNSUPPORTED_RESOLVE_REQUEST", unregistered: "ERR_UNSUPPORTED_ESM_URL_SCHEME" });
});

test("where Node's loader does not ask in-thread hooks (no registerHooks, or only asynchronous hooks), every module comes from a data: URL", async () => {
  for (const [name, setup] of [
    ["no registerHooks", `delete (await import("node:module")).default.registerHooks;`],
    ["hooks never asked", `(await import("node:module")).default.registerHooks = () => undefined;`],
  ]) {
    const out = JSON.parse(await node(`${setup}\n${CHECKS}`, {})) as Record<string, unknown>;
    assert.deepEqual(out, { name: "c.mjs", hooks: false, same: true, other: true, relative: "ERR_UNSUPPORTED_RESOLVE_REQUEST", unregistered: "ERR_UNSUPPORTED_ESM_URL_SCHEME" }, name);
  }
  assert.equal(dataUrlOf("x"), `data:text/javascript;base64,${Buffer.from("x").toString("base64")}`);
});

/** Runs `code` (an ES module) in a fresh Node with `env`; returns its stdout. */
async function node(code: string, env: NodeJS.ProcessEnv): Promise<string> {
  const file = join(work, `script-${Math.random().toString(36).slice(2)}.mjs`);
  await writeFile(file, code);
  return (await exec(process.execPath, [file], { env: { PATH: process.env.PATH, ...env } })).stdout.trim();
}

test("V8's compile cache: a forged entry runs other code than the verified source (why the cache folder must be private)", async () => {
  // The hooks serve `source` under one URL, as importVerifiedModule does, with the compile cache in `dir`.
  const importWith = (dir: string, source: string) =>
    node(
      `import module from "node:module";
module.enableCompileCache(${JSON.stringify(dir)});
module.registerHooks({
  resolve: (s, c, n) => (s === "rye-verified:x" ? { url: s, shortCircuit: true } : n(s, c)),
  load: (u, c, n) => (u === "rye-verified:x" ? { format: "module", source: ${JSON.stringify(source)}, shortCircuit: true } : n(u, c)),
});
console.log((await import("rye-verified:x")).x);`,
      {},
    );
  const verifiedSource = 'export const x = "verified";';
  const otherSource = 'export const x = "attacker";'; // same length
  const [a, b] = [join(work, "cache-a"), join(work, "cache-b")];
  assert.equal(await importWith(a, verifiedSource), "verified");
  assert.equal(await importWith(b, otherSource), "attacker");
  const entry = async (dir: string) => {
    const [version] = await readdir(dir);
    const [file] = await readdir(join(dir, version!));
    return join(dir, version!, file!);
  };
  const [good, forged] = [await readFile(await entry(a)), Buffer.from(await readFile(await entry(b)))];
  // The header: [key, source length, cache size, source CRC-32, cache CRC-32]: the other code's cache with the
  // verified source's CRC-32 (which anyone can compute from the published bytes).
  good.copy(forged, 12, 12, 16);
  await writeFile(await entry(a), forged);
  assert.equal(await importWith(a, verifiedSource), "attacker", "Node and V8 accepted the forged entry (if this fails, they now check the source itself)");
});

test("the compile cache sits beside the search index: compile-cache.mjs restates the user space's cache base (it cannot import it)", () => {
  const home = homedir();
  for (const env of [{}, { USER_SPACE: "~" }, { USER_SPACE: "~/space" }, { USER_SPACE: "/srv/rye-user" }, { USER_SPACE: "relative/space" }, { XDG_CACHE_HOME: "/var/cache/u" }, { XDG_CACHE_HOME: "/var/cache/u", USER_SPACE: "~/space" }]) {
    assert.equal(compileCacheDir(env), join(dirname(searchIndexDir(env)!), "compile-cache"), JSON.stringify(env));
  }
  assert.equal(compileCacheDir({}), join(home, ".cache", "rye", "compile-cache"));
});

test("the compile cache goes to the user's own folder, and not to one that others can write", async () => {
  const home = join(work, "home");
  await mkdir(home, { mode: 0o700 });
  assert.equal(compileCacheDir({ USER_SPACE: home }), join(home, ".cache", "rye", "compile-cache"));
  assert.equal(compileCacheDir({ XDG_CACHE_HOME: join(work, "xdg"), USER_SPACE: home }), join(work, "xdg", "rye", "compile-cache"));
  const dir = compileCacheDir({ USER_SPACE: home });
  assert.equal(enablePrivateCompileCache({ NODE_DISABLE_COMPILE_CACHE: "1", USER_SPACE: home }), null);
  // In a fresh process (the cache is enabled once per process): the folder is created, private, and used.
  const script = `import { enablePrivateCompileCache } from ${JSON.stringify(pathToFileURL(fileURLToPath(new URL("../../runners/compile-cache.mjs", import.meta.url))).href)};
console.log(JSON.stringify(enablePrivateCompileCache()));`;
  assert.equal(JSON.parse(await node(script, { USER_SPACE: home })), dir);
  assert.equal(privateToUser(dir), true);
  if (typeof process.getuid === "function") {
    await chmod(dir, 0o777);
    assert.equal(privateToUser(dir), false);
    assert.equal(JSON.parse(await node(script, { USER_SPACE: home })), null, "a folder others can write gets no cache");
    await chmod(dir, 0o700);
    await chmod(join(home, ".cache"), 0o757);
    assert.equal(JSON.parse(await node(script, { USER_SPACE: home })), null, "nor one inside a folder others can write");
  }
});
