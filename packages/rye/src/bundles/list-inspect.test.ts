import "@rye/core/node";
import assert from "node:assert/strict";
import { mkdir, symlink, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { KeyPair } from "@rye/core";
import { generateKeyPair, RyeError } from "@rye/core";
import type { Space } from "../spaces/spaces.ts";
import { createBundle, inspectBundle, listBundles } from "./bundles.ts";
import { demoTree, removeTempDirs, tempDir, writeTree } from "./test-fixtures.ts";

after(removeTempDirs);

describe("inspectBundle", () => {
  let key: KeyPair;
  before(async () => {
    key = await generateKeyPair();
  });

  it("gives the manifest, counts per item type and sizes on disk, without verifying", async () => {
    const root = await tempDir();
    const tree = { ...demoTree(), ".ai/tools/demo/data.bin": "1234567890" };
    await writeTree(root, tree);
    await createBundle({ root, bundleId: "demo", key, description: "Demo", package: true });
    await unlink(join(root, ".ai/tools/demo/data.bin"));
    await writeFile(join(root, ".ai/tools/demo/greet.py"), "tampered but inspect does not care\n");

    const inspection = await inspectBundle({ root, bundleId: "demo" });
    assert.equal(inspection.bundleId, "demo");
    assert.equal(inspection.manifestPath, join(root, ".ai/bundles/demo/manifest.yaml"));
    assert.deepEqual([inspection.bundle.id, inspection.bundle.description, inspection.bundle.type], ["demo", "Demo", "package"]);
    assert.deepEqual(inspection.counts, { directive: 1, tool: 3, knowledge: 1, other: 0, total: 5 });
    assert.equal(inspection.filesAbsent, 1);
    const present = Object.entries(tree)
      .filter(([p]) => p !== ".ai/tools/demo/data.bin" && p !== ".ai/tools/demo/greet.py")
      .reduce((sum, [, c]) => sum + Buffer.byteLength(c), 0);
    assert.equal(inspection.totalBytes, present + Buffer.byteLength("tampered but inspect does not care\n"));
    assert.deepEqual(inspection.signature, { status: "signed", fingerprint: key.publicKey.fingerprint, timestamp: inspection.signature.timestamp });
    const data = inspection.files.find((f) => f.path === ".ai/tools/demo/data.bin");
    assert.deepEqual(data && { type: data.type, size: data.size }, { type: "tool", size: null });
  });

  it("throws ITEM_NOT_FOUND for an unknown bundle and INVALID_ITEM_ID for a traversal id", async () => {
    const root = await tempDir();
    await assert.rejects(inspectBundle({ root, bundleId: "nope" }), (e: unknown) => e instanceof RyeError && e.code === "ITEM_NOT_FOUND");
    await assert.rejects(inspectBundle({ root, bundleId: "../x" }), (e: unknown) => e instanceof RyeError && e.code === "INVALID_ITEM_ID");
  });
});

describe("listBundles", () => {
  let key: KeyPair;
  before(async () => {
    key = await generateKeyPair();
  });

  it("lists the manifests of every space in space order then by id, flagging unreadable ones", async () => {
    const project = await tempDir();
    const user = await tempDir();
    const outside = await tempDir("rye-outside-");
    await writeTree(project, { ...demoTree("demo"), ...demoTree("acme/kit") });
    await writeTree(user, demoTree("mine"));
    const demo = await createBundle({ root: project, bundleId: "demo", key, version: "1.2.3", description: "Demo" });
    await createBundle({ root: project, bundleId: "acme/kit", key, package: true });
    const mine = await createBundle({ root: user, bundleId: "mine", key });
    await writeTree(project, {
      ".ai/bundles/broken/manifest.yaml": "bundle: [not, a, manifest\n",
      ".ai/bundles/.hidden/manifest.yaml": "ignored: invalid id\n",
      ".ai/bundles/notes.txt": "not a manifest",
    });
    await writeTree(outside, { "escaped/manifest.yaml": "x" });
    await symlink(join(outside, "escaped"), join(project, ".ai/bundles/escaped"));

    const spaces: Space[] = [
      { name: "project", root: join(project, ".ai") },
      { name: "user", root: join(user, ".ai") },
      { name: "system", root: join(await tempDir(), "missing/.ai") },
    ];
    const listed = await listBundles(spaces);
    assert.deepEqual(
      listed.map((b) => [b.space, b.bundleId, b.version, b.type ?? null, b.fileCount, b.error === undefined]),
      [
        ["project", "acme/kit", "0.1.0", "package", 4, true],
        ["project", "broken", "", null, 0, false],
        ["project", "demo", "1.2.3", null, 4, true],
        ["user", "mine", "0.1.0", null, 4, true],
      ],
    );
    assert.equal(listed[2]?.description, "Demo");
    assert.equal(listed[2]?.manifestPath, demo.manifestPath);
    assert.equal(listed[3]?.manifestPath, mine.manifestPath);
    assert.match(listed[1]?.error ?? "", /not valid YAML/);
  });

  it("returns nothing for spaces without bundles", async () => {
    const empty = await tempDir();
    await mkdir(join(empty, ".ai"));
    assert.deepEqual(await listBundles([{ name: "project", root: join(empty, ".ai") }]), []);
  });
});
