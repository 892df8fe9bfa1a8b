/**
 * The pull read path (issue #15): cached answers read and write nothing (PGlite) or only the generation row
 * (PostgreSQL); every change to what a pull answers — yank, deprecation, deletion, visibility, key rotation and
 * revocation — is seen by the very next pull; private answers are served only after the authorization check;
 * download counts are written in batches and never lost (a refused flush keeps them; SIGTERM writes them).
 * On PostgreSQL, two server processes on one database see each other's changes at once.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { type Database, openDatabase, type PrismaClient } from "@rye/db";
import { createScratchPostgresDatabase, postgresAvailable, skipWithoutPostgres } from "@rye/db/testing";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";
import { revokeRegistryKey, rotateRegistryKey } from "../keys/keyring.ts";
import { hashToken, TOKEN_PREFIX } from "../auth/api-tokens.ts";
import { silentLogger } from "../logger.ts";
import { DEFAULT_BATCHED_COUNTS } from "../services/batched-window-counters.ts";
import { DownloadCounter } from "../services/download-counter.ts";
import { freePort } from "../../test/free-port.ts";

type Json = Record<string, any>;
const knowledge = (id: string, version = "1.0.0") => `---\nid: ${id}\ntitle: ${id}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\nBody of ${id} at ${version}.\n`;
const GENERATION_READ = "SELECT value FROM read_generation WHERE id = 1";

/** Records every Prisma operation and raw query the registry makes from now on (the real database still answers them). */
function spyOn(db: Database): { prisma: string[]; raw: string[]; reset(): void } {
  const seen = { prisma: [] as string[], raw: [] as string[], reset: () => ((seen.prisma.length = 0), (seen.raw.length = 0)) };
  const base = db.prisma;
  db.prisma = base.$extends({
    query: {
      async $allOperations({ model, operation, args, query }) {
        seen.prisma.push(`${model ?? ""}.${operation}`);
        return query(args);
      },
    },
  }) as unknown as PrismaClient;
  const raw = db.raw;
  db.raw = { query: (sql, params) => (seen.raw.push(sql), raw.query(sql, params)) };
  return seen;
}

for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
  describe(`pull read path on ${kind}`, () => {
    let reg: TestRegistry;
    let alice: TestUser;
    let bob: TestUser;
    let carol: TestUser;
    let aliceToken: string;
    let aliceWriteOnly: string;
    let bobToken: string;
    let carolToken: string;
    let spy: ReturnType<typeof spyOn>;

    const pull = (path: string, options: { token?: string; headers?: Record<string, string> } = {}) => reg.request("GET", `/v1/pull/knowledge/${path}`, options);
    const pullJson = async (path: string, options: { token?: string; headers?: Record<string, string> } = {}) => {
      const res = await pull(path, options);
      return { status: res.status, etag: res.headers.get("etag"), body: (await res.json()) as Json };
    };
    async function call(method: string, path: string, token: string, json?: unknown): Promise<Json> {
      const res = await reg.request(method, path, { token, ...(json !== undefined ? { json } : {}) });
      const body = (await res.json()) as Json;
      assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
      return body;
    }
    const push = (id: string, version = "1.0.0", visibility?: string, token = aliceToken) =>
      call("POST", "/v1/push", token, { item_type: "knowledge", item_id: id, content: knowledge(id.split("/").at(-1)!, version), version, metadata: visibility ? { visibility } : undefined });
    const dbCount = async (name: string) => (await reg.db.prisma.item.findFirstOrThrow({ where: { name } })).downloadCount;
    const view = { "x-rye-purpose": "view" };

    before(async () => {
      reg = await createTestRegistry({ kind });
      alice = await reg.createUser("alice");
      bob = await reg.createUser("bob");
      carol = await reg.createUser("carol");
      await reg.createOrg("acme", [
        { user: alice, role: "owner" },
        { user: carol, role: "member" },
      ]);
      aliceToken = await reg.token(alice);
      aliceWriteOnly = await reg.token(alice, { scopes: ["items:write"] });
      bobToken = await reg.token(bob);
      carolToken = await reg.token(carol);
      spy = spyOn(reg.db);
    });
    after(() => reg.close());

    test("a cached public pull (pinned, latest, 304) makes no Prisma query and no write; PostgreSQL reads only the generation row", async () => {
      await push("alice/notes/hot", "1.0.0");
      await push("alice/notes/hot", "1.1.0");
      assert.equal((await pull("alice/notes/hot?version=1.0.0")).status, 200);
      const latest = await pullJson("alice/notes/hot");
      assert.equal(latest.body.version, "1.1.0");
      await reg.deps.reads.downloads.flush();
      const pendingBefore = reg.deps.reads.downloads.pendingTotal();
      spy.reset();
      const loopStarted = performance.now();
      for (let i = 0; i < 3; i++) {
        assert.equal((await pullJson("alice/notes/hot?version=1.0.0")).body.version, "1.0.0");
        assert.deepEqual((await pullJson("alice/notes/hot")).body, latest.body);
      }
      const notModified = await pull("alice/notes/hot", { headers: { "if-none-match": latest.etag! } });
      assert.equal(notModified.status, 304);
      const loopMs = performance.now() - loopStarted;
      assert.deepEqual(spy.prisma, []);
      if (kind === "pglite") assert.deepEqual(spy.raw, [], "PGlite: the generation is in memory");
      else {
        // Besides the generation, each request counts one hit in the rate-limit window shared by the processes, written
        // in batches on a timer (services/batched-window-counters.ts), not one statement per request.
        const limits = spy.raw.filter((sql) => sql.includes("INSERT INTO rate_counters"));
        // The download counter writes its batch on its own timer (services/download-counter.ts), not in a pull: a
        // flush that falls inside this loop is not the pull path's.
        const flushes = spy.raw.filter((sql) => sql.includes("INSERT INTO download_days"));
        const reads = spy.raw.filter((sql) => !limits.includes(sql) && !flushes.includes(sql));
        // Every write is one batch for all callers, made on the timer (every flushMs) or at a key's half cap (16: not
        // reached by 7 hits): at most one already due when the loop began and one per tick of the timer during it —
        // two when the loop takes under flushMs, as it does on an idle machine; never one per request.
        assert.ok(limits.every((sql) => sql.includes("unnest(")), `every rate-limit write is the batched statement: ${JSON.stringify(limits)}`);
        const ticks = Math.ceil(loopMs / DEFAULT_BATCHED_COUNTS.flushMs);
        assert.ok(limits.length <= 1 + ticks, `rate-limit hits written in batches, not per request: ${limits.length} statements for 7 requests in ${loopMs.toFixed(0)} ms`);
        assert.ok(reads.length >= 1 && reads.length <= 7, `one generation read per pull at most: ${reads.length}: ${JSON.stringify(reads)}`);
        assert.ok(reads.every((sql) => sql === GENERATION_READ), reads.join("\n"));
      }
      // Six downloads (the 304 is none), in memory until the next flush.
      assert.equal(reg.deps.reads.downloads.pendingTotal(), pendingBefore + 6);
      const before = await dbCount("hot");
      await reg.deps.reads.downloads.flush();
      assert.equal(await dbCount("hot"), before + 6);
      assert.equal(reg.deps.reads.downloads.pendingTotal(), 0);
    });

    test("yank and unyank: the pinned answer changes at once, with a new ETag; latest moves", async () => {
      await push("alice/notes/yanky", "1.0.0");
      await push("alice/notes/yanky", "1.1.0");
      const pinned = await pullJson("alice/notes/yanky?version=1.1.0");
      assert.equal(pinned.body.yanked, false);
      assert.equal((await pullJson("alice/notes/yanky")).body.version, "1.1.0");
      await call("POST", "/v1/yank/knowledge/alice/notes/yanky", aliceToken, { version: "1.1.0", reason: "broken" });
      const yanked = await pullJson("alice/notes/yanky?version=1.1.0");
      assert.equal(yanked.body.yanked, true);
      assert.equal(yanked.body.yanked_reason, "broken");
      assert.notEqual(yanked.etag, pinned.etag);
      assert.equal((await pull("alice/notes/yanky?version=1.1.0", { headers: { "if-none-match": pinned.etag! } })).status, 200, "the old ETag is not current");
      assert.equal((await pullJson("alice/notes/yanky")).body.version, "1.0.0");
      await call("POST", "/v1/unyank/knowledge/alice/notes/yanky", aliceToken, { version: "1.1.0" });
      assert.equal((await pullJson("alice/notes/yanky")).body.version, "1.1.0");
      assert.equal((await pullJson("alice/notes/yanky?version=1.1.0")).etag, pinned.etag);
    });

    test("a stored version changed out of band (an operator's repair, or a tamper) is served as it now is at the next pull", async () => {
      await push("alice/notes/edited", "1.0.0");
      const before = await pullJson("alice/notes/edited?version=1.0.0");
      await reg.db.raw.query("UPDATE item_versions SET content = content || 'appended out of band' WHERE item_id = (SELECT id FROM items WHERE name = 'edited')");
      const after = await pullJson("alice/notes/edited?version=1.0.0");
      assert.notEqual(after.body.content, before.body.content);
      assert.match(after.body.content, /appended out of band$/, "the cache did not keep the old bytes");
    });

    test("deprecation: the cached answer says deprecated at once and the old ETag no longer answers 304", async () => {
      await push("alice/notes/old", "1.0.0");
      const first = await pullJson("alice/notes/old");
      await call("POST", "/v1/deprecate/knowledge/alice/notes/old", aliceToken, { message: "use new" });
      const res = await pull("alice/notes/old", { headers: { "if-none-match": first.etag! } });
      assert.equal(res.status, 200);
      const body = (await res.json()) as Json;
      assert.equal(body.deprecated, true);
      assert.equal(body.deprecation_message, "use new");
    });

    test("deleting a version or the item: the cached answers are gone at once", async () => {
      await push("alice/notes/gone", "1.0.0");
      await push("alice/notes/gone", "1.1.0");
      // Page views (X-Rye-Purpose: view) are no downloads, so the deletion policy allows the deletes.
      assert.equal((await pull("alice/notes/gone?version=1.1.0", { headers: view })).status, 200);
      assert.equal((await pull("alice/notes/gone", { headers: view })).status, 200);
      await call("DELETE", "/v1/delete/knowledge/alice/notes/gone?version=1.1.0", aliceToken);
      assert.equal((await pull("alice/notes/gone?version=1.1.0", { headers: view })).status, 404);
      assert.equal((await pullJson("alice/notes/gone", { headers: view })).body.version, "1.0.0");
      await call("DELETE", "/v1/delete/knowledge/alice/notes/gone", aliceToken);
      assert.equal((await pull("alice/notes/gone", { headers: view })).status, 404);
      assert.equal((await pull("alice/notes/gone?version=1.0.0", { headers: view })).status, 404);
    });

    test("a downloaded item is still refused deletion while its count is only in memory", async () => {
      await push("alice/notes/popular", "1.0.0");
      assert.equal((await pull("alice/notes/popular")).status, 200);
      const res = await reg.request("DELETE", "/v1/delete/knowledge/alice/notes/popular", { token: aliceToken });
      assert.equal(res.status, 409);
      assert.equal(await dbCount("popular"), 1);
    });

    test("public → private takes effect at once: anonymous, non-member and write-only callers get 404, the owner 200", async () => {
      await push("alice/notes/secret", "1.0.0");
      assert.equal((await pull("alice/notes/secret")).status, 200);
      assert.equal((await pull("alice/notes/secret?version=1.0.0")).status, 200);
      await call("POST", "/v1/visibility/knowledge/alice/notes/secret", aliceToken, { visibility: "private" });
      for (const token of [undefined, bobToken, aliceWriteOnly]) {
        assert.equal((await pull("alice/notes/secret", { ...(token ? { token } : {}) })).status, 404);
        assert.equal((await pull("alice/notes/secret?version=1.0.0", { ...(token ? { token } : {}) })).status, 404);
      }
      const owner = await pullJson("alice/notes/secret", { token: aliceToken });
      assert.equal(owner.status, 200);
      assert.equal(owner.body.visibility, "private");
      await call("POST", "/v1/visibility/knowledge/alice/notes/secret", aliceToken, { visibility: "public" });
      assert.equal((await pull("alice/notes/secret")).status, 200);
    });

    test("a cached private answer is never served to a non-member, and a removed member loses it at once", async () => {
      await push("acme/notes/plans", "1.0.0", "private");
      for (let i = 0; i < 2; i++) assert.equal((await pull("acme/notes/plans", { token: carolToken })).status, 200);
      assert.equal((await pull("acme/notes/plans", { token: aliceToken })).status, 200);
      for (const token of [undefined, bobToken, aliceWriteOnly]) {
        const res = await pull("acme/notes/plans", { ...(token ? { token } : {}) });
        assert.equal(res.status, 404);
        assert.equal(((await res.json()) as Json).error.code, "ITEM_NOT_FOUND");
      }
      // Memberships are never cached: removing carol needs no invalidation.
      const org = await reg.db.prisma.organization.findUniqueOrThrow({ where: { name: "acme" } });
      await reg.db.prisma.membership.delete({ where: { orgId_userId: { orgId: org.id, userId: carol.id } } });
      assert.equal((await pull("acme/notes/plans", { token: carolToken })).status, 404);
      assert.equal((await pull("acme/notes/plans", { token: aliceToken })).status, 200);
    });

    test("key rotation and revocation move the read generation: the next pull reads the database again", async () => {
      await push("alice/notes/keyed", "1.0.0");
      const first = await pullJson("alice/notes/keyed");
      for (const change of [
        () => rotateRegistryKey({ db: reg.db, keyDir: reg.keyDir, registryUrl: "http://registry.test" }),
        async () => {
          const key = await reg.db.prisma.registryKey.findFirstOrThrow({ where: { validUntil: { not: null }, revokedAt: null } });
          await revokeRegistryKey(reg.db, key.fingerprint, "test");
        },
      ]) {
        const generation = await reg.deps.reads.generation.current();
        await change();
        assert.ok((await reg.deps.reads.generation.current()) > generation);
        spy.reset();
        const again = await pullJson("alice/notes/keyed");
        assert.ok(spy.prisma.length > 0, "read from the database");
        assert.deepEqual(again.body, first.body);
      }
    });

    test("download counts: a flush the database refuses keeps the counts for the next one", async () => {
      await push("alice/notes/counted", "1.0.0");
      for (let i = 0; i < 5; i++) assert.equal((await pull("alice/notes/counted")).status, 200);
      const item = await reg.db.prisma.item.findFirstOrThrow({ where: { name: "counted" } });
      // A real refusal: a constraint that fails the UPDATE of this row.
      await reg.db.raw.query(`ALTER TABLE items ADD CONSTRAINT test_frozen_downloads CHECK (id <> '${item.id}'::uuid OR download_count = 0) NOT VALID`);
      try {
        await reg.deps.reads.downloads.flush();
        assert.equal(await dbCount("counted"), 0);
        assert.ok(reg.deps.reads.downloads.pendingTotal() >= 5);
      } finally {
        await reg.db.raw.query("ALTER TABLE items DROP CONSTRAINT test_frozen_downloads");
      }
      await reg.deps.reads.downloads.flush();
      assert.equal(await dbCount("counted"), 5);
      assert.equal(reg.deps.reads.downloads.pendingTotal(), 0);
    });

    test("two counters flushing overlapping batches at the same time add up exactly (rows are locked in id order)", async () => {
      const names = ["c1", "c2", "c3", "c4"];
      for (const name of names) await push(`alice/notes/${name}`, "1.0.0");
      const ids = await Promise.all(names.map(async (name) => (await reg.db.prisma.item.findFirstOrThrow({ where: { name } })).id));
      const counters = [0, 1].map(() => new DownloadCounter(reg.db, silentLogger, { intervalMs: 3_600_000, maxPendingItems: 1_000_000 }));
      try {
        for (let round = 0; round < 10; round++) {
          for (const id of ids) counters[0]!.add(id, "1.0.0");
          for (const id of [...ids].reverse()) counters[1]!.add(id, "1.0.0");
          await Promise.all(counters.map((c) => c.flush()));
        }
      } finally {
        await Promise.all(counters.map((c) => c.close()));
      }
      for (const name of names) assert.equal(await dbCount(name), 20);
      const days = await reg.db.prisma.downloadDay.findMany({ where: { itemId: { in: ids } } });
      for (const id of ids) assert.equal(days.filter((d) => d.itemId === id).reduce((sum, d) => sum + d.count, 0), 20, "the daily statistics add up too");
    });
  });
}

// ---- real server processes -------------------------------------------------------------------------------------

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

interface ServerProcess {
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

async function startServer(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), "rye-pull-server-"));
  const childEnv: NodeJS.ProcessEnv = { ...process.env, RYE_DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", RYE_LOG_LEVEL: "warn", RYE_REGISTRY_URL: "http://registry.test", ...env };
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], { env: childEnv, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const url = `http://127.0.0.1:${port}`;
  while (!(await fetch(`${url}/health`).then((r) => r.ok, () => false))) {
    assert.equal(child.exitCode, null, `the server exited: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
      await rm(dataDir, { recursive: true, force: true });
      return child.exitCode;
    },
  };
}

/** A user, its namespace and a read/write token, straight in the database (as the test harness does). */
async function createPublisher(db: Database, username: string): Promise<string> {
  const user = await db.prisma.user.create({ data: { username, email: `${username}@example.test` } });
  await db.prisma.namespace.create({ data: { name: username, userId: user.id } });
  const token = `${TOKEN_PREFIX}${username}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  await db.prisma.apiToken.create({ data: { userId: user.id, name: "test", tokenHash: hashToken(token), scopes: ["items:read", "items:write"] } });
  return token;
}

async function http(base: string, method: string, path: string, options: { token?: string; json?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.json !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, { method, headers, ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

describe("two server processes on one PostgreSQL", { skip: skipWithoutPostgres() }, () => {
  let scratch: Awaited<ReturnType<typeof createScratchPostgresDatabase>>;
  let db: Database;
  let a: ServerProcess;
  let b: ServerProcess;
  let token: string;

  before(async () => {
    scratch = await createScratchPostgresDatabase();
    db = await openDatabase({ databaseUrl: scratch.url });
    token = await createPublisher(db, "alice");
    // Downloads are written only at shutdown here (one hour between flushes), so the SIGTERM test sees that write.
    const env = { DATABASE_URL: scratch.url, RYE_DOWNLOAD_FLUSH_MS: "3600000" };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.close();
    await scratch?.drop();
  });

  const push = (id: string, version: string) => http(a.url, "POST", "/v1/push", { token, json: { item_type: "knowledge", item_id: id, content: knowledge(id.split("/").at(-1)!, version), version } });

  test("visibility, yank, deprecation and deletion made through one process are seen by the other's next pull", async () => {
    assert.equal((await push("alice/notes/shared", "1.0.0")).status, 201);
    assert.equal((await push("alice/notes/shared", "1.1.0")).status, 201);
    const view = { "x-rye-purpose": "view" };
    for (let i = 0; i < 2; i++) {
      assert.equal((await http(b.url, "GET", "/v1/pull/knowledge/alice/notes/shared", { headers: view })).body.version, "1.1.0");
      assert.equal((await http(b.url, "GET", "/v1/pull/knowledge/alice/notes/shared?version=1.0.0", { headers: view })).status, 200);
    }

    assert.equal((await http(a.url, "POST", "/v1/visibility/knowledge/alice/notes/shared", { token, json: { visibility: "private" } })).status, 200);
    assert.equal((await http(b.url, "GET", "/v1/pull/knowledge/alice/notes/shared", { headers: view })).status, 404);
    assert.equal((await http(b.url, "GET", "/v1/pull/knowledge/alice/notes/shared?version=1.0.0", { headers: view })).status, 404);
    assert.equal((await http(b.url, "GET", "/v1/pull/knowledge/alice/notes/shared", { token, headers: view })).status, 200);
    assert.equal((await http(a.url, "POST", "/v1/visibility/knowledge/alice/notes/shared", { token, json: { visibility: "public" } })).status, 200);
    assert.equal((await http(b.url, "GET", "/v1/pull/knowledge/alice/notes/shared", { headers: view })).status, 200);

    assert.equal((await http(a.url, "POST", "/v1/yank/knowledge/alice/notes/shared", { token, json: { version: "1.1.0" } })).status, 200);
    assert.equal((await http(b.url, "GET", "/v1/pull/knowledge/alice/notes/shared", { headers: view })).body.version, "1.0.0");
    assert.equal((await http(b.url, "GET", "/v1/pull/knowledge/alice/notes/shared?version=1.1.0", { headers: view })).body.yanked, true);

    assert.equal((await http(a.url, "POST", "/v1/deprecate/knowledge/alice/notes/shared", { token, json: { message: "moved" } })).status, 200);
    assert.equal((await http(b.url, "GET", "/v1/pull/knowledge/alice/notes/shared?version=1.0.0", { headers: view })).body.deprecated, true);

    assert.equal((await http(a.url, "DELETE", "/v1/delete/knowledge/alice/notes/shared?version=1.0.0", { token })).status, 200);
    assert.equal((await http(b.url, "GET", "/v1/pull/knowledge/alice/notes/shared?version=1.0.0", { headers: view })).status, 404);
  });

  test("SIGTERM writes the downloads still in memory before the process exits", async () => {
    assert.equal((await push("alice/notes/counted", "1.0.0")).status, 201);
    for (let i = 0; i < 7; i++) assert.equal((await http(b.url, "GET", "/v1/pull/knowledge/alice/notes/counted")).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await http(a.url, "GET", "/v1/pull/knowledge/alice/notes/counted?version=1.0.0")).status, 200);
    const count = async () => (await db.prisma.item.findFirstOrThrow({ where: { name: "counted" } })).downloadCount;
    assert.equal(await count(), 0, "nothing written yet (the flush interval is an hour)");
    assert.equal(await b.stop(), 0, b.stderr());
    assert.equal(await count(), 7);
    assert.equal(await a.stop(), 0, a.stderr());
    assert.equal(await count(), 10);
  });
});

describe("one server process on PGlite", () => {
  test("SIGTERM writes the downloads still in memory to the embedded database", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "rye-pull-pglite-"));
    try {
      const server = await startServer({ DATABASE_URL: "", RYE_DATA_DIR: dataDir, RYE_DOWNLOAD_FLUSH_MS: "3600000" });
      const signup = await fetch(`${server.url}/v1/auth/signup`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "dora", email: "dora@example.test", password: "correct horse battery staple" }) });
      assert.equal(signup.status, 201);
      const cookie = signup.headers.get("set-cookie")!.split(";")[0]!;
      const { csrf_token } = (await signup.json()) as { csrf_token: string };
      const created = await http(server.url, "POST", "/v1/tokens", { json: { name: "t", scopes: ["items:write"] }, headers: { cookie, "x-csrf-token": csrf_token } });
      const pushToken = created.body.token as string;
      assert.equal((await http(server.url, "POST", "/v1/push", { token: pushToken, json: { item_type: "knowledge", item_id: "dora/notes/kept", content: knowledge("kept"), version: "1.0.0" } })).status, 201);
      for (let i = 0; i < 4; i++) assert.equal((await http(server.url, "GET", "/v1/pull/knowledge/dora/notes/kept")).status, 200);
      assert.equal(await server.stop(), 0, server.stderr());
      const db = await openDatabase({ dataDir });
      try {
        assert.equal((await db.prisma.item.findFirstOrThrow({ where: { name: "kept" } })).downloadCount, 4);
      } finally {
        await db.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
