/**
 * The rye://{type}/{+id} template against a real registry (apps/api on a loopback port, PostgreSQL): reading a
 * registry id that is not on this machine pulls, verifies, caches and pins it exactly like the load tool; a
 * subscription to the pinned item reports a changed cache file as INTEGRITY_MISMATCH and a pin moved forward by
 * `rye update` as the new version; a registry serving a
 * forged item is refused with rye's code and nothing is pinned.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { McpError, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { sha256Hex } from "@rye/core";
import type { TestRegistry } from "../../test/registry-server.ts";
import { createPublisher, startProxy, startTestRegistry } from "../../test/registry-server.ts";
import { runRye } from "../../test/cli.ts";
import { createWorkspace, type Workspace } from "../../test/workspace.ts";

const BIN = fileURLToPath(new URL("../../bin/rye.mjs", import.meta.url));
type Json = Record<string, any>;

const knowledge = (name: string, body: string) => `---\nid: ${name}\ntitle: ${name}\nversion: "1.0.0"\nentry_type: reference\ncategory: guides\n---\n\n${body}\n`;
const ID = "alice/guides/setup";
const URI = `rye://knowledge/${ID}`;

let registry: TestRegistry;
let alicePush: Awaited<ReturnType<typeof createPublisher>>;
let ws: Workspace;
const clients: Client[] = [];
const seen: ServerNotification[] = [];

async function mcp(registryUrl: string): Promise<Client> {
  const env: NodeJS.ProcessEnv = { ...ws.env, RYE_REGISTRY_URL: registryUrl };
  delete env.RYE_OFFLINE; // this test talks to the registry
  delete env.RYE_TOKEN;
  const client = new Client({ name: "rye-resources-registry-test", version: "1.0.0" });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => void seen.push(n as ServerNotification));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], cwd: ws.projectDir, env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === "string")), stderr: "pipe" }));
  clients.push(client);
  return client;
}

const lockPath = () => join(ws.projectDir, ".ai", "rye.lock");
const cachePath = () => join(ws.userBase, ".ai", "knowledge", `${ID}.md`);
const exists = (path: string) => stat(path).then(() => true, () => false);

before(async () => {
  registry = await startTestRegistry();
  alicePush = await createPublisher(registry);
  const push = alicePush;
  await push("knowledge", ID, "1.0.0", knowledge("setup", "Install the toolchain, then run the checks."));
  await push("knowledge", "alice/guides/forged", "1.0.0", knowledge("forged", "Genuine text."));
  ws = await createWorkspace();
});

after(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await registry?.close();
});

test("reading a registry id through the template pulls, verifies and pins it like load", async () => {
  const client = await mcp(registry.url);
  assert.equal(await exists(cachePath()), false, "nothing on this machine yet");
  const { contents } = await client.readResource({ uri: URI });
  const content = contents[0] as Json;
  assert.match(content.text, /Install the toolchain, then run the checks\./);
  assert.match(content.text, /^<!-- rye:signed:/, "the registry-signed file");
  assert.equal(content.mimeType, "text/markdown");
  const meta = content._meta["rye/item"];
  assert.deepEqual([meta.type, meta.id, meta.space, meta.version, meta.verification.ok], ["knowledge", ID, "user", "1.0.0", true]);
  assert.equal(meta.verification.fingerprint, await registry.activeFingerprint());
  assert.match(meta.registry_notice, /first use/);

  // Cached in the user space and pinned in the project lock, as load does.
  const cached = await readFile(cachePath());
  assert.equal(cached.toString("utf8"), content.text);
  const lock = JSON.parse(await readFile(lockPath(), "utf8")) as { items: Json[] };
  const entry = lock.items.find((e) => e.type === "knowledge" && e.id === ID)!;
  assert.ok(entry, JSON.stringify(lock));
  assert.equal(entry.version, "1.0.0");
  assert.equal(entry.registry, registry.url);
  assert.equal(entry.file_sha256, sha256Hex(cached));

  // Now a local item: listed, and the load tool gives the same bytes.
  assert.ok((await client.listResources()).resources.some((r) => r.uri === URI), "listed once pulled");
  const loaded = JSON.parse(((await client.callTool({ name: "load", arguments: { item_type: "knowledge", item_id: ID } })).content as { text: string }[])[0]!.text) as Json;
  assert.equal(loaded.content, content.text);
  // An explicit version in the URI is the same pin.
  assert.equal(((await client.readResource({ uri: `${URI}@1.0.0` })).contents[0] as Json).text, content.text);
});

test("a subscription to the pinned item reports a changed cache file as INTEGRITY_MISMATCH; reads refuse it", async () => {
  const client = clients[0]!;
  await client.subscribeResource({ uri: URI });
  const from = seen.length;
  const original = await readFile(cachePath(), "utf8");
  await writeFile(cachePath(), original.replace("run the checks", "skip the checks"));
  let hit: ServerNotification | undefined;
  for (let i = 0; i < 200 && !hit; i++) {
    hit = seen.slice(from).find((n) => n.method === "notifications/resources/updated" && n.params.uri === URI);
    if (!hit) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(hit, "resources/updated sent");
  const status = (hit.params!._meta as Json)["rye/status"];
  assert.equal(status.ok, false);
  assert.equal(status.code, "INTEGRITY_MISMATCH");
  const err = await client.readResource({ uri: URI }).then(() => null, (e: McpError) => e);
  assert.ok(err instanceof McpError);
  assert.equal((err.data as Json).error.code, "INTEGRITY_MISMATCH");
  const restoredFrom = seen.length;
  await writeFile(cachePath(), original);
  assert.match(((await client.readResource({ uri: URI })).contents[0] as Json).text, /run the checks/);
  let restored: ServerNotification | undefined;
  for (let i = 0; i < 200 && !restored; i++) {
    restored = seen.slice(restoredFrom).find((n) => n.method === "notifications/resources/updated" && n.params.uri === URI);
    if (!restored) await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual((restored?.params?._meta as Json)["rye/status"], { ok: true, version: "1.0.0" }, "the restore is notified too");
});

test("moving the pin forward (`rye update`) notifies the subscription with the new version", async () => {
  const client = clients[0]!;
  const from = seen.length;
  await alicePush("knowledge", ID, "1.0.1", knowledge("setup", "Install the toolchain, then run the checks twice.").replace('version: "1.0.0"', 'version: "1.0.1"'));
  const env: NodeJS.ProcessEnv = { ...ws.env, RYE_REGISTRY_URL: registry.url };
  delete env.RYE_OFFLINE;
  const run = await runRye(["update", ID, "--json"], { env, cwd: ws.projectDir });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  // A notification still naming 1.0.0 may come first (the previous test's restore arriving late, or the new cache file
  // seen before the lock moves the pin): wait for the one naming the new version.
  const updates = () => seen.slice(from).filter((n) => n.method === "notifications/resources/updated" && n.params.uri === URI);
  let hit: ServerNotification | undefined;
  for (let i = 0; i < 200 && !hit; i++) {
    hit = updates().find((n) => ((n.params!._meta as Json)["rye/status"] as Json)?.version === "1.0.1");
    if (!hit) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(hit, `resources/updated sent with the new version; seen: ${JSON.stringify(updates().map((n) => (n.params!._meta as Json)["rye/status"]))}`);
  assert.deepEqual((hit.params!._meta as Json)["rye/status"], { ok: true, version: "1.0.1" });
  assert.match(((await client.readResource({ uri: URI })).contents[0] as Json).text, /run the checks twice/);
});

test("a registry answer that does not verify is an error with rye's code; nothing is cached or pinned", async () => {
  // A network that rewrites the item's content after the registry signed it.
  const proxy = await startProxy(registry.url, (path, body) => {
    if (!path.startsWith("/v1/pull/knowledge/alice/guides/forged")) return body;
    const b = body as Json;
    return { ...b, content: String(b.content).replace("Genuine text.", "Forged text.") };
  });
  try {
    const client = await mcp(proxy.url);
    const err = await client.readResource({ uri: "rye://knowledge/alice/guides/forged" }).then(() => null, (e: McpError) => e);
    assert.ok(err instanceof McpError, "refused");
    const code = (err.data as Json).error.code; // the content no longer matches its signed hash
    assert.equal(code, "INTEGRITY_MISMATCH", JSON.stringify(err.data));
    assert.equal(await exists(join(ws.userBase, ".ai", "knowledge", "alice", "guides", "forged.md")), false);
    const lock = JSON.parse(await readFile(lockPath(), "utf8")) as { items: Json[] };
    assert.equal(lock.items.some((e) => e.id === "alice/guides/forged"), false);
  } finally {
    await proxy.close();
  }
});
