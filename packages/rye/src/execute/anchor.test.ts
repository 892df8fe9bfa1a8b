/** Multi-file tools: every file of an anchored tool's folder verifies before the tool's process starts. */
import assert from "node:assert/strict";
import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createWorkspace, nodeTool } from "../../test/workspace.ts";
import { rejects } from "../../test/rejects.ts";

const helper = (word: string) => `export const __version__ = "1.0.0";
export const __tool_type__ = "library";
export const __executor_id__ = null;
export const __category__ = "kit";
export const __tool_description__ = "helper";
export function shout(text) { return text.toUpperCase() + "${word}"; }
`;

// The entry imports a sibling module: the folder is its module path.
const entry = nodeTool("kit", `import { shout } from "./helper.mjs";\nexport function main(p) { return { out: shout(p.text), anchor: process.env.RYE_ANCHOR ?? null }; }`);

test("a tool folder with a marker is verified file by file before the tool runs; a changed helper stops it", async () => {
  const ws = await createWorkspace();
  await ws.write("tool", "kit/main.mjs", entry);
  const helperPath = await ws.write("tool", "kit/helper.mjs", helper("!"));
  const dir = join(ws.projectDir, ".ai/tools/kit");
  await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  const engine = await ws.engine();

  const ran = (await engine.execute({ item_type: "tool", item_id: "kit/main", parameters: { text: "hi" } })) as any;
  assert.equal(ran.status, "success", JSON.stringify(ran));
  assert.deepEqual(ran.data, { out: "HI!", anchor: dir });
  assert.deepEqual(ran.metadata.anchor, { root: dir, files_verified: 2 });
  await rejects(engine.execute({ item_type: "tool", item_id: "kit/helper", parameters: {} }), "VALIDATION_FAILED", /is a library item: other tools use it/);

  // The helper changed after signing: refused before anything runs (also in a dry run).
  await writeFile(helperPath, (await readFile(helperPath, "utf8")).replace('"!"', '"?"'));
  const changed = await rejects(engine.execute({ item_type: "tool", item_id: "kit/main", parameters: { text: "hi" } }), "INTEGRITY_MISMATCH", /helper\.mjs in the tool folder .* failed verification/);
  assert.match(changed.hint, /re-sign the file you changed/);
  await rejects(engine.execute({ item_type: "tool", item_id: "kit/main", parameters: { text: "hi" }, dry_run: true }), "INTEGRITY_MISMATCH");
  await ws.write("tool", "kit/helper.mjs", helper("?"));
  assert.equal(((await engine.execute({ item_type: "tool", item_id: "kit/main", parameters: { text: "hi" } })) as any).data.out, "HI?");

  // An unsigned helper, an unknown file, a symlink: refused.
  await ws.write("tool", "kit/helper.mjs", helper("!"), { signer: null });
  await rejects(engine.execute({ item_type: "tool", item_id: "kit/main", parameters: { text: "hi" } }), "UNSIGNED");
  await ws.write("tool", "kit/helper.mjs", helper("!"));
  await writeFile(join(dir, "notes.txt"), "not an item");
  await rejects(engine.execute({ item_type: "tool", item_id: "kit/main", parameters: { text: "hi" } }), "VALIDATION_FAILED", /notes\.txt .* neither a signed item nor allowed unsigned/);
  await rm(join(dir, "notes.txt"));
  await symlink("/etc/hostname", join(dir, "link.mjs"));
  await rejects(engine.execute({ item_type: "tool", item_id: "kit/main", parameters: { text: "hi" } }), "PATH_TRAVERSAL", /link\.mjs .* symbolic link/);
});

test("a tool's own CONFIG can anchor its folder without a marker; node_modules is not walked", async () => {
  const ws = await createWorkspace();
  await ws.write("tool", "solo/main.mjs", entry.replace('__category__ = "kit"', '__category__ = "solo"').replace("export const CONFIG_SCHEMA", 'export const CONFIG = { anchor: { mode: "always" } };\nexport const CONFIG_SCHEMA'));
  await ws.write("tool", "solo/helper.mjs", helper("*").replace('"kit"', '"solo"'));
  const dir = join(ws.projectDir, ".ai/tools/solo");
  await mkdir(join(dir, "node_modules/dep"), { recursive: true });
  await writeFile(join(dir, "node_modules/dep/index.js"), "module.exports = 1;");
  const engine = await ws.engine();
  const ran = (await engine.execute({ item_type: "tool", item_id: "solo/main", parameters: { text: "x" } })) as any;
  assert.equal(ran.data.out, "X*");
  assert.equal(ran.metadata.anchor.files_verified, 2);
  // Without an anchor, a sibling is not the tool's business.
  await ws.write("tool", "plain/main.mjs", nodeTool("plain", "export function main() { return { ok: true }; }"));
  await writeFile(join(ws.projectDir, ".ai/tools/plain/scratch.txt"), "x");
  assert.equal(((await engine.execute({ item_type: "tool", item_id: "plain/main", parameters: {} })) as any).data.ok, true);
});
