import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { before, test } from "node:test";
import type { KeyPair } from "../crypto/keys.ts";
import { generateKeyPair } from "../crypto/keys.ts";
import { RyeError } from "../errors.ts";
import { keyResolverFrom } from "../signature/verify.ts";
import { buildSkillManifest, parseSkillManifest, readDeclaredSkillVersion, readSkillVersion, serializeSkillManifest, signSkillManifest, skillVersion, verifySkill } from "./manifest.ts";
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

test("the version comes from metadata.version: a semantic version as it is, MAJOR.MINOR read as MAJOR.MINOR.0", () => {
  assert.equal(skillVersion({ name: "a", description: "d", metadata: { version: "2.0.0-beta.1" } }), "2.0.0-beta.1");
  for (const [declared, read] of [["1.0", "1.0.0"], ["0.3", "0.3.0"], ["12.40", "12.40.0"], ["1.2.3", "1.2.3"], ["1.0.0+build.5", "1.0.0+build.5"]] as const) {
    assert.equal(readDeclaredSkillVersion(declared), read, declared);
  }
  for (const unreadable of ["1", "01.0", "1.00", "1.0.", "v1.0", "1.0-beta", " 1.0", "1.0 ", "latest", "1.2.3.4", ""]) {
    assert.equal(readDeclaredSkillVersion(unreadable), undefined, JSON.stringify(unreadable));
  }
  // The specification's own example: read as 1.0.0, and said so.
  assert.deepEqual(readSkillVersion({ name: "a", description: "d", metadata: { version: "1.0" } }), { version: "1.0.0", declared: "1.0", note: 'SKILL.md declares version "1.0", read as 1.0.0' });
  assert.deepEqual(readSkillVersion({ name: "a", description: "d", metadata: { version: "1.2.0" } }), { version: "1.2.0", declared: "1.2.0", note: null });
  // No version, or none that reads as one: INVALID_VERSION, with a hint naming --version.
  for (const frontmatter of [{ name: "a", description: "d" }, { name: "a", description: "d", metadata: { version: "v1" } }]) {
    assert.throws(() => skillVersion(frontmatter), (e: unknown) => e instanceof RyeError && e.code === "INVALID_VERSION" && /rye push <dir> --version 1\.0\.0/.test(e.hint) && /metadata:\n  version/.test(e.hint));
  }
});

test("a version given beside the files: for a skill that declares none or none readable; a contradicting one is refused", () => {
  assert.deepEqual(readSkillVersion({ name: "a", description: "d" }, "0.4.1"), {
    version: "0.4.1",
    declared: null,
    note: "SKILL.md declares no version; published as 0.4.1, the version given with the push (SKILL.md is unchanged)",
  });
  assert.match(readSkillVersion({ name: "a", description: "d", metadata: { version: "2024-05" } }, "2024.5.0").note!, /declares version "2024-05", which is not a semantic version; published as 2024\.5\.0/);
  assert.deepEqual(readSkillVersion({ name: "a", description: "d", metadata: { version: "1.0" } }, "1.0.0").note, 'SKILL.md declares version "1.0", read as 1.0.0', "the same version, given");
  assert.throws(() => readSkillVersion({ name: "a", description: "d", metadata: { version: "1.0" } }, "1.1.0"), (e: unknown) => e instanceof RyeError && e.code === "VERSION_MISMATCH" && /metadata\.version/.test(e.hint));
  for (const bad of ["1.0", "latest", "1.0.0 ", "v1.0.0"]) {
    assert.throws(() => readSkillVersion({ name: "a", description: "d" }, bad), (e: unknown) => e instanceof RyeError && e.code === "INVALID_VERSION" && e.message.includes(JSON.stringify(bad)));
  }
});

test("manifests of a MAJOR.MINOR skill and of a versionless skill given a version: built, signed and verified with the files unchanged", async () => {
  const keys = keyResolverFrom([key.publicKey]);
  const spec = [{ path: "SKILL.md", bytes: enc(SKILL_MD.replace('version: "1.2.0"', 'version: "1.0"')) }];
  const manifest = buildSkillManifest(spec, "pdf-tools");
  assert.equal(manifest.skill.version, "1.0.0");
  assert.equal((await verifySkill(await signSkillManifest(manifest, key), keys, spec)).code, "OK");

  const bare = [{ path: "SKILL.md", bytes: enc(SKILL_MD.replace('metadata:\n  version: "1.2.0"\n', "")) }];
  assert.throws(() => buildSkillManifest(bare, "pdf-tools"), (e: unknown) => e instanceof RyeError && e.code === "INVALID_VERSION");
  const given = buildSkillManifest(bare, "pdf-tools", { version: "3.1.4" });
  assert.equal(given.skill.version, "3.1.4");
  assert.equal(given.files["SKILL.md"]!.sha256, createHash("sha256").update(bare[0]!.bytes).digest("hex"), "the file's digest is that of its unchanged bytes");
  assert.equal((await verifySkill(await signSkillManifest(given, key), keys, bare)).code, "OK");
  // A declared version still binds the manifest: given and declared must agree.
  assert.throws(() => buildSkillManifest(spec, "pdf-tools", { version: "9.0.0" }), (e: unknown) => e instanceof RyeError && e.code === "VERSION_MISMATCH");
  const relabelled = await signSkillManifest({ ...manifest, skill: { ...manifest.skill, version: "1.0.1" } }, key);
  assert.match((await verifySkill(relabelled, keys, spec)).message, /names pdf-tools@1\.0\.1 but SKILL\.md declares pdf-tools@1\.0$/);
});
