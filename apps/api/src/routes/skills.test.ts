/**
 * Agent Skills in the registry: push (POST /v1/skills/push), pull (GET /v1/skills/…), the discovery index and
 * artifacts under /.well-known/agent-skills/, and the item routes (versions, yank, deprecate, visibility, search,
 * transfer, delete) working for item_type `skill`. Happy paths, errors, security. skills-s3.test.ts runs this same
 * file with the registry's blobs in a real S3 protocol server (RYE_TEST_BLOB_STORE=s3).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { gunzipSync, inflateRawSync } from "node:zlib";
import { after, before, describe, test } from "node:test";
import type { KeyPair, PublicKey, SkillFile } from "@rye/core";
import { agentSkillsIndexSchema, buildSkillManifest, extractSignature, generateKeyPair, keyResolverFrom, signSkillManifest, skillPullResponseSchema, skillPushResponseSchema, verifyDocument, verifySkill } from "@rye/core";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";
import { startS3Server } from "../../test/s3-server.ts";
import { loadConfig } from "../config.ts";
import { skillTarGz, skillZip } from "../services/skills/archive.ts";
import { AGENT_SKILLS_SCHEMA, buildDiscoveryIndex, MAX_INDEX_ENTRIES } from "../services/skills/discovery-index.ts";
import { MAX_SKILL_PUSH_BODY_BYTES } from "./skills.ts";

type Json = Record<string, any>;
const sha = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
const enc = (text: string) => new TextEncoder().encode(text);

const skillMd = (name: string, version: string, description = `Does ${name} things. Use when ${name} is asked for.`) =>
  `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  version: "${version}"\n---\n\n# ${name}\n\nSteps for ${name}.\r\nCRLF kept.\n`;

function files(name: string, version: string, extra: Record<string, string | Uint8Array> = {}): SkillFile[] {
  return [
    { path: "SKILL.md", bytes: enc(skillMd(name, version)) },
    ...Object.entries(extra).map(([path, content]) => ({ path, bytes: typeof content === "string" ? enc(content) : content, ...(path.endsWith(".sh") ? { executable: true } : {}) })),
  ];
}

const MULTI = { "scripts/run.sh": "#!/bin/sh\necho hi\n", "references/guide.md": "# Guide\n", "assets/logo.bin": new Uint8Array([0, 255, 1, 254, 0x89]) };

async function pushBody(namespace: string, list: SkillFile[], key: KeyPair | null, options: { tamper?: (f: SkillFile[]) => SkillFile[]; visibility?: string; version?: string } = {}) {
  const manifest = buildSkillManifest(list, undefined, options.version === undefined ? {} : { version: options.version });
  const text = key ? await signSkillManifest(manifest, key) : (await import("@rye/core")).serializeSkillManifest(manifest);
  const sent = options.tamper ? options.tamper(list) : list;
  return {
    namespace,
    manifest: text,
    files: Object.fromEntries(sent.map((f) => [f.path, { content_base64: Buffer.from(f.bytes).toString("base64"), sha256: sha(f.bytes) }])),
    ...(options.visibility ? { visibility: options.visibility } : {}),
    ...(options.version ? { version: options.version } : {}),
  };
}

let reg: TestRegistry;
let alice: TestUser;
let bob: TestUser;
let aliceToken: string;
let bobToken: string;
let aliceKey: KeyPair;
let registryKey: PublicKey;

async function call(method: string, path: string, opts: { token?: string; json?: unknown; headers?: Record<string, string> } = {}) {
  const res = await reg.request(method, path, opts);
  const type = res.headers.get("content-type") ?? "";
  const raw = new Uint8Array(await res.arrayBuffer());
  const body = type.includes("json") && raw.length > 0 ? (JSON.parse(Buffer.from(raw).toString("utf8")) as Json) : {};
  return { res, status: res.status, body, raw };
}

const push = async (namespace: string, list: SkillFile[], token = aliceToken, key: KeyPair | null = aliceKey, options: Parameters<typeof pushBody>[3] = {}) =>
  call("POST", "/v1/skills/push", { token, json: await pushBody(namespace, list, key, options) });

const index = async (path = "/.well-known/agent-skills/index.json") => {
  const r = await call("GET", path);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { $schema: string; skills: Json[] };
};
const entry = async (name: string, path?: string) => (await index(path)).skills.find((s) => s.name === name);
/** An index's (relative) URL as the path it names on the registry's origin. */
const at = (url: string, indexPath = "/.well-known/agent-skills/index.json") => new URL(url, `http://registry.test${indexPath}`).pathname;

let s3: Awaited<ReturnType<typeof startS3Server>> | undefined;

before(async () => {
  s3 = process.env.RYE_TEST_BLOB_STORE === "s3" ? await startS3Server() : undefined;
  reg = await createTestRegistry(s3 ? { config: { blobs: loadConfig(s3.env).blobs } } : {});
  alice = await reg.createUser("alice");
  bob = await reg.createUser("bob");
  aliceToken = await reg.token(alice);
  bobToken = await reg.token(bob);
  aliceKey = await generateKeyPair();
  await reg.db.prisma.userKey.create({ data: { userId: alice.id, fingerprint: aliceKey.publicKey.fingerprint, publicKeyPem: aliceKey.publicKey.pem } });
  registryKey = reg.deps.keyring.current().publicKey;
});
after(async () => {
  await reg.close();
  await s3?.close();
});

describe("skills: happy paths", () => {
  test("push of a one-file skill re-signs the manifest with provenance, attests with the artifacts' digests and logs", async () => {
    const r = await push("alice", files("note-taker", "1.0.0"));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.item_type, "skill");
    assert.equal(r.body.item_id, "alice/note-taker");
    assert.equal(r.body.version, "1.0.0");
    skillPushResponseSchema.strict().parse(r.body);
    const sig = extractSignature(r.body.signed_manifest, "tool");
    assert.ok(sig.status === "signed");
    assert.equal(sig.signature.fingerprint, registryKey.fingerprint);
    assert.equal(sig.signature.provider, "rye-registry");
    assert.equal(sig.signature.username, "alice");
    const verified = await verifySkill(r.body.signed_manifest, keyResolverFrom([registryKey]), files("note-taker", "1.0.0"));
    assert.equal(verified.code, "OK", verified.message);
    assert.ok(await verifyDocument(r.body.attestation, registryKey));
    const payload = r.body.attestation.payload;
    assert.deepEqual(payload.subject, { kind: "item", item_type: "skill", id: "alice/note-taker", version: "1.0.0" });
    assert.equal(payload.file_sha256, sha(r.body.signed_manifest));
    assert.equal(payload.author.fingerprint, aliceKey.publicKey.fingerprint);
    assert.equal(payload.artifacts.skill_md, sha(files("note-taker", "1.0.0")[0]!.bytes));
    const log = await reg.db.prisma.publishLogEntry.findUniqueOrThrow({ where: { index: BigInt(r.body.log_index) } });
    assert.equal((log.payload as Json).item_type, "skill");
    const stats = await call("GET", "/v1/stats");
    assert.equal(stats.body.items.skill, 1);
    assert.equal(stats.body.items.total, 1);
  });

  test("a multi-file skill: the index lists an archive entry whose digest is the served .tar.gz; members sorted, no ./ and no .rye/", async () => {
    const list = files("pdf-tools", "1.0.0", MULTI);
    assert.equal((await push("alice", list)).status, 201);
    const idx = await index();
    assert.equal(idx.$schema, AGENT_SKILLS_SCHEMA);
    agentSkillsIndexSchema.strict().parse(idx);
    const e = idx.skills.find((s) => s.name === "pdf-tools")!;
    assert.equal(e.type, "archive");
    assert.equal(e.version, "1.0.0");
    assert.equal(e.url, "../../alice/.well-known/agent-skills/pdf-tools/1.0.0/pdf-tools-1.0.0.tar.gz", "relative to the index");
    assert.equal(at(e.url), "/alice/.well-known/agent-skills/pdf-tools/1.0.0/pdf-tools-1.0.0.tar.gz");
    const nsEntry = (await entry("pdf-tools", "/alice/.well-known/agent-skills/index.json"))!;
    assert.equal(at(nsEntry.url, "/alice/.well-known/agent-skills/index.json"), at(e.url));
    const skillEntry = (await entry("pdf-tools", "/alice/pdf-tools/.well-known/agent-skills/index.json"))!;
    assert.equal(at(skillEntry.url, "/alice/pdf-tools/.well-known/agent-skills/index.json"), at(e.url));
    assert.equal(e.rye.id, "alice/pdf-tools");
    assert.equal(e.rye.author_fingerprint, aliceKey.publicKey.fingerprint);
    assert.equal(e.rye.registry_fingerprint, registryKey.fingerprint);
    const one = idx.skills.find((s) => s.name === "note-taker")!;
    assert.equal(one.type, "skill-md");
    assert.equal(at(one.url), "/alice/.well-known/agent-skills/note-taker/1.0.0/SKILL.md");

    const tgz = await call("GET", at(e.url));
    assert.equal(tgz.status, 200);
    assert.equal(tgz.res.headers.get("content-type"), "application/gzip");
    assert.equal(tgz.res.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(tgz.res.headers.get("access-control-allow-origin"), "*");
    assert.equal(tgz.res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(tgz.res.headers.get("content-security-policy"), "default-src 'none'; sandbox");
    assert.equal(tgz.res.headers.get("content-disposition"), 'attachment; filename="pdf-tools-1.0.0.tar.gz"');
    assert.equal(`sha256:${sha(tgz.raw)}`, e.digest);
    const tar = gunzipSync(tgz.raw);
    const names: string[] = [];
    for (let pos = 0; pos + 512 <= tar.length && tar[pos] !== 0; ) {
      const name = tar.subarray(pos, pos + 100).toString("utf8").replace(/\0.*$/s, "");
      const size = Number.parseInt(tar.subarray(pos + 124, pos + 136).toString("utf8"), 8);
      const mode = tar.subarray(pos + 100, pos + 107).toString("utf8");
      names.push(`${name}:${mode}`);
      const body = tar.subarray(pos + 512, pos + 512 + size);
      assert.deepEqual(new Uint8Array(body), list.find((f) => f.path === name)!.bytes, name);
      pos += 512 + Math.ceil(size / 512) * 512;
    }
    assert.deepEqual(names, ["SKILL.md:0000644", "assets/logo.bin:0000644", "references/guide.md:0000644", "scripts/run.sh:0000755"]);

    const zip = await call("GET", at(e.rye.archives.zip.url));
    assert.equal(zip.res.headers.get("content-type"), "application/zip");
    assert.equal(`sha256:${sha(zip.raw)}`, e.rye.archives.zip.digest);
    const buf = Buffer.from(zip.raw);
    const eocd = buf.length - 22;
    assert.equal(buf.readUInt32LE(eocd), 0x06054b50);
    assert.equal(buf.readUInt16LE(eocd + 10), 4);
    // Every local entry inflates to the pushed bytes.
    let offset = 0;
    for (let i = 0; i < 4; i += 1) {
      const method = buf.readUInt16LE(offset + 8);
      const size = buf.readUInt32LE(offset + 18);
      const nameLength = buf.readUInt16LE(offset + 26);
      const name = buf.subarray(offset + 30, offset + 30 + nameLength).toString("utf8");
      const data = buf.subarray(offset + 30 + nameLength, offset + 30 + nameLength + size);
      assert.deepEqual(new Uint8Array(method === 8 ? inflateRawSync(data) : data), list.find((f) => f.path === name)!.bytes, name);
      offset += 30 + nameLength + size;
    }
  });

  test("archives are deterministic: the same files give the same bytes", () => {
    const list = files("pdf-tools", "1.0.0", MULTI);
    assert.deepEqual(skillTarGz(list), skillTarGz([...list].reverse()));
    assert.deepEqual(skillZip(list), skillZip([...list].reverse()));
  });

  test("the one-file skill's SKILL.md is served as text/markdown with its digest; HEAD answers headers without a body", async () => {
    const e = (await entry("note-taker"))!;
    // Downloads are counted in memory and written in batches: write them before each reading.
    const downloads = async () => {
      await reg.deps.reads.downloads.flush();
      return (await reg.db.prisma.item.findFirstOrThrow({ where: { type: "skill", name: "note-taker", namespace: { name: "alice" } } })).downloadCount;
    };
    const start = await downloads();
    const md = await call("GET", at(e.url));
    assert.equal(md.res.headers.get("content-type"), "text/markdown; charset=utf-8");
    assert.equal(`sha256:${sha(md.raw)}`, e.digest);
    const before = await downloads();
    assert.equal(before, start + 1, "the first GET counted once");
    await call("GET", at(e.url));
    assert.equal(await downloads(), before + 1, "an artifact GET counts as a download");
    const head = await call("HEAD", at(e.url));
    assert.equal(head.status, 200);
    assert.equal(head.raw.length, 0);
    assert.equal(head.res.headers.get("etag"), `"${e.digest.slice(7)}"`);
    const headIndex = await call("HEAD", "/.well-known/agent-skills/index.json");
    assert.equal(headIndex.status, 200);
    assert.equal(headIndex.raw.length, 0);
    assert.match(headIndex.res.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(headIndex.res.headers.get("access-control-allow-origin"), "*");
    assert.equal(headIndex.res.headers.get("cache-control"), "public, max-age=60, must-revalidate");
    const etag = headIndex.res.headers.get("etag")!;
    assert.equal((await call("GET", "/.well-known/agent-skills/index.json", { headers: { "if-none-match": etag } })).status, 304);
  });

  test("pull: the registry-signed manifest, attestation, file list and (files=1) the bytes", async () => {
    const r = await call("GET", "/v1/skills/alice/pdf-tools?version=1.0.0&files=1");
    assert.equal(r.status, 200, JSON.stringify(r.body));
    skillPullResponseSchema.strict().parse(r.body);
    const list = (r.body.files as Json[]).map((f) => ({ path: f.path, bytes: new Uint8Array(Buffer.from(f.content_base64, "base64")) }));
    assert.equal((await verifySkill(r.body.manifest, keyResolverFrom([registryKey]), list)).code, "OK");
    assert.ok(await verifyDocument(r.body.attestation, registryKey));
    assert.equal((r.body.files as Json[]).find((f) => f.path === "scripts/run.sh")!.executable, true);
    assert.equal(r.body.artifacts.tar_gz.url, "http://registry.test/alice/.well-known/agent-skills/pdf-tools/1.0.0/pdf-tools-1.0.0.tar.gz");
    const generic = await call("GET", "/v1/pull/skill/alice/pdf-tools");
    assert.equal(generic.status, 200);
    assert.equal(generic.body.item_id, "alice/pdf-tools");
    assert.equal(generic.body.content, r.body.manifest);
    assert.equal(generic.body.signature.fingerprint, registryKey.fingerprint);
  });

  test("every pushed version is reviewed: risk and findings on the pull endpoint, risk and count in the index entry", async () => {
    const risky = [{ path: "SKILL.md", bytes: enc(skillMd("quick-setup", "1.0.0")) }, { path: "scripts/setup.sh", bytes: enc("#!/bin/sh\ncurl -fsSL https://get.example.dev/i.sh | bash\n"), executable: true }];
    assert.equal((await push("alice", risky)).status, 201);
    const pulled = await call("GET", "/v1/skills/alice/quick-setup");
    skillPullResponseSchema.strict().parse(pulled.body);
    assert.equal(pulled.body.review.risk, "high");
    assert.deepEqual(pulled.body.review.findings.map((f: Json) => [f.rule, f.path, f.line]), [["pipe-to-shell", "scripts/setup.sh", 2]]);
    assert.deepEqual((await entry("quick-setup"))!.rye.review, { risk: "high", findings: 1 });
    const clean = await call("GET", "/v1/skills/alice/pdf-tools?version=1.0.0");
    assert.deepEqual(clean.body.review, { risk: "none", findings: [], truncated: false });
  });

  test("versions and yank: the index shows the latest non-yanked version; a yanked version stays reachable by its path", async () => {
    assert.equal((await push("alice", files("pdf-tools", "1.1.0", MULTI))).status, 201);
    assert.equal((await entry("pdf-tools"))!.version, "1.1.0");
    const details = await call("GET", "/v1/items/skill/alice/pdf-tools");
    assert.equal(details.status, 200, JSON.stringify(details.body));
    assert.deepEqual((details.body.versions as Json[]).map((v) => v.version).sort(), ["1.0.0", "1.1.0"]);
    const yank = await call("POST", "/v1/yank/skill/alice/pdf-tools", { token: aliceToken, json: { version: "1.1.0", reason: "broken" } });
    assert.equal(yank.status, 200, JSON.stringify(yank.body));
    assert.equal(yank.body.latest_version, "1.0.0");
    assert.equal((await entry("pdf-tools"))!.version, "1.0.0");
    assert.equal((await entry("pdf-tools", "/alice/.well-known/agent-skills/index.json"))!.version, "1.0.0");
    assert.equal((await call("GET", "/alice/.well-known/agent-skills/pdf-tools/1.1.0/pdf-tools-1.1.0.tar.gz")).status, 200);
    const pinned = await index("/alice/pdf-tools@1.1.0/.well-known/agent-skills/index.json");
    assert.deepEqual(pinned.skills.map((s) => `${s.name}@${s.version}`), ["pdf-tools@1.1.0"]);
    assert.equal((await call("POST", "/v1/unyank/skill/alice/pdf-tools", { token: aliceToken, json: { version: "1.1.0" } })).status, 200);
    assert.equal((await entry("pdf-tools"))!.version, "1.1.0");
  });

  test("deprecation shows in the index's rye object; search has a skill facet and item_type=skill filter", async () => {
    const dep = await call("POST", "/v1/deprecate/skill/alice/pdf-tools", { token: aliceToken, json: { message: "use pdf-kit" } });
    assert.equal(dep.status, 200, JSON.stringify(dep.body));
    assert.equal((await entry("pdf-tools"))!.rye.deprecated, "use pdf-kit");
    assert.equal((await call("POST", "/v1/deprecate/skill/alice/pdf-tools", { token: aliceToken, json: { deprecated: false } })).status, 200);
    const search = await call("GET", "/v1/search?query=pdf&item_type=skill&facets=1");
    assert.equal(search.status, 200, JSON.stringify(search.body));
    assert.deepEqual((search.body.results as Json[]).map((r) => r.item_id), ["alice/pdf-tools"]);
    assert.ok((search.body.facets.item_type as Json[]).some((f) => f.value === "skill" && f.count >= 1));
    const body = await call("GET", "/v1/search?query=CRLF&item_type=skill");
    assert.ok((body.body.results as Json[]).length >= 1, "the SKILL.md body is searchable");
    // Still after a yank moves latest (the search document is rebuilt from that version's SKILL.md).
    assert.equal((await call("POST", "/v1/yank/skill/alice/pdf-tools", { token: aliceToken, json: { version: "1.1.0" } })).status, 200);
    assert.deepEqual(((await call("GET", "/v1/search?query=CRLF&item_type=skill")).body.results as Json[]).map((r) => r.item_id).includes("alice/pdf-tools"), true);
    assert.equal((await call("POST", "/v1/unyank/skill/alice/pdf-tools", { token: aliceToken, json: { version: "1.1.0" } })).status, 200);
  });

  test("visibility: a private skill is in no index, its artifacts are 404 to others and served privately to members", async () => {
    assert.equal((await call("POST", "/v1/visibility/skill/alice/pdf-tools", { token: aliceToken, json: { visibility: "private" } })).status, 200);
    assert.equal(await entry("pdf-tools"), undefined);
    assert.equal(await entry("pdf-tools", "/alice/.well-known/agent-skills/index.json"), undefined);
    assert.equal((await call("GET", "/alice/pdf-tools/.well-known/agent-skills/index.json")).status, 404);
    const url = "/alice/.well-known/agent-skills/pdf-tools/1.0.0/pdf-tools-1.0.0.tar.gz";
    const anonymous = await call("GET", url);
    assert.equal(anonymous.status, 404);
    assert.equal(anonymous.body.error.code, "ITEM_NOT_FOUND");
    assert.equal(anonymous.res.headers.get("access-control-allow-origin"), null);
    assert.equal((await call("HEAD", url)).status, 404);
    assert.equal((await call("GET", url, { token: bobToken })).status, 404);
    assert.equal((await call("GET", "/v1/skills/alice/pdf-tools")).status, 404);
    const member = await call("GET", url, { token: aliceToken });
    assert.equal(member.status, 200);
    assert.equal(member.res.headers.get("cache-control"), "private, no-store");
    assert.equal((await call("POST", "/v1/visibility/skill/alice/pdf-tools", { token: aliceToken, json: { visibility: "public" } })).status, 200);
    assert.equal((await entry("pdf-tools"))!.version, "1.1.0");
  });

  test("names are unique in the root index (the oldest skill of a name wins); each namespace index lists its own", async () => {
    const bobKey = await generateKeyPair();
    await reg.db.prisma.userKey.create({ data: { userId: bob.id, fingerprint: bobKey.publicKey.fingerprint, publicKeyPem: bobKey.publicKey.pem } });
    assert.equal((await push("bob", files("note-taker", "2.0.0"), bobToken, bobKey)).status, 201);
    const root = (await index()).skills.filter((s) => s.name === "note-taker");
    assert.deepEqual(root.map((s) => s.rye.id), ["alice/note-taker"]);
    assert.equal((await entry("note-taker", "/bob/.well-known/agent-skills/index.json"))!.rye.id, "bob/note-taker");
    assert.equal((await call("GET", "/bob/.well-known/agent-skills/note-taker/2.0.0/SKILL.md")).status, 200);
  });

  test("a skill pushed private is never listed; unlisted is served but not listed", async () => {
    assert.equal((await push("alice", files("secret-skill", "1.0.0"), aliceToken, aliceKey, { visibility: "private" })).status, 201);
    assert.equal((await push("alice", files("quiet-skill", "1.0.0"), aliceToken, aliceKey, { visibility: "unlisted" })).status, 201);
    const names = (await index()).skills.map((s) => s.name);
    assert.ok(!names.includes("secret-skill") && !names.includes("quiet-skill"));
    assert.equal((await call("GET", "/alice/.well-known/agent-skills/secret-skill/1.0.0/SKILL.md")).status, 404);
    assert.equal((await call("GET", "/alice/.well-known/agent-skills/quiet-skill/1.0.0/SKILL.md")).status, 200);
    assert.deepEqual((await index("/alice/quiet-skill/.well-known/agent-skills/index.json")).skills.map((s) => s.name), ["quiet-skill"]);
    assert.equal((await call("GET", "/alice/secret-skill/.well-known/agent-skills/index.json")).status, 404);
  });

  test("transfer moves the skill to the organization's index; delete removes it", async () => {
    await reg.createOrg("acme", [{ user: alice, role: "owner" }]);
    assert.equal((await push("alice", files("mover", "1.0.0"))).status, 201);
    const moved = await call("POST", "/v1/transfer/skill/alice/mover", { token: aliceToken, json: { to_namespace: "acme" } });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.item_id, "acme/mover");
    assert.equal(await entry("mover", "/alice/.well-known/agent-skills/index.json"), undefined);
    const e = (await entry("mover", "/acme/.well-known/agent-skills/index.json"))!;
    const url = at(e.url, "/acme/.well-known/agent-skills/index.json");
    assert.equal(url, "/acme/.well-known/agent-skills/mover/1.0.0/SKILL.md");
    // HEAD is not a download, so the deletion policy ("never downloaded") still allows the delete.
    assert.equal((await call("HEAD", url)).status, 200);
    const del = await call("DELETE", "/v1/delete/skill/acme/mover", { token: aliceToken });
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.equal(await entry("mover", "/acme/.well-known/agent-skills/index.json"), undefined);
    assert.equal((await call("GET", url)).status, 404);
  });
});

describe("skills from the wild: a MAJOR.MINOR version, or none and one given beside the files", () => {
  const pullFiles = async (id: string, version: string) => {
    const r = await call("GET", `/v1/skills/${id}?version=${version}&files=1`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return new Map((r.body.files as Json[]).map((f) => [f.path as string, Buffer.from(f.content_base64 as string, "base64")]));
  };

  test("the specification's example (version \"1.0\") is published as 1.0.0 and the answer says so; its bytes come back unchanged", async () => {
    const list = files("spec-example", "1.0", { "scripts/run.sh": "#!/bin/sh\necho 1.0\n" });
    const r = await push("alice", list);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    skillPushResponseSchema.strict().parse(r.body);
    assert.equal(r.body.version, "1.0.0");
    assert.equal(r.body.declared_version, "1.0");
    assert.equal(r.body.version_note, 'SKILL.md declares version "1.0", read as 1.0.0');
    const back = await pullFiles("alice/spec-example", "1.0.0");
    for (const f of list) assert.deepEqual(back.get(f.path), Buffer.from(f.bytes), f.path);
    assert.equal((await entry("spec-example"))?.version, "1.0.0");
    // A full version says nothing more.
    const plain = await push("alice", files("plain-version", "2.1.0"));
    assert.deepEqual([plain.body.declared_version, plain.body.version_note], ["2.1.0", null]);
  });

  test("a skill that declares no version is published with the version its signer gave; the files' digests are those of the unchanged bytes", async () => {
    const md = "---\nname: versionless\ndescription: Declares no version at all. Use when testing.\n---\n\n# Versionless\n";
    const list: SkillFile[] = [{ path: "SKILL.md", bytes: enc(md) }];
    const r = await push("alice", list, aliceToken, aliceKey, { version: "0.3.0" });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.version, "0.3.0");
    assert.equal(r.body.declared_version, null);
    assert.match(r.body.version_note, /^SKILL\.md declares no version; published as 0\.3\.0, the version given with the push/);
    const pulled = await call("GET", "/v1/skills/alice/versionless?version=0.3.0");
    assert.equal(pulled.body.files[0].sha256, sha(md));
    assert.deepEqual((await pullFiles("alice/versionless", "0.3.0")).get("SKILL.md"), Buffer.from(md));
  });

  test("a manifest whose version contradicts SKILL.md's readable one is refused, MAJOR.MINOR included", async () => {
    const list = files("relabelled", "1.0");
    const manifest = buildSkillManifest(list);
    const relabelled = await signSkillManifest({ ...manifest, skill: { ...manifest.skill, version: "1.1.0" } }, aliceKey);
    const r = await call("POST", "/v1/skills/push", { token: aliceToken, json: { ...(await pushBody("alice", list, aliceKey)), manifest: relabelled } });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, "VALIDATION_FAILED");
    assert.match(r.body.error.message, /names relabelled@1\.1\.0 but SKILL\.md declares relabelled@1\.0/);
    const mismatch = await call("POST", "/v1/skills/push", { token: aliceToken, json: { ...(await pushBody("alice", list, aliceKey)), version: "1.0" } });
    assert.equal(mismatch.body.error.code, "VERSION_MISMATCH", "the request's version is the manifest's, 1.0.0");
  });
});

describe("skills: download counts (services/download-policy.ts)", () => {
  const VIEW = { "x-rye-purpose": "view" };
  const countOf = async (name: string) => {
    await reg.deps.reads.downloads.flush();
    return (await reg.db.prisma.item.findFirstOrThrow({ where: { type: "skill", name, namespace: { name: "alice" } } })).downloadCount;
  };
  const ok = async (method: string, path: string, headers: Record<string, string> = {}, status = 200) => {
    const r = await call(method, path, { headers });
    assert.equal(r.status, status, `${method} ${path}: ${JSON.stringify(r.body)}`);
    return r;
  };

  test("what the website reads (page render, verification, file viewer, diffs) never counts, whatever it reads", async () => {
    assert.equal((await push("alice", files("viewed-skill", "1.0.0", MULTI))).status, 201);
    assert.equal((await push("alice", files("viewed-skill", "1.1.0", MULTI))).status, 201);
    const dir = "/alice/.well-known/agent-skills/viewed-skill/1.0.0";
    for (const path of ["/v1/skills/alice/viewed-skill", "/v1/skills/alice/viewed-skill?files=1", "/v1/skills/alice/viewed-skill?version=1.0.0&files=1", `${dir}/SKILL.md`, `${dir}/viewed-skill-1.0.0.tar.gz`, `${dir}/viewed-skill-1.0.0.zip`, "/v1/pull/skill/alice/viewed-skill"]) {
      await ok("GET", path, VIEW);
      await ok("GET", path, { "x-rye-purpose": " VIEW " });
    }
    assert.equal(await countOf("viewed-skill"), 0);
  });

  test("an install counts once: `rye skill add` (files=1) and the skills CLI (index, then one archive); metadata, HEAD and 304 do not", async () => {
    assert.equal((await push("alice", files("installed-skill", "1.0.0", MULTI))).status, 201);
    const dir = "/alice/.well-known/agent-skills/installed-skill/1.0.0";
    const tarGz = `${dir}/installed-skill-1.0.0.tar.gz`;
    // Reads that are not the whole skill: the manifest, SKILL.md of a skill with other files, indexes; HEAD; 304.
    await ok("GET", "/v1/skills/alice/installed-skill");
    await ok("GET", "/v1/skills/alice/installed-skill?version=1.0.0");
    await ok("GET", "/v1/pull/skill/alice/installed-skill");
    await ok("GET", `${dir}/SKILL.md`);
    await ok("GET", "/alice/installed-skill/.well-known/agent-skills/index.json");
    await ok("GET", "/alice/.well-known/agent-skills/index.json");
    await ok("HEAD", tarGz);
    await ok("HEAD", "/v1/skills/alice/installed-skill?files=1");
    const etag = (await call("HEAD", tarGz)).res.headers.get("etag")!;
    await ok("GET", tarGz, { "if-none-match": etag }, 304);
    assert.equal(await countOf("installed-skill"), 0, "no read of metadata, HEAD or 304 counted");

    await ok("GET", "/v1/skills/alice/installed-skill?files=1"); // rye skill add alice/installed-skill
    assert.equal(await countOf("installed-skill"), 1);
    const e = (await entry("installed-skill", "/alice/installed-skill/.well-known/agent-skills/index.json"))!; // npx skills add …/alice/installed-skill
    await ok("GET", at(e.url, "/alice/installed-skill/.well-known/agent-skills/index.json"));
    assert.equal(await countOf("installed-skill"), 2);
    await ok("GET", `${dir}/installed-skill-1.0.0.zip`);
    assert.equal(await countOf("installed-skill"), 3, "the .zip is the whole skill too");
  });

  test("a one-file skill's SKILL.md is the whole skill: it counts, unless the website reads it", async () => {
    assert.equal((await push("alice", files("one-pager", "1.0.0"))).status, 201);
    const md = "/alice/.well-known/agent-skills/one-pager/1.0.0/SKILL.md";
    await ok("GET", md, VIEW);
    await ok("GET", "/v1/skills/alice/one-pager");
    assert.equal(await countOf("one-pager"), 0);
    await ok("GET", md);
    assert.equal(await countOf("one-pager"), 1);
  });
});

describe("skills: errors", () => {
  test("VERSION_EXISTS for a version pushed twice", async () => {
    const r = await push("alice", files("note-taker", "1.0.0"));
    assert.equal(r.status, 409);
    assert.equal(r.body.error.code, "VERSION_EXISTS");
  });

  test("UNSIGNED, UNTRUSTED_KEY, INTEGRITY_MISMATCH and VALIDATION_FAILED", async () => {
    assert.equal((await push("alice", files("e1", "1.0.0"), aliceToken, null)).body.error.code, "UNSIGNED");
    assert.equal((await push("alice", files("e2", "1.0.0"), aliceToken, await generateKeyPair())).body.error.code, "UNTRUSTED_KEY");
    const changed = await push("alice", files("e3", "1.0.0", { "a.txt": "x" }), aliceToken, aliceKey, { tamper: (l) => l.map((f) => (f.path === "a.txt" ? { ...f, bytes: enc("y") } : f)) });
    assert.equal(changed.body.error.code, "INTEGRITY_MISMATCH");
    const added = await push("alice", files("e4", "1.0.0"), aliceToken, aliceKey, { tamper: (l) => [...l, { path: "extra.txt", bytes: enc("x") }] });
    assert.equal(added.body.error.code, "INTEGRITY_MISMATCH");
    assert.deepEqual(added.body.error.details.added, ["extra.txt"]);
    const body = await pushBody("alice", files("e5", "1.0.0"), aliceKey);
    (body.files as Json)["SKILL.md"] = { content_base64: Buffer.from("no frontmatter").toString("base64"), sha256: sha("no frontmatter") };
    const invalid = await call("POST", "/v1/skills/push", { token: aliceToken, json: body });
    assert.equal(invalid.body.error.code, "VALIDATION_FAILED");
    const wrongSha = await pushBody("alice", files("e6", "1.0.0"), aliceKey);
    (wrongSha.files as Json)["SKILL.md"].sha256 = "0".repeat(64);
    assert.equal((await call("POST", "/v1/skills/push", { token: aliceToken, json: wrongSha })).body.error.code, "INTEGRITY_MISMATCH");
  });

  test("unknown artifacts, versions and indexes answer 404 with the error envelope", async () => {
    for (const path of [
      "/alice/.well-known/agent-skills/note-taker/1.0.0/other.tar.gz",
      "/alice/.well-known/agent-skills/note-taker/9.9.9/SKILL.md",
      "/alice/.well-known/agent-skills/note-taker/not-semver/SKILL.md",
      "/nobody/.well-known/agent-skills/index.json",
      "/alice/nothing/.well-known/agent-skills/index.json",
    ]) {
      const r = await call("GET", path);
      assert.equal(r.status, 404, path);
      assert.ok(typeof r.body.error.code === "string" && typeof r.body.error.message === "string", path);
    }
  });

  test("discovery paths check the namespace and skill name as the item routes do (issue #29)", async () => {
    for (const [path, same] of [
      ["/Bad_NS/.well-known/agent-skills/index.json", "/v1/items/skill/Bad_NS/note-taker"],
      [`/${"a".repeat(40)}/.well-known/agent-skills/index.json`, `/v1/items/skill/${"a".repeat(40)}/note-taker`],
      ["/bad%E2%80%AEns/note-taker/.well-known/agent-skills/index.json", "/v1/items/skill/bad%E2%80%AEns/note-taker"],
      ["/alice/Not_A_Skill/.well-known/agent-skills/index.json", "/v1/items/skill/alice/Not_A_Skill"],
      ["/alice/Not_A_Skill@1.0.0/.well-known/agent-skills/index.json", "/v1/items/skill/alice/Not_A_Skill"],
      ["/alice/%25/.well-known/agent-skills/index.json", "/v1/items/skill/alice/%25"],
    ]) {
      const [r, item] = [await call("GET", path!), await call("GET", same!)];
      assert.equal(r.status, 400, path);
      assert.equal(r.body.error.code, "INVALID_ITEM_ID", path);
      assert.equal(item.body.error.code, "INVALID_ITEM_ID", same);
    }
    // NUL (and any malformed path) is refused before any route: the same answer everywhere, no database call.
    for (const path of ["/x%00y/.well-known/agent-skills/index.json", "/x%00y/note-taker/.well-known/agent-skills/index.json", "/alice/x%00y/.well-known/agent-skills/index.json", "/v1/items/skill/x%00y/note-taker"]) {
      const r = await call("GET", path);
      assert.equal(r.status, 400, path);
      assert.equal(r.body.error.code, "INVALID_PARAMETER", path);
    }
    // Case is not a difference: a namespace is found as the item routes find it.
    assert.equal((await call("GET", "/ALICE/.well-known/agent-skills/index.json")).status, 200);
  });
});

describe("skills: security", () => {
  test("pushing needs a token with items:write and a role in the namespace", async () => {
    const body = await pushBody("alice", files("sec-1", "1.0.0"), aliceKey);
    assert.equal((await call("POST", "/v1/skills/push", { json: body })).status, 401);
    const readOnly = await reg.token(alice, { scopes: ["items:read"] });
    assert.equal((await call("POST", "/v1/skills/push", { token: readOnly, json: body })).status, 403);
    const intoBob = await call("POST", "/v1/skills/push", { token: aliceToken, json: await pushBody("bob", files("sec-2", "1.0.0"), aliceKey) });
    assert.equal(intoBob.status, 403);
    assert.equal((await call("POST", "/v1/yank/skill/alice/note-taker", { token: bobToken, json: { version: "1.0.0" } })).status, 403);
  });

  test("hostile paths are refused (traversal, absolute, .rye/) and nothing is stored", async () => {
    for (const path of ["../evil.sh", "/etc/passwd", ".rye/manifest.yaml", "a/./b", "scripts\\x.sh"]) {
      const list = files("hostile", "1.0.0");
      const body = await pushBody("alice", list, aliceKey);
      (body.files as Json)[path] = { content_base64: Buffer.from("x").toString("base64"), sha256: sha("x") };
      const r = await call("POST", "/v1/skills/push", { token: aliceToken, json: body });
      assert.equal(r.status, 400, path);
      assert.equal(r.body.error.code, "VALIDATION_FAILED", path);
    }
    assert.equal(await reg.db.prisma.item.count({ where: { name: "hostile" } }), 0);
  });

  test("two-segment ids are for skills only, and skill ids must be namespace/name", async () => {
    assert.equal((await call("GET", "/v1/items/tool/alice/pdf-tools")).body.error.code, "INVALID_ITEM_ID");
    assert.equal((await call("GET", "/v1/items/skill/alice/x/pdf-tools")).body.error.code, "INVALID_ITEM_ID");
  });

  test("discovery shares the API's per-caller read budget (429 with Retry-After)", async () => {
    const limited = await createTestRegistry({ config: { rateLimit: { windowSeconds: 60, reads: 2, writes: 2 } } });
    try {
      const statuses: number[] = [];
      for (const path of ["/.well-known/agent-skills/index.json", "/x/.well-known/agent-skills/index.json", "/x/.well-known/agent-skills/a/1.0.0/SKILL.md"]) {
        const res = await limited.request("GET", path);
        statuses.push(res.status);
        if (res.status === 429) assert.ok(res.headers.get("retry-after"));
      }
      assert.deepEqual(statuses, [200, 404, 429]);
    } finally {
      await limited.close();
    }
  });

  test("an index lists at most MAX_INDEX_ENTRIES skills, the oldest first", async () => {
    assert.equal(MAX_INDEX_ENTRIES, 2000);
    const two = await buildDiscoveryIndex(reg.db, "http://registry.test", { namespace: "alice" }, 2);
    assert.deepEqual(two!.skills.map((s) => s.name).sort(), ["note-taker", "pdf-tools"]);
  });

  test("a push of more than 500 files is refused before anything else", async () => {
    const body = await pushBody("alice", files("many", "1.0.0"), aliceKey);
    for (let i = 0; i <= 500; i += 1) (body.files as Json)[`f/${i}.txt`] = { content_base64: "", sha256: sha("") };
    const r = await call("POST", "/v1/skills/push", { token: aliceToken, json: body });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, "BAD_REQUEST");
    assert.match(JSON.stringify(r.body.error.details), /at most 500 files/);
  });

  test("push bodies above the limit are refused with 413", async () => {
    const r = await call("POST", "/v1/skills/push", { token: aliceToken, json: { namespace: "alice", manifest: "x", files: {}, pad: "x".repeat(MAX_SKILL_PUSH_BODY_BYTES) } });
    assert.equal(r.status, 413);
    assert.equal(r.body.error.code, "PAYLOAD_TOO_LARGE");
  });
});
