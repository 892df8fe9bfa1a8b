/**
 * Bundle push and pull against the real registry app in-process (PGlite unless DATABASE_URL is set):
 * verification before anything is written, path safety, conflicts, and the all-or-nothing write.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { KeyPair } from "@rye/core";
import { buildManifest, generateKeyPair, RyeError, serializeManifest, sha256Hex, signItem, signManifest } from "@rye/core";
import { hashToken, TOKEN_PREFIX } from "../../../../apps/api/src/auth/api-tokens.ts";
import { startProxy, startTestRegistry } from "../../test/registry-server.ts";
import type { TestRegistry } from "../../test/registry-server.ts";
import { createBundle } from "../bundles/create.ts";
import { verifyBundleAt } from "../bundles/verify.ts";
import { KeyStore } from "../keys/keystore.ts";
import { TrustStore } from "../trust/store.ts";
import type { BundleTransferContext, TransferProgress } from "./bundle-transfer.ts";
import { assertRegistryBundleId, bundleVerificationKeys, pullBundle, pulledPathProblem, pushBundle, splitBundleRef, writeFilesAtomically } from "./bundle-transfer.ts";

let registry: TestRegistry;
const tokens: Record<string, string> = {};
const temps: string[] = [];

async function temp(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

before(async () => {
  registry = await startTestRegistry();
  for (const name of ["alice", "bob"]) {
    const user = await registry.db.prisma.user.create({ data: { username: name, email: `${name}@example.test` } });
    await registry.db.prisma.namespace.create({ data: { name, userId: user.id } });
    tokens[name] = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
    await registry.db.prisma.apiToken.create({ data: { userId: user.id, name: "test", tokenHash: hashToken(tokens[name]!), scopes: ["items:read", "items:write"] } });
  }
});
after(async () => {
  await registry.close();
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

interface Side {
  project: string;
  userBase: string;
  env: NodeJS.ProcessEnv;
  key: KeyPair;
  progress: TransferProgress[];
  ctx: BundleTransferContext;
}

/** A project and user space; `userBase` shared with another side means the same person on another project. */
async function side(options: { user?: string; userBase?: string; registryUrl?: string } = {}): Promise<Side> {
  const project = await temp("rye-bt-project-");
  const userBase = options.userBase ?? (await temp("rye-bt-home-"));
  const env: NodeJS.ProcessEnv = { USER_SPACE: userBase, RYE_REGISTRY_URL: options.registryUrl ?? registry.url, ...(options.user ? { RYE_TOKEN: tokens[options.user] } : {}) };
  const { key } = await new KeyStore({ env }).loadOrCreate();
  const progress: TransferProgress[] = [];
  return { project, userBase, env, key, progress, ctx: { projectPath: project, env, confirm: async () => true, onProgress: (p) => progress.push(p) } };
}

async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, ...rel.split("/"));
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
}

/** Every file and symlink below `dir` with its content (or link target): a before/after snapshot. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(rel: string): Promise<void> {
    let entries;
    try {
      entries = await readdir(join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isSymbolicLink()) out[path] = `-> ${await readlink(join(dir, path))}`;
      else if (e.isDirectory()) {
        out[`${path}/`] = "";
        await walk(path);
      } else out[path] = sha256Hex(await readFile(join(dir, path)));
    }
  }
  await walk("");
  return out;
}

const directive = (name: string, category: string) =>
  `# ${name}\n\n\`\`\`xml\n<directive name="${name}" version="1.0.0">\n  <metadata>\n    <description>Do ${name}.</description>\n    <category>${category}</category>\n    <author>alice</author>\n  </metadata>\n</directive>\n\`\`\`\n`;
const tool = (category: string) => `#!/usr/bin/env python3\n__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = None\n__category__ = "${category}"\nprint("hi")\n`;
const knowledge = "---\nid: notes\ntitle: Notes\nversion: 1.0.0\nentry_type: reference\n---\n\nSome notes.\r\nCRLF kept byte for byte.\n";

/** A bundle `<id>` in the side's project: an inline-signed directive, two tools (one nested), knowledge. */
async function makeBundle(s: Side, bundleId: string, version = "1.0.0"): Promise<Record<string, Uint8Array>> {
  const files: Record<string, string> = {
    [`.ai/directives/${bundleId}/hello.md`]: (await signItem(directive("hello", bundleId), "directive", s.key)).content,
    [`.ai/tools/${bundleId}/greet.py`]: tool(bundleId),
    [`.ai/tools/${bundleId}/lib/util.py`]: tool(`${bundleId}/lib`),
    [`.ai/knowledge/${bundleId}/notes.md`]: knowledge,
  };
  await writeTree(s.project, files);
  await createBundle({ root: s.project, bundleId, version, key: s.key });
  const out: Record<string, Uint8Array> = {};
  for (const [rel, text] of Object.entries(files)) out[rel] = new TextEncoder().encode(text);
  return out;
}

async function rejectsWith(promise: Promise<unknown>, code: string, message?: RegExp): Promise<RyeError> {
  const err = await promise.then(
    () => assert.fail(`expected ${code}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RyeError, String(err));
  assert.equal(err.code, code, err.message);
  if (message) assert.match(err.message, message);
  return err;
}

describe("ids and paths", () => {
  test("registry bundle ids need a namespace; refs split at @", () => {
    assert.equal(assertRegistryBundleId("alice/kit"), "alice/kit");
    for (const bad of ["kit", "Alice/kit", "alice/../x", "alice//x", "/alice/kit", "alice/.hidden"]) assert.throws(() => assertRegistryBundleId(bad), /Invalid registry bundle id/, bad);
    assert.deepEqual(splitBundleRef("alice/kit@1.2.0"), { bundleId: "alice/kit", version: "1.2.0" });
    assert.deepEqual(splitBundleRef("alice/kit"), { bundleId: "alice/kit" });
    assert.throws(() => splitBundleRef("alice/kit@latest"), /Invalid version/);
  });

  test("only the bundle's own item folders may be written", () => {
    assert.equal(pulledPathProblem("alice/kit", ".ai/tools/alice/kit/greet.py"), null);
    assert.equal(pulledPathProblem("alice/kit", ".ai/knowledge/alice/kit/deep/er/notes.md"), null);
    for (const bad of [
      "../../evil.sh",
      "/etc/passwd",
      ".ai/tools/alice/kit/../../../x.py",
      ".ai/tools/alice/kit/./x.py",
      ".ai/tools/alice/kit\\x.py",
      "C:/x.py",
      ".ai/trusted_keys/0123456789abcdef.pem",
      ".ai/config/registries.json",
      ".ai/keys/private_key.pem",
      ".ai/bundles/alice/kit/manifest.yaml",
      ".ai/tools/alice/kitten/x.py",
      ".ai/tools/bob/kit/x.py",
      "src/index.js",
    ]) {
      assert.notEqual(pulledPathProblem("alice/kit", bad), null, bad);
    }
  });
});

describe("writeFilesAtomically", () => {
  const enc = (s: string) => new TextEncoder().encode(s);

  test("conflicts are refused unless forced; unchanged files are left alone", async () => {
    const root = await temp("rye-bt-write-");
    await writeTree(root, { ".ai/tools/a/b/x.py": "mine", ".ai/tools/a/b/same.py": "same" });
    const before = await snapshot(root);
    await rejectsWith(writeFilesAtomically(root, [{ rel: ".ai/tools/a/b/new.py", bytes: enc("new") }, { rel: ".ai/tools/a/b/x.py", bytes: enc("theirs") }]), "ITEM_EXISTS", /nothing was written/);
    assert.deepEqual(await snapshot(root), before);
    const plan = await writeFilesAtomically(root, [{ rel: ".ai/tools/a/b/x.py", bytes: enc("theirs") }, { rel: ".ai/tools/a/b/same.py", bytes: enc("same") }], { force: true });
    assert.deepEqual(plan.map((w) => w.action), ["replace", "unchanged"]);
    assert.equal(await readFile(join(root, ".ai/tools/a/b/x.py"), "utf8"), "theirs");
    assert.deepEqual((await readdir(join(root, ".ai"))).sort(), ["tools"], "no staging folder is left");
  });

  test("a failure in the middle undoes everything: new files, replaced files, created folders", async () => {
    const root = await temp("rye-bt-write-");
    await writeTree(root, { "README.md": "project", ".ai/tools/a/b/x.py": "mine" });
    const before = await snapshot(root);
    const entries = [
      { rel: ".ai/tools/a/b/x.py", bytes: enc("theirs") },
      { rel: ".ai/tools/a/b/deep/new.py", bytes: enc("new") },
      { rel: ".ai/knowledge/a/b/n.md", bytes: enc("n") },
      { rel: ".ai/bundles/a/b/manifest.yaml", bytes: enc("m") },
    ];
    const committed: string[] = [];
    const err = await rejectsWith(
      writeFilesAtomically(root, entries, {
        force: true,
        beforeCommit: (rel) => {
          if (rel === ".ai/bundles/a/b/manifest.yaml") throw new RyeError("UNAVAILABLE", "disk full (injected)");
          committed.push(rel);
        },
      }),
      "UNAVAILABLE",
    );
    assert.match(err.message, /injected/);
    assert.equal(committed.length, 3, "three files were already in place when it failed");
    assert.deepEqual(await snapshot(root), before, "the replaced file is restored, the new files and folders are gone, no staging folder");

    // The same with a project that had no .ai at all: not even .ai is left behind.
    const bare = await temp("rye-bt-write-");
    await rejectsWith(writeFilesAtomically(bare, entries, { beforeCommit: (rel) => { if (rel.includes("knowledge")) throw new RyeError("UNAVAILABLE", "boom"); } }), "UNAVAILABLE");
    assert.deepEqual(await readdir(bare), []);
  });

  test("symlinks on the way or at the target are refused before anything is written", async () => {
    const root = await temp("rye-bt-write-");
    const outside = await temp("rye-bt-outside-");
    await mkdir(join(root, ".ai/tools"), { recursive: true });
    await symlink(outside, join(root, ".ai/tools/a"));
    await rejectsWith(writeFilesAtomically(root, [{ rel: ".ai/knowledge/a/b/ok.md", bytes: enc("ok") }, { rel: ".ai/tools/a/b/x.py", bytes: enc("x") }]), "PATH_TRAVERSAL", /symlink/);
    assert.deepEqual(await readdir(outside), []);
    assert.equal(await lstat(join(root, ".ai/knowledge")).then(() => true, () => false), false, "nothing of the bundle was written");

    await rm(join(root, ".ai/tools/a"));
    await mkdir(join(root, ".ai/tools/a/b"), { recursive: true });
    await symlink(join(outside, "target.py"), join(root, ".ai/tools/a/b/x.py"));
    await rejectsWith(writeFilesAtomically(root, [{ rel: ".ai/tools/a/b/x.py", bytes: enc("x") }], { force: true }), "PATH_TRAVERSAL");
    assert.deepEqual(await readdir(outside), [], "a dangling symlink is not followed either");
  });
});

describe("push and pull against the registry", () => {
  let alice: Side;
  let files: Record<string, Uint8Array>;

  before(async () => {
    alice = await side({ user: "alice" });
    files = await makeBundle(alice, "alice/kit");
  });

  test("push verifies locally, registers the key when confirmed, and reports progress", async () => {
    const anonymous = await side({ userBase: alice.userBase });
    delete anonymous.env.RYE_TOKEN;
    await writeTree(anonymous.project, {});
    await makeBundle(anonymous, "alice/kit");
    await rejectsWith(pushBundle({ bundleId: "alice/kit" }, anonymous.ctx), "UNAUTHORIZED", /Not signed in/);

    const refusing = { ...alice.ctx, confirm: async () => false };
    await rejectsWith(pushBundle({ bundleId: "alice/kit" }, refusing), "UNTRUSTED_KEY", /not registered/);
    assert.equal(await registry.db.prisma.bundle.count(), 0);

    alice.progress.length = 0;
    const pushed = await pushBundle({ bundleId: "alice/kit" }, alice.ctx);
    assert.equal(pushed.status, "pushed");
    assert.deepEqual([pushed.bundle_id, pushed.version, pushed.file_count, pushed.key_registration], ["alice/kit", "1.0.0", 4, "registered"]);
    assert.equal(pushed.registry_fingerprint, await registry.activeFingerprint());
    assert.equal(pushed.author_fingerprint, alice.key.publicKey.fingerprint);
    assert.equal(pushed.total_bytes, Object.values(files).reduce((n, b) => n + b.length, 0));
    const reads = alice.progress.filter((p) => p.phase === "read");
    assert.deepEqual(reads.map((p) => p.filesDone), [0, 1, 2, 3, 4]);
    assert.ok(alice.progress.some((p) => p.phase === "upload"));
    const local = await readFile(join(alice.project, ".ai/bundles/alice/kit/manifest.yaml"), "utf8");
    assert.doesNotMatch(local, /rye-registry/, "the local manifest keeps the author's signature");

    await rejectsWith(pushBundle({ bundleId: "alice/kit" }, alice.ctx), "VERSION_EXISTS");
  });

  test("a tampered or incomplete local bundle is never pushed", async () => {
    const s = await side({ user: "alice", userBase: alice.userBase });
    await makeBundle(s, "alice/broken", "2.0.0");
    await writeFile(join(s.project, ".ai/tools/alice/broken/greet.py"), "print('evil')\n");
    const tampered = await rejectsWith(pushBundle({ bundleId: "alice/broken" }, s.ctx), "BUNDLE_FILES_TAMPERED", /nothing was pushed/);
    assert.deepEqual((tampered.details as { field: string }[]).map((d) => d.field), [".ai/tools/alice/broken/greet.py"]);
    await rm(join(s.project, ".ai/tools/alice/broken/greet.py"));
    await rejectsWith(pushBundle({ bundleId: "alice/broken" }, s.ctx), "BUNDLE_FILES_MISSING");
    await rejectsWith(pushBundle({ bundleId: "alice/nothing" }, s.ctx), "ITEM_NOT_FOUND");
    await rejectsWith(pushBundle({ bundleId: "local-only" }, s.ctx), "INVALID_ITEM_ID");
    assert.equal(await registry.db.prisma.bundle.count({ where: { name: "broken" } }), 0);
  });

  test("pull into a fresh project: byte-identical files, registry-signed manifest, bundle verify OK; again is unchanged", async () => {
    const fresh = await side({ userBase: alice.userBase }); // same person, another project, anonymous pull
    const pulled = await pullBundle({ bundleId: "alice/kit" }, fresh.ctx);
    assert.equal(pulled.status, "pulled");
    assert.deepEqual([pulled.bundle_id, pulled.version, pulled.publisher, pulled.space, pulled.file_count], ["alice/kit", "1.0.0", "alice", "project", 4]);
    assert.equal(pulled.files_written.length, 4);
    for (const [rel, bytes] of Object.entries(files)) assert.deepEqual(new Uint8Array(await readFile(join(fresh.project, rel))), bytes, rel);
    const manifest = await readFile(pulled.manifest_path, "utf8");
    assert.match(manifest.split("\n")[0]!, /\|rye-registry@alice$/);
    assert.deepEqual(await readdir(join(fresh.project, ".ai")), ["bundles", "directives", "knowledge", "tools"], "no staging folder left");

    const phases = new Set(fresh.progress.map((p) => p.phase));
    assert.deepEqual([...phases], ["download", "verify", "write"]);
    const writes = fresh.progress.filter((p) => p.phase === "write");
    assert.deepEqual(writes.at(-1), { direction: "pull", bundleId: "alice/kit", version: "1.0.0", phase: "write", filesDone: 4, filesTotal: 4, bytesDone: pulled.total_bytes, bytesTotal: pulled.total_bytes });

    const { keys, registry: signer } = await bundleVerificationKeys(fresh.project, "alice/kit", fresh.env);
    assert.equal(signer?.publisher, "alice");
    const report = await verifyBundleAt({ root: fresh.project, bundleId: "alice/kit", keys });
    assert.equal(report.code, "OK", report.message);
    // Without the pinned registry key (a plain trust store) the registry-signed manifest is not trusted.
    assert.equal((await verifyBundleAt({ root: fresh.project, bundleId: "alice/kit", keys: new TrustStore({ env: fresh.env }) })).code, "UNTRUSTED_KEY");

    const again = await pullBundle({ bundleId: "alice/kit", version: "1.0.0" }, fresh.ctx);
    assert.equal(again.status, "unchanged");
    assert.equal(again.files_unchanged.length, 4);
  });

  test("a differing local file is refused without force and replaced with it", async () => {
    const fresh = await side({ userBase: alice.userBase });
    const local = join(fresh.project, ".ai/tools/alice/kit/greet.py");
    await writeTree(fresh.project, { ".ai/tools/alice/kit/greet.py": "my local edit\n" });
    const before = await snapshot(fresh.project);
    const err = await rejectsWith(pullBundle({ bundleId: "alice/kit" }, fresh.ctx), "ITEM_EXISTS", /nothing was written/);
    assert.deepEqual((err.details as { field: string }[]).map((d) => d.field), [".ai/tools/alice/kit/greet.py"]);
    assert.deepEqual(await snapshot(fresh.project), before);
    const forced = await pullBundle({ bundleId: "alice/kit", force: true }, fresh.ctx);
    assert.equal(forced.files_written.length, 4);
    assert.deepEqual(new Uint8Array(await readFile(local)), files[".ai/tools/alice/kit/greet.py"]);
  });

  test("--to user writes into the user space", async () => {
    const elsewhere = await side({});
    await new TrustStore({ env: elsewhere.env }).add(alice.key.publicKey.pem);
    const pulled = await pullBundle({ bundleId: "alice/kit", to: "user" }, elsewhere.ctx);
    assert.equal(pulled.root, elsewhere.userBase);
    assert.deepEqual(new Uint8Array(await readFile(join(elsewhere.userBase, ".ai/knowledge/alice/kit/notes.md"))), files[".ai/knowledge/alice/kit/notes.md"]);
    assert.deepEqual(await readdir(elsewhere.project), [], "nothing in the project");
  });

  test("items signed by an author you do not trust are refused, naming the key; trusting it lets the pull through", async () => {
    const stranger = await side({});
    const before = await snapshot(stranger.project);
    const err = await rejectsWith(pullBundle({ bundleId: "alice/kit" }, stranger.ctx), "UNTRUSTED_KEY", /do not trust; nothing was written/);
    assert.deepEqual(err.details, [{ field: ".ai/directives/alice/kit/hello.md", message: `signed by key ${alice.key.publicKey.fingerprint}, which you do not trust` }]);
    assert.match(err.hint, /rye trust add/);
    assert.deepEqual(await snapshot(stranger.project), before);
    await new TrustStore({ env: stranger.env }).add(alice.key.publicKey.pem);
    assert.equal((await pullBundle({ bundleId: "alice/kit" }, stranger.ctx)).status, "pulled");
  });

  test("a tampering network is caught before anything is written", async () => {
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    type Body = { files: Record<string, { content_base64: string; sha256: string }>; manifest: string; attestation: { payload: Record<string, unknown> } };
    const cases: { name: string; code: string; rewrite: (body: Body) => Body }[] = [
      {
        name: "a file swapped (hash announced consistently)",
        code: "BUNDLE_FILES_TAMPERED",
        rewrite: (body) => ({ ...body, files: { ...body.files, ".ai/tools/alice/kit/greet.py": { content_base64: b64("evil\n"), sha256: sha256Hex("evil\n") } } }),
      },
      { name: "the manifest edited", code: "INTEGRITY_MISMATCH", rewrite: (body) => ({ ...body, manifest: body.manifest.replace("lib/util.py", "lib/utils.py") }) },
      {
        name: "a zip-slip name added",
        code: "PATH_TRAVERSAL",
        rewrite: (body) => ({ ...body, files: { ...body.files, "../../../escape.sh": { content_base64: b64("x"), sha256: sha256Hex("x") } } }),
      },
      {
        name: "a trust-store file added",
        code: "PATH_TRAVERSAL",
        rewrite: (body) => ({ ...body, files: { ...body.files, ".ai/trusted_keys/0123456789abcdef.pem": { content_base64: b64("x"), sha256: sha256Hex("x") } } }),
      },
      { name: "a file left out", code: "BUNDLE_FILES_MISSING", rewrite: (body) => ({ ...body, files: Object.fromEntries(Object.entries(body.files).slice(1)) }) },
      {
        name: "the attestation edited",
        code: "BAD_SIGNATURE",
        rewrite: (body) => ({ ...body, attestation: { ...body.attestation, payload: { ...body.attestation.payload, publisher: "mallory" } } }),
      },
    ];
    for (const c of cases) {
      const proxy = await startProxy(registry.url, (path, body) => (path.startsWith("/v1/bundle/pull/") ? c.rewrite(body as Body) : body));
      try {
        const target = await side({ userBase: alice.userBase, registryUrl: proxy.url });
        await writeTree(target.project, { "README.md": "untouched", ".ai/tools/alice/kit/keep.py": "local" });
        const before = await snapshot(target.project);
        await rejectsWith(pullBundle({ bundleId: "alice/kit" }, target.ctx), c.code);
        assert.deepEqual(await snapshot(target.project), before, c.name);
        assert.equal(target.progress.some((p) => p.phase === "write"), false, `${c.name}: refused before the write phase`);
      } finally {
        await proxy.close();
      }
    }
  });

  test("the registry refuses a bundle with a path outside its folders (a lying registry is refused by the client: see the proxy test)", async () => {
    // Built by hand: `rye bundle create` never lists such a path. Accepting it would let a bundle make
    // its puller trust the publisher's key.
    const pem = new TextEncoder().encode((await generateKeyPair()).publicKey.pem);
    const list = [
      { path: ".ai/tools/alice/sneaky/greet.py", bytes: new TextEncoder().encode(tool("alice/sneaky")) },
      { path: ".ai/trusted_keys/0123456789abcdef.pem", bytes: pem },
    ];
    const manifest = await signManifest(serializeManifest(buildManifest({ id: "alice/sneaky", version: "1.0.0" }, list)), alice.key);
    const res = await fetch(`${registry.url}/v1/bundle/push`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.alice}`, "content-type": "application/json" },
      body: JSON.stringify({ bundle_id: "alice/sneaky", manifest, files: Object.fromEntries(list.map((f) => [f.path, { content_base64: Buffer.from(f.bytes).toString("base64"), sha256: sha256Hex(f.bytes) }])) }),
    });
    const body = (await res.json()) as { error: { code: string; details: { path: string }[] } };
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(body.error.code, "PATH_TRAVERSAL");
    assert.deepEqual(body.error.details.map((d) => d.path), [".ai/trusted_keys/0123456789abcdef.pem"]);
    await rejectsWith(pullBundle({ bundleId: "alice/sneaky", to: "user" }, (await side({ userBase: alice.userBase })).ctx), "ITEM_NOT_FOUND");
  });

  test("unknown bundles and versions", async () => {
    const s = await side({ userBase: alice.userBase });
    await rejectsWith(pullBundle({ bundleId: "alice/none" }, s.ctx), "ITEM_NOT_FOUND");
    await rejectsWith(pullBundle({ bundleId: "alice/kit", version: "9.9.9" }, s.ctx), "ITEM_NOT_FOUND", /9\.9\.9/);
    await rejectsWith(pullBundle({ bundleId: "kit" }, s.ctx), "INVALID_ITEM_ID");
  });
});
