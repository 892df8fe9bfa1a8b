/**
 * `rye skill init|validate`, `rye sign <dir>` and `rye verify <dir>` on real folders, with the reference
 * validator's npm port (`skills-ref validate`) run on what rye creates and signs.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { appendFile, chmod, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { createWorkspace } from "../../../test/workspace.ts";
import { runCli } from "../main.ts";

const SKILLS_REF = fileURLToPath(new URL("../../../../../node_modules/skills-ref/dist/cli.js", import.meta.url));
const skillsRef = (dir: string) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    execFile(process.execPath, [SKILLS_REF, "validate", dir], { timeout: 30_000 }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, output: stdout + stderr }));
  });

async function workspace() {
  const ws = await createWorkspace();
  const rye = async (args: string[]) => {
    let stdout = "";
    let stderr = "";
    const io = { stdout: (t: string) => void (stdout += t.endsWith("\n") ? t : `${t}\n`), stderr: (t: string) => void (stderr += t.endsWith("\n") ? t : `${t}\n`) };
    const code = await runCli(args, { io, env: ws.env, cwd: ws.projectDir });
    return { code, stdout, stderr, json: () => JSON.parse(stdout) as Record<string, any> };
  };
  return { ws, rye, dir: (name: string) => join(ws.projectDir, name) };
}

test("init → validate → sign → verify: the skeleton is valid for rye and skills-ref, signing leaves SKILL.md untouched", async () => {
  const { rye, dir } = await workspace();
  const init = await rye(["skill", "init", "pdf-tools", "--json"]);
  assert.equal(init.code, 0, init.stderr);
  assert.equal(init.json().path, join(dir("pdf-tools"), "SKILL.md"));
  assert.equal((await skillsRef(dir("pdf-tools"))).code, 0, "skills-ref accepts the skeleton");
  const valid = await rye(["skill", "validate", "pdf-tools", "--json"]);
  assert.deepEqual({ ...valid.json(), bytes: 0 }, { ok: true, name: "pdf-tools", files: 1, bytes: 0, issues: [] });

  await mkdir(join(dir("pdf-tools"), "scripts"));
  await writeFile(join(dir("pdf-tools"), "scripts", "extract.py"), "print('text')\n");
  await chmod(join(dir("pdf-tools"), "scripts", "extract.py"), 0o755);
  const before = await readFile(join(dir("pdf-tools"), "SKILL.md"));
  const signed = await rye(["sign", "pdf-tools", "--json"]);
  assert.equal(signed.code, 0, signed.stdout + signed.stderr);
  assert.deepEqual([signed.json().type, signed.json().name, signed.json().version, signed.json().files], ["skill", "pdf-tools", "0.1.0", 2]);
  assert.deepEqual(await readFile(join(dir("pdf-tools"), "SKILL.md")), before, "SKILL.md is byte for byte what the author wrote");
  assert.deepEqual(await readdir(join(dir("pdf-tools"), ".rye")), ["manifest.yaml"]);
  assert.match(await readFile(join(dir("pdf-tools"), ".rye", "manifest.yaml"), "utf8"), /scripts\/extract\.py:\n\s+sha256: [0-9a-f]{64}\n\s+size: 14\n\s+executable: true/);
  assert.equal((await skillsRef(dir("pdf-tools"))).code, 0, "skills-ref still accepts the signed folder");

  const verified = await rye(["verify", "pdf-tools", "--json"]);
  assert.equal(verified.code, 0, verified.stdout);
  assert.deepEqual(verified.json(), { ok: true, code: "OK", type: "skill", fingerprint: signed.json().fingerprint, missing: [], changed: [], added: [] });
});

test("verify names what changed: one byte of a script, a new file, a removed file; an unsigned folder says how to sign", async () => {
  const { rye, dir } = await workspace();
  await rye(["skill", "init", "notes"]);
  await mkdir(join(dir("notes"), "references"));
  await writeFile(join(dir("notes"), "references", "a.md"), "# A\n");
  const unsigned = await rye(["verify", "notes"]);
  assert.equal(unsigned.code, 1);
  assert.match(unsigned.stderr, /error\[UNSIGNED\].*no signed manifest[\s\S]*rye sign \S*notes`/);
  assert.equal((await rye(["sign", "notes"])).code, 0);

  await appendFile(join(dir("notes"), "references", "a.md"), " ");
  const changed = await rye(["verify", "notes", "--json"]);
  assert.equal(changed.code, 1);
  assert.deepEqual([changed.json().code, changed.json().changed], ["INTEGRITY_MISMATCH", ["references/a.md"]]);
  await writeFile(join(dir("notes"), "references", "a.md"), "# A\n");
  await writeFile(join(dir("notes"), "references", "b.md"), "# B\n");
  assert.deepEqual((await rye(["verify", "notes", "--json"])).json().added, ["references/b.md"]);
  const text = await rye(["verify", "notes"]);
  assert.match(text.stderr, /INTEGRITY_MISMATCH notes \(skill\): .*not signed: references\/b\.md/);
  await rm(join(dir("notes"), "references"), { recursive: true });
  assert.deepEqual((await rye(["verify", "notes", "--json"])).json().missing, ["references/a.md"]);
});

test("bad input: an invalid name, an existing folder, a folder without SKILL.md, a symlink, an invalid SKILL.md", async () => {
  const { rye, dir } = await workspace();
  const bad = await rye(["skill", "init", "PDF_Tools", "--json"]);
  assert.deepEqual([bad.code, bad.json().error.code], [1, "VALIDATION_FAILED"]);
  assert.equal((await rye(["skill", "init", "twice"])).code, 0);
  const again = await rye(["skill", "init", "twice", "--json"]);
  assert.deepEqual([again.code, again.json().error.code], [1, "ITEM_EXISTS"]);

  await mkdir(dir("plain"));
  const notSkill = await rye(["sign", "plain", "--json"]);
  assert.equal(notSkill.json().error.code, "BAD_REQUEST");

  await rye(["skill", "init", "linky"]);
  await symlink("/etc/hostname", join(dir("linky"), "host"));
  const linked = await rye(["sign", "linky", "--json"]);
  assert.equal(linked.json().error.code, "PATH_TRAVERSAL");
  assert.deepEqual(await readdir(dir("linky")), ["SKILL.md", "host"], "nothing was written");

  await rye(["skill", "init", "broken"]);
  await writeFile(join(dir("broken"), "SKILL.md"), "---\nname: other\ndescription: d\nversion: 1\n---\n");
  const invalid = await rye(["skill", "validate", "broken"]);
  assert.equal(invalid.code, 1);
  assert.match(invalid.stderr, /unexpected fields: version/);
  assert.match(invalid.stderr, /folder is named "broken" but the skill is "other"/);
  const refused = await rye(["sign", "broken", "--json"]);
  assert.equal(refused.json().error.code, "VALIDATION_FAILED");
  assert.equal(refused.json().error.details.issues.length, 2);
});
