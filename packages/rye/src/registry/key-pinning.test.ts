import "@rye/core/node";
import assert from "node:assert/strict";
import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { generateKeyPair, RyeError, signDocument } from "@rye/core";
import type { KeyRotation } from "@rye/core";
import { deadRegistryUrl, startProxy, startTestRegistry } from "../../test/registry-server.ts";
import type { TestRegistry } from "../../test/registry-server.ts";
import type { RegistryKeysDocument } from "./key-pinning.ts";
import { assertSignedByPinned, pinnedKeyFor, readRegistryPins, registryKeyFor, registryPinsPath, resetRegistryPin } from "./key-pinning.ts";

let registry: TestRegistry;
before(async () => {
  registry = await startTestRegistry();
});
after(async () => {
  await registry.close();
});

async function home(): Promise<NodeJS.ProcessEnv> {
  return { USER_SPACE: await mkdtemp(join(tmpdir(), "rye-pin-")) };
}

const isCode = (code: string, message?: RegExp) => (err: unknown) => {
  assert.ok(err instanceof RyeError, String(err));
  assert.equal(err.code, code, err.message);
  if (message) assert.match(err.message, message);
  return true;
};

// Each test that rotates or revokes gets its own registry so the shared one stays pristine.
async function withRegistry(body: (r: TestRegistry) => Promise<void>): Promise<void> {
  const r = await startTestRegistry();
  try {
    await body(r);
  } finally {
    await r.close();
  }
}

test("first contact pins the active key (0600 file) and returns a first-use notice; later calls reuse it", async () => {
  const env = await home();
  const first = await registryKeyFor(registry.url, { env });
  const active = await registry.activeFingerprint();
  assert.equal(first.status, "first-use");
  assert.equal(first.key.fingerprint, active);
  assert.equal(first.notice, `Pinned registry key ${active} for ${registry.url} (first use)`);
  const pins = await readRegistryPins(env);
  assert.equal(pins[registry.url]?.fingerprint, active);
  assert.deepEqual(pins[registry.url]?.history, []);
  assert.equal((await stat(registryPinsPath(env))).mode & 0o777, 0o600);

  const second = await registryKeyFor(registry.url, { env });
  assert.equal(second.status, "pinned");
  assert.equal(second.notice, undefined);
  assert.equal(second.key.fingerprint, active);
  assert.equal(assertSignedByPinned(second, active).fingerprint, active);
  assert.throws(() => assertSignedByPinned(second, "0123456789abcdef"), isCode("UNTRUSTED_KEY", /pinned key/));
});

test("a rotation is followed through its signed statement and re-pinned with history", async () => {
  await withRegistry(async (r) => {
    const env = await home();
    const original = (await registryKeyFor(r.url, { env })).key.fingerprint;
    const { previous, next } = await r.rotate();
    assert.equal(previous, original);
    const result = await registryKeyFor(r.url, { env });
    assert.equal(result.status, "rotated");
    assert.equal(result.key.fingerprint, next);
    assert.deepEqual(result.rotations, [original, next]);
    assert.match(result.notice ?? "", /rotated its key/);
    const pin = (await readRegistryPins(env))[r.url]!;
    assert.equal(pin.fingerprint, next);
    assert.deepEqual(pin.history, [original]);
    // The old key is retired, not revoked: it still verifies what it signed (items published before).
    assert.deepEqual(pin.retired_keys.map((k) => k.fingerprint), [original]);
    assert.match(pin.retired_keys[0]!.public_key, /BEGIN PUBLIC KEY/);
    assert.equal(assertSignedByPinned(result, original).fingerprint, original);
    assert.throws(() => assertSignedByPinned({ ...result, status: "offline" }, original), isCode("UNTRUSTED_KEY", /could not be checked for revocations/), "not without a fresh revocation check");
    assert.throws(() => assertSignedByPinned(result, "0123456789abcdef"), isCode("UNTRUSTED_KEY"));
    assert.equal((await registryKeyFor(r.url, { env })).status, "pinned");
  });
});

test("a pin file written before retired keys existed is still read, and rotates into one that has them", async () => {
  await withRegistry(async (r) => {
    const env = await home();
    const first = await registryKeyFor(r.url, { env });
    // The old format: no retired_keys, no revoked.
    await writeFile(registryPinsPath(env), JSON.stringify({ [r.url]: { fingerprint: first.pin.fingerprint, public_key: first.pin.public_key, pinned_at: first.pin.pinned_at, history: [] } }));
    const old = (await readRegistryPins(env))[r.url]!;
    assert.deepEqual(old.retired_keys, []);
    assert.deepEqual(old.revoked, []);
    assert.equal((await registryKeyFor(r.url, { env })).status, "pinned");
    await r.rotate();
    assert.equal((await registryKeyFor(r.url, { env })).status, "rotated");
    assert.deepEqual((await readRegistryPins(env))[r.url]!.retired_keys.map((k) => k.fingerprint), [first.key.fingerprint]);
  });
});

test("a retired key the registry revokes is dropped from the pin and recorded; it never verifies again", async () => {
  await withRegistry(async (r) => {
    const env = await home();
    const k0 = (await registryKeyFor(r.url, { env })).key.fingerprint;
    const { next: k1 } = await r.rotate();
    const rotated = await registryKeyFor(r.url, { env });
    assert.equal(assertSignedByPinned(rotated, k0).fingerprint, k0);
    await r.revoke(k0, "leaked");
    const after = await registryKeyFor(r.url, { env });
    assert.equal(after.status, "pinned", "a revoked retired key does not stop the registry's current key");
    assert.equal(after.key.fingerprint, k1);
    assert.match(after.warnings.join("\n"), new RegExp(`retired key ${k0} .* was revoked .*leaked`));
    const pin = (await readRegistryPins(env))[r.url]!;
    assert.deepEqual(pin.retired_keys, []);
    assert.deepEqual(pin.revoked.map((x) => [x.fingerprint, x.reason]), [[k0, "leaked"]]);
    assert.ok(pinnedKeyFor(pin, k0) && "revoked" in pinnedKeyFor(pin, k0)!);
    assert.throws(() => assertSignedByPinned(after, k0), isCode("UNTRUSTED_KEY", /was revoked/));
    assert.deepEqual((await registryKeyFor(r.url, { env })).warnings, [], "reported once");
  });
});

test("a revoked pinned key is recorded: the offline fallback no longer uses it", async () => {
  const env = await home();
  const r = await startTestRegistry();
  let k0: string;
  try {
    k0 = (await registryKeyFor(r.url, { env })).key.fingerprint;
    await r.revoke(k0, "leaked");
    await assert.rejects(registryKeyFor(r.url, { env }), isCode("UNTRUSTED_KEY", new RegExp(`key ${k0} .* was revoked`)));
    assert.deepEqual((await readRegistryPins(env))[r.url]?.revoked.map((x) => x.fingerprint), [k0]);
  } finally {
    await r.close();
  }
  await assert.rejects(registryKeyFor(r.url, { env }), isCode("UNTRUSTED_KEY", /pinned key .* revoked/), "offline, no fallback to a revoked key");
});

test("first contact after rotations also keeps the earlier keys that verified statements lead to, up to a revoked one", async () => {
  await withRegistry(async (r) => {
    const { previous: k0, next: k1 } = await r.rotate();
    const { next: k2 } = await r.rotate();
    const env = await home();
    const first = await registryKeyFor(r.url, { env });
    assert.equal(first.status, "first-use");
    assert.equal(first.key.fingerprint, k2);
    assert.deepEqual(first.pin.retired_keys.map((k) => k.fingerprint), [k1, k0]);
    assert.match(first.notice ?? "", new RegExp(`first use\\); also trusting the earlier key\\(s\\) it rotated from \\(${k1}, ${k0}\\)`));
    assert.equal(assertSignedByPinned(first, k0).fingerprint, k0);

    await r.revoke(k1);
    const fresh = await home();
    const second = await registryKeyFor(r.url, { env: fresh });
    assert.deepEqual(second.pin.retired_keys, [], "nothing before a revoked key is adopted");
    assert.throws(() => assertSignedByPinned(second, k0), isCode("UNTRUSTED_KEY"));
  });
});

test("two rotations in a row are followed as one chain", async () => {
  await withRegistry(async (r) => {
    const env = await home();
    const k0 = (await registryKeyFor(r.url, { env })).key.fingerprint;
    const { next: k1 } = await r.rotate();
    const { next: k2 } = await r.rotate();
    assert.equal(await r.activeFingerprint(), k2);
    const result = await registryKeyFor(r.url, { env });
    assert.equal(result.status, "rotated");
    assert.deepEqual(result.rotations, [k0, k1, k2]);
    assert.deepEqual((await readRegistryPins(env))[r.url]?.history, [k0, k1]);
  });
});

test("a key swapped without a rotation statement is refused, with the reset-key hint; reset-key then re-pins", async () => {
  await withRegistry(async (r) => {
    const env = await home();
    const pinned = (await registryKeyFor(r.url, { env, name: "corp" })).key.fingerprint;
    const swapped = await r.swapKey();
    assert.equal(await r.activeFingerprint(), swapped);
    await assert.rejects(registryKeyFor(r.url, { env, name: "corp" }), (err) => {
      isCode("UNTRUSTED_KEY", new RegExp(`now signs with key ${swapped}`))(err);
      assert.match((err as RyeError).hint ?? "", /rye registry reset-key corp --force/);
      return true;
    });
    assert.equal((await readRegistryPins(env))[r.url]?.fingerprint, pinned, "a refused key is not pinned");
    assert.equal((await resetRegistryPin(r.url, env))?.fingerprint, pinned);
    const again = await registryKeyFor(r.url, { env });
    assert.equal(again.status, "first-use");
    assert.equal(again.key.fingerprint, swapped);
  });
});

test("a forged rotation statement served by a tampering proxy is refused", async () => {
  const env = await home();
  const attacker = await generateKeyPair();
  const pinned = (await registryKeyFor(registry.url, { env })).key;
  let forge = false;
  const proxy = await startProxy(registry.url, async (path, body) => {
    if (!forge || path !== "/v1/keys") return body;
    const doc = body as RegistryKeysDocument;
    const payload: KeyRotation = {
      _type: "https://rye.dev/key-rotation/v1",
      registry: doc.registry,
      previous_fingerprint: pinned.fingerprint,
      next_fingerprint: attacker.publicKey.fingerprint,
      next_public_key: attacker.publicKey.pem,
      issued_at: new Date().toISOString(),
    };
    const signed = await signDocument(payload, attacker); // not signed by the pinned key
    signed.key_fingerprint = pinned.fingerprint;
    return {
      ...doc,
      active: attacker.publicKey.fingerprint,
      keys: [
        ...doc.keys.map((k) => ({ ...k, active: false })),
        { fingerprint: attacker.publicKey.fingerprint, public_key: attacker.publicKey.pem, algorithm: "ed25519", valid_from: payload.issued_at, valid_until: null, previous_fingerprint: pinned.fingerprint, rotation: signed, revoked_at: null, revocation_reason: null, active: true },
      ],
    };
  });
  try {
    // Pin through the proxy first (untampered), then let it forge.
    const proxied = await registryKeyFor(proxy.url, { env });
    assert.equal(proxied.key.fingerprint, pinned.fingerprint);
    forge = true;
    await assert.rejects(registryKeyFor(proxy.url, { env }), isCode("UNTRUSTED_KEY", /invalid signature/));
    assert.equal((await readRegistryPins(env))[proxy.url]?.fingerprint, pinned.fingerprint);
  } finally {
    await proxy.close();
  }
});

test("a revoked pinned key, a revoked active key and a revoked intermediate key are refused", async () => {
  await withRegistry(async (r) => {
    const env = await home();
    const k0 = (await registryKeyFor(r.url, { env })).key.fingerprint;
    await r.revoke(k0, "leaked");
    await assert.rejects(registryKeyFor(r.url, { env }), (err) => {
      isCode("UNTRUSTED_KEY", new RegExp(`key ${k0} .* was revoked .*leaked`))(err);
      assert.match((err as RyeError).hint ?? "", /reset-key/);
      return true;
    });
  });
  await withRegistry(async (r) => {
    const env = await home();
    await registryKeyFor(r.url, { env });
    const { next: k1 } = await r.rotate();
    await r.rotate();
    await r.revoke(k1);
    await assert.rejects(registryKeyFor(r.url, { env }), isCode("UNTRUSTED_KEY", /intermediate key .* revoked/));
  });
  await withRegistry(async (r) => {
    const envFresh = await home();
    await r.revoke(await r.activeFingerprint());
    await assert.rejects(registryKeyFor(r.url, { env: envFresh }), isCode("UNTRUSTED_KEY", /active key .* revoked/), "not even pinned on first use");
    assert.deepEqual(await readRegistryPins(envFresh), {});
  });
});

test("offline with a pin: the pinned key with a warning; offline without a pin: fails closed", async () => {
  const env = await home();
  const r = await startTestRegistry();
  const pinned = (await registryKeyFor(r.url, { env })).key.fingerprint;
  await r.close(); // the registry goes away
  const offline = await registryKeyFor(r.url, { env });
  assert.equal(offline.status, "offline");
  assert.equal(offline.key.fingerprint, pinned);
  assert.match(offline.warnings[0] ?? "", /Could not fetch the keys .* using the pinned key/);

  const fresh = await home();
  const dead = await deadRegistryUrl();
  await assert.rejects(registryKeyFor(dead, { env: fresh }), isCode("UNAVAILABLE", /none is pinned/));
  await assert.rejects(registryKeyFor(r.url, { env: fresh }), isCode("UNAVAILABLE"));
  assert.deepEqual(await readRegistryPins(fresh), {});
});

test("a damaged or altered pin file fails closed instead of trusting on first use again", async () => {
  const env = await home();
  await registryKeyFor(registry.url, { env });
  const path = registryPinsPath(env);
  const pins = JSON.parse(await readFile(path, "utf8")) as Record<string, { fingerprint: string }>;
  pins[registry.url]!.fingerprint = "0123456789abcdef";
  await writeFile(path, JSON.stringify(pins));
  await assert.rejects(registryKeyFor(registry.url, { env }), isCode("UNTRUSTED_KEY", /does not hash/));
  await writeFile(path, "{not json");
  await assert.rejects(registryKeyFor(registry.url, { env }), isCode("VALIDATION_FAILED"));
});

test("fetchKeys can be injected (e.g. MCP transport)", async () => {
  const env = await home();
  await assert.rejects(
    registryKeyFor("http://127.0.0.1:1", { env, fetchKeys: async () => ({ registry: "x", active: "aaaaaaaaaaaaaaaa", keys: [] }) }),
    isCode("UNTRUSTED_KEY", /does not publish/),
  );
});
