import "@rye/core/node";
import assert from "node:assert/strict";
import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startTestRegistry } from "../../../test/registry-server.ts";
import type { TestRegistry } from "../../../test/registry-server.ts";
import { readRegistryPins } from "../../registry/key-pinning.ts";
import { registerRegistry } from "./registry.ts";
import { runCommands } from "../test-fixtures.ts";

let registry: TestRegistry;
before(async () => {
  registry = await startTestRegistry();
});
after(async () => {
  await registry.close();
});

async function setup(): Promise<{ env: NodeJS.ProcessEnv; cwd: string }> {
  const root = await mkdtemp(join(tmpdir(), "rye-cli-registry-"));
  const cwd = join(root, "project");
  await mkdir(cwd, { recursive: true });
  return { env: { USER_SPACE: join(root, "home") }, cwd };
}

async function rye(args: string[], { env, cwd }: { env: NodeJS.ProcessEnv; cwd: string }) {
  return runCommands(registerRegistry, args, env, cwd);
}

test("add, list --json with pinned fingerprints, keys (first use, then pinned), remove", async () => {
  const w = await setup();
  let r = await rye(["registry", "add", "local", registry.url, "--default"], w);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Added registry local \(http:\/\/127\.0\.0\.1:\d+\), default\./);
  r = await rye(["registry", "add", "acme", "https://registry.acme.example", "--scope", "acme", "--scope", "acme-labs"], w);
  assert.equal(r.code, 0, r.stderr);

  r = await rye(["registry", "keys", "local"], w);
  assert.equal(r.code, 0, r.stderr);
  const active = await registry.activeFingerprint();
  assert.match(r.stderr, new RegExp(`Pinned registry key ${active} for ${registry.url} \\(first use\\)`));
  assert.match(r.stdout, new RegExp(`local ${registry.url}: pinned key ${active} \\(first-use\\)`));
  assert.match(r.stdout, new RegExp(`${active}  active`));

  r = await rye(["registry", "keys", "--json"], w); // no argument: the default registry
  assert.equal(r.code, 0, r.stderr);
  const keys = JSON.parse(r.stdout) as { status: string; name: string; pinned: { fingerprint: string } };
  assert.equal(keys.status, "pinned");
  assert.equal(keys.name, "local");
  assert.equal(keys.pinned.fingerprint, active);

  r = await rye(["registry", "list", "--json"], w);
  assert.equal(r.code, 0, r.stderr);
  const list = JSON.parse(r.stdout) as { default: { url: string; source: string }; registries: { name: string; scopes: string[]; default: boolean; pinned_key: string | null; origin: string }[] };
  assert.deepEqual(list.default, { url: registry.url, source: "user-default", pinned_key: active });
  assert.deepEqual(
    list.registries.map((x) => [x.name, x.scopes, x.default, x.pinned_key, x.origin]),
    [
      ["local", [], true, active, "user"],
      ["acme", ["acme", "acme-labs"], false, null, "user"],
    ],
  );
  r = await rye(["registry", "list"], w);
  assert.match(r.stdout, new RegExp(`local  ${registry.url}  scopes: -  key: ${active}  \\(default\\)`));
  assert.match(r.stdout, /acme  https:\/\/registry\.acme\.example  scopes: acme, acme-labs  key: not pinned/);

  r = await rye(["registry", "remove", "acme"], w);
  assert.equal(r.code, 0, r.stderr);
  r = await rye(["registry", "remove", "acme"], w);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /error\[NOT_FOUND\]/);
});

test("add refuses invalid names, http to a remote host and a scope taken by another registry", async () => {
  const w = await setup();
  let r = await rye(["registry", "add", "Bad_Name", "https://a.example"], w);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /error\[VALIDATION_FAILED\][\s\S]*registries\.0\.name/);
  r = await rye(["registry", "add", "x", "http://a.example"], w);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Refusing plain http/);
  assert.equal((await rye(["registry", "add", "a", "https://a.example", "--scope", "acme"], w)).code, 0);
  r = await rye(["registry", "add", "b", "https://b.example", "--scope", "acme"], w);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /scope "acme" already belongs to registry "a"/);
});

test("a swapped key is refused with the reset-key hint; reset-key needs --force, then re-pins", async () => {
  const own = await startTestRegistry();
  try {
    const w = await setup();
    assert.equal((await rye(["registry", "add", "corp", own.url], w)).code, 0);
    assert.equal((await rye(["registry", "keys", "corp"], w)).code, 0);
    const swapped = await own.swapKey();

    let r = await rye(["registry", "keys", "corp"], w);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`error\\[UNTRUSTED_KEY\\]: .*now signs with key ${swapped}`));
    assert.match(r.stderr, /hint: .*rye registry reset-key corp --force/);

    r = await rye(["registry", "reset-key", "corp"], w);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /without --force/);
    assert.match(r.stderr, /trust on first use/);
    assert.ok((await readRegistryPins(w.env))[own.url], "still pinned");

    r = await rye(["registry", "reset-key", own.url, "--force", "--json"], w);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { status: string }).status, "reset");
    r = await rye(["registry", "keys", "corp"], w);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`Pinned registry key ${swapped} .*first use`));
  } finally {
    await own.close();
  }
});

test("keys follows a rotation and shows the history; unknown names are refused", async () => {
  const own = await startTestRegistry();
  try {
    const w = await setup();
    const env = { ...w.env, RYE_REGISTRY_URL: own.url };
    assert.equal((await rye(["registry", "keys"], { ...w, env })).code, 0);
    const { previous, next } = await own.rotate();
    const r = await rye(["registry", "keys", own.url], { ...w, env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`rotated its key ${previous} → ${next}`));
    assert.match(r.stdout, new RegExp(`pinned key ${next} \\(rotated\\)`));
    assert.match(r.stdout, new RegExp(`previously: ${previous}`));
    assert.match(r.stdout, new RegExp(`${next}  active  \\(rotated from ${previous}\\)`));
    assert.match(r.stdout, new RegExp(`still trusted for items signed before a rotation: ${previous}`));
    await own.revoke(previous, "leaked");
    const revoked = await rye(["registry", "keys", own.url], { ...w, env });
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.doesNotMatch(revoked.stdout, /still trusted for items signed before a rotation/);
    assert.match(revoked.stdout, new RegExp(`revoked, never trusted again: ${previous} \\([^)]*leaked\\)`));
    const unknown = await rye(["registry", "keys", "nope"], w);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No registry named "nope"/);
  } finally {
    await own.close();
  }
});
