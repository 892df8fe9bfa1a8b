/** GET /v1/log/entries and /v1/log/checkpoint: the chain verifies, checkpoints are signed and periodic, tampering shows. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Hono } from "hono";
import type { LogCheckpoint, PublicKey, SignedDocument } from "@rye/core";
import { LOG_GENESIS_HASH, logCheckpointSchema, logEntryHash, publicKeyFromPem, verifyDocument, verifyLogChain } from "@rye/core";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";
import type { AppEnv } from "../env.ts";
import { errorHandler } from "../middleware/errors.ts";
import { rateLimit } from "../middleware/rate-limit.ts";
import { requestContext } from "../middleware/request-context.ts";
import type { AppDeps } from "../services/deps.ts";
import { appendLogEntry } from "../services/publish-log.ts";
import { rotateRegistryKey } from "../keys/keyring.ts";
import { logRoutes } from "./log.ts";

type Json = Record<string, any>;
interface Entry {
  index: number;
  kind: string;
  payload: unknown;
  prev_hash: string;
  entry_hash: string;
  created_at: string;
}

let clock = new Date("2026-05-01T00:00:00.000Z");
const advance = (ms: number) => (clock = new Date(clock.getTime() + ms));

/** The log routes behind the same middleware and error handler as app.ts, on a controllable clock. */
function logApp(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.use("*", requestContext({ authenticator: deps.authenticator, logger: deps.logger, trustProxy: deps.config.trustProxy }));
  app.use("/v1/*", rateLimit(deps.config.rateLimit));
  app.route("/", logRoutes(deps, { checkpoints: { now: () => clock } }));
  app.onError(errorHandler(deps.logger));
  return async (path: string, headers: Record<string, string> = {}) => {
    const res = await app.request(path, { headers });
    return { res, status: res.status, body: (await res.json()) as Json };
  };
}

let reg: TestRegistry;
let get: ReturnType<typeof logApp>;
let registryKey: PublicKey;

async function append(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await reg.db.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { kind: "item", id: `alice/notes/n${i}`, version: "1.0.0", n: i }));
  }
}

async function allEntries(): Promise<{ entries: Entry[]; tree_size: number }> {
  const entries: Entry[] = [];
  let from: number | null = 0;
  let treeSize = 0;
  while (from !== null) {
    const page: Json = (await get(`/v1/log/entries?from=${from}&limit=7`)).body;
    entries.push(...(page.entries as Entry[]));
    treeSize = page.tree_size;
    from = page.next_from;
  }
  return { entries, tree_size: treeSize };
}

async function checkpoint(): Promise<SignedDocument<LogCheckpoint>> {
  return (await get("/v1/log/checkpoint")).body as SignedDocument<LogCheckpoint>;
}

/** What a client (a monitor) does: verify the chain from genesis and that the signed head matches it. */
async function audit(): Promise<string | null> {
  const cp = await checkpoint();
  if (!(await verifyDocument(cp, registryKey))) return "bad checkpoint signature";
  const { entries } = await allEntries();
  const bad = verifyLogChain(entries, LOG_GENESIS_HASH);
  if (bad !== null) return `chain broken at ${bad}`;
  const head = entries[cp.payload.tree_size - 1]?.entry_hash ?? LOG_GENESIS_HASH;
  return head === cp.payload.head_hash ? null : "the log differs from the signed checkpoint";
}

before(async () => {
  reg = await createTestRegistry();
  get = logApp(reg.deps);
  registryKey = publicKeyFromPem(reg.deps.keyring.current().publicKey.pem);
});
after(() => reg.close());

describe("happy paths", () => {
  test("an empty log has size 0 and a signed checkpoint of the genesis hash", async () => {
    const page = await get("/v1/log/entries");
    assert.deepEqual(page.body, { entries: [], tree_size: 0, next_from: null });
    const cp = await checkpoint();
    assert.deepEqual(logCheckpointSchema.parse(cp.payload), { _type: "https://rye.dev/log-checkpoint/v1", registry: "http://registry.test", tree_size: 0, head_hash: LOG_GENESIS_HASH, issued_at: clock.toISOString() });
    assert.ok(await verifyDocument(cp, registryKey));
  });

  test("entries page in order and the chain verifies with verifyLogChain", async () => {
    await append(20);
    const first = await get("/v1/log/entries?limit=5");
    assert.equal(first.status, 200);
    assert.equal(first.body.tree_size, 20);
    assert.deepEqual(first.body.entries.map((e: Entry) => e.index), [0, 1, 2, 3, 4]);
    assert.equal(first.body.next_from, 5);
    const entry = first.body.entries[1] as Entry;
    assert.deepEqual(Object.keys(entry).sort(), ["created_at", "entry_hash", "index", "kind", "payload", "prev_hash"]);
    assert.equal(entry.kind, "publish");
    assert.ok(!Number.isNaN(Date.parse(entry.created_at)));
    const middle = await get("/v1/log/entries?from=5&limit=10");
    assert.equal(verifyLogChain(middle.body.entries, first.body.entries[4].entry_hash), null, "a page verifies from the previous page's head");
    const { entries, tree_size } = await allEntries();
    assert.equal(entries.length, 20);
    assert.equal(tree_size, 20);
    assert.equal(verifyLogChain(entries, LOG_GENESIS_HASH), null);
    assert.deepEqual((await get("/v1/log/entries?from=20")).body.entries, []);
  });

  test("checkpoints are reissued once the log grew and the interval passed, or every 100 entries", async () => {
    const initial = await checkpoint();
    assert.equal(initial.payload.tree_size, 0, "the empty-log checkpoint is younger than the interval");
    advance(60_000);
    const grown = await checkpoint();
    assert.equal(grown.payload.tree_size, 20);
    assert.equal(grown.payload.issued_at, clock.toISOString());
    assert.equal(await audit(), null);

    await append(1);
    advance(59_000);
    assert.deepEqual(await checkpoint(), grown, "not due yet: the same stored checkpoint");
    advance(1_000);
    assert.equal((await checkpoint()).payload.tree_size, 21);

    await append(100);
    const burst = await checkpoint();
    assert.equal(burst.payload.tree_size, 121, "100 new entries make one due at once");
    advance(3_600_000);
    assert.deepEqual(await checkpoint(), burst, "no growth, no new checkpoint");
    assert.deepEqual((await reg.db.prisma.logCheckpoint.findMany({ orderBy: { treeSize: "asc" } })).map((c) => Number(c.treeSize)), [0, 20, 21, 121]);
    assert.ok(await verifyDocument(burst, registryKey));
    assert.equal(await audit(), null);
  });

  test("concurrent requests agree on one checkpoint per tree size", async () => {
    await append(3);
    advance(60_000);
    const results = await Promise.all(Array.from({ length: 16 }, () => get("/v1/log/checkpoint")));
    assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]));
    assert.equal(new Set(results.map((r) => JSON.stringify(r.body))).size, 1);
    assert.equal(results[0]!.body.payload.tree_size, 124);
    assert.equal(await reg.db.prisma.logCheckpoint.count({ where: { treeSize: 124 } }), 1);
    assert.equal(results[0]!.res.headers.get("cache-control"), "no-cache");
  });
});

test("a key rotation is logged, and the next checkpoint, signed with the new key, covers it at once", async () => {
  const before = await checkpoint();
  await new Promise((r) => setTimeout(r, 5)); // the keyring notices a new key file by its mtime
  const { previous, next } = await rotateRegistryKey({ db: reg.db, keyDir: reg.keyDir, registryUrl: "http://registry.test" });
  const rotation = await reg.db.prisma.publishLogEntry.findFirstOrThrow({ orderBy: { index: "desc" } });
  assert.deepEqual([Number(rotation.index), rotation.kind, rotation.payload], [before.payload.tree_size, "key_rotate", { kind: "registry_key", previous_fingerprint: previous, next_fingerprint: next }]);
  const rekeyed = await checkpoint();
  assert.equal(rekeyed.key_fingerprint, next);
  assert.equal(rekeyed.payload.tree_size, before.payload.tree_size + 1, "not due by the interval, but a new key checkpoints at once");
  assert.equal(rekeyed.payload.head_hash, rotation.entryHash);
  const nextKey = publicKeyFromPem((await reg.db.prisma.registryKey.findUniqueOrThrow({ where: { fingerprint: next } })).publicKeyPem);
  assert.ok(await verifyDocument(rekeyed, nextKey));
  assert.deepEqual(await checkpoint(), rekeyed, "signed once, then served as stored");
  assert.equal(await reg.db.prisma.logCheckpoint.count({ where: { treeSize: before.payload.tree_size } }), 1, "the previous checkpoint stays as the old key signed it");
  registryKey = nextKey;
});

describe("errors", () => {
  test("bad paging parameters are 400s", async () => {
    for (const query of ["limit=0", "limit=1001", "from=-1", "from=abc", "limit=2.5", "from=1e400"]) {
      const r = await get(`/v1/log/entries?${query}`);
      assert.equal(r.status, 400, query);
      assert.equal(r.body.error.code, "BAD_REQUEST", query);
    }
    assert.equal((await get("/v1/log/entries?limit=1000")).body.entries.length, 125, "124 publishes and the key rotation");
  });
});

describe("security", () => {
  test("a client detects an entry edited in the database, and a rewritten chain", async () => {
    assert.equal(await audit(), null);
    const original = await reg.db.prisma.publishLogEntry.findUniqueOrThrow({ where: { index: 7n } });
    const forged = { ...(original.payload as Json), version: "6.6.6" };
    await reg.db.prisma.publishLogEntry.update({ where: { index: 7n }, data: { payload: forged } });
    assert.equal(await audit(), "chain broken at 7", "the payload no longer hashes to entry_hash");

    // A careful attacker recomputes the entry hash too: the next entry's prev_hash gives it away.
    const rehashed = logEntryHash({ index: 7, kind: original.kind, payload: forged, prev_hash: original.prevHash });
    await reg.db.prisma.publishLogEntry.update({ where: { index: 7n }, data: { entryHash: rehashed } });
    assert.equal(await audit(), "chain broken at 8");

    // Rewriting every later entry makes a consistent chain, but not the one the registry signed.
    const rows = await reg.db.prisma.publishLogEntry.findMany({ where: { index: { gte: 8n } }, orderBy: { index: "asc" } });
    let prev = rehashed;
    for (const row of rows) {
      const entryHash = logEntryHash({ index: Number(row.index), kind: row.kind, payload: row.payload, prev_hash: prev });
      await reg.db.prisma.publishLogEntry.update({ where: { index: row.index }, data: { prevHash: prev, entryHash } });
      prev = entryHash;
    }
    assert.equal(verifyLogChain((await allEntries()).entries, LOG_GENESIS_HASH), null);
    assert.equal(await audit(), "the log differs from the signed checkpoint");
  });

  test("the log is public: no token needed, and a bad token is still refused", async () => {
    assert.equal((await get("/v1/log/checkpoint")).status, 200);
    assert.equal((await get("/v1/log/entries", { authorization: "Bearer nonsense" })).status, 401);
  });
});
