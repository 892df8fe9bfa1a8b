import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { before, test } from "node:test";
import type { KeyPair } from "../crypto/keys.ts";
import { generateKeyPair } from "../crypto/keys.ts";
import { RyeError } from "../errors.ts";
import { keyResolverFrom } from "../signature/verify.ts";
import { buildSkillManifest, parseSkillManifest, serializeSkillManifest, signSkillManifest, skillVersion, verifySkill } from "./manifest.ts";
import type { SkillFile } from "./skill-folder.ts";
import { checkSkillFiles, MAX_SKILL_FILE_BYTES, MAX_SKILL_FILES, MAX_SKILL_PATH_BYTES, skillPathProblem } from "./skill-folder.ts";

const enc = (text: string) => new TextEncoder().encode(text);
const SKILL_MD = '---\nname: pdf-tools\ndescription: Extract text from PDF files.\nallowed-tools: Bash(python:*)\nmetadata:\n  version: "1.2.0"\n---\n\n# PDF tools\n\nRun scripts/extract.py.\n';
const files = (): SkillFile[] => [
  { path: "SKILL.md", bytes: enc(SKILL_MD) },
  { path: "scripts/extract.py", bytes: enc("print('text')\n"), executable: true },
  { path: "references/format.md", bytes: enc("# The format\n") },
];

let key: KeyPair;
let other: KeyPair;
before(async () => {
  key = await generateKeyPair();
  other = await generateKeyPair();
});

test("the manifest lists every file with its SHA-256, size and execute bit; the signature covers all of them", async () => {
  const manifest = buildSkillManifest(files(), "pdf-tools");
  assert.deepEqual(manifest.skill, { name: "pdf-tools", version: "1.2.0", description: "Extract text from PDF files." });
  assert.deepEqual(Object.keys(manifest.files), ["SKILL.md", "references/format.md", "scripts/extract.py"], "sorted by path");
  assert.deepEqual(manifest.files["scripts/extract.py"], { sha256: createHash("sha256").update("print('text')\n").digest("hex"), size: 14, executable: true });
  const signed = await signSkillManifest(manifest, key);
  assert.match(signed, /^# rye:signed:/);
  assert.deepEqual(parseSkillManifest(signed), manifest, "round trip");

  const verified = await verifySkill(signed, keyResolverFrom([key.publicKey]), files());
  assert.equal(verified.code, "OK", verified.message);
  assert.ok(verified.ok);
  assert.equal(verified.signature.fingerprint, key.publicKey.fingerprint);
});

test("one changed byte anywhere, a missing or an added file, or another signer fails verification", async () => {
  const signed = await signSkillManifest(buildSkillManifest(files(), "pdf-tools"), key);
  const keys = keyResolverFrom([key.publicKey]);
  // One byte of the frontmatter (allowed-tools widened): SKILL.md's own bytes are covered.
  const widened = files().map((f) => (f.path === "SKILL.md" ? { ...f, bytes: enc(SKILL_MD.replace("Bash(python:*)", "Bash(curl:*)")) } : f));
  const changed = await verifySkill(signed, keys, widened);
  assert.equal(changed.code, "INTEGRITY_MISMATCH");
  assert.deepEqual(changed.changed, ["SKILL.md"]);
  const flipped = files().map((f) => (f.path === "scripts/extract.py" ? { ...f, bytes: enc("print('texT')\n") } : f));
  assert.deepEqual((await verifySkill(signed, keys, flipped)).changed, ["scripts/extract.py"]);
  const missing = await verifySkill(signed, keys, files().slice(0, 2));
  assert.deepEqual([missing.code, missing.missing], ["INTEGRITY_MISMATCH", ["references/format.md"]]);
  const added = await verifySkill(signed, keys, [...files(), { path: "scripts/steal.sh", bytes: enc("curl evil") }]);
  assert.deepEqual([added.code, added.added], ["INTEGRITY_MISMATCH", ["scripts/steal.sh"]]);
  assert.match(added.message, /not signed: scripts\/steal\.sh/);
  const stranger = await verifySkill(signed, keyResolverFrom([other.publicKey]), files());
  assert.equal(stranger.code, "UNTRUSTED_KEY");
  const tamperedManifest = signed.replace("pdf-tools", "pdf-toolz");
  assert.equal((await verifySkill(tamperedManifest, keys, files())).code, "INTEGRITY_MISMATCH", "the manifest's own bytes are signed");
  assert.equal((await verifySkill("skill: [", keys, files())).code, "VALIDATION_FAILED");
});

test("a signer cannot label one skill as another: the manifest must name SKILL.md's name and version", async () => {
  const manifest = buildSkillManifest(files(), "pdf-tools");
  const relabelled = await signSkillManifest({ ...manifest, skill: { ...manifest.skill, version: "9.9.9" } }, key);
  const result = await verifySkill(relabelled, keyResolverFrom([key.publicKey]), files());
  assert.equal(result.code, "VALIDATION_FAILED");
  assert.match(result.message, /names pdf-tools@9\.9\.9 but SKILL\.md declares pdf-tools@1\.2\.0/);
});

test("paths and limits: traversal, absolute, rye's own folder, long paths, too many or too large files", () => {
  for (const bad of ["../x", "a/../../x", "/etc/passwd", "a\\b", "C:/x", "./a", "a//b", ".rye/manifest.yaml", ".rye", "a\u0007b", `${"d/".repeat(50)}x`]) {
    assert.ok(skillPathProblem(bad), `${JSON.stringify(bad)} is refused`);
  }
  assert.equal(skillPathProblem("scripts/.env.example"), null, "dotfiles are ordinary files");
  assert.equal(skillPathProblem("a".repeat(MAX_SKILL_PATH_BYTES)), null);
  const many = [{ path: "SKILL.md", bytes: enc(SKILL_MD) }, ...Array.from({ length: MAX_SKILL_FILES }, (_, i) => ({ path: `r/${i}.md`, bytes: enc("x") }))];
  assert.match(JSON.stringify(checkSkillFiles(many, "pdf-tools").issues), /at most 500 files/);
  const big = [{ path: "SKILL.md", bytes: enc(SKILL_MD) }, { path: "assets/big.bin", bytes: new Uint8Array(MAX_SKILL_FILE_BYTES + 1) }];
  assert.match(JSON.stringify(checkSkillFiles(big, "pdf-tools").issues), /per file/);
  assert.match(JSON.stringify(checkSkillFiles([{ path: "README.md", bytes: enc("x") }]).issues), /missing required file SKILL\.md/);
  assert.match(JSON.stringify(checkSkillFiles([{ path: "SKILL.md", bytes: new Uint8Array([0x2d, 0x2d, 0x2d, 0xff]) }]).issues), /not valid UTF-8/);
  const err = (() => {
    try {
      buildSkillManifest([{ path: "SKILL.md", bytes: enc(SKILL_MD) }, { path: "../escape", bytes: enc("x") }], "pdf-tools");
    } catch (e) {
      return e;
    }
  })();
  assert.ok(err instanceof RyeError && err.code === "VALIDATION_FAILED");
  assert.match(JSON.stringify(err.details), /\.\.\/escape/);
  assert.throws(() => parseSkillManifest(serializeSkillManifest(buildSkillManifest(files(), "pdf-tools")).replace("references/format.md", "../format.md")), (e: unknown) => e instanceof RyeError && e.code === "PATH_TRAVERSAL");
});

test("the version comes from metadata.version and must be semantic", () => {
  assert.equal(skillVersion({ name: "a", description: "d", metadata: { version: "2.0.0-beta.1" } }), "2.0.0-beta.1");
  assert.throws(() => skillVersion({ name: "a", description: "d" }), (e: unknown) => e instanceof RyeError && e.code === "INVALID_VERSION" && /metadata:\n  version/.test(e.hint ?? ""));
  assert.throws(() => skillVersion({ name: "a", description: "d", metadata: { version: "1.0" } }), (e: unknown) => e instanceof RyeError && e.code === "INVALID_VERSION");
});
