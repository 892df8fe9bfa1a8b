/**
 * End to end, `rye pull --with-deps` through the real `rye` binary against the real registry on a loopback port:
 * a directive that uses 3 tools and a knowledge entry pins all 5 in one step and then works with the registry
 * gone; executor chains come along; yanked and deprecated dependencies are warned about; and every refusal
 * (a missing or private dependency, an executor loop, a version conflict, the depth and size limits, a local file
 * in the way) writes nothing at all, neither files nor the lock.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, readdir, writeFile, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { MAX_CLOSURE_DEPTH, MAX_CLOSURE_ITEMS } from "../../src/registry/pull-closure.ts";
import { runRye } from "../cli.ts";
import type { TestRegistry } from "../registry-server.ts";
import { createPublisher, startProxy, startTestRegistry } from "../registry-server.ts";
import { createWorkspace, nodeTool, yamlRuntime } from "../workspace.ts";

type Json = Record<string, any>;
type Push = Awaited<ReturnType<typeof createPublisher>>;

let registry: TestRegistry;
let push: Push;
let pushAcme: Push;

const nameOf = (id: string) => id.split("/").at(-1)!;
const categoryOf = (id: string) => id.split("/").slice(1, -1).join("/");
const directive = (id: string, actions: string[], version = "1.0.0") =>
  `# ${nameOf(id)}\n\n\`\`\`xml\n<directive name="${nameOf(id)}" version="${version}">\n  <metadata>\n    <description>Flow ${nameOf(id)}.</description>\n    <category>${categoryOf(id)}</category>\n    <author>alice</author>\n  </metadata>\n  <process>\n${actions.map((a) => `    <step>${a}</step>`).join("\n")}\n  </process>\n</directive>\n\`\`\`\n`;
const knowledge = (id: string, body = "Be brief.") => `---\nid: ${nameOf(id)}\ntitle: ${nameOf(id)}\nversion: "1.0.0"\nentry_type: reference\ncategory: ${categoryOf(id)}\n---\n\n${body}\n`;
const tool = (id: string, result: string, executor = "rye/core/runtimes/node") => nodeTool(categoryOf(id), `export function main() { return ${result}; }`).replace("rye/core/runtimes/node", executor);
const exec = (type: string, id: string) => `<execute item_type="${type}" item_id="${id}"/>`;
const load = (id: string) => `<load item_type="knowledge" item_id="${id}"/>`;

/** A fresh consumer project whose default registry is the test registry. */
async function consumer() {
  const ws = await createWorkspace();
  const env: NodeJS.ProcessEnv = { ...ws.env, RYE_REGISTRY_URL: registry.url };
  delete env.RYE_OFFLINE;
  delete env.RYE_TOKEN;
  const rye = async (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runRye(args, { env: { ...env, ...extraEnv }, cwd: ws.projectDir });
  const json = async (args: string[]) => {
    const run = await rye([...args, "--json"]);
    return { code: run.code, body: JSON.parse(run.stdout) as Json, stderr: run.stderr };
  };
  const lock = async () => (existsSync(join(ws.projectDir, ".ai", "rye.lock")) ? (JSON.parse(await readFile(join(ws.projectDir, ".ai", "rye.lock"), "utf8")) as { items: Json[] }).items : []);
  const files = async () => (await readdir(join(ws.projectDir, ".ai"), { recursive: true })).filter((f) => /\.(md|mjs|yaml)$/.test(f)).sort();
  return { ws, env, rye, json, lock, files };
}

before(async () => {
  registry = await startTestRegistry({ env: { RYE_RATE_LIMIT_READS: "100000", RYE_RATE_LIMIT_WRITES: "100000" } });
  push = await createPublisher(registry, "alice");
  pushAcme = await createPublisher(registry, "acme");
  await push("tool", "alice/tools/fetch", "1.0.0", tool("alice/tools/fetch", `{ step: "fetch" }`), ".mjs");
  await push("tool", "alice/tools/parse", "1.0.0", tool("alice/tools/parse", `{ step: "parse" }`), ".mjs");
  await push("tool", "alice/tools/store", "1.0.0", tool("alice/tools/store", `{ step: "store" }`), ".mjs");
  await push("knowledge", "alice/notes/style", "1.0.0", knowledge("alice/notes/style", "Answer in one line."));
  await push("directive", "alice/flows/triage", "1.0.0", directive("alice/flows/triage", [exec("tool", "alice/tools/fetch"), exec("tool", "alice/tools/parse"), exec("tool", "alice/tools/store"), load("alice/notes/style")]));
});
after(() => registry.close());

test("a directive that uses 3 tools and a knowledge entry: all 5 verified and pinned in one step, then everything works offline", async () => {
  const c = await consumer();
  const run = await c.rye(["pull", "alice/flows/triage", "--with-deps"]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^5 items verified with [0-9a-f]{16} and pinned in .*rye\.lock\.$/m);
  assert.match(run.stdout, /^Pulled tool alice\/tools\/fetch@1\.0\.0 → .* \(used by directive alice\/flows\/triage\)$/m);
  assert.match(run.stdout, /^From the system space \(not pulled\): tool rye\/core\/runtimes\/node$/m);

  const lock = await c.lock();
  assert.deepEqual(lock.map((e) => `${e.type} ${e.id}@${e.version}`), ["directive alice/flows/triage@1.0.0", "knowledge alice/notes/style@1.0.0", "tool alice/tools/fetch@1.0.0", "tool alice/tools/parse@1.0.0", "tool alice/tools/store@1.0.0"]);
  for (const e of lock) assert.match(e.attestation_digest, /^[0-9a-f]{64}$/);
  assert.deepEqual(await c.files(), ["directives/alice/flows/triage.md", "knowledge/alice/notes/style.md", "tools/alice/tools/fetch.mjs", "tools/alice/tools/parse.mjs", "tools/alice/tools/store.mjs"]);

  // Offline: the registry is gone, and nothing needs it.
  await registry.stop();
  try {
    const before = registry.requests.length;
    for (const name of ["fetch", "parse", "store"]) {
      const exec = await c.rye(["execute", "tool", `alice/tools/${name}`, "--json"]);
      assert.equal(exec.code, 0, exec.stdout + exec.stderr);
      assert.deepEqual(JSON.parse(exec.stdout).data, { step: name });
    }
    const guide = await c.rye(["load", "knowledge", "alice/notes/style"]);
    assert.equal(guide.code, 0, guide.stderr);
    assert.match(guide.stdout, /Answer in one line\./);
    const flow = await c.rye(["load", "directive", "alice/flows/triage"]);
    assert.equal(flow.code, 0, flow.stderr);
    assert.match(flow.stdout, /alice\/tools\/parse/);
    assert.equal(registry.requests.length, before, "no request reached the registry");
  } finally {
    await registry.restart();
  }

  // Again: everything is already pinned.
  const again = await c.json(["pull", "alice/flows/triage", "--with-deps"]);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(again.body.items.map((i: Json) => i.status), ["unchanged", "unchanged", "unchanged", "unchanged", "unchanged"]);
});

test("tool → runtime → runtime: the executor chain comes along; a cycle between directives pins each once", async () => {
  await push("tool", "alice/runtimes/strict_node", "1.0.0", yamlRuntime("runtimes", "alice/runtimes/base_node", "config:\n  timeout: 5\n"), ".yaml");
  await push("tool", "alice/runtimes/base_node", "1.0.0", yamlRuntime("runtimes", "rye/core/runtimes/node"), ".yaml");
  await push("tool", "alice/tools/strict", "1.0.0", tool("alice/tools/strict", `{ strict: true }`, "alice/runtimes/strict_node"), ".mjs");
  await push("directive", "alice/flows/ping", "1.0.0", directive("alice/flows/ping", [exec("tool", "alice/tools/strict"), exec("directive", "alice/flows/pong")]));
  await push("directive", "alice/flows/pong", "1.0.0", directive("alice/flows/pong", [exec("directive", "alice/flows/ping")]));
  const c = await consumer();
  const { code, body, stderr } = await c.json(["pull", "alice/flows/ping", "--with-deps"]);
  assert.equal(code, 0, stderr);
  assert.deepEqual(body.items.map((i: Json) => [i.item_id, i.depth, i.used_by]), [
    ["alice/flows/ping", 0, []],
    ["alice/tools/strict", 1, ["directive alice/flows/ping"]],
    ["alice/flows/pong", 1, ["directive alice/flows/ping"]],
    ["alice/runtimes/strict_node", 2, ["tool alice/tools/strict"]],
    ["alice/runtimes/base_node", 3, ["tool alice/runtimes/strict_node"]],
  ]);
  assert.deepEqual(body.provided_by_system, ["tool rye/core/runtimes/node"]);
  await registry.stop();
  try {
    const run = await c.rye(["execute", "tool", "alice/tools/strict", "--json"]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const result = JSON.parse(run.stdout);
    assert.deepEqual(result.data, { strict: true });
    assert.deepEqual(result.chain.map((e: Json) => e.item_id), ["alice/tools/strict", "alice/runtimes/strict_node", "alice/runtimes/base_node", "rye/core/runtimes/node", "rye/core/primitives/subprocess"]);
  } finally {
    await registry.restart();
  }
});

test("yanked and deprecated dependencies are pulled with a warning naming who uses them", async () => {
  await push("tool", "alice/tools/aging", "1.0.0", tool("alice/tools/aging", "{}"), ".mjs");
  await push("knowledge", "alice/notes/old_style", "1.0.0", knowledge("alice/notes/old_style"));
  await push("directive", "alice/flows/legacy", "1.0.0", directive("alice/flows/legacy", [exec("tool", "alice/tools/aging@1.0.0"), load("alice/notes/old_style")]));
  // Yank and deprecate as an owner would (the management routes' own tests cover the routes).
  await registry.db.prisma.itemVersion.updateMany({ where: { version: "1.0.0", item: { name: "aging" } }, data: { yanked: true, yankedReason: "broken" } });
  await registry.db.prisma.item.updateMany({ where: { name: "old_style" }, data: { deprecated: true, deprecationMessage: "use alice/notes/style" } });
  const c = await consumer();
  const run = await c.rye(["pull", "alice/flows/legacy", "--with-deps"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /^warning: tool alice\/tools\/aging@1\.0\.0 is yanked \(used by directive alice\/flows\/legacy\)$/m);
  assert.match(run.stderr, /^warning: knowledge alice\/notes\/old_style is deprecated: use alice\/notes\/style \(used by directive alice\/flows\/legacy\)$/m);
  assert.equal((await c.lock()).length, 3);
});

/** A refusal: the code, and nothing written (no item file, no lock). */
async function refused(args: string[], code: string, message: RegExp) {
  const c = await consumer();
  const { code: exit, body } = await c.json(["pull", ...args, "--with-deps"]);
  assert.notEqual(exit, 0);
  assert.equal(body.error.code, code, JSON.stringify(body));
  assert.match(body.error.message, message);
  assert.match(body.error.message, /nothing was written/);
  assert.ok(body.error.hint);
  assert.deepEqual(await c.files(), []);
  assert.deepEqual(await c.lock(), []);
  return body;
}

test("a missing dependency, or one the caller may not see (private), refuses the whole pull", async () => {
  await push("directive", "alice/flows/dangling", "1.0.0", directive("alice/flows/dangling", [exec("tool", "alice/tools/fetch"), exec("tool", "alice/tools/never_published")]));
  const body = await refused(["alice/flows/dangling"], "DEPENDENCY_NOT_FOUND", /^tool alice\/tools\/never_published, used by directive alice\/flows\/dangling, cannot be pulled/);
  assert.deepEqual(body.error.details.used_by, ["directive alice/flows/dangling"]);

  await pushAcme("tool", "acme/tools/internal", "1.0.0", tool("acme/tools/internal", "{}"), ".mjs");
  await registry.db.prisma.item.updateMany({ where: { name: "internal" }, data: { visibility: "private" } });
  await push("directive", "alice/flows/uses_private", "1.0.0", directive("alice/flows/uses_private", [exec("tool", "acme/tools/internal")]));
  await refused(["alice/flows/uses_private"], "DEPENDENCY_NOT_FOUND", /acme\/tools\/internal/);

  await push("directive", "alice/flows/local_ref", "1.0.0", directive("alice/flows/local_ref", [exec("tool", "scratch/helper")]));
  await refused(["alice/flows/local_ref"], "DEPENDENCY_NOT_FOUND", /neither a registry id .* nor in the system space/);
});

test("an executor chain that loops and two versions of one item are refused", async () => {
  await push("tool", "alice/loop/a", "1.0.0", yamlRuntime("loop", "alice/loop/b"), ".yaml");
  await push("tool", "alice/loop/b", "1.0.0", yamlRuntime("loop", "alice/loop/a"), ".yaml");
  await push("tool", "alice/loop/entry", "1.0.0", tool("alice/loop/entry", "{}", "alice/loop/a"), ".mjs");
  await refused(["alice/loop/entry", "--type", "tool"], "CHAIN_CYCLE", /alice\/loop\/a → alice\/loop\/b → alice\/loop\/a loops/);

  await push("tool", "alice/tools/fetch", "2.0.0", tool("alice/tools/fetch", `{ step: "fetch2" }`).replace('"1.0.0"', '"2.0.0"'), ".mjs");
  await push("directive", "alice/flows/conflicted", "1.0.0", directive("alice/flows/conflicted", [exec("tool", "alice/tools/fetch@1.0.0"), exec("directive", "alice/flows/wants_two")]));
  await push("directive", "alice/flows/wants_two", "1.0.0", directive("alice/flows/wants_two", [exec("tool", "alice/tools/fetch@2.0.0")]));
  await refused(["alice/flows/conflicted"], "VERSION_MISMATCH", /uses tool alice\/tools\/fetch@2\.0\.0, but the closure already has tool alice\/tools\/fetch@1\.0\.0/);
});

test(`limits: ${MAX_CLOSURE_DEPTH} levels below the item and ${MAX_CLOSURE_ITEMS} items in all, each pulled at the limit and refused past it`, async () => {
  // A chain of directives d0 → d1 → … : d0 with MAX_CLOSURE_DEPTH levels below it is fine, one more is not.
  const depth = MAX_CLOSURE_DEPTH + 1;
  for (let i = depth; i >= 0; i--) await push("directive", `alice/deep/d${i}`, "1.0.0", directive(`alice/deep/d${i}`, i < depth ? [exec("directive", `alice/deep/d${i + 1}`)] : []));
  const ok = await (await consumer()).json(["pull", "alice/deep/d1", "--with-deps"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.body.items.length, MAX_CLOSURE_DEPTH + 1);
  await refused(["alice/deep/d0"], "CLOSURE_TOO_LARGE", new RegExp(`directive alice/deep/d${depth} is ${depth} levels below directive alice/deep/d0; --with-deps follows at most ${MAX_CLOSURE_DEPTH}`));

  // Wide: a root using 50 directives that each load 1 of their own knowledge entries (1 + 50 + 50 = 101 items) is one too many;
  // without the last knowledge entry it is exactly the limit.
  const wide = 50;
  for (let i = 0; i < wide; i++) {
    await push("knowledge", `alice/wide/k${i}`, "1.0.0", knowledge(`alice/wide/k${i}`));
    await push("directive", `alice/wide/w${i}`, "1.0.0", directive(`alice/wide/w${i}`, [load(`alice/wide/k${i}`)]));
  }
  await push("directive", "alice/wide/w_last", "1.0.0", directive("alice/wide/w_last", []));
  const children = Array.from({ length: wide - 1 }, (_, i) => exec("directive", `alice/wide/w${i}`));
  await push("directive", "alice/wide/at_limit", "1.0.0", directive("alice/wide/at_limit", [...children, exec("directive", "alice/wide/w_last")]));
  await push("directive", "alice/wide/past_limit", "1.0.0", directive("alice/wide/past_limit", [...children, exec("directive", `alice/wide/w${wide - 1}`)]));
  assert.equal(1 + wide + (wide - 1), MAX_CLOSURE_ITEMS, "the fixture sits exactly at the limit");
  const atLimit = await (await consumer()).json(["pull", "alice/wide/at_limit", "--with-deps"]);
  assert.equal(atLimit.code, 0, atLimit.stderr);
  assert.equal(atLimit.body.items.length, MAX_CLOSURE_ITEMS);
  await refused(["alice/wide/past_limit"], "CLOSURE_TOO_LARGE", new RegExp(`uses more than ${MAX_CLOSURE_ITEMS - 1} items`));
});

test("a local file in the way of one dependency refuses them all; --force replaces it", async () => {
  const c = await consumer();
  const mine = join(c.ws.projectDir, ".ai", "knowledge", "alice", "notes", "style.md");
  await mkdir(dirname(mine), { recursive: true });
  await writeFile(mine, "my own notes\n");
  const { code, body } = await c.json(["pull", "alice/flows/triage", "--with-deps"]);
  assert.notEqual(code, 0);
  assert.equal(body.error.code, "ITEM_EXISTS");
  assert.deepEqual(await c.files(), ["knowledge/alice/notes/style.md"], "only the user's own file");
  assert.equal(await readFile(mine, "utf8"), "my own notes\n");
  assert.deepEqual(await c.lock(), []);
  const forced = await c.json(["pull", "alice/flows/triage", "--with-deps", "--force"]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal((await c.lock()).length, 5);
});

test("a write that fails halfway takes back the files written before it, and the lock is untouched", async () => {
  const c = await consumer();
  // A directory where the fourth file must go: the first three are written, then the write fails.
  const blocker = join(c.ws.projectDir, ".ai", "tools", "alice", "tools", "store.mjs");
  await mkdir(join(blocker, "inside"), { recursive: true });
  const { code, body } = await c.json(["pull", "alice/flows/triage", "--with-deps"]);
  assert.notEqual(code, 0, JSON.stringify(body));
  assert.match(body.error.message, /store\.mjs.*the files written before it were taken back and the lock is unchanged$/);
  const left = (await c.files()).filter((f) => !f.startsWith("tools/alice/tools/store.mjs"));
  assert.deepEqual(left, [], "the directive, fetch and parse were taken back");
  assert.deepEqual(await c.lock(), []);
});

test("a registry (or network) that slips a dependency into a directive or changes a tool is caught by the verifier: nothing written, the extra item never asked for", async () => {
  const tamper = (path: string, body: unknown) => {
    const answer = body as Json;
    if (path.startsWith("/v1/pull/directive/alice/flows/triage")) answer.content = String(answer.content).replace("<process>", `<process>\n    <step><execute item_type="tool" item_id="alice/tools/evil"/></step>`);
    return answer;
  };
  const changeTool = (path: string, body: unknown) => {
    const answer = body as Json;
    if (path.startsWith("/v1/pull/tool/alice/tools/store")) answer.content = String(answer.content).replace(`step: "store"`, `step: "exfiltrate"`);
    return answer;
  };
  for (const rewrite of [tamper, changeTool]) {
    const proxy = await startProxy(registry.url, rewrite);
    try {
      const c = await consumer();
      const before = registry.requests.length;
      const run = await runRye(["pull", "alice/flows/triage", "--with-deps", "--json"], { env: { ...c.env, RYE_REGISTRY_URL: proxy.url }, cwd: c.ws.projectDir });
      const body = JSON.parse(run.stdout) as Json;
      assert.notEqual(run.code, 0);
      assert.equal(body.error.code, "INTEGRITY_MISMATCH", JSON.stringify(body));
      assert.deepEqual(await c.files(), []);
      assert.deepEqual(await c.lock(), []);
      assert.ok(!registry.requests.slice(before).some((r) => r.path.includes("alice/tools/evil")), "the slipped-in dependency was never requested");
    } finally {
      await proxy.close();
    }
  }
});
