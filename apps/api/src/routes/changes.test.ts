/** GET /v1/changes: every public state change in log order, nothing private, a signed checkpoint, a resumable cursor. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { LOG_GENESIS_HASH, verifyDocument, verifyLogChain } from "@rye/core";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";
import { rotateRegistryKey } from "../keys/keyring.ts";

type Json = Record<string, any>;

let reg: TestRegistry;
let alice: string;

const knowledge = (name: string, version = "1.0.0") => `---\nid: ${name}\ntitle: ${name}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\nBody of ${name}.\n`;

async function call(method: string, path: string, json?: unknown): Promise<{ status: number; body: Json }> {
  const res = await reg.request(method, path, { token: alice, ...(json !== undefined ? { json } : {}) });
  return { status: res.status, body: (await res.json()) as Json };
}
async function publish(id: string, version = "1.0.0", visibility?: string): Promise<void> {
  const res = await call("POST", "/v1/push", { item_type: "knowledge", item_id: id, content: knowledge(id.split("/").at(-1)!, version), version, metadata: visibility ? { visibility } : undefined });
  assert.equal(res.status, 201, JSON.stringify(res.body));
}
const feed = async (query = "") => {
  const res = await reg.request("GET", `/v1/changes${query}`);
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
};
async function allChanges(limit = 3): Promise<Json[]> {
  const out: Json[] = [];
  let since = 0;
  for (;;) {
    const page = await feed(`?since=${since}&limit=${limit}`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    out.push(...page.body.changes);
    if (page.body.caught_up) return out;
    assert.ok(page.body.next_since > since, "the cursor advances");
    since = page.body.next_since;
  }
}

before(async () => {
  reg = await createTestRegistry({ config: { rateLimit: { windowSeconds: 60, reads: 100_000, writes: 100_000 } } });
  alice = await reg.token(await reg.createUser("alice"));
});
after(() => reg.close());

test("publish, yank, unyank, deprecate, visibility, transfer and key events come in log order; private ones never", async () => {
  await reg.createOrg("acme", [{ user: { id: (await reg.db.prisma.user.findUniqueOrThrow({ where: { username: "alice" } })).id, username: "alice" }, role: "owner" }]);
  await publish("alice/notes/open_note");
  await publish("alice/notes/open_note", "1.1.0");
  await publish("alice/notes/secret_plan", "1.0.0", "private");
  assert.equal((await call("POST", "/v1/yank/knowledge/alice/notes/open_note", { version: "1.1.0", reason: "broken" })).status, 200);
  assert.equal((await call("POST", "/v1/unyank/knowledge/alice/notes/open_note", { version: "1.1.0" })).status, 200);
  assert.equal((await call("POST", "/v1/yank/knowledge/alice/notes/secret_plan", { version: "1.0.0", reason: "secret_reason" })).status, 200);
  assert.equal((await call("POST", "/v1/deprecate/knowledge/alice/notes/secret_plan", { message: "secret_message" })).status, 200);
  assert.equal((await call("POST", "/v1/deprecate/knowledge/alice/notes/open_note", { message: "use v2" })).status, 200);
  assert.equal((await call("POST", "/v1/visibility/knowledge/alice/notes/open_note", { visibility: "private" })).status, 200);
  assert.equal((await call("POST", "/v1/visibility/knowledge/alice/notes/open_note", { visibility: "public" })).status, 200);
  assert.equal((await call("POST", "/v1/transfer/knowledge/alice/notes/open_note", { to_namespace: "acme" })).status, 200);
  await rotateRegistryKey({ db: reg.db, keyDir: reg.keyDir, registryUrl: "http://registry.test" });

  const changes = await allChanges();
  assert.deepEqual(
    changes.map((c) => [c.event, c.subject.id ?? c.subject.kind, c.subject.version ?? null]),
    [
      ["publish", "alice/notes/open_note", "1.0.0"],
      ["publish", "alice/notes/open_note", "1.1.0"],
      ["yank", "alice/notes/open_note", "1.1.0"],
      ["unyank", "alice/notes/open_note", "1.1.0"],
      ["deprecate", "alice/notes/open_note", null],
      ["visibility", "alice/notes/open_note", null],
      ["visibility", "alice/notes/open_note", null],
      ["transfer", "alice/notes/open_note", null],
      ["key_rotate", "registry_key", null],
    ],
  );
  assert.deepEqual(changes.find((c) => c.event === "yank")!.subject, { kind: "item", item_type: "knowledge", id: "alice/notes/open_note", version: "1.1.0", reason: "broken", actor: "alice" });
  assert.deepEqual(changes.filter((c) => c.event === "visibility").map((c) => [c.subject.from, c.subject.to]), [["public", "private"], ["private", "public"]]);
  assert.equal(changes.find((c) => c.event === "transfer")!.subject.to, "acme/notes/open_note");
  const seqs = changes.map((c) => c.seq);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), "in log order");

  // Nothing about the private item: not in the feed, and (a defect fixed here) not in the public log either.
  const everything = JSON.stringify(changes) + JSON.stringify((await reg.request("GET", "/v1/log/entries?limit=1000").then((r) => r.json())) as Json);
  for (const secret of ["secret_plan", "secret_reason", "secret_message"]) assert.ok(!everything.includes(secret), `${secret} leaked`);
  const logged = await reg.db.prisma.publishLogEntry.findMany({ where: { kind: { in: ["yank", "deprecate"] } }, orderBy: { index: "asc" } });
  assert.equal(logged.filter((e) => (e.payload as Json).private === true).length, 2, "the private item's yank and deprecation are logged as digests");
});

test("each change carries its log entry hash; the chain and the signed checkpoint verify what the feed said", async () => {
  const page = await feed("?limit=1000");
  const log = (await (await reg.request("GET", "/v1/log/entries?limit=1000")).json()) as Json;
  assert.equal(verifyLogChain(log.entries, LOG_GENESIS_HASH), null);
  const byIndex = new Map(log.entries.map((e: Json) => [e.index, e]));
  for (const change of page.body.changes) assert.equal((byIndex.get(change.seq) as Json).entry_hash, change.entry_hash);
  const keys = (await (await reg.request("GET", "/v1/keys")).json()) as Json;
  const current = keys.keys.find((k: Json) => k.fingerprint === page.body.checkpoint.key_fingerprint);
  assert.ok(current, "the checkpoint is signed by a published registry key");
  assert.ok(await verifyDocument(page.body.checkpoint, reg.deps.keyring.current().publicKey));
  assert.equal(page.body.tree_size, log.tree_size);
  assert.equal(page.headers.get("cache-control"), "no-cache");
});

test("the cursor: a page may hold fewer changes than read, next_since always advances, caught_up at the head", async () => {
  const head = (await feed()).body.tree_size as number;
  const atHead = await feed(`?since=${head}`);
  assert.deepEqual([atHead.body.changes, atHead.body.next_since, atHead.body.caught_up], [[], head, true]);
  const beyond = await feed(`?since=${head + 50}`);
  assert.deepEqual([beyond.body.next_since, beyond.body.caught_up], [head, true], "a cursor past the head is brought back to it");
  // Entries 5 and 6 are the private item's yank and deprecation: read but not returned.
  const privateOnly = await feed("?since=5&limit=2");
  assert.deepEqual([privateOnly.body.changes.length, privateOnly.body.next_since, privateOnly.body.caught_up], [0, 7, false]);
});

test("bad cursors and limits are refused with BAD_REQUEST and a hint", async () => {
  for (const query of ["?since=-1", "?since=abc", "?limit=0", "?limit=1001", "?since=1.5"]) {
    const res = await feed(query);
    assert.equal(res.status, 400, query);
    assert.equal(res.body.error.code, "BAD_REQUEST");
    assert.match(res.body.error.hint, /next_since/);
  }
});
