/**
 * A split view (issue #32): the registry's operator forks its log (an entry rewritten, the tree rebuilt and signed
 * with the genuine key) and shows the fork to a client that never saw the original. Nothing in the fork is
 * inconsistent for that client, so only a witness can tell: a real `rye witness serve` cosigned the original tree and
 * refuses the fork, and a client whose policy requires that witness refuses the fork's checkpoint
 * (LOG_WITNESS_MISSING) with nothing written, while the honest history passed the same policy.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { runRye } from "../cli.ts";
import { snapshot } from "../hostile-lanes.ts";
import { createPublisher, startTestRegistry, type TestRegistry } from "../registry-server.ts";
import { startWitnessProcess, type WitnessProcess } from "../witness-process.ts";
import { createWorkspace, type Workspace } from "../workspace.ts";
import { freePort } from "../../../../apps/api/test/free-port.ts";

const note = (name: string) => `---\nid: ${name}\ntitle: ${name}\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n---\n\nBody of ${name}.\n`;

let registry: TestRegistry;
let witness: WitnessProcess;
let push: Awaited<ReturnType<typeof createPublisher>>;
const clients: { ws: Workspace; env: NodeJS.ProcessEnv }[] = [];

async function rye(client: { ws: Workspace; env: NodeJS.ProcessEnv }, args: string[]): Promise<{ code: string | null; body: Record<string, any> }> {
  const run = await runRye([...args, "--json"], { env: client.env, cwd: client.ws.projectDir });
  const body = JSON.parse(run.stdout) as Record<string, any>;
  return { code: run.code === 0 ? null : (body.error?.code ?? `exit ${run.code}`), body };
}

before(async () => {
  const work = await mkdtemp(join(tmpdir(), "rye-split-view-"));
  const witnessEnv = { ...process.env, USER_SPACE: join(work, "witness-home"), RYE_NO_UPDATE_CHECK: "1" };
  const made = await runRye(["witness", "keygen", "--name", "witness.test/w1", "--dir", join(work, "w1")], { env: witnessEnv });
  assert.equal(made.code, 0, made.stderr);
  const witnessKey = made.stdout.trim();
  const witnessPort = await freePort();
  registry = await startTestRegistry({ env: { RYE_WITNESSES: `http://127.0.0.1:${witnessPort} ${witnessKey}`, RYE_WITNESS_TIMEOUT_MS: "5000" } });
  const info = (await (await fetch(`${registry.url}/v1/tlog/info`)).json()) as { verifier_keys: string[] };
  witness = await startWitnessProcess(["--dir", join(work, "w1"), "--port", String(witnessPort), "--log", info.verifier_keys[0]!], witnessEnv);
  push = await createPublisher(registry);
  await push("knowledge", "alice/notes/first", "1.0.0", note("first"));
  for (let i = 0; i < 2; i++) {
    const ws = await createWorkspace();
    const env: NodeJS.ProcessEnv = { ...ws.env, RYE_REGISTRY_URL: registry.url };
    delete env.RYE_OFFLINE;
    const client = { ws, env };
    assert.equal((await rye(client, ["trust", "witness", "add", "witness.test/w1", witnessKey])).code, null);
    assert.equal((await rye(client, ["trust", "witness", "require", "1"])).code, null);
    clients.push(client);
  }
});

after(async () => {
  await witness?.stop();
  await registry?.close();
});

test("the honest log passes a policy that requires the witness", async () => {
  const honest = await rye(clients[0]!, ["pull", "alice/notes/first@1.0.0"]);
  assert.equal(honest.code, null, JSON.stringify(honest.body));
});

test("a fork shown to a client that never saw the original is refused for want of the witness", async () => {
  // The operator rewrites the first publish, rebuilds the tree from the entries and signs the fork with the registry
  // key; the witness, which cosigned the original, refuses to cosign it.
  await registry.db.raw.query(`UPDATE publish_log_entries SET payload = jsonb_set(payload, '{publisher}', '"mallory"') WHERE index = 0`);
  await registry.db.raw.query("DELETE FROM tlog_tiles");
  await registry.db.raw.query("DELETE FROM log_checkpoints");
  await push("knowledge", "alice/notes/second", "1.0.0", note("second"));

  const fresh = clients[1]!;
  const before = await snapshot(fresh.ws);
  const shown = await rye(fresh, ["pull", "alice/notes/second@1.0.0"]);
  assert.equal(shown.code, "LOG_WITNESS_MISSING", JSON.stringify(shown.body));
  assert.deepEqual(shown.body.error.details.cosigned_by, []);
  // Only the registry's key is pinned (first use: the key is genuine); no log state, no item, no lock.
  const after = await snapshot(fresh.ws);
  const pins = Object.keys(after).filter((k) => !(k in before));
  assert.deepEqual(pins, ["home/.ai/trusted_keys/registries.json"]);
  const pin = JSON.parse(await readFile(join(fresh.ws.root, pins[0]!), "utf8")) as Record<string, { tree?: unknown }>;
  assert.equal(pin[registry.url]?.tree, undefined, "the fork's checkpoint is not kept");

  // The client that saw the original is refused too (the same checkpoint lacks the witness).
  const seen = await rye(clients[0]!, ["pull", "alice/notes/second@1.0.0"]);
  assert.equal(seen.code, "LOG_WITNESS_MISSING", JSON.stringify(seen.body));
});
