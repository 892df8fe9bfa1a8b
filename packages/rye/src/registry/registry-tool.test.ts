/**
 * The system tool rye/registry/registry run for real through the engine's execute path (verified chain,
 * node runtime, a child process) against the real registry app in-process.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { RyeError } from "@rye/core";
import { hashToken, TOKEN_PREFIX } from "../../../../apps/api/src/auth/api-tokens.ts";
import { startTestRegistry } from "../../test/registry-server.ts";
import type { TestRegistry } from "../../test/registry-server.ts";
import type { Workspace } from "../../test/workspace.ts";
import { createWorkspace } from "../../test/workspace.ts";
import { createBundle } from "../bundles/create.ts";

const TOOL = "rye/registry/registry";
let registry: TestRegistry;
let token: string;

before(async () => {
  registry = await startTestRegistry();
  const user = await registry.db.prisma.user.create({ data: { username: "alice", email: "alice@example.test" } });
  await registry.db.prisma.namespace.create({ data: { name: "alice", userId: user.id } });
  token = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
  await registry.db.prisma.apiToken.create({ data: { userId: user.id, name: "test", tokenHash: hashToken(token), scopes: ["items:read", "items:write"] } });
});
after(() => registry.close());

/** A workspace talking to the test registry; signed in as alice unless `anonymous`. */
async function workspace(options: { anonymous?: boolean } = {}): Promise<Workspace> {
  const ws = await createWorkspace();
  ws.env.RYE_REGISTRY_URL = registry.url;
  if (!options.anonymous) ws.env.RYE_TOKEN = token;
  else delete ws.env.RYE_TOKEN;
  return ws;
}

async function execute(ws: Workspace, parameters: Record<string, unknown>): Promise<any> {
  return (await ws.engine()).execute({ item_type: "tool", item_id: TOOL, parameters });
}

const notes = (id: string) => `---\nid: ${id}\ntitle: Greeting notes\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n---\n\nHow to greet people politely.\n`;

let publisher: Workspace;

test("push, then search finds the item, then pull writes it verified into another project", async () => {
  publisher = await workspace();
  await publisher.write("knowledge", "notes/greetings.md", notes("greetings"), { signer: null });

  const refused = await execute(publisher, { action: "push", item_path: ".ai/knowledge/notes/greetings.md" });
  assert.equal(refused.status, "error", "without yes the key is not registered");
  assert.equal(refused.data.error.type, "UNTRUSTED_KEY");
  assert.match(refused.data.error.message, /^UNTRUSTED_KEY: Your public key [0-9a-f]{16} is not registered/);

  const pushed = await execute(publisher, { action: "push", item_path: ".ai/knowledge/notes/greetings.md", yes: true });
  assert.equal(pushed.status, "success", JSON.stringify(pushed.data));
  assert.equal(pushed.data.item_id, "alice/notes/greetings");
  assert.equal(pushed.data.key_registration, "registered");
  assert.ok(pushed.data.notices.some((n: string) => /Pinned registry key/.test(n)), JSON.stringify(pushed.data.notices));

  const found = await execute(publisher, { action: "search", query: "greet*" });
  assert.equal(found.status, "success", JSON.stringify(found.data));
  assert.equal(found.data.registry, registry.url);
  assert.deepEqual(found.data.results.map((r: any) => [r.id, r.type, r.space]), [["alice/notes/greetings", "knowledge", "registry"]]);
  const none = await execute(publisher, { action: "search", query: "greet*", item_type: "tool" });
  assert.deepEqual(none.data.results, []);

  const reader = await workspace({ anonymous: true });
  const pulled = await execute(reader, { action: "pull", item_id: "alice/notes/greetings@1.0.0" });
  assert.equal(pulled.status, "success", JSON.stringify(pulled.data));
  assert.equal(pulled.data.status, "pulled");
  const path = join(reader.projectDir, ".ai/knowledge/alice/notes/greetings.md");
  assert.equal(pulled.data.path, path);
  assert.match(await readFile(path, "utf8"), /rye-registry@alice -->\n/);
  const again = await execute(reader, { action: "pull", item_id: "alice/notes/greetings", item_type: "knowledge" });
  assert.equal(again.data.status, "unchanged");

  const yanked = await execute(publisher, { action: "yank", item_type: "knowledge", item_id: "alice/notes/greetings", version: "1.0.0", reason: "test" });
  assert.equal(yanked.status, "success", JSON.stringify(yanked.data));
  assert.equal((await execute(publisher, { action: "unyank", item_type: "knowledge", item_id: "alice/notes/greetings@1.0.0" })).status, "success");
  const forbidden = await execute(reader, { action: "unpublish", item_type: "knowledge", item_id: "alice/notes/greetings" });
  assert.equal(forbidden.status, "error");
  assert.equal(forbidden.data.error.type, "UNAUTHORIZED");
});

test("whoami: the signed-in user, or a clear error without credentials", async () => {
  const me = await execute(await workspace(), { action: "whoami" });
  assert.equal(me.status, "success", JSON.stringify(me.data));
  assert.deepEqual([me.data.username, me.data.registry, me.data.source], ["alice", registry.url, "env"]);

  const anonymous = await execute(await workspace({ anonymous: true }), { action: "whoami" });
  assert.equal(anonymous.status, "error");
  assert.equal(anonymous.data.error.type, "UNAUTHORIZED");
  assert.match(anonymous.data.error.message, new RegExp(`^UNAUTHORIZED: Not signed in to ${registry.url.replace(/[.:/]/g, "\\$&")} \\(hint: Run \`rye login --registry`));
});

test("bundle_push and bundle_pull", async () => {
  const ws = publisher ?? (await workspace());
  await ws.write("tool", "alice/kit/greet.py", `#!/usr/bin/env python3\n__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = None\n__category__ = "alice/kit"\nprint("hi")\n`, { signer: null });
  await ws.write("knowledge", "alice/kit/about.md", notes("about"), { signer: null });
  await createBundle({ root: ws.projectDir, bundleId: "alice/kit", version: "0.3.0", key: ws.key });
  const pushed = await execute(ws, { action: "bundle_push", bundle_id: "alice/kit", yes: true });
  assert.equal(pushed.status, "success", JSON.stringify(pushed.data));
  assert.deepEqual([pushed.data.bundle_id, pushed.data.version, pushed.data.file_count], ["alice/kit", "0.3.0", 2]);

  const reader = await workspace({ anonymous: true });
  const pulled = await execute(reader, { action: "bundle_pull", bundle_id: "alice/kit@0.3.0" });
  assert.equal(pulled.status, "success", JSON.stringify(pulled.data));
  assert.equal(pulled.data.files_written.length, 2);
  assert.deepEqual(await readFile(join(reader.projectDir, ".ai/tools/alice/kit/greet.py")), await readFile(join(ws.projectDir, ".ai/tools/alice/kit/greet.py")));
  assert.deepEqual((await readdir(join(reader.projectDir, ".ai"))).sort(), ["bundles", "knowledge", "lockfiles", "tools"]);

  const missing = await execute(reader, { action: "bundle_pull", bundle_id: "alice/nothing" });
  assert.equal(missing.status, "error");
  assert.equal(missing.data.error.type, "ITEM_NOT_FOUND");
});

test("pending, approve and reject reach the registry's approval routes", async () => {
  const ws = await workspace();
  const pending = await execute(ws, { action: "pending" });
  assert.equal(pending.status, "success", JSON.stringify(pending.data));
  assert.deepEqual([pending.data.mode, pending.data.versions], ["off", []]);
  // alice's own namespace is personal: registry administrators approve there, so the registry refuses her.
  const denied = await execute(ws, { action: "approve", item_type: "knowledge", item_id: "alice/notes/greetings@1.0.0" });
  assert.equal(denied.status, "error");
  assert.equal(denied.data.error.type, "FORBIDDEN");
  const anonymous = await execute(await workspace({ anonymous: true }), { action: "pending" });
  assert.equal(anonymous.data.error.type, "UNAUTHORIZED");
});

test("parameters are validated before anything runs", async () => {
  const ws = await workspace();
  const invalid = async (parameters: Record<string, unknown>) => {
    const err = await execute(ws, parameters).then(
      (r) => assert.fail(`expected INPUT_INVALID, got ${JSON.stringify(r)}`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof RyeError);
    assert.equal(err.code, "INPUT_INVALID", err.message);
    return err.message;
  };
  assert.match(await invalid({ action: "launch" }), /action must be equal to one of the allowed values/);
  assert.match(await invalid({}), /action is required/);
  assert.match(await invalid({ action: "search" }), /query is required/);
  assert.match(await invalid({ action: "yank", item_type: "knowledge", item_id: "alice/notes/greetings" }), /version is required/);
  assert.match(await invalid({ action: "reject", item_type: "skill", item_id: "alice/notes@1.0.0" }), /reason is required/);
  assert.match(await invalid({ action: "pull", item_id: "alice/notes/greetings", to: "elsewhere" }), /to must be equal to one of the allowed values/);
  assert.match(await invalid({ action: "bundle_pull" }), /bundle_id is required/);
  await invalid({ action: "whoami", command: "rm -rf /" });
  assert.deepEqual(await readdir(join(ws.projectDir, ".ai")), [], "nothing ran: no lockfile was written");
});
