import "@rye/core/node";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFile, mkdir, readFile, rm, symlink, truncate, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { KeyPair, KeyResolver } from "@rye/core";
import { generateKeyPair, keyResolverFrom, RyeError, signItem, signManifest, stripSignature } from "@rye/core";
import { TrustStore } from "../trust/store.ts";
import { createBundle, MAX_BUNDLE_BYTES, verifyBundleAt } from "./bundles.ts";
import { demoTree, directiveText, removeTempDirs, tempDir, writeTree } from "./test-fixtures.ts";

after(removeTempDirs);

const isRyeError = (code: string) => (err: unknown) => err instanceof RyeError && err.code === code;

describe("verifyBundleAt", () => {
  let key: KeyPair;
  let stranger: KeyPair;
  let trusted: KeyResolver;
  before(async () => {
    [key, stranger] = await Promise.all([generateKeyPair(), generateKeyPair()]);
    trusted = keyResolverFrom([key.publicKey]);
  });

  async function bundled(extra: Record<string, string> = {}): Promise<string> {
    const root = await tempDir();
    await writeTree(root, { ...demoTree(), ...extra });
    await createBundle({ root, bundleId: "demo", key });
    return root;
  }

  it("verifies a fresh bundle", async () => {
    const root = await bundled();
    const report = await verifyBundleAt({ root, bundleId: "demo", keys: trusted });
    assert.equal(report.ok, true);
    assert.equal(report.code, "OK");
    assert.equal(report.files_ok.length, 4);
    assert.deepEqual([report.files_missing, report.files_tampered, report.files_unlisted, report.warnings], [[], [], [], []]);
    assert.equal(report.manifestSignature.fingerprint, key.publicKey.fingerprint);
    assert.equal(report.manifestPath, join(root, ".ai/bundles/demo/manifest.yaml"));
    assert.match(report.message, /verified: 4 files/);
  });

  it("works with the real trust store", async () => {
    const root = await bundled();
    const trustDir = await tempDir("rye-trust-");
    const store = new TrustStore({ dir: trustDir });
    assert.equal((await verifyBundleAt({ root, bundleId: "demo", keys: store })).code, "UNTRUSTED_KEY");
    await store.add(key.publicKey.pem);
    assert.equal((await verifyBundleAt({ root, bundleId: "demo", keys: store })).code, "OK");
  });

  it("reports a deleted file in files_missing", async () => {
    const root = await bundled();
    await unlink(join(root, ".ai/tools/demo/lib/util.py"));
    const report = await verifyBundleAt({ root, bundleId: "demo", keys: trusted });
    assert.equal(report.ok, false);
    assert.equal(report.code, "BUNDLE_FILES_MISSING");
    assert.deepEqual(report.files_missing, [".ai/tools/demo/lib/util.py"]);
    assert.deepEqual(report.files_tampered, []);
    assert.equal(report.files_ok.length, 3);
  });

  it("reports a modified file in files_tampered", async () => {
    const root = await bundled();
    await writeFile(join(root, ".ai/tools/demo/greet.py"), "print('pwned')\n");
    const report = await verifyBundleAt({ root, bundleId: "demo", keys: trusted });
    assert.equal(report.code, "BUNDLE_FILES_TAMPERED");
    assert.deepEqual(report.files_tampered, [{ path: ".ai/tools/demo/greet.py", reason: "sha256 differs from the manifest" }]);
  });

  it("counts an inline-signed item as tampered when its own signature is untrusted, though its sha256 matches", async () => {
    const root = await tempDir();
    const signedByStranger = (await signItem(directiveText("rogue", "demo"), "directive", stranger)).content;
    const signedByMe = (await signItem(directiveText("mine", "demo"), "directive", key)).content;
    await writeTree(root, { ...demoTree(), ".ai/directives/demo/rogue.md": signedByStranger, ".ai/directives/demo/mine.md": signedByMe });
    const { manifest } = await createBundle({ root, bundleId: "demo", key });
    assert.equal(manifest.files[".ai/directives/demo/rogue.md"]?.inline_signed, true);

    const report = await verifyBundleAt({ root, bundleId: "demo", keys: trusted });
    assert.equal(report.code, "BUNDLE_FILES_TAMPERED");
    assert.deepEqual(report.files_tampered, [{ path: ".ai/directives/demo/rogue.md", reason: "inline signature: UNTRUSTED_KEY" }]);
    assert.ok(report.files_ok.includes(".ai/directives/demo/mine.md"));
    assert.equal(await readFile(join(root, ".ai/directives/demo/rogue.md"), "utf8"), signedByStranger);
  });

  it("reports INTEGRITY_MISMATCH for an edited manifest", async () => {
    const root = await bundled();
    const path = join(root, ".ai/bundles/demo/manifest.yaml");
    await writeFile(path, (await readFile(path, "utf8")).replace("version: 0.1.0", "version: 9.9.9"));
    const report = await verifyBundleAt({ root, bundleId: "demo", keys: trusted });
    assert.equal(report.ok, false);
    assert.equal(report.code, "INTEGRITY_MISMATCH");
    assert.match(report.message, /manifest signature/);
  });

  it("reports UNTRUSTED_KEY for a manifest signed by an untrusted key", async () => {
    const root = await tempDir();
    await writeTree(root, demoTree());
    await createBundle({ root, bundleId: "demo", key: stranger });
    const report = await verifyBundleAt({ root, bundleId: "demo", keys: trusted });
    assert.equal(report.ok, false);
    assert.equal(report.code, "UNTRUSTED_KEY");
    assert.equal(report.manifestSignature.fingerprint, stranger.publicKey.fingerprint);
  });

  it("throws ITEM_NOT_FOUND with a hint to create the bundle when there is no manifest", async () => {
    const root = await tempDir();
    await assert.rejects(verifyBundleAt({ root, bundleId: "demo", keys: trusted }), (err: unknown) => {
      assert.ok(err instanceof RyeError);
      assert.equal(err.code, "ITEM_NOT_FOUND");
      assert.match(err.hint, /rye bundle create demo/);
      return true;
    });
  });

  it("refuses traversal bundle ids", async () => {
    const root = await bundled();
    for (const bundleId of ["../demo", "demo/..", "/tmp", "a\\b", "x\0"]) {
      await assert.rejects(verifyBundleAt({ root, bundleId, keys: trusted }), isRyeError("INVALID_ITEM_ID"), JSON.stringify(bundleId));
    }
  });

  it("never reads a listed file through a symlink leaving the root: it is tampered, even with identical content", async () => {
    const root = await bundled();
    const outside = await tempDir("rye-outside-");
    const listed = join(root, ".ai/tools/demo/greet.py");
    await copyFile(listed, join(outside, "greet.py"));
    await unlink(listed);
    await symlink(join(outside, "greet.py"), listed);
    const report = await verifyBundleAt({ root, bundleId: "demo", keys: trusted });
    assert.equal(report.code, "BUNDLE_FILES_TAMPERED");
    assert.deepEqual(report.files_tampered, [{ path: ".ai/tools/demo/greet.py", reason: "refused: a symlink leads outside the root" }]);
    assert.deepEqual(report.files_missing, []);
  });

  it("refuses a listed path that became a directory or a FIFO (without blocking), or grew past the limit", async () => {
    const root = await bundled();
    await rm(join(root, ".ai/tools/demo/lib"), { recursive: true });
    await mkdir(join(root, ".ai/tools/demo/lib/util.py"), { recursive: true });
    await unlink(join(root, ".ai/tools/demo/greet.py"));
    execFileSync("mkfifo", [join(root, ".ai/tools/demo/greet.py")]);
    await truncate(join(root, ".ai/knowledge/demo/notes.md"), MAX_BUNDLE_BYTES + 1);
    const report = await verifyBundleAt({ root, bundleId: "demo", keys: trusted });
    assert.deepEqual(report.files_tampered, [
      { path: ".ai/knowledge/demo/notes.md", reason: `refused: larger than ${MAX_BUNDLE_BYTES} bytes` },
      { path: ".ai/tools/demo/greet.py", reason: "refused: not a regular file" },
      { path: ".ai/tools/demo/lib/util.py", reason: "refused: not a regular file" },
    ]);
  });

  it("refuses a manifest that is a symlink leaving the root", async () => {
    const root = await bundled();
    const outside = await tempDir("rye-outside-");
    const manifest = join(root, ".ai/bundles/demo/manifest.yaml");
    await copyFile(manifest, join(outside, "manifest.yaml"));
    await unlink(manifest);
    await symlink(join(outside, "manifest.yaml"), manifest);
    await assert.rejects(verifyBundleAt({ root, bundleId: "demo", keys: trusted }), isRyeError("PATH_TRAVERSAL"));
  });

  it("rejects a validly signed manifest listing a traversal path, without reading anything", async () => {
    const root = await bundled();
    const path = join(root, ".ai/bundles/demo/manifest.yaml");
    const body = stripSignature(await readFile(path, "utf8"), "tool");
    const evil = body.replace("files:\n", `files:\n  ../outside.txt:\n    sha256: ${"0".repeat(64)}\n    inline_signed: false\n`);
    await writeFile(path, await signManifest(evil, key));
    const report = await verifyBundleAt({ root, bundleId: "demo", keys: trusted });
    assert.equal(report.ok, false);
    assert.equal(report.code, "BUNDLE_INVALID");
    assert.match(report.message, /\.\.\/outside\.txt/);
    assert.deepEqual([report.files_ok, report.files_missing, report.files_tampered], [[], [], []]);
  });

  it("rejects the signed manifest of another bundle copied in its place", async () => {
    const root = await tempDir();
    await writeTree(root, { ...demoTree("a"), ...demoTree("b") });
    await createBundle({ root, bundleId: "a", key });
    await createBundle({ root, bundleId: "b", key });
    await copyFile(join(root, ".ai/bundles/b/manifest.yaml"), join(root, ".ai/bundles/a/manifest.yaml"));
    const report = await verifyBundleAt({ root, bundleId: "a", keys: trusted });
    assert.equal(report.code, "BUNDLE_INVALID");
    assert.match(report.message, /belongs to bundle "b"/);
  });

  it("reports files added after signing as unlisted, without failing", async () => {
    const root = await bundled();
    await writeTree(root, { ".ai/tools/demo/added.py": "print('new')\n", ".ai/tools/demo/__pycache__/x.pyc": "ignored" });
    const report = await verifyBundleAt({ root, bundleId: "demo", keys: trusted });
    assert.equal(report.ok, true);
    assert.deepEqual(report.files_unlisted, [".ai/tools/demo/added.py"]);
  });
});
