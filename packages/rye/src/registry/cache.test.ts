/** Registry trust for cached items across key rotation and revocation, against the real registry app. */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { Engine } from "../engine/engine.ts";
import { createPublisher, startTestRegistry } from "../../test/registry-server.ts";
import { createWorkspace } from "../../test/workspace.ts";
import { readRegistryPins } from "./key-pinning.ts";
import { readProjectLock } from "./project-lock.ts";

const knowledge = (name: string, version: string) => `---\nid: ${name}\ntitle: ${name}\nversion: "${version}"\nentry_type: reference\ncategory: notes\n---\n\nAbout ${name}.\n`;

const publisher = createPublisher;

test("items cached before a key rotation keep verifying offline; once the old key is revoked they are refused", async () => {
  const registry = await startTestRegistry();
  try {
    const push = await publisher(registry);
    await push("knowledge", "alice/notes/before", "1.0.0", knowledge("before", "1.0.0"));
    const ws = await createWorkspace();
    const online: NodeJS.ProcessEnv = { ...ws.env, RYE_REGISTRY_URL: registry.url };
    delete online.RYE_OFFLINE;
    delete online.RYE_TOKEN;
    const offline: NodeJS.ProcessEnv = { ...online, RYE_OFFLINE: "1" };
    const engine = (env: NodeJS.ProcessEnv) => Engine.open({ projectPath: ws.projectDir, env });
    const load = async (env: NodeJS.ProcessEnv, id: string) => (await engine(env)).load({ item_type: "knowledge", item_id: id });

    const k0 = await registry.activeFingerprint();
    assert.equal((await load(online, "alice/notes/before")).verification.ok, true);

    // Rotation; an item published afterwards is signed by the new key. Pulling it moves the pin.
    const { next: k1 } = await registry.rotate();
    await push("knowledge", "alice/notes/after", "1.0.0", knowledge("after", "1.0.0"));
    const after = await load(online, "alice/notes/after");
    assert.equal(after.verification.ok, true);
    assert.equal(after.verification.fingerprint, k1);
    assert.match(after.registry_notice ?? "", new RegExp(`rotated its key ${k0} → ${k1}`));
    const lock = await readProjectLock(ws.projectDir);
    assert.equal(lock.items.find((e) => e.id === "alice/notes/after")?.key_fingerprint, k1, "the new item verifies with the new key");
    assert.equal(lock.items.find((e) => e.id === "alice/notes/before")?.key_fingerprint, k0);
    const pin = (await readRegistryPins(online))[registry.url]!;
    assert.equal(pin.fingerprint, k1);
    assert.deepEqual(pin.retired_keys.map((k) => k.fingerprint), [k0]);

    // Offline, the item cached before the rotation still verifies, with the retired key.
    const before = await load(offline, "alice/notes/before");
    assert.equal(before.verification.ok, true);
    assert.equal(before.verification.fingerprint, k0);
    assert.equal((await load(offline, "alice/notes/after")).verification.ok, true);

    // An item published before the rotation can still be pulled (its signature is the retired key's).
    await rm(join(ws.userBase, ".ai", "knowledge", "alice", "notes", "before.md"));
    assert.equal((await load(online, "alice/notes/before")).verification.ok, true);

    // Revocation of the old key: one online contact with the registry drops it from the pin.
    await registry.revoke(k0, "leaked");
    await push("knowledge", "alice/notes/later", "1.0.0", knowledge("later", "1.0.0"));
    assert.equal((await load(online, "alice/notes/later")).verification.ok, true);
    assert.deepEqual((await readRegistryPins(online))[registry.url]!.retired_keys, []);

    for (const env of [offline, online]) {
      const refused = await load(env, "alice/notes/before").catch((e) => e);
      assert.equal(refused.code, "UNTRUSTED_KEY", refused.message);
      assert.match(refused.message, new RegExp(`${k0} .*was revoked`));
    }
    assert.equal((await load(offline, "alice/notes/after")).verification.ok, true, "items signed by the current key are unaffected");
  } finally {
    await registry.close();
  }
});
