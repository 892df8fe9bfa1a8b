/**
 * End to end, client ⇄ registry: the real registry API (apps/api) on a loopback port, a publisher using
 * the real `rye push`, and `rye mcp` as a real child process driven by the MCP SDK client (as Claude
 * Desktop or Cursor would). The steps run in order and share state:
 *
 *   a. alice publishes a directive, a runtime and a tool that runs on that runtime;
 *   b. MCP search finds the registry-only directive, labelled as a registry hit;
 *   c. MCP load pulls, verifies and pins it (cache file, project lock, key pin, first-use notice);
 *      MCP execute of the tool pulls the tool AND its registry runtime;
 *   d. with the API stopped, a new MCP process serves both from the cache;
 *   e. one changed byte in the cached file is INTEGRITY_MISMATCH; restoring it heals;
 *   f. the registry rotates its key; a new version signed with the new key loads with a rotation notice
 *      and the pin moves; items pinned before the rotation keep working;
 *   g. the registry swaps its key without a rotation statement: UNTRUSTED_KEY, nothing written.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { SignedDocument } from "@rye/core";
import { documentDigest, sha256Hex } from "@rye/core";
import { RYE_BIN, runRye } from "../cli.ts";
import type { TestRegistry } from "../registry-server.ts";
import { startTestRegistry } from "../registry-server.ts";
import type { Workspace } from "../workspace.ts";
import { createWorkspace, nodeTool, yamlRuntime } from "../workspace.ts";

type Json = Record<string, any>;

const directive = (version: string, name = "welcome", step = "Greet {input:name} warmly and point them to the onboarding checklist.") => `# ${name}

Welcome a new teammate.

\`\`\`xml
<directive name="${name}" version="${version}">
  <metadata>
    <description>Welcome a new teammate to the project (${name} ${version})</description>
    <category>greetings</category>
    <author>alice</author>
  </metadata>
  <inputs>
    <input name="name" type="string" required="true">who joined</input>
  </inputs>
  <process>
    <step name="greet">${step}</step>
  </process>
</directive>
\`\`\`
`;

const SHOUT_SCHEMA = `{ type: "object", properties: { text: { type: "string" } }, required: ["text"] }`;
const shoutTool = nodeTool("tools", "export function main(p) { return { shout: p.text.toUpperCase() + \"!\" }; }", SHOUT_SCHEMA).replace("rye/core/runtimes/node", "alice/runtimes/strict_node");
const strictRuntime = yamlRuntime("runtimes", "rye/core/runtimes/node", "config:\n  timeout: 5\n");

const exists = (path: string) => stat(path).then(() => true, () => false);

let registry: TestRegistry;
let publisher: Workspace;
let publisherEnv: NodeJS.ProcessEnv;
let consumer: Workspace;
let consumerEnv: Record<string, string>;
const clients: Client[] = [];

/** Signs up on the registry (local account) and creates a personal token through the API. */
async function accountWithToken(reg: TestRegistry, username: string): Promise<string> {
  const signup = await fetch(`${reg.url}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, email: `${username}@example.test`, password: "correct horse battery staple" }),
  });
  assert.equal(signup.status, 201, await signup.clone().text());
  const cookie = signup.headers.get("set-cookie")!.split(";")[0]!;
  const { csrf_token } = (await signup.json()) as { csrf_token: string };
  const res = await fetch(`${reg.url}/v1/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie, "x-csrf-token": csrf_token },
    body: JSON.stringify({ name: "e2e", scopes: ["items:read", "items:write"] }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { token: string }).token;
}

/** `rye push <file> --yes --json` from the publisher's project. */
async function push(rel: string, content: string): Promise<{ code: number; body: Json; stderr: string }> {
  const path = join(publisher.projectDir, rel);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
  const run = await runRye(["push", rel, "--yes", "--json"], { env: publisherEnv, cwd: publisher.projectDir });
  return { code: run.code, body: JSON.parse(run.stdout) as Json, stderr: run.stderr };
}

async function mcp(): Promise<Client> {
  const client = new Client({ name: "rye-e2e", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [RYE_BIN, "mcp"], cwd: consumer.projectDir, env: consumerEnv, stderr: "pipe" }));
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Json): Promise<{ isError: boolean; body: Json }> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Json };
  const body = JSON.parse(result.content[0]!.text) as Json;
  assert.deepEqual(result.structuredContent, body, "structuredContent mirrors the JSON text");
  return { isError: Boolean(result.isError), body };
}

const cachePath = (type: string, rel: string) => join(consumer.userBase, ".ai", type, rel);
const lockPath = () => join(consumer.projectDir, ".ai", "rye.lock");
const pinsPath = () => join(consumer.userBase, ".ai", "trusted_keys", "registries.json");
const readLock = async () => JSON.parse(await readFile(lockPath(), "utf8")) as { lockfile_version: number; items: Json[] };
const lockEntry = async (type: string, id: string) => (await readLock()).items.find((e) => e.type === type && e.id === id);
const readPins = async () => JSON.parse(await readFile(pinsPath(), "utf8")) as Record<string, Json>;

/** The digest of the publish attestation the registry serves for `type id@version` (as signed). */
async function attestationDigest(type: string, id: string, version: string): Promise<string> {
  const res = await fetch(`${registry.url}/v1/pull/${type}/${id}?version=${version}`);
  assert.equal(res.status, 200);
  const { attestation } = (await res.json()) as { attestation: SignedDocument<unknown> };
  return documentDigest(attestation);
}

const WELCOME = "alice/greetings/welcome";
const WELCOME_FILE = () => cachePath("directives", `${WELCOME}.md`);
let firstFingerprint: string;
let welcomeBytes: Buffer;

before(async () => {
  registry = await startTestRegistry();
  const token = await accountWithToken(registry, "alice");
  publisher = await createWorkspace();
  publisherEnv = { ...publisher.env, RYE_REGISTRY_URL: registry.url, RYE_TOKEN: token };
  delete publisherEnv.RYE_OFFLINE;
  consumer = await createWorkspace();
  const env: NodeJS.ProcessEnv = { ...consumer.env, RYE_REGISTRY_URL: registry.url };
  delete env.RYE_OFFLINE; // the registry is reachable for this test
  delete env.RYE_TOKEN; // the consumer is anonymous: public items need no sign-in
  consumerEnv = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === "string"));
  firstFingerprint = await registry.activeFingerprint();
});

after(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await registry?.close();
});

test("a. alice publishes a directive, a runtime and a tool running on that runtime with `rye push`", async () => {
  const pushed = [
    await push(".ai/directives/greetings/welcome.md", directive("1.0.0")),
    await push(".ai/tools/runtimes/strict_node.yaml", strictRuntime),
    await push(".ai/tools/tools/shout.mjs", shoutTool),
  ];
  for (const p of pushed) {
    assert.equal(p.code, 0, p.stderr);
    assert.equal(p.body.status, "pushed");
    assert.equal(p.body.registry, registry.url);
    assert.equal(p.body.version, "1.0.0");
    assert.equal(p.body.registry_fingerprint, firstFingerprint);
    assert.equal(p.body.author_fingerprint, publisher.key.publicKey.fingerprint);
  }
  assert.deepEqual(pushed.map((p) => p.body.item_id), [WELCOME, "alice/runtimes/strict_node", "alice/tools/shout"]);
  assert.equal(pushed[0]!.body.key_registration, "registered");
  assert.equal(pushed[1]!.body.key_registration, "already_registered");
  // Nothing of it is on the consumer's machine yet.
  assert.equal(await exists(WELCOME_FILE()), false);
  assert.equal(await exists(lockPath()), false);
});

test("b. MCP search finds the registry-only directive, labelled as a registry hit", async () => {
  const client = await mcp();
  const { isError, body } = await call(client, "search", { query: "welcome", item_type: "directive" });
  assert.equal(isError, false, JSON.stringify(body));
  assert.deepEqual(body.registry, { url: registry.url, total: 1 });
  const hits = body.results.filter((h: Json) => h.id === WELCOME);
  assert.equal(hits.length, 1, JSON.stringify(body.results));
  assert.equal(hits[0].space, "registry");
  assert.equal(hits[0].registry, registry.url);
  assert.equal(hits[0].type, "directive");
  assert.equal(hits[0].version, "1.0.0");
  assert.match(hits[0].description, /Welcome a new teammate/);
  assert.equal(body.warnings, undefined);
  const local = await call(client, "search", { query: "welcome", item_type: "directive", scope: "local" });
  assert.equal(local.body.results.some((h: Json) => h.id === WELCOME), false, "not on this machine");
  assert.equal(await exists(WELCOME_FILE()), false, "search does not pull");
});

test("c. MCP load pulls, verifies, caches and pins the directive; execute pulls a tool and its registry runtime", async () => {
  const client = await mcp();
  const { isError, body } = await call(client, "load", { item_type: "directive", item_id: WELCOME });
  assert.equal(isError, false, JSON.stringify(body));
  assert.equal(body.status, "success");
  assert.equal(body.source, "user");
  assert.equal(body.path, WELCOME_FILE());
  assert.deepEqual(body.verification, { ok: true, code: "OK", contentHash: body.verification.contentHash, fingerprint: firstFingerprint });
  assert.match(body.verification.contentHash, /^[0-9a-f]{64}$/);
  assert.equal(body.metadata.version, "1.0.0");
  assert.deepEqual(body.issues, []);
  assert.equal(body.registry_notice, `Pinned registry key ${firstFingerprint} for ${registry.url} (first use)`);

  // The cached file: exactly what load returned, registry-signed for alice.
  welcomeBytes = await readFile(WELCOME_FILE());
  assert.equal(welcomeBytes.toString("utf8"), body.content);
  assert.match(body.content, new RegExp(`^<!-- rye:signed:[^ ]+:${body.verification.contentHash}:[^ ]+:${firstFingerprint}\\|rye-registry@alice -->`));

  // The project lock.
  const lock = await readLock();
  assert.equal(lock.lockfile_version, 1);
  assert.equal(lock.items.length, 1);
  const entry = lock.items[0]!;
  assert.deepEqual(Object.keys(entry).sort(), ["attestation_digest", "content_hash", "file_extension", "file_sha256", "id", "key_fingerprint", "log", "pinned_at", "registry", "type", "version"]);
  // The log's proof as verified at pull time, for `rye verify` offline.
  assert.ok(entry.log.index < entry.log.tree_size && entry.log.checkpoint.startsWith("127.0.0.1:") && entry.log.proof.length >= 0, JSON.stringify(entry.log));
  assert.equal(entry.id, WELCOME);
  assert.equal(entry.type, "directive");
  assert.equal(entry.version, "1.0.0");
  assert.equal(entry.content_hash, body.verification.contentHash);
  assert.equal(entry.file_sha256, sha256Hex(welcomeBytes));
  assert.equal(entry.registry, registry.url);
  assert.equal(entry.key_fingerprint, firstFingerprint);
  assert.equal(entry.attestation_digest, await attestationDigest("directive", WELCOME, "1.0.0"));
  assert.equal(entry.file_extension, ".md");
  assert.ok(Date.now() - Date.parse(entry.pinned_at) < 120_000);

  // The registry key pin (user space), and no registry key in the global trust store.
  const pins = await readPins();
  assert.deepEqual(Object.keys(pins), [registry.url]);
  assert.equal(pins[registry.url]!.fingerprint, firstFingerprint);
  assert.deepEqual(pins[registry.url]!.history, []);
  assert.equal(await exists(join(consumer.userBase, ".ai", "trusted_keys", `${firstFingerprint}.pem`)), false);

  // The directive runs (inputs interpolated) from the cache.
  const run = await call(client, "execute", { item_type: "directive", item_id: WELCOME, parameters: { name: "Ada" } });
  assert.equal(run.isError, false, JSON.stringify(run.body));
  assert.match(run.body.data.content, /Greet Ada warmly and point them to the onboarding checklist\./);

  // A registry tool whose runtime is also a registry item: the whole chain is pulled and pinned.
  const shout = await call(client, "execute", { item_type: "tool", item_id: "alice/tools/shout", parameters: { text: "hi" } });
  assert.equal(shout.isError, false, JSON.stringify(shout.body));
  assert.equal(shout.body.status, "success");
  assert.deepEqual(shout.body.data, { shout: "HI!" });
  assert.deepEqual(shout.body.chain.map((c: Json) => c.item_id), ["alice/tools/shout", "alice/runtimes/strict_node", "rye/core/runtimes/node", "rye/core/primitives/subprocess"]);
  assert.equal(shout.body.registry_notice, undefined, "the key was pinned already");
  assert.equal(await exists(cachePath("tools", "alice/tools/shout.mjs")), true);
  assert.equal(await exists(cachePath("tools", "alice/runtimes/strict_node.yaml")), true);
  const ids = (await readLock()).items.map((e) => `${e.type}:${e.id}@${e.version}:${e.key_fingerprint}:${e.registry}`);
  assert.deepEqual(ids, [
    `directive:${WELCOME}@1.0.0:${firstFingerprint}:${registry.url}`,
    `tool:alice/runtimes/strict_node@1.0.0:${firstFingerprint}:${registry.url}`,
    `tool:alice/tools/shout@1.0.0:${firstFingerprint}:${registry.url}`,
  ]);
});

test("d. with the API stopped, a new MCP process serves the directive and the tool chain from the cache", async () => {
  for (const client of clients.splice(0)) await client.close();
  const lockBefore = await readFile(lockPath(), "utf8");
  const pinsBefore = await readFile(pinsPath(), "utf8");
  await registry.stop();
  const down = await fetch(`${registry.url}/health`).then(() => "up", () => "down");
  assert.equal(down, "down");

  const client = await mcp();
  const { isError, body } = await call(client, "load", { item_type: "directive", item_id: WELCOME });
  assert.equal(isError, false, JSON.stringify(body));
  assert.equal(body.source, "user");
  assert.equal(body.path, WELCOME_FILE());
  assert.equal(body.verification.ok, true);
  assert.equal(body.verification.fingerprint, firstFingerprint);
  assert.equal(body.content, welcomeBytes.toString("utf8"));
  assert.equal(body.registry_notice, undefined);

  const shout = await call(client, "execute", { item_type: "tool", item_id: "alice/tools/shout", parameters: { text: "offline" } });
  assert.equal(shout.isError, false, JSON.stringify(shout.body));
  assert.deepEqual(shout.body.data, { shout: "OFFLINE!" });

  // Search still answers with the local (cached) hit and says the registry was not searched.
  const found = await call(client, "search", { query: "welcome", item_type: "directive" });
  assert.equal(found.isError, false);
  const hit = found.body.results.find((h: Json) => h.id === WELCOME);
  assert.equal(hit?.space, "user");
  assert.equal(hit?.verified, true, "the cached item verifies with the pinned registry key");
  assert.match(found.body.warnings?.[0] ?? "", new RegExp(`Registry ${registry.url} not searched`));

  assert.equal(await readFile(lockPath(), "utf8"), lockBefore, "offline loads do not touch the lock");
  assert.equal(await readFile(pinsPath(), "utf8"), pinsBefore, "nor the key pin");
});

test("e. one modified byte in the cached file is INTEGRITY_MISMATCH; restoring the file heals it", async () => {
  const client = clients[0]!;
  const tampered = Buffer.from(welcomeBytes);
  const at = tampered.indexOf("warmly");
  assert.ok(at > 0);
  tampered[at] = "W".charCodeAt(0); // one byte: warmly → Warmly
  await writeFile(WELCOME_FILE(), tampered);
  const pinned = (await lockEntry("directive", WELCOME))!;

  for (const [tool, args] of [
    ["load", { item_type: "directive", item_id: WELCOME }],
    ["execute", { item_type: "directive", item_id: WELCOME, parameters: { name: "Ada" } }],
  ] as const) {
    const { isError, body } = await call(client, tool, args);
    assert.equal(isError, true, `${tool}: ${JSON.stringify(body)}`);
    assert.equal(body.status, "error");
    assert.equal(body.error.code, "INTEGRITY_MISMATCH");
    assert.ok(body.error.message.includes(WELCOME_FILE()), body.error.message);
    assert.ok(body.error.message.includes(lockPath()), body.error.message);
    assert.match(body.error.hint, /rye pull alice\/greetings\/welcome|rye update alice\/greetings\/welcome/);
    assert.equal(body.error.details.expected_sha256, pinned.file_sha256);
    assert.equal(body.error.details.actual_sha256, sha256Hex(tampered));
  }
  assert.deepEqual(await readFile(WELCOME_FILE()), tampered, "the tampered file is reported, not silently replaced");

  await writeFile(WELCOME_FILE(), welcomeBytes);
  const restored = await call(client, "load", { item_type: "directive", item_id: WELCOME });
  assert.equal(restored.isError, false, JSON.stringify(restored.body));
  assert.equal(restored.body.verification.ok, true);
});

let rotated: { previous: string; next: string };

test("f. after a key rotation, a new version signed with the new key loads with a rotation notice and the pin moves", async () => {
  await registry.restart();
  rotated = await registry.rotate();
  assert.equal(rotated.previous, firstFingerprint);
  assert.notEqual(rotated.next, firstFingerprint);
  assert.equal(await registry.activeFingerprint(), rotated.next);

  const p = await push(".ai/directives/greetings/welcome.md", directive("1.1.0", "welcome", "Greet {input:name} and pair them with a buddy."));
  assert.equal(p.code, 0, p.stderr);
  assert.equal(p.body.version, "1.1.0");
  assert.equal(p.body.registry_fingerprint, rotated.next);

  const client = await mcp();
  // Without a version the pinned 1.0.0 stays (from the cache); @1.1.0 asks for the new one.
  const pinnedLoad = await call(client, "load", { item_type: "directive", item_id: WELCOME });
  assert.equal(pinnedLoad.body.metadata?.version, "1.0.0", JSON.stringify(pinnedLoad.body));

  const { isError, body } = await call(client, "load", { item_type: "directive", item_id: `${WELCOME}@1.1.0` });
  assert.equal(isError, false, JSON.stringify(body));
  assert.equal(body.metadata.version, "1.1.0");
  assert.equal(body.verification.ok, true);
  assert.equal(body.verification.fingerprint, rotated.next);
  assert.equal(
    body.registry_notice,
    `Registry ${registry.url} rotated its key ${rotated.previous} → ${rotated.next} (rotation statements verified); pinned ${rotated.next}`,
  );

  const pins = await readPins();
  assert.equal(pins[registry.url]!.fingerprint, rotated.next);
  assert.deepEqual(pins[registry.url]!.history, [rotated.previous]);
  const entry = (await lockEntry("directive", WELCOME))!;
  assert.equal(entry.version, "1.1.0");
  assert.equal(entry.key_fingerprint, rotated.next);
  assert.equal(entry.file_sha256, sha256Hex(await readFile(WELCOME_FILE())));
  assert.equal(entry.attestation_digest, await attestationDigest("directive", WELCOME, "1.1.0"));
  assert.match(await readFile(WELCOME_FILE(), "utf8"), /pair them with a buddy/);

  // Now the plain id is the new pinned version, from the cache.
  const again = await call(client, "load", { item_type: "directive", item_id: WELCOME });
  assert.equal(again.body.metadata.version, "1.1.0");
  assert.equal(again.body.registry_notice, undefined);
});

test("f'. items pinned before the rotation (signed by the rotated-out key) still verify and run", async () => {
  const client = clients.at(-1)!;
  for (const id of ["alice/tools/shout", "alice/runtimes/strict_node"]) {
    assert.equal((await lockEntry("tool", id))!.key_fingerprint, rotated.previous, `${id} was pinned with the old key`);
  }
  const shout = await call(client, "execute", { item_type: "tool", item_id: "alice/tools/shout", parameters: { text: "still here" } });
  assert.equal(shout.isError, false, JSON.stringify(shout.body));
  assert.deepEqual(shout.body.data, { shout: "STILL HERE!" });
  const loaded = await call(client, "load", { item_type: "tool", item_id: "alice/runtimes/strict_node" });
  assert.equal(loaded.isError, false, JSON.stringify(loaded.body));
  assert.equal(loaded.body.verification.fingerprint, rotated.previous);
});

test("g. a key swapped without a rotation statement is refused with UNTRUSTED_KEY and nothing is written", async () => {
  const swapped = await registry.swapKey();
  assert.equal(await registry.activeFingerprint(), swapped);
  const FAREWELL = "alice/greetings/farewell";

  // alice's own client refuses the registry's answer too (the registry has stored the item).
  const p = await push(".ai/directives/greetings/farewell.md", directive("1.0.0", "farewell"));
  assert.equal(p.code, 1);
  assert.equal(p.body.error.code, "UNTRUSTED_KEY", JSON.stringify(p.body));
  assert.match(p.body.error.message, /^The registry accepted directive alice\/greetings\/farewell@1\.0\.0, but its signed copy was refused and .*farewell\.md was left alone: .*no rotation statement/);
  assert.deepEqual(p.body.error.details.published, { item_type: "directive", item_id: FAREWELL, version: "1.0.0" });
  const published = await fetch(`${registry.url}/v1/pull/directive/${FAREWELL}`);
  assert.equal(published.status, 200);
  assert.match(((await published.json()) as { content: string }).content, new RegExp(`:${swapped}\\|rye-registry@alice -->`));

  const lockBefore = await readFile(lockPath(), "utf8");
  const pinsBefore = await readFile(pinsPath(), "utf8");
  const client = await mcp();
  const { isError, body } = await call(client, "load", { item_type: "directive", item_id: FAREWELL });
  assert.equal(isError, true, JSON.stringify(body));
  assert.equal(body.status, "error");
  assert.equal(body.error.code, "UNTRUSTED_KEY");
  assert.ok(body.error.message.includes(swapped), body.error.message);
  assert.ok(body.error.message.includes(rotated.next), body.error.message);
  assert.match(body.error.hint, /reset-key/);

  assert.equal(await exists(cachePath("directives", `${FAREWELL}.md`)), false, "nothing cached");
  assert.equal(await readFile(lockPath(), "utf8"), lockBefore, "the lock is unchanged");
  assert.equal(await readFile(pinsPath(), "utf8"), pinsBefore, "the pin stays on the rotated key");

  // The same refusal through execute; and an explicit version does not get around it.
  const exec = await call(client, "execute", { item_type: "directive", item_id: `registry:${FAREWELL}@1.0.0`, parameters: { name: "Ada" } });
  assert.equal(exec.body.error?.code, "UNTRUSTED_KEY", JSON.stringify(exec.body));
  assert.equal(await exists(cachePath("directives", `${FAREWELL}.md`)), false);
  assert.equal(await readFile(lockPath(), "utf8"), lockBefore);
});
