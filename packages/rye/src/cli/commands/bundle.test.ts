import "@rye/core/node";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdir, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Command, CommanderError } from "commander";
import { generateKeyPair, sha256Hex, signItem } from "@rye/core";
import { hashToken, TOKEN_PREFIX } from "../../../../../apps/api/src/auth/api-tokens.ts";
import { startProxy, startTestRegistry } from "../../../test/registry-server.ts";
import type { TestRegistry } from "../../../test/registry-server.ts";
import { demoTree, directiveText, removeTempDirs, tempDir, writeTree } from "../../bundles/test-fixtures.ts";
import { KeyStore } from "../../keys/keystore.ts";
import { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";
import type { BundleCliOptions } from "./bundle.ts";
import { registerBundle } from "./bundle.ts";

after(removeTempDirs);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A program shaped like main.ts's buildProgram (root `--version` included) with only `bundle` registered. */
async function rye(argv: string[], options: { env: NodeJS.ProcessEnv; cwd: string; cli?: BundleCliOptions }): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: (s: string) => void out.push(s), stderr: (s: string) => void err.push(s) };
  const ctx = new CliContext(io, options.env, options.cwd);
  const program = new Command("rye")
    .version("0.0.0-test")
    .enablePositionalOptions()
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) });
  // Progress goes to a stream that is not a terminal unless a test passes one.
  registerBundle(program, ctx, options.cli ?? { progressStream: { write: () => true, isTTY: false } });
  let code: number;
  try {
    await program.parseAsync(argv, { from: "user" });
    code = ctx.exitCode;
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    code = e.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  }
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

/** A project directory with the demo bundle, a fresh user space and an empty system space. */
async function setup(): Promise<{ project: string; user: string; env: NodeJS.ProcessEnv; run: (argv: string[]) => Promise<Run> }> {
  const project = await tempDir("rye-cli-project-");
  const user = await tempDir("rye-cli-user-");
  await writeTree(project, demoTree());
  const env = { USER_SPACE: user, RYE_SYSTEM_SPACE: join(await tempDir("rye-cli-system-"), ".ai") };
  return { project, user, env, run: (argv) => rye(argv, { env, cwd: project }) };
}

const json = <T = Record<string, unknown>>(r: Run): T => JSON.parse(r.stdout) as T;

describe("rye bundle", () => {
  it("create --json then verify --json: exit 0, documented shapes, options reach the manifest", async () => {
    const { project, run } = await setup();
    const created = await run(["bundle", "create", "demo", "--version", "1.2.3", "--description", "Demo kit", "--entrypoint", "demo/hello", "--package", "--json"]);
    assert.equal(created.code, 0, created.stderr);
    const c = json<{ manifest: { bundle: Record<string, unknown>; files: Record<string, unknown> } } & Record<string, unknown>>(created);
    assert.deepEqual(Object.keys(c), ["status", "space", "bundleId", "manifestPath", "fileCount", "totalBytes", "fingerprint", "keyCreated", "skipped", "manifest"]);
    assert.deepEqual([c.status, c.space, c.bundleId, c.fileCount, c.keyCreated], ["created", "project", "demo", 4, true]);
    assert.equal(c.manifestPath, join(project, ".ai/bundles/demo/manifest.yaml"));
    assert.deepEqual(
      [c.manifest.bundle.version, c.manifest.bundle.description, c.manifest.bundle.entrypoint, c.manifest.bundle.type],
      ["1.2.3", "Demo kit", "demo/hello", "package"],
    );

    const verified = await run(["bundle", "verify", "demo", "--json"]);
    assert.equal(verified.code, 0, verified.stdout);
    const v = json(verified);
    assert.deepEqual(Object.keys(v), [
      "ok",
      "code",
      "message",
      "bundleId",
      "space",
      "manifestPath",
      "manifestSignature",
      "files_ok",
      "files_missing",
      "files_tampered",
      "files_unlisted",
      "warnings",
    ]);
    assert.deepEqual([v.ok, v.code, (v.files_ok as string[]).length], [true, "OK", 4]);
    assert.deepEqual(v.manifestSignature, { ok: true, code: "OK", fingerprint: c.fingerprint });

    const second = json(await run(["bundle", "create", "demo", "--json"]));
    assert.equal(second.keyCreated, false, "the key is created once");
  });

  it("human output: create summary, verify OK, then missing and tampered files listed with exit 1", async () => {
    const { project, run } = await setup();
    const created = await run(["bundle", "create", "demo"]);
    assert.equal(created.code, 0);
    assert.match(created.stdout, /^Created bundle demo 0\.1\.0: 4 files, .* signed with key [0-9a-f]{16}\n {2}manifest: /);
    assert.match(created.stderr, /Created your signing key/);
    const ok = await run(["bundle", "verify", "demo"]);
    assert.equal(ok.code, 0);
    assert.match(ok.stdout, /^OK Bundle demo verified: 4 files/);

    await unlink(join(project, ".ai/tools/demo/lib/util.py"));
    await writeFile(join(project, ".ai/tools/demo/greet.py"), "print('changed')\n");
    await writeFile(join(project, ".ai/tools/demo/new.py"), "print('new')\n");
    const bad = await run(["bundle", "verify", "demo"]);
    assert.equal(bad.code, EXIT.FAILURE);
    assert.equal(bad.stdout, "");
    assert.match(bad.stderr, /^BUNDLE_FILES_MISSING Bundle demo: 1 missing and 1 tampered of 4 files/);
    assert.match(bad.stderr, /\n {2}missing: {2}\.ai\/tools\/demo\/lib\/util\.py\n/);
    assert.match(bad.stderr, /\n {2}tampered: \.ai\/tools\/demo\/greet\.py \(sha256 differs from the manifest\)/);
    assert.match(bad.stderr, /warning: \.ai\/tools\/demo\/new\.py is in the bundle's folders but not in its manifest/);

    const badJson = json(await run(["bundle", "verify", "demo", "--json"]));
    assert.equal(badJson.code, "BUNDLE_FILES_MISSING");
    assert.deepEqual(badJson.files_missing, [".ai/tools/demo/lib/util.py"]);
    assert.deepEqual(badJson.files_tampered, [{ path: ".ai/tools/demo/greet.py", reason: "sha256 differs from the manifest" }]);
    assert.deepEqual(badJson.files_unlisted, [".ai/tools/demo/new.py"]);
  });

  it("verify fails with exit 1 for an edited manifest, an untrusted signer and an untrusted inline signature", async () => {
    const { project, run } = await setup();
    const stranger = await generateKeyPair();
    await writeTree(project, { ".ai/directives/demo/rogue.md": (await signItem(directiveText("rogue", "demo"), "directive", stranger)).content });
    assert.equal((await run(["bundle", "create", "demo"])).code, 0);

    const inline = await run(["bundle", "verify", "demo", "--json"]);
    assert.equal(inline.code, 1);
    assert.deepEqual(json(inline).files_tampered, [{ path: ".ai/directives/demo/rogue.md", reason: "inline signature: UNTRUSTED_KEY" }]);

    const other = await tempDir("rye-cli-user-");
    const untrusted = await rye(["bundle", "verify", "demo", "--json"], { env: { USER_SPACE: other }, cwd: project });
    assert.equal(untrusted.code, 1);
    assert.equal(json(untrusted).code, "UNTRUSTED_KEY");

    const manifest = join(project, ".ai/bundles/demo/manifest.yaml");
    await writeFile(manifest, (await readFile(manifest, "utf8")).replace('description: ""', "description: evil"));
    const edited = await run(["bundle", "verify", "demo"]);
    assert.equal(edited.code, 1);
    assert.match(edited.stderr, /^INTEGRITY_MISMATCH The manifest signature does not verify/);
  });

  it("errors use the envelope: unknown bundle, traversal id, empty bundle; a missing argument is a usage error", async () => {
    const { run } = await setup();
    const missing = await run(["bundle", "verify", "nope", "--json"]);
    assert.equal(missing.code, 1);
    const env1 = json<{ error: { code: string; hint: string } }>(missing);
    assert.equal(env1.error.code, "ITEM_NOT_FOUND");
    assert.match(env1.error.hint, /rye bundle create nope/);

    const traversal = await run(["bundle", "create", "../escape", "--json"]);
    assert.equal(traversal.code, 1);
    assert.equal(json<{ error: { code: string } }>(traversal).error.code, "INVALID_ITEM_ID");

    const empty = await run(["bundle", "create", "nothing-here"]);
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /^error\[BUNDLE_INVALID\]: Bundle nothing-here has no files\nhint: Put its items in \.ai\/directives\/nothing-here\/, \.ai\/tools\/nothing-here\/, \.ai\/knowledge\/nothing-here\//);

    const badVersion = await run(["bundle", "create", "demo", "--version", "one", "--json"]);
    assert.equal(json<{ error: { code: string } }>(badVersion).error.code, "INVALID_VERSION");

    assert.equal((await run(["bundle", "create"])).code, EXIT.USAGE);
    assert.equal((await run(["--version"])).stdout.trim(), "0.0.0-test", "the program's own --version still works before the command");
  });

  it("--user works on the user space; list shows both spaces; inspect shows counts", async () => {
    const { user, run } = await setup();
    await writeTree(user, demoTree("mine"));
    assert.equal((await run(["bundle", "create", "mine", "--user", "--description", "Mine"])).code, 0);
    assert.equal((await run(["bundle", "create", "demo", "--version", "2.0.0"])).code, 0);
    assert.equal((await run(["bundle", "verify", "mine", "--user"])).code, 0);
    assert.equal((await run(["bundle", "verify", "mine"])).code, 1, "not a project bundle");

    const listed = json<{ bundles: { space: string; bundleId: string; version: string; description: string; fileCount: number; manifestPath: string }[] }>(
      await run(["bundle", "list", "--json"]),
    );
    assert.deepEqual(
      listed.bundles.map((b) => [b.space, b.bundleId, b.version, b.description, b.fileCount, b.manifestPath]),
      [
        ["project", "demo", "2.0.0", "", 4, listed.bundles[0]!.manifestPath],
        ["user", "mine", "0.1.0", "Mine", 4, join(user, ".ai/bundles/mine/manifest.yaml")],
      ],
    );
    const human = await run(["bundle", "list"]);
    assert.match(human.stdout, /^project +demo 2\.0\.0 +4 files\nuser +mine 0\.1\.0 +4 files +Mine$/);

    const inspected = json(await run(["bundle", "inspect", "mine", "--user", "--json"]));
    assert.equal(inspected.space, "user");
    assert.deepEqual(inspected.counts, { directive: 1, tool: 2, knowledge: 1, other: 0, total: 4 });
    const text = await run(["bundle", "inspect", "demo"]);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /^Bundle demo 2\.0\.0 in the project space\n/);
    assert.match(text.stdout, /files: {7}4 \(1 directives, 2 tools, 1 knowledge, 0 other\)/);
    assert.match(text.stdout, /signature: {3}key [0-9a-f]{16} at .* \(not verified/);
  });

  it("list says so when there are no bundles", async () => {
    const { run } = await setup();
    const r = await run(["bundle", "list"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^No bundles found/);
    assert.deepEqual(json(await run(["bundle", "list", "--json"])), { bundles: [] });
  });
});

describe("rye bundle push / pull against a registry", () => {
  let registry: TestRegistry;
  let token: string;
  /** The publisher of acme/kit (the first test pushes it; the later ones pull it with the same user space). */
  let pub: Awaited<ReturnType<typeof publisher>>;

  before(async () => {
    registry = await startTestRegistry();
    const user = await registry.db.prisma.user.create({ data: { username: "acme", email: "acme@example.test" } });
    await registry.db.prisma.namespace.create({ data: { name: "acme", userId: user.id } });
    token = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
    await registry.db.prisma.apiToken.create({ data: { userId: user.id, name: "test", tokenHash: hashToken(token), scopes: ["items:read", "items:write"] } });
    pub = await publisher();
  });
  after(() => registry.close());

  /** A project with the bundle acme/kit and a user space signed in to the registry. */
  async function publisher() {
    const project = await tempDir("rye-cli-project-");
    const user = await tempDir("rye-cli-user-");
    await writeTree(project, demoTree("acme/kit"));
    const env = { USER_SPACE: user, RYE_REGISTRY_URL: registry.url, RYE_TOKEN: token };
    const key = await new KeyStore({ env }).create();
    await writeTree(project, { ".ai/directives/acme/kit/hello.md": (await signItem(directiveText("hello", "acme/kit"), "directive", key)).content });
    return { project, user, env, run: (argv: string[], cli?: BundleCliOptions) => rye(argv, { env, cwd: project, ...(cli ? { cli } : {}) }) };
  }

  async function listTree(dir: string, rel = ""): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const e of await readdir(join(dir, rel), { withFileTypes: true }).catch(() => [])) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) Object.assign(out, { [`${path}/`]: "" }, await listTree(dir, path));
      else out[path] = sha256Hex(await readFile(join(dir, path)));
    }
    return out;
  }

  it("push then pull into a fresh project: identical files, bundle verify OK, progress on stderr only", async () => {
    assert.equal((await pub.run(["bundle", "create", "acme/kit", "--version", "1.2.0"])).code, 0);

    const refused = await pub.run(["bundle", "push", "acme/kit"]);
    assert.equal(refused.code, 1, "not a terminal, no --yes: the key is not registered");
    assert.match(refused.stderr, /error\[UNTRUSTED_KEY\]: Your public key [0-9a-f]{16} is not registered/);

    const pushed = await pub.run(["bundle", "push", "acme/kit", "--yes"]);
    assert.equal(pushed.code, 0, pushed.stderr);
    assert.match(pushed.stdout, /^Pushed bundle acme\/kit@1\.2\.0 to http:\/\/127\.0\.0\.1:\d+: 4 files, .*; the registry signed the manifest with [0-9a-f]{16}\.$/);
    assert.match(pushed.stderr, /\? yes \(--yes\)/);
    assert.match(pushed.stderr, /^pushed acme\/kit 1\.2\.0: 4 files, [\d.]+ (B|KiB) in [\d.]+ s$/m, "one plain summary line");

    const fresh = await tempDir("rye-cli-project-");
    const run = (argv: string[], cli?: BundleCliOptions) => rye(argv, { env: pub.env, cwd: fresh, ...(cli ? { cli } : {}) });
    const pulled = await run(["bundle", "pull", "acme/kit@1.2.0", "--json"]);
    assert.equal(pulled.code, 0, pulled.stdout);
    const result = JSON.parse(pulled.stdout);
    assert.deepEqual([result.status, result.bundle_id, result.version, result.publisher, result.file_count], ["pulled", "acme/kit", "1.2.0", "acme", 4]);
    assert.doesNotMatch(pulled.stderr, /pulled acme\/kit/, "no progress or summary with --json");
    for (const rel of Object.keys(demoTree("acme/kit"))) {
      assert.deepEqual(await readFile(join(fresh, rel)), await readFile(join(pub.project, rel)), rel);
    }

    const verified = await run(["bundle", "verify", "acme/kit"]);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /^OK Bundle acme\/kit verified: 4 files, manifest signed by [0-9a-f]{16} \(the pinned key of http:\/\/127\.0\.0\.1:\d+, published by acme\)$/);
    const verifiedJson = json<{ ok: boolean; registry: { publisher: string } }>(await run(["bundle", "verify", "acme/kit", "--json"]));
    assert.deepEqual([verifiedJson.ok, verifiedJson.registry.publisher], [true, "acme"]);

    // On a terminal the bar is drawn in place on the progress stream, and nothing about it reaches stdout.
    const tty: string[] = [];
    const again = await run(["bundle", "pull", "acme/kit", "--force"], { progressStream: { write: (s: string) => tty.push(s), isTTY: true, columns: 120 } });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Already up to date: bundle acme\/kit@1\.2\.0 \(published by acme, verified with [0-9a-f]{16}\)/);
    assert.doesNotMatch(again.stdout, /\[#|\r/);
    assert.match(tty.join(""), /\rpulled acme\/kit 1\.2\.0 {2}\[##########\] 4\/4 files {2}[\d.]+ (B|KiB)\x1b\[K\n$/);
  });

  it("a differing local file is refused without --force", async () => {
    const fresh = await tempDir("rye-cli-project-");
    await writeTree(fresh, { ".ai/knowledge/acme/kit/notes.md": "my notes\n" });
    const before = await listTree(fresh);
    const r = await rye(["bundle", "pull", "acme/kit"], { env: pub.env, cwd: fresh });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error\[ITEM_EXISTS\]: 1 file\(s\) of the bundle exist locally with different content; nothing was written\nhint: .*--force/);
    assert.match(r.stderr, /\.ai\/knowledge\/acme\/kit\/notes\.md: exists with different content/);
    assert.deepEqual(await listTree(fresh), before);
    const forced = await rye(["bundle", "pull", "acme/kit", "--force"], { env: pub.env, cwd: fresh });
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /4 written, 0 unchanged of 4 files/);
  });

  it("a tampered response or a traversal name is refused and the target stays untouched", async () => {
    const rewrites: Record<string, (body: any) => unknown> = {
      tampered: (body) => ({ ...body, files: { ...body.files, ".ai/tools/acme/kit/greet.py": { content_base64: Buffer.from("evil").toString("base64"), sha256: sha256Hex("evil") } } }),
      traversal: (body) => ({ ...body, files: { ...body.files, ".ai/tools/acme/kit/../../../../escape.sh": { content_base64: "eA==", sha256: sha256Hex("x") } } }),
    };
    for (const [name, rewrite] of Object.entries(rewrites)) {
      const proxy = await startProxy(registry.url, (path, body) => (path.startsWith("/v1/bundle/pull/") ? rewrite(body) : body));
      try {
        const fresh = await tempDir("rye-cli-project-");
        await writeTree(fresh, { "README.md": "mine\n" });
        const before = await listTree(fresh);
        const r = await rye(["bundle", "pull", "acme/kit", "--registry", proxy.url, "--json"], { env: pub.env, cwd: fresh });
        assert.equal(r.code, 1, name);
        assert.equal(JSON.parse(r.stdout).error.code, name === "tampered" ? "BUNDLE_FILES_TAMPERED" : "PATH_TRAVERSAL", name);
        assert.deepEqual(await listTree(fresh), before, `${name}: nothing written`);
      } finally {
        await proxy.close();
      }
    }
  });

  it("usage errors", async () => {
    assert.match((await pub.run(["bundle", "pull", "acme/kit", "--to", "elsewhere"])).stderr, /--to must be project or user/);
    assert.match((await pub.run(["bundle", "push", "acme/kit", "--visibility", "secret"])).stderr, /--visibility must be public, unlisted or private/);
    assert.match((await pub.run(["bundle", "pull", "acme/kit@latest"])).stderr, /error\[INVALID_VERSION\]/);
    assert.equal((await pub.run(["bundle", "pull"])).code, EXIT.USAGE);
  });
});

const BIN = fileURLToPath(new URL("../../../bin/rye.mjs", import.meta.url));

function ryeBin(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, cwd }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe("rye bundle (the real binary)", () => {
  it("create, verify and tamper end to end as a child process", async (t) => {
    const { project, env } = await setup();
    const help = await ryeBin(["bundle", "--help"], env, project);
    if (help.code !== 0 || !/create/.test(help.stdout)) {
      t.skip(`bin/rye.mjs cannot run \`rye bundle --help\` yet (exit ${help.code}: ${help.stderr.split("\n").find((l) => /Error/.test(l)) ?? "no bundle command"})`);
      return;
    }
    const created = await ryeBin(["bundle", "create", "demo", "--version", "1.0.0", "--json"], env, project);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(JSON.parse(created.stdout).manifest.bundle.version, "1.0.0");
    assert.equal((await ryeBin(["bundle", "verify", "demo"], env, project)).code, 0);
    await writeFile(join(project, ".ai/knowledge/demo/notes.md"), "changed\n");
    const tampered = await ryeBin(["bundle", "verify", "demo", "--json"], env, project);
    assert.equal(tampered.code, 1);
    assert.equal(JSON.parse(tampered.stdout).code, "BUNDLE_FILES_TAMPERED");
  });
});
