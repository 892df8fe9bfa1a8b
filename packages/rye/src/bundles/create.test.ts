import "@rye/core/node";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, stat, symlink, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { KeyPair } from "@rye/core";
import { generateKeyPair, parseManifest, RyeError, verifyItem, keyResolverFrom } from "@rye/core";
import { createBundle, MAX_BUNDLE_BYTES, MAX_BUNDLE_FILES, manifestPathOf } from "./bundles.ts";
import { demoTree, removeTempDirs, tempDir, writeTree } from "./test-fixtures.ts";

after(removeTempDirs);

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
const isRyeError = (code: string) => (err: unknown) => err instanceof RyeError && err.code === code;

describe("createBundle", () => {
  let key: KeyPair;
  before(async () => {
    key = await generateKeyPair();
  });

  it("collects every file of the three folders, sorted, root-relative, and writes a signed manifest", async () => {
    const root = await tempDir();
    const tree = demoTree();
    await writeTree(root, { ...tree, ".ai/tools/other/x.py": "not in the bundle\n", ".ai/tools/demo.py": "a file, not the folder\n" });
    const createdAt = new Date("2026-03-04T05:06:07.890Z");
    const result = await createBundle({ root, bundleId: "demo", key, createdAt, description: "Demo bundle" });

    assert.equal(result.manifestPath, join(root, ".ai/bundles/demo/manifest.yaml"));
    assert.equal(result.fileCount, 4);
    assert.equal(result.fingerprint, key.publicKey.fingerprint);
    assert.deepEqual(Object.keys(result.manifest.files), [
      ".ai/directives/demo/hello.md",
      ".ai/knowledge/demo/notes.md",
      ".ai/tools/demo/greet.py",
      ".ai/tools/demo/lib/util.py",
    ]);
    for (const [path, entry] of Object.entries(result.manifest.files)) {
      assert.equal(entry.sha256, sha256(tree[path]!));
      assert.equal(entry.inline_signed, false);
    }
    assert.deepEqual(result.manifest.bundle, {
      id: "demo",
      version: "0.1.0",
      entrypoint: "",
      description: "Demo bundle",
      created_at: "2026-03-04T05:06:07Z",
    });

    const text = await readFile(result.manifestPath, "utf8");
    assert.match(text, /^# rye:signed:2\d{3}-/);
    assert.deepEqual(parseManifest(text), result.manifest);
    assert.equal((await verifyItem(text, "tool", keyResolverFrom([key.publicKey]))).code, "OK");
    // Atomic write leaves no temp file behind.
    assert.deepEqual(await readdir(join(root, ".ai/bundles/demo")), ["manifest.yaml"]);
  });

  it("writes version, entrypoint and type: package only when asked; nested ids nest the manifest", async () => {
    const root = await tempDir();
    await writeTree(root, demoTree("acme/kit"));
    const plain = await createBundle({ root, bundleId: "acme/kit", key });
    assert.equal(plain.manifest.bundle.type, undefined);
    assert.doesNotMatch(await readFile(plain.manifestPath, "utf8"), /type:/);

    const pkg = await createBundle({ root, bundleId: "acme/kit", key, version: "2.0.0-rc.1", entrypoint: "acme/kit/hello", package: true });
    assert.equal(pkg.manifestPath, manifestPathOf(root, "acme/kit"));
    assert.equal(pkg.manifestPath, join(root, ".ai/bundles/acme/kit/manifest.yaml"));
    assert.deepEqual([pkg.manifest.bundle.version, pkg.manifest.bundle.entrypoint, pkg.manifest.bundle.type], ["2.0.0-rc.1", "acme/kit/hello", "package"]);
    assert.match(await readFile(pkg.manifestPath, "utf8"), /\n {2}type: package\n/);
  });

  it("marks inline-signed items", async () => {
    const root = await tempDir();
    await writeTree(root, { ...demoTree(), ".ai/tools/demo/signed.py": "# rye:signed:2026-01-01T00:00:00Z:x\nprint(1)\n" });
    const { manifest } = await createBundle({ root, bundleId: "demo", key });
    assert.equal(manifest.files[".ai/tools/demo/signed.py"]?.inline_signed, true);
    assert.equal(manifest.files[".ai/tools/demo/greet.py"]?.inline_signed, false);
  });

  it("skips the excluded folder names and symlinks that leave the root; follows symlinks inside it", async () => {
    const root = await tempDir();
    const outside = await tempDir("rye-outside-");
    await writeFile(join(outside, "secret.py"), "SECRET = 1\n");
    await writeTree(root, {
      ...demoTree(),
      ".ai/tools/demo/__pycache__/greet.cpython-312.pyc": "bytecode",
      ".ai/tools/demo/node_modules/dep/index.js": "x",
      ".ai/tools/demo/.venv/bin/python": "x",
      ".ai/tools/demo/sub/.mypy_cache/x": "x",
      ".ai/tools/demo/build": "a file named build is kept\n",
      ".ai/shared/common.py": "COMMON = 1\n",
    });
    await symlink(join(outside, "secret.py"), join(root, ".ai/tools/demo/secret.py"));
    await symlink(outside, join(root, ".ai/tools/demo/outside-dir"));
    await symlink(join(root, ".ai/shared/common.py"), join(root, ".ai/tools/demo/common.py"));
    await symlink(join(root, ".ai/tools/demo/missing.py"), join(root, ".ai/tools/demo/dangling.py"));
    await symlink(".", join(root, ".ai/tools/demo/loop"));

    const result = await createBundle({ root, bundleId: "demo", key });
    assert.deepEqual(Object.keys(result.manifest.files), [
      ".ai/directives/demo/hello.md",
      ".ai/knowledge/demo/notes.md",
      ".ai/tools/demo/build",
      ".ai/tools/demo/common.py",
      ".ai/tools/demo/greet.py",
      ".ai/tools/demo/lib/util.py",
    ]);
    assert.equal(result.manifest.files[".ai/tools/demo/common.py"]?.sha256, sha256("COMMON = 1\n"));
    assert.deepEqual(
      result.skipped.map((s) => `${s.path}: ${s.reason}`),
      [
        ".ai/tools/demo/dangling.py: broken symlink",
        ".ai/tools/demo/loop: symlink loop",
        ".ai/tools/demo/outside-dir: symlink leads outside the root",
        ".ai/tools/demo/secret.py: symlink leads outside the root",
      ],
    );
  });

  it("refuses a bundle folder that is itself a symlink leaving the root", async () => {
    const root = await tempDir();
    const outside = await tempDir("rye-outside-");
    await writeTree(outside, { "x.py": "x = 1\n" });
    await mkdir(join(root, ".ai/tools"), { recursive: true });
    await symlink(outside, join(root, ".ai/tools/demo"));
    await assert.rejects(createBundle({ root, bundleId: "demo", key }), isRyeError("BUNDLE_INVALID"));
  });

  it("refuses traversal and otherwise invalid bundle ids before touching the disk", async () => {
    const root = await tempDir();
    await writeTree(root, demoTree());
    for (const bundleId of ["../demo", "demo/../../x", "/etc", "a\\b", "a\0b", ".hidden", "a//b", "demo/", "", "..", "C:/x"]) {
      await assert.rejects(createBundle({ root, bundleId, key }), isRyeError("INVALID_ITEM_ID"), JSON.stringify(bundleId));
    }
    await assert.rejects(stat(join(root, ".ai/bundles")), { code: "ENOENT" });
  });

  it("refuses an invalid version or entrypoint", async () => {
    const root = await tempDir();
    await writeTree(root, demoTree());
    await assert.rejects(createBundle({ root, bundleId: "demo", key, version: "1.0" }), isRyeError("INVALID_VERSION"));
    await assert.rejects(createBundle({ root, bundleId: "demo", key, entrypoint: "../x" }), isRyeError("INVALID_ITEM_ID"));
  });

  it("refuses an empty bundle, naming the folders it searched, and never asks for the key", async () => {
    const root = await tempDir();
    await writeTree(root, { ".ai/tools/demo/__pycache__/x.pyc": "only skipped content", ".ai/tools/other/x.py": "x" });
    let keyAsked = false;
    const err = await createBundle({
      root,
      bundleId: "demo",
      key: async () => {
        keyAsked = true;
        return key;
      },
    }).catch((e: unknown) => e);
    assert.ok(err instanceof RyeError);
    assert.equal(err.code, "BUNDLE_INVALID");
    assert.match(err.message, /no files/);
    for (const folder of [".ai/directives/demo/", ".ai/tools/demo/", ".ai/knowledge/demo/"]) assert.ok(err.hint.includes(folder), err.hint);
    assert.equal(keyAsked, false);
    await assert.rejects(stat(join(root, ".ai/bundles")), { code: "ENOENT" });
    // A root that does not exist at all is just as empty.
    await assert.rejects(createBundle({ root: join(root, "nope"), bundleId: "demo", key }), isRyeError("BUNDLE_INVALID"));
  });

  it("has explicit limits: 10 000 files and 50 MiB", () => {
    assert.equal(MAX_BUNDLE_FILES, 10_000);
    assert.equal(MAX_BUNDLE_BYTES, 50 * 1024 * 1024);
  });

  it("enforces the file-count limit (at the limit passes, one more fails)", async () => {
    const root = await tempDir();
    await writeTree(root, { ".ai/tools/demo/a.py": "a", ".ai/tools/demo/b.py": "b", ".ai/knowledge/demo/c.md": "c" });
    assert.equal((await createBundle({ root, bundleId: "demo", key, limits: { maxFiles: 3, maxBytes: 100 } })).fileCount, 3);
    await assert.rejects(createBundle({ root, bundleId: "demo", key, limits: { maxFiles: 2, maxBytes: 100 } }), (err: unknown) => {
      assert.ok(err instanceof RyeError);
      assert.equal(err.code, "PAYLOAD_TOO_LARGE");
      assert.match(err.message, /more than 2 files/);
      return true;
    });
  });

  it("enforces the byte limit (at the limit passes, one byte more fails)", async () => {
    const root = await tempDir();
    await writeTree(root, { ".ai/tools/demo/a.py": "12345", ".ai/tools/demo/b.py": "67890" });
    assert.equal((await createBundle({ root, bundleId: "demo", key, limits: { maxFiles: 10, maxBytes: 10 } })).totalBytes, 10);
    await assert.rejects(createBundle({ root, bundleId: "demo", key, limits: { maxFiles: 10, maxBytes: 9 } }), isRyeError("PAYLOAD_TOO_LARGE"));
  });

  it("rejects a file past the real 50 MiB limit without reading it (sparse file)", async () => {
    const root = await tempDir();
    await writeTree(root, { ".ai/tools/demo/big.bin": "" });
    await truncate(join(root, ".ai/tools/demo/big.bin"), MAX_BUNDLE_BYTES + 1);
    await assert.rejects(createBundle({ root, bundleId: "demo", key }), (err: unknown) => {
      assert.ok(err instanceof RyeError);
      assert.equal(err.code, "PAYLOAD_TOO_LARGE");
      assert.match(err.message, new RegExp(`more than ${MAX_BUNDLE_BYTES} bytes`));
      return true;
    });
  });

  it("does not write the manifest through a .ai/bundles symlink leaving the root", async () => {
    const root = await tempDir();
    const outside = await tempDir("rye-outside-");
    await writeTree(root, demoTree());
    await symlink(outside, join(root, ".ai/bundles"));
    await assert.rejects(createBundle({ root, bundleId: "demo", key }), isRyeError("PATH_TRAVERSAL"));
    assert.deepEqual(await readdir(outside), []);
  });

  it("refuses file names that no manifest can hold", async () => {
    const root = await tempDir();
    await writeTree(root, { ".ai/tools/demo/back\\slash.py": "x" });
    await assert.rejects(createBundle({ root, bundleId: "demo", key }), isRyeError("BUNDLE_INVALID"));
  });
});
