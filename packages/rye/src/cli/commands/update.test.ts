/**
 * `rye update` (and the registry notices of `rye load|execute|pull`) in-process against the real
 * registry app on a loopback port.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { sha256Hex } from "@rye/core";
import { createPublisher, startTestRegistry } from "../../../test/registry-server.ts";
import { createWorkspace, nodeTool } from "../../../test/workspace.ts";
import { readRegistryPins } from "../../registry/key-pinning.ts";
import { projectLockPath, readProjectLock } from "../../registry/project-lock.ts";
import { runCli } from "../main.ts";

const knowledge = (name: string, version: string, body = `About ${name}.`) => `---\nid: ${name}\ntitle: ${name}\nversion: "${version}"\nentry_type: reference\ncategory: notes\n---\n\n${body}\n`;

const publisher = createPublisher;

/** A throwaway project + user space that may reach the registry; `rye` runs the CLI in-process. */
async function project(registryUrl: string) {
  const ws = await createWorkspace();
  const env: NodeJS.ProcessEnv = { ...ws.env, RYE_REGISTRY_URL: registryUrl };
  delete env.RYE_OFFLINE;
  delete env.RYE_TOKEN;
  const offline: NodeJS.ProcessEnv = { ...env, RYE_OFFLINE: "1" };
  const rye = async (args: string[], options: { env?: NodeJS.ProcessEnv } = {}) => {
    let stdout = "";
    let stderr = "";
    const io = { stdout: (t: string) => void (stdout += t.endsWith("\n") ? t : `${t}\n`), stderr: (t: string) => void (stderr += t.endsWith("\n") ? t : `${t}\n`) };
    const code = await runCli(args, { io, env: options.env ?? env, cwd: ws.projectDir });
    return { code, stdout, stderr };
  };
  const lockBytes = () => readFile(projectLockPath(ws.projectDir), "utf8");
  const pinOf = async (id: string) => (await readProjectLock(ws.projectDir)).items.find((e) => e.id === id);
  const cached = (rel: string) => join(ws.userBase, ".ai", "knowledge", rel);
  return { ws, env, offline, rye, lockBytes, pinOf, cached };
}

test("update moves pins forward, reports up-to-date items, --dry-run changes nothing; load/execute/pull print registry notices", async () => {
  const registry = await startTestRegistry();
  try {
    const push = await publisher(registry);
    await push("knowledge", "alice/notes/facts", "1.0.0", knowledge("facts", "1.0.0"));
    await push("knowledge", "alice/notes/other", "1.0.0", knowledge("other", "1.0.0"));
    await push("tool", "alice/tools/hello", "1.0.0", nodeTool("tools", "export function main() { return { hi: true }; }"), ".mjs");
    const p = await project(registry.url);

    // The first contact pins the registry key: human mode says so on stderr, JSON carries the field.
    let r = await p.rye(["load", "knowledge", "alice/notes/facts"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^notice: Pinned registry key [0-9a-f]{16} for .* \(first use\)$/m);
    assert.match(r.stdout, /About facts\./);
    r = await p.rye(["load", "knowledge", "alice/notes/facts"]);
    assert.doesNotMatch(r.stderr, /notice:/, "only once");

    const fresh = await project(registry.url);
    r = await fresh.rye(["load", "knowledge", "alice/notes/other", "--json"]);
    assert.equal(r.code, 0, r.stdout);
    assert.match(JSON.parse(r.stdout).registry_notice, /first use/);
    assert.doesNotMatch(r.stderr, /notice:/);
    const execFresh = await project(registry.url);
    r = await execFresh.rye(["execute", "tool", "alice/tools/hello"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^notice: Pinned registry key .*first use/m);
    assert.match(r.stdout, /"hi": true/);
    r = await (await project(registry.url)).rye(["execute", "tool", "alice/tools/hello", "--json"]);
    assert.match(JSON.parse(r.stdout).registry_notice, /first use/);
    const pullFresh = await project(registry.url);
    r = await pullFresh.rye(["pull", "alice/notes/other", "--type", "knowledge"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^notice: Pinned registry key .*first use/m);
    r = await (await project(registry.url)).rye(["pull", "alice/notes/other", "--type", "knowledge", "--json"]);
    assert.match(JSON.parse(r.stdout).registry_notice, /first use/);

    r = await p.rye(["load", "knowledge", "alice/notes/other"]);
    assert.equal(r.code, 0, r.stderr);
    await push("knowledge", "alice/notes/facts", "1.1.0", knowledge("facts", "1.1.0", "Facts, revised."));

    // --dry-run: reports, writes nothing.
    const lockBefore = await p.lockBytes();
    const fileBefore = await readFile(p.cached("alice/notes/facts.md"), "utf8");
    r = await p.rye(["update", "--dry-run"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^alice\/notes\/facts\s+1\.0\.0 → 1\.1\.0 \(dry run\)$/m);
    assert.match(r.stdout, /^alice\/notes\/other\s+1\.0\.0 \(up to date\)$/m);
    r = await p.rye(["update", "--dry-run", "--json"]);
    assert.equal(r.code, 0, r.stdout);
    const dry = JSON.parse(r.stdout);
    assert.equal(dry.dry_run, true);
    assert.deepEqual(
      dry.items.map((i: any) => [i.item_id, i.from, i.to, i.status]),
      [
        ["alice/notes/facts", "1.0.0", "1.1.0", "would-update"],
        ["alice/notes/other", "1.0.0", "1.0.0", "up-to-date"],
      ],
    );
    assert.equal(await p.lockBytes(), lockBefore, "the lock is untouched");
    assert.equal(await readFile(p.cached("alice/notes/facts.md"), "utf8"), fileBefore, "the cached file is untouched");

    // The update: lock entry and cached file move together.
    r = await p.rye(["update"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^alice\/notes\/facts\s+1\.0\.0 → 1\.1\.0$/m);
    assert.match(r.stdout, /^alice\/notes\/other\s+1\.0\.0 \(up to date\)$/m);
    const pin = (await p.pinOf("alice/notes/facts"))!;
    assert.equal(pin.version, "1.1.0");
    const content = await readFile(p.cached("alice/notes/facts.md"), "utf8");
    assert.match(content, /version: "1\.1\.0"/);
    assert.match(content, /Facts, revised\./);
    assert.equal(pin.file_sha256, sha256Hex(content));
    assert.equal((await p.pinOf("alice/notes/other"))!.version, "1.0.0");
    r = await p.rye(["load", "knowledge", "alice/notes/facts"], { env: p.offline });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Facts, revised\./);

    r = await p.rye(["update", "alice/notes/facts"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "alice/notes/facts  1.1.0 (up to date)\n");
  } finally {
    await registry.close();
  }
});

test("update id@older is refused (VERSION_MISMATCH) without --allow-downgrade and pinned with it; bad command lines change nothing", async () => {
  const registry = await startTestRegistry();
  try {
    const push = await publisher(registry);
    await push("knowledge", "alice/notes/facts", "1.0.0", knowledge("facts", "1.0.0"));
    await push("knowledge", "alice/notes/facts", "1.1.0", knowledge("facts", "1.1.0"));
    const p = await project(registry.url);
    assert.equal((await p.rye(["load", "knowledge", "alice/notes/facts"])).code, 0);
    assert.equal((await p.pinOf("alice/notes/facts"))!.version, "1.1.0");
    const lockBefore = await p.lockBytes();

    let r = await p.rye(["update", "alice/notes/facts@1.0.0"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^alice\/notes\/facts\s+error\[VERSION_MISMATCH\]: Refusing to roll knowledge alice\/notes\/facts back from the pinned 1\.1\.0 to 1\.0\.0/m);
    assert.match(r.stderr, /hint: .*rye update alice\/notes\/facts@1\.0\.0 --allow-downgrade/);
    assert.equal(await p.lockBytes(), lockBefore);
    r = await p.rye(["update", "alice/notes/facts@1.0.0", "--json"]);
    assert.equal(r.code, 1);
    assert.equal(JSON.parse(r.stdout).items[0].error.code, "VERSION_MISMATCH");

    r = await p.rye(["update", "alice/notes/facts@1.0.0", "--allow-downgrade"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^alice\/notes\/facts\s+1\.1\.0 → 1\.0\.0 \(downgrade\)$/m);
    assert.equal((await p.pinOf("alice/notes/facts"))!.version, "1.0.0");
    assert.match(await readFile(p.cached("alice/notes/facts.md"), "utf8"), /version: "1\.0\.0"/);

    // A version the registry does not have, an id the lock does not pin, a bad type.
    const pinned = await p.lockBytes();
    r = await p.rye(["update", "alice/notes/facts@9.9.9"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error\[ITEM_NOT_FOUND\]: knowledge alice\/notes\/facts@9\.9\.9 not found/);
    r = await p.rye(["update", "alice/notes/nope"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error\[ITEM_NOT_FOUND\]: alice\/notes\/nope is not pinned in .*rye\.lock/);
    r = await p.rye(["update", "--type", "widget"]);
    assert.equal(r.code, 2);
    assert.equal(await p.lockBytes(), pinned);

    // The same id pinned as two types needs --type.
    const lock = JSON.parse(pinned);
    lock.items.push({ ...lock.items[0], type: "directive" });
    await writeFile(projectLockPath(p.ws.projectDir), JSON.stringify(lock));
    r = await p.rye(["update", "alice/notes/facts"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /error\[BAD_REQUEST\]: alice\/notes\/facts is pinned as knowledge and directive/);
    assert.match(r.stderr, /hint: Pass --type/);
    r = await p.rye(["update", "alice/notes/facts", "--type", "knowledge"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^alice\/notes\/facts\s+1\.0\.0 → 1\.1\.0$/m);

    // Offline there is nothing update can do.
    r = await p.rye(["update"], { env: p.offline });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error\[UNAVAILABLE\]: .*RYE_OFFLINE=1/);
  } finally {
    await registry.close();
  }
});

test("an item deleted upstream is reported and keeps its pin; the others are still updated; the exit code is 1", async () => {
  const registry = await startTestRegistry();
  try {
    const push = await publisher(registry);
    await push("knowledge", "alice/notes/facts", "1.0.0", knowledge("facts", "1.0.0"));
    await push("knowledge", "alice/notes/gone", "1.0.0", knowledge("gone", "1.0.0"));
    await push("knowledge", "alice/notes/zeta", "1.0.0", knowledge("zeta", "1.0.0"));
    const p = await project(registry.url);
    for (const id of ["alice/notes/facts", "alice/notes/gone", "alice/notes/zeta"]) assert.equal((await p.rye(["load", "knowledge", id])).code, 0);
    const gonePin = await p.pinOf("alice/notes/gone");
    await push("knowledge", "alice/notes/facts", "1.1.0", knowledge("facts", "1.1.0"));
    await push("knowledge", "alice/notes/zeta", "1.2.0", knowledge("zeta", "1.2.0"));
    await registry.db.prisma.item.deleteMany({ where: { name: "gone" } });

    const r = await p.rye(["update"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^alice\/notes\/gone\s+error\[ITEM_NOT_FOUND\]: knowledge alice\/notes\/gone no longer exists at /m);
    assert.match(r.stderr, /1 of 3 item\(s\) could not be updated; their pins are unchanged\./);
    assert.match(r.stdout, /^alice\/notes\/facts\s+1\.0\.0 → 1\.1\.0$/m);
    assert.match(r.stdout, /^alice\/notes\/zeta\s+1\.0\.0 → 1\.2\.0$/m, "items after the failure are updated too");
    assert.deepEqual(await p.pinOf("alice/notes/gone"), gonePin);
    assert.equal((await p.pinOf("alice/notes/facts"))!.version, "1.1.0");
    assert.equal((await p.pinOf("alice/notes/zeta"))!.version, "1.2.0");
    // The cached copy of the deleted item still loads offline from its pin.
    assert.equal((await p.rye(["load", "knowledge", "alice/notes/gone"], { env: p.offline })).code, 0);
  } finally {
    await registry.close();
  }
});

test("across a key rotation: the old cached item loads offline, new pulls verify with the new key; after revocation and one online contact the old item is refused", async () => {
  const registry = await startTestRegistry();
  try {
    const push = await publisher(registry);
    await push("knowledge", "alice/notes/before", "1.0.0", knowledge("before", "1.0.0"));
    const p = await project(registry.url);
    assert.equal((await p.rye(["load", "knowledge", "alice/notes/before"])).code, 0);
    const { previous: k0, next: k1 } = await registry.rotate();

    await push("knowledge", "alice/notes/after", "1.0.0", knowledge("after", "1.0.0"));
    let r = await p.rye(["load", "knowledge", "alice/notes/after"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`^notice: Registry .* rotated its key ${k0} → ${k1} \\(rotation statements verified\\); pinned ${k1}$`, "m"));
    assert.match(r.stderr, new RegExp(`verified by ${k1}`));
    assert.equal((await p.pinOf("alice/notes/after"))!.key_fingerprint, k1);

    r = await p.rye(["load", "knowledge", "alice/notes/before"], { env: p.offline });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`verified by ${k0}`));
    r = await p.rye(["update"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^alice\/notes\/before\s+1\.0\.0 \(up to date\)$/m);

    // Revocation of the old key; the next online contact (an update that pulls) drops it.
    await registry.revoke(k0, "leaked");
    await push("knowledge", "alice/notes/after", "1.1.0", knowledge("after", "1.1.0"));
    r = await p.rye(["update", "alice/notes/after"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`^warning: The retired key ${k0} .* was revoked .*leaked`, "m"));
    assert.deepEqual((await readRegistryPins(p.env))[registry.url]!.revoked.map((k) => k.fingerprint), [k0]);

    r = await p.rye(["load", "knowledge", "alice/notes/before"], { env: p.offline });
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`error\\[UNTRUSTED_KEY\\]: .*${k0} .*was revoked`));
    // update does not call it up to date: it pulls it again, which the revoked signature fails.
    const lockBefore = await p.lockBytes();
    r = await p.rye(["update", "alice/notes/before", "--dry-run"]);
    assert.match(r.stdout, new RegExp(`alice/notes/before\\s+1\\.0\\.0 → 1\\.0\\.0 \\(dry run; pulled again: its signing key ${k0} was revoked`));
    r = await p.rye(["update"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`^alice/notes/before\\s+error\\[UNTRUSTED_KEY\\]: Signed by key ${k0}.*was revoked`, "m"));
    assert.match(r.stdout, /^alice\/notes\/after\s+1\.1\.0 \(up to date\)$/m);
    assert.equal(await p.lockBytes(), lockBefore, "the pin stays; nothing verified");
  } finally {
    await registry.close();
  }
});
