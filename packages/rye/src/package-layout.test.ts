import assert from "node:assert/strict";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { findPackageRoot, LAYOUT, packageLayout, RUNNING_FROM_SOURCE } from "./package-layout.ts";

test("from the sources, the layout is the checkout's: runners/ and the repository's .ai", () => {
  assert.equal(RUNNING_FROM_SOURCE, true);
  assert.equal(LAYOUT.runnersDir, join(LAYOUT.root, "runners"));
  assert.equal(LAYOUT.repoSystemAiDir, join(LAYOUT.root, "..", "..", ".ai"));
});

test("in the built package: dist/runners, system/.ai, dist/search; the root is the nearest package.json at any chunk depth", async () => {
  const root = await mkdtemp(join(tmpdir(), "rye-layout-"));
  await writeFile(join(root, "package.json"), "{}");
  await mkdir(join(root, "dist", "sdk"), { recursive: true });
  assert.equal(findPackageRoot(join(root, "dist", "cli.js")), root);
  assert.equal(findPackageRoot(join(root, "dist", "sdk", "v1.js")), root);
  const built = packageLayout(root, false);
  assert.equal(built.runnersDir, join(root, "dist", "runners"));
  assert.equal(built.packagedSystemAiDir, join(root, "system", ".ai"));
  assert.equal(built.releasePublicKeyPath, join(root, "release", "release_public_key.pem"));
});
