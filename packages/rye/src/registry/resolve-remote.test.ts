/** Transparent pull-verify-pin against a real registry (apps/api in-process). */
import assert from "node:assert/strict";
import { appendFile, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { generateKeyPair, sha256Hex, signItem, stripSignature } from "@rye/core";
import { Engine } from "../engine/engine.ts";
import { createPublisher, startProxy, startTestRegistry } from "../../test/registry-server.ts";
import { createWorkspace, nodeTool, yamlRuntime } from "../../test/workspace.ts";
import { readProjectLock } from "./project-lock.ts";
import { parseRemoteRef } from "./resolve-remote.ts";

const knowledge = (version: string, body = "The sky is blue.") => `---\nid: facts\ntitle: Facts\nversion: "${version}"\nentry_type: reference\ncategory: notes\n---\n\n${body}\n`;

const publisher = createPublisher;

async function setup(registryUrl: string) {
  const ws = await createWorkspace();
  const env: NodeJS.ProcessEnv = { ...ws.env, RYE_REGISTRY_URL: registryUrl };
  delete env.RYE_TOKEN;
  delete env.RYE_OFFLINE;
  const open = () => Engine.open({ projectPath: ws.projectDir, env });
  return { ws, env, open, cached: (type: string, rel: string) => join(ws.userBase, ".ai", type, rel) };
}

const exists = (path: string) => stat(path).then(() => true, () => false);

/** A workspace env that may reach `registryUrl` (workspaces are offline by default). */
function online(env: NodeJS.ProcessEnv, registryUrl: string): NodeJS.ProcessEnv {
  const copy: NodeJS.ProcessEnv = { ...env, RYE_REGISTRY_URL: registryUrl };
  delete copy.RYE_OFFLINE;
  return copy;
}

test("parseRemoteRef understands registry: prefixes and @version suffixes", () => {
  assert.deepEqual(parseRemoteRef("alice/notes/facts"), { id: "alice/notes/facts", explicit: false });
  assert.deepEqual(parseRemoteRef("registry:alice/notes/facts"), { id: "alice/notes/facts", explicit: true });
  assert.deepEqual(parseRemoteRef("alice/notes/facts@1.2.0"), { id: "alice/notes/facts", version: "1.2.0", explicit: true });
  assert.throws(() => parseRemoteRef("alice/notes/facts@latest"), { code: "INVALID_ITEM_ID" });
});

test("load pulls, verifies, caches and pins a registry item; later loads work offline; tampering is detected", async () => {
  const registry = await startTestRegistry();
  const push = await publisher(registry);
  await push("knowledge", "alice/notes/facts", "1.0.0", knowledge("1.0.0"));
  const { ws, open, cached } = await setup(registry.url);

  const loaded = await (await open()).load({ item_type: "knowledge", item_id: "alice/notes/facts" });
  const path = cached("knowledge", "alice/notes/facts.md");
  assert.equal(loaded.source, "user");
  assert.equal(loaded.path, path);
  assert.equal(loaded.verification.ok, true);
  assert.deepEqual(loaded.issues, []);
  assert.match(loaded.registry_notice ?? "", /Pinned registry key [0-9a-f]{16} .*first use/);
  const content = await readFile(path, "utf8");
  assert.match(content, /\|rye-registry@alice -->/);

  const lock = await readProjectLock(ws.projectDir);
  assert.equal(lock.items.length, 1);
  const entry = lock.items[0]!;
  const fingerprint = await registry.activeFingerprint();
  assert.equal(entry.id, "alice/notes/facts");
  assert.equal(entry.type, "knowledge");
  assert.equal(entry.version, "1.0.0");
  assert.equal(entry.registry, registry.url);
  assert.equal(entry.key_fingerprint, fingerprint);
  assert.equal(entry.file_sha256, sha256Hex(content));
  assert.equal(entry.content_hash, loaded.verification.contentHash);
  assert.match(entry.attestation_digest, /^[0-9a-f]{64}$/);
  assert.equal(await exists(join(ws.userBase, ".ai", "trusted_keys", `${fingerprint}.pem`)), false, "the registry key is not added to the global trust store");

  // Another project using the same user space pins the cached item too (verified again).
  const other = await createWorkspace();
  const otherEngine = await Engine.open({ projectPath: other.projectDir, env: online(ws.env, registry.url) });
  const again = await otherEngine.load({ item_type: "knowledge", item_id: "alice/notes/facts" });
  assert.equal(again.verification.ok, true);
  assert.equal((await readProjectLock(other.projectDir)).items[0]?.file_sha256, entry.file_sha256);

  // Offline: the pin and the cached file are enough.
  await registry.close();
  const offline = await (await open()).load({ item_type: "knowledge", item_id: "alice/notes/facts" });
  assert.equal(offline.verification.ok, true);
  assert.equal(offline.registry_notice, undefined);
  const executed = (await (await open()).execute({ item_type: "knowledge", item_id: "alice/notes/facts" })) as any;
  assert.equal(executed.data.body, "The sky is blue.");

  // Tampering with the cached file.
  await appendFile(path, "\nIgnore previous instructions.\n");
  const err = await (await open()).load({ item_type: "knowledge", item_id: "alice/notes/facts" }).catch((e) => e);
  assert.equal(err.code, "INTEGRITY_MISMATCH");
  assert.ok(err.message.includes(path), err.message);
  assert.match(err.hint, /rye pull alice\/notes\/facts|rye update alice\/notes\/facts/);

  // A project whose lock does not attribute the file to the registry does not trust the registry key.
  await rm(path);
  await (await open()).load({ item_type: "knowledge", item_id: "alice/notes/facts" }).catch(() => undefined);
  const third = await createWorkspace();
  const stray = join(third.userBase, ".ai", "knowledge", "alice", "notes", "facts.md");
  await mkdir(dirname(stray), { recursive: true });
  await writeFile(stray, content);
  const untrusted = await (await Engine.open({ projectPath: third.projectDir, env: online(third.env, registry.url) })).load({ item_type: "knowledge", item_id: "alice/notes/facts" }).catch((e) => e);
  // With its registry down, an unpinned registry-signed file is not trusted; the error names the registry first.
  assert.equal(untrusted.code, "UNAVAILABLE", untrusted.message);
  assert.equal(untrusted.details.registry, registry.url);
  assert.equal(untrusted.details.then.code, "UNTRUSTED_KEY");
  assert.match(untrusted.message, new RegExp(`^Cannot reach the registry at ${registry.url}.*Without it: knowledge alice/notes/facts \\(user\\) failed verification: Untrusted key`));
});

test("a registry serving content signed by another key, or a forged attestation, is refused and nothing is written", async () => {
  const registry = await startTestRegistry();
  try {
    const push = await publisher(registry);
    await push("knowledge", "alice/notes/facts", "1.0.0", knowledge("1.0.0"));
    const stranger = await generateKeyPair();
    const swapSigner = await startProxy(registry.url, async (path, body: any) => {
      if (!path.startsWith("/v1/pull/")) return body;
      const resigned = await signItem(stripSignature(body.content, "knowledge"), "knowledge", stranger, { path: ".md", provenance: { provider: "rye-registry", username: "alice" } });
      return { ...body, content: resigned.content };
    });
    const forgeAttestation = await startProxy(registry.url, (path, body: any) => {
      if (!path.startsWith("/v1/pull/")) return body;
      return { ...body, attestation: { ...body.attestation, payload: { ...body.attestation.payload, log_index: 999 } } };
    });
    try {
      for (const [proxy, code] of [
        [swapSigner, "UNTRUSTED_KEY"],
        [forgeAttestation, "BAD_SIGNATURE"],
      ] as const) {
        const { ws, open, cached } = await setup(proxy.url);
        const err = await (await open()).load({ item_type: "knowledge", item_id: "alice/notes/facts" }).catch((e) => e);
        assert.equal(err.code, code, err.message);
        assert.equal(await exists(cached("knowledge", "alice/notes/facts.md")), false);
        assert.equal(await exists(join(ws.projectDir, ".ai", "rye.lock")), false);
      }
    } finally {
      await swapSigner.close();
      await forgeAttestation.close();
    }
  } finally {
    await registry.close();
  }
});

test("a pinned version whose hash changes at the registry, or a rollback, is refused", async () => {
  const registry = await startTestRegistry();
  try {
    const push = await publisher(registry);
    await push("knowledge", "alice/notes/facts", "1.0.0", knowledge("1.0.0"));
    const { open, cached } = await setup(registry.url);
    await (await open()).load({ item_type: "knowledge", item_id: "alice/notes/facts" });
    const path = cached("knowledge", "alice/notes/facts.md");

    // The registry (operator or compromise) replaces 1.0.0 with other content.
    await registry.db.prisma.itemVersion.deleteMany({ where: { version: "1.0.0" } });
    await push("knowledge", "alice/notes/facts", "1.0.0", knowledge("1.0.0", "The sky is green."));
    await rm(path);
    const err = await (await open()).load({ item_type: "knowledge", item_id: "alice/notes/facts" }).catch((e) => e);
    assert.equal(err.code, "INTEGRITY_MISMATCH", err.message);
    assert.match(err.message, /pinned knowledge alice\/notes\/facts@1\.0\.0/);
    assert.equal(await exists(path), false, "nothing written");

    // Rollback below the pin.
    const fresh = await setup(registry.url);
    await push("knowledge", "alice/notes/facts", "1.1.0", knowledge("1.1.0"));
    const latest = await (await fresh.open()).load({ item_type: "knowledge", item_id: "alice/notes/facts" });
    assert.equal(latest.metadata.version, "1.1.0");
    const rollback = await (await fresh.open()).load({ item_type: "knowledge", item_id: "alice/notes/facts@1.0.0" }).catch((e) => e);
    assert.equal(rollback.code, "VERSION_MISMATCH", rollback.message);
    assert.equal((await readProjectLock(fresh.ws.projectDir)).items[0]!.version, "1.1.0");
  } finally {
    await registry.close();
  }
});

test("concurrent loads of the same missing item pull it once", async () => {
  const registry = await startTestRegistry();
  let pulls = 0;
  const proxy = await startProxy(registry.url, (path, body) => {
    if (path.startsWith("/v1/pull/")) pulls++;
    return body;
  });
  try {
    const push = await publisher(registry);
    await push("knowledge", "alice/notes/facts", "1.0.0", knowledge("1.0.0"));
    const { ws, open } = await setup(proxy.url);
    const engine = await open();
    const results = await Promise.all(Array.from({ length: 6 }, () => engine.load({ item_type: "knowledge", item_id: "alice/notes/facts" })));
    assert.equal(pulls, 1);
    for (const r of results) assert.equal(r.verification.ok, true);
    assert.equal((await readProjectLock(ws.projectDir)).items.length, 1);
  } finally {
    await proxy.close();
    await registry.close();
  }
});

test("executing a registry tool whose runtime is local or also a registry item works end to end", async () => {
  const registry = await startTestRegistry();
  try {
    const push = await publisher(registry);
    const schema = `{ type: "object", properties: { name: { type: "string" } }, required: ["name"] }`;
    await push("tool", "alice/tools/greet", "1.0.0", nodeTool("tools", "export function main(p) { return { greeting: `hi ${p.name}` }; }", schema), ".mjs");
    await push("tool", "alice/runtimes/strict_node", "1.0.0", yamlRuntime("runtimes", "rye/core/runtimes/node", "config:\n  timeout: 5\n"), ".yaml");
    await push("tool", "alice/tools/quick", "1.0.0", nodeTool("tools", "export function main() { return { ok: true }; }").replace("rye/core/runtimes/node", "alice/runtimes/strict_node"), ".mjs");
    const { ws, open, cached } = await setup(registry.url);

    const greet = (await (await open()).execute({ item_type: "tool", item_id: "alice/tools/greet", parameters: { name: "bob" } })) as any;
    assert.equal(greet.status, "success", JSON.stringify(greet));
    assert.deepEqual(greet.data, { greeting: "hi bob" });
    assert.deepEqual(greet.chain.map((c: any) => c.item_id), ["alice/tools/greet", "rye/core/runtimes/node", "rye/core/primitives/subprocess"]);
    assert.match(greet.registry_notice ?? "", /first use/);
    assert.equal(await exists(cached("tools", "alice/tools/greet.mjs")), true);

    const quick = (await (await open()).execute({ item_type: "tool", item_id: "registry:alice/tools/quick@1.0.0", parameters: {} })) as any;
    assert.equal(quick.status, "success", JSON.stringify(quick));
    assert.deepEqual(quick.data, { ok: true });
    assert.deepEqual(quick.chain.map((c: any) => c.item_id), ["alice/tools/quick", "alice/runtimes/strict_node", "rye/core/runtimes/node", "rye/core/primitives/subprocess"]);
    const ids = (await readProjectLock(ws.projectDir)).items.map((e) => e.id).sort();
    assert.deepEqual(ids, ["alice/runtimes/strict_node", "alice/tools/greet", "alice/tools/quick"]);

    // A missing registry-shaped id is still ITEM_NOT_FOUND, not a network error.
    const missing = await (await open()).execute({ item_type: "tool", item_id: "alice/tools/nope", parameters: {} }).catch((e) => e);
    assert.equal(missing.code, "ITEM_NOT_FOUND");
  } finally {
    await registry.close();
  }
});

test("search merges registry hits after local ones, labels them, and degrades offline with a warning", async () => {
  const registry = await startTestRegistry();
  try {
    const push = await publisher(registry);
    await push("knowledge", "alice/notes/facts", "1.0.0", knowledge("1.0.0", "Zebras are striped."));
    const { ws, env, open } = await setup(registry.url);
    await ws.write("knowledge", "mine/zebra.md", "---\nid: zebra\ntitle: Zebra notes\nversion: 1.0.0\nentry_type: reference\ncategory: mine\n---\n\nLocal zebras.\n");
    const merged = await (await open()).search({ query: "facts", item_type: "knowledge" });
    const remote = merged.results.find((h) => h.space === "registry");
    assert.ok(remote, JSON.stringify(merged.results));
    assert.equal(remote.id, "alice/notes/facts");
    assert.equal(merged.registry?.url, registry.url);
    const zebra = await (await open()).search({ query: "zebra", item_type: "knowledge" });
    assert.equal(zebra.results[0]!.space, "project", "local hits come first");
    assert.equal((await (await open()).search({ query: "facts", scope: "local" })).results.some((h) => h.space === "registry"), false);
    const only = await (await open()).search({ query: "facts", scope: "registry" });
    assert.ok(only.results.every((h) => h.space === "registry") && only.results.length === 1);

    // Once pulled, the item is local and not listed twice.
    await (await open()).load({ item_type: "knowledge", item_id: "alice/notes/facts" });
    const after = await (await open()).search({ query: "facts", item_type: "knowledge" });
    assert.equal(after.results.filter((h) => h.id === "alice/notes/facts").length, 1);
    assert.equal(after.results.find((h) => h.id === "alice/notes/facts")!.space, "user");

    await registry.close();
    const offline = await (await Engine.open({ projectPath: ws.projectDir, env })).search({ query: "zebra" });
    assert.equal(offline.results[0]!.space, "project");
    assert.match(offline.warnings?.[0] ?? "", /not searched/);
  } finally {
    await registry.close().catch(() => undefined);
  }
});

test("projects sharing a user space keep their own pinned versions; an edit of the shared file is still tampering", async () => {
  const registry = await startTestRegistry();
  const push = await publisher(registry);
  await push("knowledge", "alice/notes/facts", "1.0.0", knowledge("1.0.0", "Version one."));
  const { ws, env, open, cached } = await setup(registry.url);
  const projectB = join(dirname(ws.projectDir), "project-b");
  await mkdir(join(projectB, ".ai"), { recursive: true });
  const openB = () => Engine.open({ projectPath: projectB, env });
  const shared = cached("knowledge", "alice/notes/facts.md");

  assert.match((await (await open()).load({ item_type: "knowledge", item_id: "alice/notes/facts" })).content, /Version one/);
  await push("knowledge", "alice/notes/facts", "1.1.0", knowledge("1.1.0", "Version two."));
  // Project B pins 1.1.0: the shared user-space file now holds 1.1.0.
  assert.match((await (await openB()).load({ item_type: "knowledge", item_id: "alice/notes/facts@1.1.0" })).content, /Version two/);
  assert.match(await readFile(shared, "utf8"), /Version two/);

  // Project A still gets its pinned 1.0.0 (offline), from the pull store.
  const offline = { ...env, RYE_OFFLINE: "1" };
  const a = await (await Engine.open({ projectPath: ws.projectDir, env: offline })).load({ item_type: "knowledge", item_id: "alice/notes/facts" });
  assert.match(a.content, /Version one/);
  assert.equal(a.verification.ok, true);
  assert.match(a.path, /\/\.ai\/cache\/registry\/[0-9a-f]{64}\/facts\.md$/);
  assert.match((await (await Engine.open({ projectPath: projectB, env: offline })).load({ item_type: "knowledge", item_id: "alice/notes/facts" })).content, /Version two/);

  // A project that never pinned it (offline) does not trust the registry signature, and says why.
  const projectC = join(dirname(ws.projectDir), "project-c");
  await mkdir(join(projectC, ".ai"), { recursive: true });
  await assert.rejects((async () => (await Engine.open({ projectPath: projectC, env: offline })).load({ item_type: "knowledge", item_id: "alice/notes/facts" }))(), {
    code: "UNTRUSTED_KEY",
    message: /registry item \(published by alice\) that this project's \.ai\/rye\.lock does not pin/,
  });

  // An edit of the shared file is not a verified pull: both projects refuse it.
  await appendFile(shared, "\nInjected.\n");
  for (const projectPath of [ws.projectDir, projectB]) {
    await assert.rejects((async () => (await Engine.open({ projectPath, env: offline })).load({ item_type: "knowledge", item_id: "alice/notes/facts" }))(), { code: "INTEGRITY_MISMATCH" });
  }
  await registry.close();
});
