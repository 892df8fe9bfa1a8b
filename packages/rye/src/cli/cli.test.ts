/** The CLI run as a real child process, the way users run it. */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, stat, writeFile, copyFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { runRye } from "../../test/cli.ts";

const VECTORS = fileURLToPath(new URL("../../../core/test/vectors/", import.meta.url));

function rye(args: string[], userSpace: string) {
  return runRye(args, { env: { ...process.env, USER_SPACE: userSpace } });
}

const DIRECTIVE = (name: string) => `# ${name}\n\n\`\`\`xml\n<directive name="${name}" version="1.0.0">\n  <metadata>\n    <description>Demo.</description>\n    <category>demo</category>\n    <author>me</author>\n  </metadata>\n</directive>\n\`\`\`\n`;

test("keygen creates a 0600 private key in a 0700 directory and trusts the public key", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-cli-"));
  const first = await rye(["keygen", "--json"], home);
  assert.equal(first.code, 0, first.stderr);
  const out = JSON.parse(first.stdout) as { created: boolean; fingerprint: string };
  assert.equal(out.created, true);
  assert.match(out.fingerprint, /^[0-9a-f]{16}$/);
  assert.equal((await stat(join(home, ".ai/keys/private_key.pem"))).mode & 0o777, 0o600);
  assert.equal((await stat(join(home, ".ai/keys"))).mode & 0o777, 0o700);
  assert.equal(await readFile(join(home, `.ai/trusted_keys/${out.fingerprint}.pem`), "utf8"), await readFile(join(home, ".ai/keys/public_key.pem"), "utf8"));
  const second = JSON.parse((await rye(["keygen", "--json"], home)).stdout) as { created: boolean; fingerprint: string };
  assert.deepEqual([second.created, second.fingerprint], [false, out.fingerprint], "keygen never silently replaces a key");
});

test("sign then verify --json; tampering, other users and unsigned files fail with exit 1", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-cli-"));
  const dir = join(home, "project/.ai/directives/demo");
  await mkdir(dir, { recursive: true });
  const file = join(dir, "hello.md");
  await writeFile(file, DIRECTIVE("hello"));

  const unsigned = await rye(["verify", file, "--json"], home);
  assert.equal(unsigned.code, 1);
  assert.equal(JSON.parse(unsigned.stdout).code, "UNSIGNED");

  const signed = await rye(["sign", file], home);
  assert.equal(signed.code, 0, signed.stderr);
  assert.match(signed.stderr, /Created your signing key/);
  const verified = await rye(["verify", file, "--json"], home);
  assert.equal(verified.code, 0);
  const json = JSON.parse(verified.stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(json), ["ok", "code", "contentHash", "embeddedHash", "fingerprint"]);
  assert.equal(json.ok, true);
  assert.equal(json.contentHash, json.embeddedHash);

  const stranger = await mkdtemp(join(tmpdir(), "rye-cli-"));
  const untrusted = await rye(["verify", file, "--json"], stranger);
  assert.equal(untrusted.code, 1);
  assert.equal(JSON.parse(untrusted.stdout).code, "UNTRUSTED_KEY");

  await writeFile(file, (await readFile(file, "utf8")).replace("Demo.", "Demo!"));
  const tampered = await rye(["verify", file], home);
  assert.equal(tampered.code, 1);
  assert.match(tampered.stderr, /INTEGRITY_MISMATCH/);
});

test("sign refuses an invalid item and leaves the file untouched", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-cli-"));
  const dir = join(home, ".ai/directives/other");
  await mkdir(dir, { recursive: true });
  const file = join(dir, "hello.md");
  await writeFile(file, DIRECTIVE("hello"));
  const result = await rye(["sign", file, "--json"], home);
  assert.equal(result.code, 1);
  const envelope = JSON.parse(result.stdout) as { error: { code: string; details: { field: string }[] } };
  assert.equal(envelope.error.code, "VALIDATION_FAILED");
  assert.deepEqual(envelope.error.details.map((d) => d.field), ["category"]);
  assert.equal(await readFile(file, "utf8"), DIRECTIVE("hello"));
});

test("verify infers the type from the path or content, and --type overrides", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-cli-"));
  const copy = join(home, "perm_none.md");
  await copyFile(join(VECTORS, "original/perm_none.md"), copy);
  const inferred = await rye(["verify", copy, "--json"], home);
  assert.equal(JSON.parse(inferred.stdout).code, "INTEGRITY_MISMATCH");
  const tool = join(home, "subprocess.yaml");
  await copyFile(join(VECTORS, "original/subprocess.yaml"), tool);
  const yaml = await rye(["verify", tool, "--json"], home);
  assert.equal(JSON.parse(yaml.stdout).code, "UNTRUSTED_KEY", "hash matches, signer unknown");
  assert.equal((await rye(["verify", tool, "--type", "widget"], home)).code, 2);
  const txt = join(home, "notes.txt");
  await writeFile(txt, "x");
  const unknown = await rye(["verify", txt], home);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /--type/);
  assert.equal((await rye(["verify", join(home, "missing.md")], home)).code, 1);
  assert.equal((await rye(["frobnicate"], home)).code, 2);
});
