/**
 * The transparency log against a registry whose database was tampered with (issue #32): a log entry changed or
 * removed after it was logged, and a history rewritten at a larger size (the operator rebuilds the tree around a
 * changed entry and signs it with the genuine key). Each is refused by `rye pull` with its own code and nothing is
 * written; `rye verify` rechecks a pulled item's kept proof offline. (Rollback, stripped and foreign proofs go through
 * a hostile proxy: hostile-answers.test.ts; a split view: witness tests.)
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { runRye } from "../cli.ts";
import { snapshot } from "../hostile-lanes.ts";
import { createPublisher, startTestRegistry, type TestRegistry } from "../registry-server.ts";
import { createWorkspace, type Workspace } from "../workspace.ts";

const note = (name: string, version = "1.0.0") => `---\nid: ${name}\ntitle: ${name}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\nBody of ${name}.\n`;

let registry: TestRegistry;
let ws: Workspace;
let env: NodeJS.ProcessEnv;
let push: Awaited<ReturnType<typeof createPublisher>>;
const indexOf: Record<string, number> = {};
let firstPath: string;

async function pull(id: string): Promise<{ code: string | null; body: Record<string, any> }> {
  const run = await runRye(["pull", id, "--json"], { env, cwd: ws.projectDir });
  const body = JSON.parse(run.stdout) as Record<string, any>;
  return { code: run.code === 0 ? null : (body.error?.code ?? `exit ${run.code}`), body };
}

/** Pulls `id` and expects `code`, with nothing written. */
async function refused(id: string, code: string): Promise<Record<string, any>> {
  const before = await snapshot(ws);
  const outcome = await pull(id);
  assert.equal(outcome.code, code, JSON.stringify(outcome.body));
  assert.deepEqual(await snapshot(ws), before, "nothing written");
  return outcome.body;
}

before(async () => {
  registry = await startTestRegistry();
  push = await createPublisher(registry);
  for (const name of ["first", "changed", "removed"]) {
    indexOf[name] = (await push("knowledge", `alice/notes/${name}`, "1.0.0", note(name))).log_index as number;
  }
  ws = await createWorkspace();
  env = { ...ws.env, RYE_REGISTRY_URL: registry.url };
  delete env.RYE_OFFLINE;
  const honest = await pull("alice/notes/first@1.0.0");
  assert.equal(honest.code, null, JSON.stringify(honest.body));
  firstPath = honest.body.path as string;
});

after(async () => {
  await registry?.close();
});

test("an honest pull keeps the checkpoint with the key pin and the proof in the lock; rye verify rechecks it offline", async () => {
  const lock = JSON.parse(await readFile(join(ws.projectDir, ".ai", "rye.lock"), "utf8")) as { items: { id: string; log: { index: number; tree_size: number } }[] };
  const entry = lock.items.find((e) => e.id === "alice/notes/first")!;
  assert.equal(entry.log.index, indexOf.first);
  const offline = await runRye(["verify", firstPath, "--json"], { env: { ...env, RYE_REGISTRY_URL: "http://127.0.0.1:9" }, cwd: ws.projectDir });
  assert.equal(offline.code, 0, offline.stdout + offline.stderr);
  assert.deepEqual(JSON.parse(offline.stdout).log, { status: "verified", index: indexOf.first, tree_size: entry.log.tree_size });
  // A lock whose kept proof was edited (another index) no longer verifies.
  const lockPath = join(ws.projectDir, ".ai", "rye.lock");
  const original = await readFile(lockPath, "utf8");
  entry.log.index += 1;
  await writeFile(lockPath, JSON.stringify(lock));
  try {
    const edited = await runRye(["verify", firstPath, "--json"], { env, cwd: ws.projectDir });
    assert.equal(edited.code, 1);
    assert.equal(JSON.parse(edited.stdout).error.code, "LOG_ENTRY_MISMATCH");
  } finally {
    await writeFile(lockPath, original);
  }
});

test("an entry changed in the database after it was logged: LOG_INCLUSION_INVALID", async () => {
  const index = BigInt(indexOf.changed!);
  const [row] = await registry.db.prisma.publishLogEntry.findMany({ where: { index } });
  await registry.db.raw.query(`UPDATE publish_log_entries SET payload = payload || '{"note":"edited"}'::jsonb WHERE index = $1`, [index]);
  try {
    const body = await refused("alice/notes/changed@1.0.0", "LOG_INCLUSION_INVALID");
    assert.equal(body.error.details.index, indexOf.changed);
  } finally {
    await registry.db.prisma.publishLogEntry.update({ where: { index }, data: { payload: row!.payload as object } });
  }
  assert.equal((await pull("alice/notes/changed@1.0.0")).code, null, "restored, it verifies again");
});

test("an entry removed from the database: the registry cannot prove it, LOG_PROOF_MISSING", async () => {
  const index = BigInt(indexOf.removed!);
  const [row] = await registry.db.prisma.publishLogEntry.findMany({ where: { index } });
  await registry.db.prisma.publishLogEntry.delete({ where: { index } });
  try {
    await refused("alice/notes/removed@1.0.0", "LOG_PROOF_MISSING");
  } finally {
    await registry.db.prisma.publishLogEntry.create({ data: row! as never });
  }
  assert.equal((await pull("alice/notes/removed@1.0.0")).code, null, "restored, it verifies again");
});

test("a history rewritten at a larger size, signed with the registry's own key: LOG_INCONSISTENT", async () => {
  // The operator changes the first publish's publisher, rebuilds the tree from the entries and checkpoints anew.
  await registry.db.raw.query(`UPDATE publish_log_entries SET payload = jsonb_set(payload, '{publisher}', '"mallory"') WHERE index = $1`, [BigInt(indexOf.first!)]);
  await registry.db.raw.query("DELETE FROM tlog_tiles");
  await registry.db.raw.query("DELETE FROM log_checkpoints");
  await push("knowledge", "alice/notes/late", "1.0.0", note("late")); // the append rebuilds the tree (log-tree.ts syncTreeTo)
  const body = await refused("alice/notes/late@1.0.0", "LOG_INCONSISTENT");
  assert.ok(body.error.details.served.size > body.error.details.kept.size, JSON.stringify(body.error.details));
});
