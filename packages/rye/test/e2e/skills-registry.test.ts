/**
 * End to end, Agent Skills: `rye push <dir>` publishes a one-file skill and a skill with scripts/, references/ and
 * assets/ to the real registry on a loopback port; then, in an empty project, the real `skills` CLI (npm `skills`,
 * telemetry off, HOME a temp dir) lists and installs them from the registry's /<namespace>/.well-known/agent-skills/
 * index, and the installed folders are byte-identical to what was pushed and pass `skills-ref validate`. Private
 * skills stay out of every index, a yanked version is not the index's latest, and HEAD and CORS answer.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { hashToken, TOKEN_PREFIX } from "../../../../apps/api/src/auth/api-tokens.ts";
import { runRye } from "../cli.ts";
import { assertSameFiles, bytes, readTree, sha, skillMd, writeSkill } from "../skill-files.ts";
import type { TestRegistry } from "../registry-server.ts";
import { startTestRegistry } from "../registry-server.ts";
import { createWorkspace, type Workspace } from "../workspace.ts";

type Json = Record<string, any>;

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const SKILLS_CLI = join(ROOT, "node_modules", "skills", "bin", "cli.mjs");
const SKILLS_REF = join(ROOT, "node_modules", "skills-ref", "dist", "cli.js");

/** The skills as files: path → bytes (what must arrive byte for byte). */
const MY_SKILL = (version: string) => ({ "SKILL.md": skillMd("my-skill", version, "Writes release notes. Use when asked for a changelog.", `# My skill ${version}\n\nSummarize the commits.\n`) });
const PDF_TOOLS: Record<string, string | Uint8Array> = {
  "SKILL.md": skillMd("pdf-tools", "1.0.0", "Extract text and tables from PDF files. Use when a PDF is mentioned.", "# PDF tools\n\nRun `scripts/extract.sh <file>`; see references/formats.md.\r\n"),
  "scripts/extract.sh": "#!/bin/sh\nset -eu\npdftotext \"$1\" -\n",
  "references/formats.md": "# Formats\n\nPDF 1.7 and PDF 2.0.\n",
  "assets/sample.bin": new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0xfe, 0x0a, 0x80]),
};

let reg: TestRegistry;
let ws: Workspace;
let env: NodeJS.ProcessEnv;
let token: string;




async function rye(args: string[]): Promise<Json> {
  const run = await runRye([...args, "--registry", reg.url, ...(args[0] === "push" ? ["--yes"] : []), "--json"], { env, cwd: ws.projectDir });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  return JSON.parse(run.stdout) as Json;
}

/** Runs a node script with a clean environment: no agent markers, no telemetry, HOME in a temp dir. */
function runNode(script: string, args: string[], cwd: string, home: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const cleanEnv: NodeJS.ProcessEnv = { PATH: dirname(process.execPath), HOME: home, DISABLE_TELEMETRY: "1", DO_NOT_TRACK: "1", NO_COLOR: "1", CI: "1" };
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { cwd, env: cleanEnv, timeout: 120_000, maxBuffer: 8 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

const strip = (text: string) => text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");

before(async () => {
  reg = await startTestRegistry();
  const prisma = reg.db.prisma;
  const user = await prisma.user.create({ data: { username: "alice", email: "alice@example.test" } });
  await prisma.namespace.create({ data: { name: "alice", userId: user.id } });
  token = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
  await prisma.apiToken.create({ data: { userId: user.id, name: "test", tokenHash: hashToken(token), scopes: ["items:read", "items:write"] } });
  ws = await createWorkspace();
  env = { ...ws.env, RYE_TOKEN: token };
  delete env.RYE_OFFLINE;
  delete env.RYE_REGISTRY_URL;
  await writeSkill(join(ws.projectDir, "skills", "my-skill"), MY_SKILL("1.0.0"));
  await writeSkill(join(ws.projectDir, "skills", "pdf-tools"), PDF_TOOLS);
  await writeSkill(join(ws.projectDir, "skills", "secret-skill"), { "SKILL.md": skillMd("secret-skill", "1.0.0", "Internal only. Use never.", "# Secret\n") });
});
after(() => reg.close());

test("rye push <dir> publishes a one-file skill (signed in memory) and a signed multi-file skill (its .rye/manifest.yaml)", async () => {
  const one = await rye(["push", "skills/my-skill"]);
  assert.equal(one.item_type, "skill");
  assert.equal(one.item_id, "alice/my-skill");
  assert.equal(one.version, "1.0.0");
  assert.equal(one.manifest, "signed");
  assert.equal(one.registry_fingerprint, await reg.activeFingerprint());

  const sign = await runRye(["sign", "skills/pdf-tools"], { env, cwd: ws.projectDir });
  assert.equal(sign.code, 0, sign.stdout + sign.stderr);
  const multi = await rye(["push", "skills/pdf-tools"]);
  assert.equal(multi.item_id, "alice/pdf-tools");
  assert.equal(multi.files, 4);
  assert.equal(multi.manifest, "folder");

  const secret = await rye(["push", "skills/secret-skill", "--visibility", "private"]);
  assert.equal(secret.item_id, "alice/secret-skill");

  const again = await runRye(["push", "skills/my-skill", "--registry", reg.url, "--yes", "--json"], { env, cwd: ws.projectDir });
  assert.notEqual(again.code, 0);
  assert.equal((JSON.parse(again.stdout) as Json).error.code, "VERSION_EXISTS");

  // Refused before anything is sent: a folder without SKILL.md, and a skill whose name is not its folder's.
  await mkdir(join(ws.projectDir, "skills", "empty"), { recursive: true });
  const empty = await runRye(["push", "skills/empty", "--registry", reg.url, "--yes"], { env, cwd: ws.projectDir });
  assert.notEqual(empty.code, 0);
  assert.match(empty.stderr, /not a file nor a skill folder \(no SKILL\.md\)/);
  await writeSkill(join(ws.projectDir, "skills", "wrong-folder"), MY_SKILL("1.0.0"));
  const wrong = await runRye(["push", "skills/wrong-folder", "--registry", reg.url, "--yes", "--json"], { env, cwd: ws.projectDir });
  assert.notEqual(wrong.code, 0);
  assert.equal((JSON.parse(wrong.stdout) as Json).error.code, "VALIDATION_FAILED");
});

test("the skills CLI lists and installs from the namespace's well-known index, byte-identical, and skills-ref validates", async () => {
  const project = await mkdtemp(join(tmpdir(), "rye-skills-consumer-"));
  const home = await mkdtemp(join(tmpdir(), "rye-skills-home-"));
  const source = `${reg.url}/alice`;

  const list = await runNode(SKILLS_CLI, ["add", source, "--list"], project, home);
  const listed = strip(list.stdout + list.stderr);
  assert.equal(list.code, 0, listed);
  assert.match(listed, /my-skill/);
  assert.match(listed, /pdf-tools/);
  assert.doesNotMatch(listed, /secret-skill/);

  for (const [name, files] of [["pdf-tools", PDF_TOOLS], ["my-skill", MY_SKILL("1.0.0")]] as const) {
    const add = await runNode(SKILLS_CLI, ["add", source, "-s", name, "-a", "claude-code", "-y"], project, home);
    assert.equal(add.code, 0, strip(add.stdout + add.stderr));
    const installedDir = join(project, ".claude", "skills", name);
    const installed = await readTree(installedDir);
    assertSameFiles(installed, files, `${name} (no .rye/)`);
    const validate = await runNode(SKILLS_REF, ["validate", installedDir], project, home);
    assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  }
  // The registry's root index and one skill's pinned index work as sources too.
  const all = await runNode(SKILLS_CLI, ["add", reg.url, "--list"], project, home);
  assert.equal(all.code, 0, strip(all.stdout + all.stderr));
  assert.match(strip(all.stdout), /pdf-tools/);
  const pinned = await runNode(SKILLS_CLI, ["add", `${reg.url}/alice/pdf-tools@1.0.0`, "--list"], project, home);
  assert.equal(pinned.code, 0, strip(pinned.stdout + pinned.stderr));
  assert.match(strip(pinned.stdout), /pdf-tools/);
  assert.doesNotMatch(strip(pinned.stdout), /my-skill/);
  const lock = JSON.parse(await readFile(join(project, "skills-lock.json"), "utf8")) as Json;
  assert.equal(lock.skills["pdf-tools"].sourceType, "well-known");
});

test("the .zip artifact installs with the skills CLI too (an index elsewhere pointing at the registry's zip URL)", async () => {
  const entry = ((await (await fetch(`${reg.url}/alice/.well-known/agent-skills/index.json`)).json()) as Json).skills.find((s: Json) => s.name === "pdf-tools");
  const zip = entry.rye.archives.zip as { url: string; digest: string };
  const index = JSON.stringify({ $schema: entry.$schema ?? "https://schemas.agentskills.io/discovery/0.2.0/schema.json", skills: [{ ...entry, url: new URL(zip.url, `${reg.url}/alice/.well-known/agent-skills/index.json`).href, digest: zip.digest }] });
  const server = createServer((req, res) => {
    if (req.url === "/.well-known/agent-skills/index.json") res.writeHead(200, { "content-type": "application/json" }).end(index);
    else res.writeHead(404).end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    const project = await mkdtemp(join(tmpdir(), "rye-skills-zip-"));
    const home = await mkdtemp(join(tmpdir(), "rye-skills-home-"));
    const add = await runNode(SKILLS_CLI, ["add", `http://127.0.0.1:${(server.address() as AddressInfo).port}`, "-s", "pdf-tools", "-a", "claude-code", "-y"], project, home);
    assert.equal(add.code, 0, strip(add.stdout + add.stderr));
    const installed = await readTree(join(project, ".claude", "skills", "pdf-tools"));
    assertSameFiles(installed, PDF_TOOLS, "pdf-tools from a plain HTTP host");
  } finally {
    server.close();
  }
});

test("private skills are in no index and 404 anonymously; a yanked version is not the index's latest; HEAD and CORS", async () => {
  const rootIndex = await fetch(`${reg.url}/.well-known/agent-skills/index.json`);
  assert.equal(rootIndex.status, 200);
  assert.equal(rootIndex.headers.get("access-control-allow-origin"), "*");
  const root = (await rootIndex.json()) as Json;
  assert.equal(root.$schema, "https://schemas.agentskills.io/discovery/0.2.0/schema.json");
  assert.deepEqual((root.skills as Json[]).map((s) => s.name).sort(), ["my-skill", "pdf-tools"]);
  assert.equal((await fetch(`${reg.url}/alice/.well-known/agent-skills/secret-skill/1.0.0/SKILL.md`)).status, 404);
  assert.equal((await fetch(`${reg.url}/alice/.well-known/agent-skills/secret-skill/1.0.0/SKILL.md`, { headers: { authorization: `Bearer ${token}` } })).status, 200);

  await writeSkill(join(ws.projectDir, "skills", "my-skill"), MY_SKILL("1.1.0"));
  await rye(["push", "skills/my-skill"]);
  const latest = async () => ((await (await fetch(`${reg.url}/alice/.well-known/agent-skills/index.json`)).json()) as Json).skills.find((s: Json) => s.name === "my-skill").version;
  assert.equal(await latest(), "1.1.0");
  const yank = await rye(["yank", "skill", "alice/my-skill@1.1.0", "--reason", "typo"]);
  assert.equal(yank.latest_version, "1.0.0");
  assert.equal(await latest(), "1.0.0");

  const head = await fetch(`${reg.url}/alice/.well-known/agent-skills/pdf-tools/1.0.0/pdf-tools-1.0.0.tar.gz`, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("content-type"), "application/gzip");
  assert.equal(head.headers.get("cache-control"), "public, max-age=31536000, immutable");
  assert.equal(head.headers.get("access-control-allow-origin"), "*");
  assert.equal((await head.arrayBuffer()).byteLength, 0);
});

test("rye skill add alice/pdf-tools installs the same bytes, verified with the pinned registry key and the attestation; a changed byte in the store is refused", async () => {
  const consumer = await createWorkspace();
  const consumerEnv: NodeJS.ProcessEnv = { ...consumer.env, RYE_REGISTRY_URL: reg.url };
  delete consumerEnv.RYE_OFFLINE;
  const add = async (args: string[], extra: NodeJS.ProcessEnv = {}) => {
    const run = await runRye(["skill", "add", ...args, "--json"], { env: { ...consumerEnv, ...extra }, cwd: consumer.projectDir });
    return { ...run, json: JSON.parse(run.stdout || "{}") as Json };
  };
  const installed = await add(["alice/pdf-tools", "-a", "claude-code"]);
  assert.equal(installed.code, 0, installed.stdout + installed.stderr);
  assert.deepEqual([installed.json.skills[0].verified, installed.json.skills[0].signer, installed.json.skills[0].version], ["signature", await reg.activeFingerprint(), "1.0.0"]);
  const tree = await readTree(join(consumer.projectDir, ".claude", "skills", "pdf-tools"));
  assertSameFiles(tree, PDF_TOOLS, "pdf-tools by rye skill add");
  const lock = JSON.parse(await readFile(join(consumer.projectDir, ".ai", "rye.lock"), "utf8")) as Json;
  assert.equal(lock.skills[0].source.kind, "registry");

  // The same skill from the registry's discovery index (no signature check there: the digest only).
  const fromIndex = await add([`${reg.url}/alice`, "--skill", "pdf-tools", "-a", "codex"]);
  assert.equal(fromIndex.code, 0, fromIndex.stdout + fromIndex.stderr);
  const viaIndex = await readTree(join(consumer.projectDir, ".agents", "skills", "pdf-tools"));
  for (const [path, content] of Object.entries(PDF_TOOLS)) assert.equal(sha(viaIndex.get(path)!), sha(bytes(content)), `index: ${path}`);

  const secret = await add(["alice/secret-skill"], { RYE_TOKEN: "" });
  assert.equal(secret.json.error.code, "ITEM_NOT_FOUND", "private: not found without a token");

  // One changed byte on the way (a proxy in front of the registry rewrites a file and its listed sha256): the client's
  // own check against the registry-signed manifest refuses it and writes nothing.
  const proxy = createServer(async (req, res) => {
    const upstream = await fetch(`${reg.url}${req.url}`, { method: req.method, headers: { accept: req.headers.accept ?? "*/*", ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) } });
    let body = Buffer.from(await upstream.arrayBuffer());
    if (req.url?.startsWith("/v1/skills/alice/pdf-tools")) {
      const json = JSON.parse(body.toString("utf8")) as Json;
      const file = (json.files as Json[]).find((f) => f.path === "scripts/extract.sh")!;
      const changed = Buffer.from(String(PDF_TOOLS["scripts/extract.sh"]).replace("set -eu", "set -ex"));
      file.content_base64 = changed.toString("base64");
      file.sha256 = sha(changed);
      body = Buffer.from(JSON.stringify(json));
    }
    res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" }).end(body);
  });
  proxy.listen(0, "127.0.0.1");
  await once(proxy, "listening");
  try {
    const fresh = await createWorkspace();
    const freshEnv: NodeJS.ProcessEnv = { ...fresh.env, RYE_REGISTRY_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` };
    delete freshEnv.RYE_OFFLINE;
    const tampered = await runRye(["skill", "add", "alice/pdf-tools", "--json"], { env: freshEnv, cwd: fresh.projectDir });
    assert.notEqual(tampered.code, 0);
    const error = (JSON.parse(tampered.stdout) as Json).error;
    assert.equal(error.code, "INTEGRITY_MISMATCH", tampered.stdout);
    assert.deepEqual(error.details.changed, ["scripts/extract.sh"]);
    assert.deepEqual((await readdir(fresh.projectDir)).filter((n) => n !== ".ai"), [], "nothing installed");
  } finally {
    proxy.close();
  }
});

test("skills from the wild: the specification's example (version \"1.0\") and a versionless skill with --version are published unchanged", async () => {
  // As the Agent Skills specification's example writes it: metadata.version "1.0", beside other metadata.
  const spec = {
    "SKILL.md": `---\nname: pdf-processing\ndescription: Extract text and tables from PDF files, fill forms, merge documents.\nlicense: Apache-2.0\nmetadata:\n  author: example-org\n  version: "1.0"\n---\n\n# PDF processing\n\nUse scripts/fill.py for forms.\n`,
    "scripts/fill.py": "print('fill')\n",
  };
  const bare = { "SKILL.md": "---\nname: bare-skill\ndescription: Declares no version, as many public skills do. Use when testing.\n---\n\n# Bare\n" };
  const specDir = join(ws.projectDir, "wild", "pdf-processing");
  const bareDir = join(ws.projectDir, "wild", "bare-skill");
  await writeSkill(specDir, spec);
  await writeSkill(bareDir, bare);
  const before = { spec: await readTree(specDir), bare: await readTree(bareDir) };
  const push = (args: string[]) => runRye(["push", ...args, "--registry", reg.url, "--yes"], { env, cwd: ws.projectDir });

  const pushed = await push(["wild/pdf-processing"]);
  assert.equal(pushed.code, 0, pushed.stdout + pushed.stderr);
  assert.match(pushed.stdout, /^Pushed skill alice\/pdf-processing@1\.0\.0 \(2 files\)/m);
  assert.match(pushed.stdout, /^SKILL\.md declares version "1\.0", read as 1\.0\.0\.$/m);

  const refused = await push(["wild/bare-skill", "--json"]);
  assert.equal(refused.code, 1);
  const error = (JSON.parse(refused.stdout) as Json).error;
  assert.equal(error.code, "INVALID_VERSION");
  assert.match(error.message, /bare-skill declares no version/);
  assert.match(error.hint, /rye push <dir> --version 1\.0\.0/);
  const contradicting = await push(["wild/pdf-processing", "--version", "1.1.0", "--json"]);
  assert.equal((JSON.parse(contradicting.stdout) as Json).error.code, "VERSION_MISMATCH");
  await writeFile(join(ws.projectDir, "wild", "note.md"), "# A note\n");
  const notASkill = await push(["wild/note.md", "--version", "1.0.0", "--json"]);
  assert.equal((JSON.parse(notASkill.stdout) as Json).error.code, "BAD_REQUEST");

  const given = await push(["wild/bare-skill", "--version", "0.2.0", "--json"]);
  assert.equal(given.code, 0, given.stdout + given.stderr);
  const answer = JSON.parse(given.stdout) as Json;
  assert.deepEqual([answer.item_id, answer.version, answer.declared_version], ["alice/bare-skill", "0.2.0", null]);
  assert.match(answer.version_note, /declares no version; published as 0\.2\.0/);

  // Fetched back from the registry, every file is byte for byte what is on disk; the folders are untouched.
  for (const [dir, id, version, files] of [[specDir, "alice/pdf-processing", "1.0.0", spec], [bareDir, "alice/bare-skill", "0.2.0", bare]] as const) {
    const res = await fetch(`${reg.url}/v1/skills/${id}?version=${version}&files=1`);
    assert.equal(res.status, 200);
    const served = (await res.json()) as Json;
    assert.deepEqual(served.files.map((f: Json) => f.path).sort(), Object.keys(files).sort());
    for (const f of served.files as Json[]) {
      const local = bytes(files[f.path as keyof typeof files]);
      assert.deepEqual(new Uint8Array(Buffer.from(f.content_base64, "base64")), local, `${id} ${f.path}`);
      assert.equal(f.sha256, sha(local));
    }
    assert.deepEqual(await readTree(dir), dir === specDir ? before.spec : before.bare, "the folder is unchanged (no .rye/ written)");
  }
});
