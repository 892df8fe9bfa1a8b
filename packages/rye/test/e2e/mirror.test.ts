/**
 * End to end, a mirror chain (issue #14, docs/mirroring.md): a public registry → an organization's registry that
 * mirrors it (RYE_UPSTREAM_URL) → the real `rye` binary. Both registries are the real API on loopback ports and
 * PostgreSQL; every request the public registry receives is recorded, so "never goes upstream" is checked on the wire.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { itemDetailsSchema, mirroredSectionSchema, publicKeyFromPem, pullResponseSchema, searchResponseSchema, verifyMirroredSection, verifyRegistryCopy } from "@rye/core";
import type { Database } from "@rye/db";
import { hashToken, TOKEN_PREFIX } from "../../../../apps/api/src/auth/api-tokens.ts";
import { runRye } from "../cli.ts";
import type { TestRegistry } from "../registry-server.ts";
import { type MirrorServer, startMirrorServer } from "../mirror-server.ts";
import { startProxy, startTestRegistry } from "../registry-server.ts";
import { createWorkspace, nodeTool } from "../workspace.ts";

type Json = Record<string, any>;

const HELLO = "alice/tools/hello";
const LATER = "alice/tools/later";
const SECRET = "acme/tools/secret-plan";
const BEFORE = "alice/tools/before";
const tool = (result: string, version = "1.0.0") => nodeTool("tools", `export function main() { return ${result}; }`).replace('__version__ = "1.0.0"', `__version__ = "${version}"`);

/** A user with an items:read/write token, created in the registry's database; `push` publishes over HTTP. */
async function publisher(reg: { url: string; db: Database }, username: string, org?: string) {
  const prisma = reg.db.prisma;
  const user = await prisma.user.create({ data: { username, email: `${username}@example.test` } });
  await prisma.namespace.create({ data: { name: username, userId: user.id } });
  if (org) {
    const organization = await prisma.organization.create({ data: { name: org } });
    await prisma.namespace.create({ data: { name: org, orgId: organization.id } });
    await prisma.membership.create({ data: { orgId: organization.id, userId: user.id, role: "owner" } });
  }
  const token = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
  await prisma.apiToken.create({ data: { userId: user.id, name: "test", tokenHash: hashToken(token), scopes: ["items:read", "items:write"] } });
  return {
    token,
    async push(id: string, content: string, visibility: "public" | "private" = "public", version = "1.0.0"): Promise<Json> {
      const res = await fetch(`${reg.url}/v1/push`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ item_type: "tool", item_id: id, version, content, file_extension: ".mjs", metadata: { visibility } }),
      });
      const body = (await res.json()) as Json;
      assert.equal(res.status, 201, JSON.stringify(body));
      return body;
    },
  };
}

/** A client whose default registry is the mirror. */
async function consumer(registryUrl: string) {
  const ws = await createWorkspace();
  const env: NodeJS.ProcessEnv = { ...ws.env, RYE_REGISTRY_URL: registryUrl };
  delete env.RYE_OFFLINE;
  delete env.RYE_TOKEN;
  return {
    ws,
    async rye(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number; body: Json; stderr: string }> {
      const run = await runRye([...args, "--json"], { env: { ...env, ...extraEnv }, cwd: ws.projectDir });
      return { code: run.code, body: JSON.parse(run.stdout) as Json, stderr: run.stderr };
    },
  };
}

async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(url, { headers });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
}

let pub: TestRegistry;
let mirror: MirrorServer;
let bob: Awaited<ReturnType<typeof publisher>>;
let alice: Awaited<ReturnType<typeof publisher>>;
const MIRROR_ENV = { RYE_UPSTREAM_TIMEOUT_MS: "3000", RYE_UPSTREAM_SEARCH_TIMEOUT_MS: "2000" };

/** Requests to the public registry whose path mentions `needle`. */
const upstreamMentions = (needle: string) => pub.requests.filter((r) => r.path.toLowerCase().includes(needle.toLowerCase()));

before(async () => {
  pub = await startTestRegistry();
  mirror = await startMirrorServer({ ...MIRROR_ENV, RYE_UPSTREAM_URL: pub.url });
  alice = await publisher(pub, "alice");
  await alice.push(HELLO, tool(`{ from: "public" }`));
  await alice.push(LATER, tool(`{ from: "public, never pulled before the outage" }`));
  await alice.push(BEFORE, tool(`{ from: "signed before the upstream's key rotation" }`));
  // Someone owns "acme" on the public registry too: the mirror must never surface or fetch it.
  const carol = await publisher(pub, "carol", "acme");
  await carol.push("acme/tools/hello", tool(`{ from: "public-acme" }`));
  // The organization's registry: acme is bob's organization there, with a private item.
  bob = await publisher(mirror, "bob", "acme");
  await bob.push(SECRET, tool(`{ from: "acme", secret: 42 }`), "private");
  await bob.push("bob/tools/hello", tool(`{ from: "bob, local" }`));
  pub.requests.length = 0;
});

after(async () => {
  await Promise.all([pub?.close(), mirror?.close()]);
});

test("rye pull through the mirror: the client verifies the upstream item with the mirror's key; the upstream's signature and attestation ride along intact", async () => {
  const c = await consumer(mirror.url);
  const pulled = await c.rye(["pull", HELLO]);
  assert.equal(pulled.code, 0, JSON.stringify(pulled.body) + pulled.stderr);
  assert.equal(pulled.body.registry, mirror.url);
  assert.equal(pulled.body.version, "1.0.0");
  const mirrorKey = (await mirror.deps().keyring.signer()).publicKey;
  assert.equal(pulled.body.registry_fingerprint, mirrorKey.fingerprint);
  // Without --type the client asks for every type; the tool is fetched from the upstream once.
  assert.deepEqual(upstreamMentions(`/v1/pull/tool/${HELLO}`).map((r) => r.path), [`/v1/pull/tool/${HELLO}`]);

  // Cached in the mirror's database, marked with where it came from.
  const rows = await mirror.db.prisma.mirroredVersion.findMany();
  assert.deepEqual(rows.map((r) => [r.itemId, r.version, r.upstreamUrl, r.upstreamKeyFingerprint]), [[HELLO, "1.0.0", pub.url, await pub.activeFingerprint()]]);

  // The mirror's answer: its own signature and attestation (what existing clients check) plus the upstream's, intact.
  const direct = await getJson(`${pub.url}/v1/pull/tool/${HELLO}?version=1.0.0`);
  const viaMirror = await getJson(`${mirror.url}/v1/pull/tool/${HELLO}?version=1.0.0`);
  assert.equal(viaMirror.status, 200);
  assert.equal(viaMirror.headers.get("x-rye-mirror"), "cache");
  const answer = viaMirror.body;
  assert.ok(pullResponseSchema.safeParse(answer).success, "the documented pull answer, with `mirrored`");
  assert.equal(answer.mirrored.upstream, pub.url);
  assert.equal(answer.mirrored.content, direct.body.content, "the upstream's file, byte for byte");
  assert.deepEqual(answer.mirrored.attestation, direct.body.attestation, "the upstream's signed attestation, unchanged");
  assert.notEqual(answer.content, direct.body.content, "served re-signed by the mirror");
  assert.equal(answer.content_hash, direct.body.content_hash, "same content hash: only the signature line differs");
  assert.equal(answer.attestation.payload.mirror_of.registry, pub.url);

  // Either signature verifies: the mirror's with the mirror's key, the upstream's with the upstream's key.
  const ours = await verifyRegistryCopy({ type: "tool", id: HELLO, version: "1.0.0", content: answer.content, attestation: answer.attestation }, [mirrorKey]);
  const upstreamKey = publicKeyFromPem(await (await fetch(`${pub.url}/v1/public-key`)).text());
  const theirs = await verifyMirroredSection(
    { type: "tool", id: HELLO, version: "1.0.0", contentHash: ours.contentHash, mirrorAttestation: answer.attestation },
    mirroredSectionSchema.parse(answer.mirrored),
    [upstreamKey],
  );
  assert.equal(theirs.key.fingerprint, await pub.activeFingerprint());
  await assert.rejects(verifyMirroredSection({ type: "tool", id: HELLO, version: "1.0.0", contentHash: ours.contentHash, mirrorAttestation: answer.attestation }, mirroredSectionSchema.parse(answer.mirrored), [mirrorKey]), /not pinned/);

  // The mirror logged what it vouched for in its own transparency log, as a digest: its public changes feed does not
  // tell which upstream items the organization pulls.
  const logged = await mirror.db.prisma.publishLogEntry.findUniqueOrThrow({ where: { index: BigInt(answer.attestation.payload.log_index) } });
  assert.equal(logged.kind, "mirror");
  assert.equal((logged.payload as Json).private, true);
  const changes = await getJson(`${mirror.url}/v1/changes?since=0`);
  assert.equal(changes.status, 200);
  assert.ok(!JSON.stringify(changes.body).includes(HELLO), "the changes feed does not list mirrored pulls");

  // The versions page of an upstream item, through the mirror.
  const item = await getJson(`${mirror.url}/v1/items/tool/${HELLO}`);
  assert.equal(item.status, 200);
  assert.equal(item.body.mirrored_from, pub.url);
  assert.deepEqual(item.body.versions.map((v: Json) => v.version), ["1.0.0"]);
});

test("rye verify rechecks a mirror's copy offline: the lock keeps the countersignature its log entry digests; an edited lock fails", async () => {
  const c = await consumer(mirror.url);
  const pulled = await c.rye(["pull", HELLO, "--type", "tool"]);
  assert.equal(pulled.code, 0, JSON.stringify(pulled.body) + pulled.stderr);
  const lockPath = join(c.ws.projectDir, ".ai", "rye.lock");
  const original = await readFile(lockPath, "utf8");
  const lock = JSON.parse(original) as { items: { id: string; log: { index: number; tree_size: number; mirror_of?: Json } }[] };
  const entry = lock.items.find((e) => e.id === HELLO)!;
  const logged = await mirror.db.prisma.publishLogEntry.findUniqueOrThrow({ where: { index: BigInt(entry.log.index) } });
  assert.equal(logged.kind, "mirror", "the lock's proof is of the mirror's own entry");
  assert.equal(entry.log.mirror_of?.registry, pub.url);
  assert.equal(entry.log.mirror_of?.key_fingerprint, await pub.activeFingerprint());

  const offline = { RYE_REGISTRY_URL: "http://127.0.0.1:9" }; // nothing listens: the check is offline
  const verified = await c.rye(["verify", pulled.body.path as string], offline);
  assert.equal(verified.code, 0, JSON.stringify(verified.body) + verified.stderr);
  assert.deepEqual(verified.body.log, { status: "verified", index: entry.log.index, tree_size: entry.log.tree_size });

  // The countersignature edited (another upstream log index), or dropped: the mirror's entry no longer matches.
  for (const edit of [(m: Json) => void (m.log_index += 1), (_m: Json, e: typeof entry) => void delete e.log.mirror_of]) {
    const copy = JSON.parse(original) as typeof lock;
    const target = copy.items.find((e) => e.id === HELLO)!;
    edit(target.log.mirror_of!, target);
    await writeFile(lockPath, JSON.stringify(copy));
    try {
      const edited = await c.rye(["verify", pulled.body.path as string], offline);
      assert.equal(edited.code, 1, JSON.stringify(edited.body));
      assert.equal(edited.body.error.code, "LOG_ENTRY_MISMATCH");
    } finally {
      await writeFile(lockPath, original);
    }
  }
});

test("an org's namespace never goes upstream: private items, unknown names, item pages and searches naming it stay local", async () => {
  pub.requests.length = 0;
  // Anonymous: the private item does not exist as far as this caller can tell — and the upstream is not asked.
  const anonymous = await getJson(`${mirror.url}/v1/pull/tool/${SECRET}`);
  assert.equal(anonymous.status, 404);
  assert.equal(anonymous.body.error.code, "ITEM_NOT_FOUND");
  // A member pulls it.
  const member = await getJson(`${mirror.url}/v1/pull/tool/${SECRET}`, { authorization: `Bearer ${bob.token}` });
  assert.equal(member.status, 200);
  assert.equal(member.body.mirrored, undefined);
  // Names in the org's namespace that exist nowhere, and the public registry's own acme/tools/hello: local only.
  for (const path of [`/v1/pull/tool/acme/tools/secret-plan-v2`, `/v1/pull/tool/acme/tools/hello`, `/v1/items/tool/${SECRET}`, `/v1/items/tool/acme/tools/hello`]) {
    const res = await getJson(`${mirror.url}${path}`);
    assert.equal(res.status, 404, path);
  }
  // Searches that name the namespace or the private item are answered locally.
  for (const query of ["query=secret-plan", "query=acme", "query=the%20acme%20secret-plan", "query=&namespace=acme", "query=SECRET-PLAN%20draft"]) {
    const res = await getJson(`${mirror.url}/v1/search?${query}`);
    assert.equal(res.status, 200, query);
    assert.equal(res.body.upstream, undefined, `${query} must not reach the upstream`);
  }
  // And through the client.
  const c = await consumer(mirror.url);
  const refused = await c.rye(["pull", SECRET]);
  assert.equal(refused.code, 1);
  assert.equal(refused.body.error.code, "ITEM_NOT_FOUND", JSON.stringify(refused.body));

  assert.deepEqual(upstreamMentions("secret"), [], "the private item's name never reaches the upstream");
  assert.deepEqual(upstreamMentions("acme"), [], "nor does the org's namespace");
});

test("search merges upstream hits after local ones, deduplicated, without the upstream's look-alikes of local namespaces", async () => {
  pub.requests.length = 0;
  const res = await getJson(`${mirror.url}/v1/search?query=hello`);
  assert.equal(res.status, 200);
  assert.equal(res.body.upstream, "ok");
  assert.deepEqual(searchResponseSchema.safeParse(res.body).error, undefined);
  const ids = res.body.results.map((r: Json) => r.item_id);
  assert.equal(ids[0], "bob/tools/hello", "local first");
  assert.ok(ids.includes(HELLO), JSON.stringify(ids));
  assert.ok(!ids.includes("acme/tools/hello"), "an upstream item in a namespace the mirror owns is never listed");
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(res.body.results.find((r: Json) => r.item_id === HELLO).mirrored_from, pub.url);
  assert.equal(res.body.results[0].mirrored_from, undefined);
  assert.equal(upstreamMentions("/v1/search").length, 1);
});

test("upstream stopped: cached items are still served (pinned and latest); uncached ones fail with UPSTREAM_UNAVAILABLE; search answers locally", async () => {
  await pub.stop();
  try {
    const c = await consumer(mirror.url);
    const cachedPinned = await c.rye(["pull", `${HELLO}@1.0.0`]);
    assert.equal(cachedPinned.code, 0, JSON.stringify(cachedPinned.body) + cachedPinned.stderr);
    const c2 = await consumer(mirror.url);
    const cachedLatest = await c2.rye(["pull", HELLO]);
    assert.equal(cachedLatest.code, 0, JSON.stringify(cachedLatest.body) + cachedLatest.stderr);
    assert.equal(cachedLatest.body.version, "1.0.0");
    const stale = await fetch(`${mirror.url}/v1/pull/tool/${HELLO}`);
    assert.equal(stale.status, 200);
    assert.equal(stale.headers.get("x-rye-mirror"), "stale");
    await stale.body?.cancel();

    const uncached = await getJson(`${mirror.url}/v1/pull/tool/${LATER}`);
    assert.equal(uncached.status, 502);
    assert.equal(uncached.body.error.code, "UPSTREAM_UNAVAILABLE");
    const uncachedPinned = await getJson(`${mirror.url}/v1/pull/tool/${LATER}?version=1.0.0`);
    assert.equal(uncachedPinned.body.error.code, "UPSTREAM_UNAVAILABLE");
    const viaClient = await c.rye(["pull", `${LATER}@1.0.0`]);
    assert.equal(viaClient.code, 1);
    assert.equal(viaClient.body.error.code, "UPSTREAM_UNAVAILABLE", JSON.stringify(viaClient.body));

    const item = await getJson(`${mirror.url}/v1/items/tool/${HELLO}`);
    assert.equal(item.status, 200);
    assert.equal(item.body.upstream_unavailable, true);
    assert.deepEqual(itemDetailsSchema.safeParse(item.body).error, undefined);
    const search = await getJson(`${mirror.url}/v1/search?query=hello`);
    assert.equal(search.status, 200);
    assert.equal(search.body.upstream, "unavailable");
    assert.deepEqual(search.body.results.map((r: Json) => r.item_id), ["bob/tools/hello"]);
  } finally {
    await pub.restart();
  }
});

test("an upstream that never answers: pulls and searches end at their deadline with UPSTREAM_UNAVAILABLE", async () => {
  // A proxy that holds every pull open: the mirror must give up on its own deadline, not hang.
  const hanging = await startProxy(pub.url, async (path, body) => {
    if (path.startsWith("/v1/pull/") || path.startsWith("/v1/search")) await new Promise(() => undefined);
    return body;
  });
  try {
    await mirror.reconfigure({ RYE_UPSTREAM_URL: hanging.url, RYE_UPSTREAM_TIMEOUT_MS: "300", RYE_UPSTREAM_SEARCH_TIMEOUT_MS: "300" });
    const res = await getJson(`${mirror.url}/v1/pull/tool/${LATER}?version=1.0.0`);
    assert.equal(res.status, 502);
    assert.equal(res.body.error.code, "UPSTREAM_UNAVAILABLE");
    assert.match(res.body.error.message, /no answer within 300 ms/);
    const search = await getJson(`${mirror.url}/v1/search?query=later`);
    assert.equal(search.status, 200);
    assert.equal(search.body.upstream, "unavailable");
  } finally {
    await mirror.reconfigure({ ...MIRROR_ENV, RYE_UPSTREAM_URL: pub.url });
    await hanging.close().catch(() => undefined);
  }
});

test("mirrors configured in a loop end with UPSTREAM_UNAVAILABLE instead of forwarding forever", async () => {
  const other = await startMirrorServer({ ...MIRROR_ENV, RYE_UPSTREAM_URL: mirror.url });
  try {
    await mirror.reconfigure({ ...MIRROR_ENV, RYE_UPSTREAM_URL: other.url });
    const res = await getJson(`${mirror.url}/v1/pull/tool/zed/tools/nowhere?version=1.0.0`);
    assert.equal(res.status, 502);
    assert.equal(res.body.error.code, "UPSTREAM_UNAVAILABLE");
    // A search ends too: the innermost mirror answers alone, each one around it merges that (empty) answer.
    const search = await getJson(`${mirror.url}/v1/search?query=nowhere`);
    assert.equal(search.status, 200);
    assert.deepEqual(search.body.results, []);
  } finally {
    await mirror.reconfigure({ ...MIRROR_ENV, RYE_UPSTREAM_URL: pub.url });
    await other.close();
  }
});

test("a tampered upstream answer is refused (UPSTREAM_UNTRUSTED) and nothing is cached", async () => {
  const cases: [string, (body: Json) => Json][] = [
    ["content", (b) => ({ ...b, content: b.content.replace("never pulled before the outage", "evil") })],
    ["attestation", (b) => ({ ...b, attestation: { ...b.attestation, payload: { ...b.attestation.payload, publisher: "mallory" } } })],
    ["relabelled item", (b) => ({ ...b, item_id: "alice/tools/other" })],
  ];
  for (const [what, rewrite] of cases) {
    const proxy = await startProxy(pub.url, (path, body) => (path.startsWith("/v1/pull/tool/") && typeof (body as Json).content === "string" ? rewrite(body as Json) : body));
    try {
      await mirror.reconfigure({ ...MIRROR_ENV, RYE_UPSTREAM_URL: proxy.url });
      const res = await getJson(`${mirror.url}/v1/pull/tool/${LATER}?version=1.0.0`);
      assert.equal(res.status, 502, what);
      assert.equal(res.body.error.code, "UPSTREAM_UNTRUSTED", `${what}: ${JSON.stringify(res.body)}`);
      const c = await consumer(mirror.url);
      const viaClient = await c.rye(["pull", `${LATER}@1.0.0`]);
      assert.equal(viaClient.code, 1, what);
      assert.equal(viaClient.body.error.code, "UPSTREAM_UNTRUSTED", what);
      assert.equal(await mirror.db.prisma.mirroredVersion.count({ where: { itemId: LATER } }), 0, `${what}: nothing cached`);
    } finally {
      await proxy.close();
    }
  }
  await mirror.reconfigure({ ...MIRROR_ENV, RYE_UPSTREAM_URL: pub.url });
});

test("concurrent first pulls of one upstream version store one copy and one log entry, and all get it", async () => {
  await alice.push("alice/tools/racy", tool(`{ from: "racy" }`));
  const logBefore = await mirror.db.prisma.publishLogEntry.count({ where: { kind: "mirror" } });
  const answers = await Promise.all(Array.from({ length: 8 }, () => getJson(`${mirror.url}/v1/pull/tool/alice/tools/racy?version=1.0.0`)));
  assert.deepEqual(answers.map((a) => a.status), Array(8).fill(200));
  assert.equal(new Set(answers.map((a) => a.body.content)).size, 1, "every caller gets the stored copy");
  assert.equal(await mirror.db.prisma.mirroredVersion.count({ where: { itemId: "alice/tools/racy" } }), 1);
  assert.equal(await mirror.db.prisma.publishLogEntry.count({ where: { kind: "mirror" } }), logBefore + 1);
});

test("an upstream key change is refused until the operator re-pins with RYE_UPSTREAM_KEY_PIN", async () => {
  const { previous, next } = await pub.rotate();
  await alice.push("alice/tools/rotated", tool(`{ from: "after rotation" }`));
  const pinned = await mirror.db.prisma.upstreamKeyPin.findMany({ where: { upstreamUrl: pub.url } });
  assert.deepEqual(pinned.map((p) => [p.upstreamUrl, p.fingerprint, p.source]), [[pub.url, previous, "tofu"]]);

  const refused = await getJson(`${mirror.url}/v1/pull/tool/alice/tools/rotated`);
  assert.equal(refused.status, 502);
  assert.equal(refused.body.error.code, "UPSTREAM_UNTRUSTED");
  assert.equal(refused.body.error.details.reason, "UNTRUSTED_KEY");
  assert.equal(refused.body.error.details.fingerprint, next);
  // What was cached before still serves.
  assert.equal((await fetch(`${mirror.url}/v1/pull/tool/${HELLO}?version=1.0.0`)).status, 200);

  // The operator confirms the new key: items it signs are accepted, items signed by the old one no longer.
  await mirror.reconfigure({ ...MIRROR_ENV, RYE_UPSTREAM_URL: pub.url, RYE_UPSTREAM_KEY_PIN: next });
  const c = await consumer(mirror.url);
  const pulled = await c.rye(["pull", "alice/tools/rotated"]);
  assert.equal(pulled.code, 0, JSON.stringify(pulled.body) + pulled.stderr);
  assert.deepEqual((await mirror.db.prisma.upstreamKeyPin.findMany({ where: { upstreamUrl: pub.url } })).map((p) => [p.fingerprint, p.source]), [[next, "env"]], "the first-contact pin is replaced");
  const oldKey = await getJson(`${mirror.url}/v1/pull/tool/${BEFORE}?version=1.0.0`);
  assert.equal(oldKey.body.error?.code, "UPSTREAM_UNTRUSTED");
  assert.equal(oldKey.body.error.details.fingerprint, previous);

  // Pinning both keys accepts both.
  await mirror.reconfigure({ ...MIRROR_ENV, RYE_UPSTREAM_URL: pub.url, RYE_UPSTREAM_KEY_PIN: `${previous},${next}` });
  const older = await c.rye(["pull", `${BEFORE}@1.0.0`]);
  assert.equal(older.code, 0, JSON.stringify(older.body) + older.stderr);
  const pins = await mirror.db.prisma.upstreamKeyPin.findMany({ where: { upstreamUrl: pub.url }, orderBy: { fingerprint: "asc" } });
  assert.deepEqual(pins.map((p) => [p.fingerprint, p.source]), [previous, next].sort().map((fp) => [fp, "env"]));
});

test("a namespace created on the mirror shadows the upstream's: its cached items are no longer served", async () => {
  const url = `${mirror.url}/v1/pull/tool/${HELLO}?version=1.0.0`;
  const first = await fetch(url);
  assert.equal(first.status, 200);
  await first.body?.cancel();
  const again = await fetch(url);
  assert.equal(again.headers.get("x-rye-mirror"), "cache", "served from the process's cache");
  await again.body?.cancel();
  pub.requests.length = 0;
  await publisher(mirror, "alice");
  const shadowed = await getJson(url);
  assert.equal(shadowed.status, 404);
  assert.equal(shadowed.body.error.code, "ITEM_NOT_FOUND");
  assert.deepEqual(upstreamMentions("alice"), [], "and the upstream is not asked for it");
});
