/**
 * `rye log monitor` against a real registry (apps/api on loopback, PostgreSQL when available): quiet for the
 * namespace's own pushes, a finding for a push with a key registered later by a stolen token and for an unsigned
 * push, a refusal for a tampered log entry, a rolled-back or forked checkpoint, and `--watch` POSTing to a webhook
 * (the real `rye` binary as a child process).
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { generateKeyPair, type KeyPair, signItem } from "@rye/core";
import { hashToken, TOKEN_PREFIX } from "../../../../../apps/api/src/auth/api-tokens.ts";
import { RYE_BIN } from "../../../test/cli.ts";
import { deadRegistryUrl, startTestRegistry, type TestRegistry } from "../../../test/registry-server.ts";
import { monitorStatePath } from "../../registry/log-monitor/state.ts";
import { runCommands } from "../test-fixtures.ts";
import { registerLog } from "./log.ts";

let registry: TestRegistry;
let alice: { token: string; tokenId: string };
let stolen: { token: string; tokenId: string };
let bob: { token: string; tokenId: string };
let aliceKey: KeyPair;
let attackerKey: KeyPair;
/** The monitor's home: its state persists across the tests that follow alice's namespace in order. */
let home: string;

const knowledge = (name: string, version: string) => `---\nid: ${name}\ntitle: ${name}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\nBody of ${name} ${version}.\n`;

async function user(username: string) {
  const prisma = registry.db.prisma;
  const row = await prisma.user.create({ data: { username, email: `${username}@example.test` } });
  await prisma.namespace.create({ data: { name: username, userId: row.id } });
  return row.id;
}

async function token(userId: string) {
  const secret = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
  const row = await registry.db.prisma.apiToken.create({ data: { userId, name: "test", tokenHash: hashToken(secret), scopes: ["items:read", "items:write"] } });
  return { token: secret, tokenId: row.id };
}

async function call(method: string, path: string, as: string, body: unknown) {
  const res = await fetch(`${registry.url}${path}`, { method, headers: { authorization: `Bearer ${as}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  assert.ok(res.status === 200 || res.status === 201, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function push(as: string, id: string, version: string, key: KeyPair | null) {
  const name = id.split("/").at(-1)!;
  const content = key ? (await signItem(knowledge(name, version), "knowledge", key)).content : knowledge(name, version);
  return call("POST", "/v1/push", as, { item_type: "knowledge", item_id: id, version, content });
}

async function monitor(args: string[], options: { home?: string; token?: string } = {}) {
  const root = options.home ?? home;
  const cwd = join(root, "project");
  await mkdir(cwd, { recursive: true });
  return runCommands(registerLog, ["log", "monitor", ...args], { USER_SPACE: join(root, "home"), RYE_REGISTRY_URL: registry.url, ...(options.token ? { RYE_TOKEN: options.token } : {}) }, cwd);
}

before(async () => {
  registry = await startTestRegistry({ env: { RYE_CHECKPOINT_EVERY_ENTRIES: "1" } });
  const aliceId = await user("alice");
  alice = await token(aliceId);
  stolen = await token(aliceId);
  bob = await token(await user("bob"));
  aliceKey = await generateKeyPair();
  attackerKey = await generateKeyPair();
  await call("POST", "/v1/me/keys", alice.token, { public_key: aliceKey.publicKey.pem });
  home = await mkdtemp(join(tmpdir(), "rye-log-monitor-"));
});
after(() => registry.close());

test("quiet (exit 0) for the namespace's own signed pushes; it records the namespace's keys and where it left off", async () => {
  await push(alice.token, "alice/notes/guide", "1.0.0", aliceKey);
  await push(bob.token, "bob/notes/other", "1.0.0", null); // another namespace: not alice's business
  await push(alice.token, "alice/notes/guide", "1.0.1", aliceKey);
  const r = await monitor(["alice", "--json"], { token: alice.token });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.findings, []);
  assert.deepEqual(out.allowed_keys, [aliceKey.publicKey.fingerprint]);
  assert.deepEqual(out.checked, { from: 0, to: 3 });
  const state = JSON.parse(await readFile(monitorStatePath({ USER_SPACE: join(home, "home") }), "utf8"));
  const kept = state.registries[registry.url];
  assert.equal(kept.checkpoint.size, 3);
  assert.deepEqual(kept.namespaces.alice.keys.map((k: { fingerprint: string }) => k.fingerprint), [aliceKey.publicKey.fingerprint]);
  assert.equal(kept.namespaces.alice.next_index, 3);
});

test("a version pushed with a key a stolen token registered later is reported (exit 1), naming the key and the token", async () => {
  await call("POST", "/v1/me/keys", stolen.token, { public_key: attackerKey.publicKey.pem });
  await push(stolen.token, "alice/notes/guide", "1.0.2", attackerKey);
  await push(alice.token, "alice/notes/guide", "1.0.3", aliceKey);
  // Signed in as alice, the registry now lists the attacker's key as hers: the monitor keeps the keys it recorded.
  const r = await monitor(["alice", "--json"], { token: alice.token });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.checked, { from: 3, to: 5 }, "it starts where it left off");
  assert.equal(out.findings.length, 1, JSON.stringify(out.findings));
  const [finding] = out.findings;
  assert.deepEqual(
    { index: finding.index, item: finding.item, version: finding.version, author_key: finding.author_key, credential: finding.credential, publisher: finding.publisher, reason: finding.reason },
    { index: 3, item: "knowledge alice/notes/guide", version: "1.0.2", author_key: attackerKey.publicKey.fingerprint, credential: { via: "token", token_id: stolen.tokenId }, publisher: "alice", reason: "unregistered_key" },
  );
  const human = await monitor(["alice", "--since", "3"]);
  assert.equal(human.code, 1);
  assert.match(human.stdout, /^INDEX +ITEM +VERSION +AUTHOR KEY +CREDENTIAL +PUBLISHER +REASON$/m);
  assert.match(human.stdout, new RegExp(`^3 +knowledge alice/notes/guide +1\\.0\\.2 +${attackerKey.publicKey.fingerprint} +token:${stolen.tokenId} +alice +unregistered_key$`, "m"));
  assert.match(human.stderr, /log of 5 entries verified \(entries 3–4\); 1 finding\(s\) in alice/);
});

test("an unsigned push is reported; --token reports pushes by a token the publisher does not name", async () => {
  await push(stolen.token, "alice/notes/quiet", "1.0.0", null);
  let r = await monitor(["alice", "--json"]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  let out = JSON.parse(r.stdout);
  assert.deepEqual(out.findings.map((f: { index: number; reason: string; author_key: unknown }) => [f.index, f.reason, f.author_key]), [[5, "unsigned", null]]);
  r = await monitor(["alice", "--json"]);
  assert.equal(r.code, 0, "a finding is reported once: the next run starts after it");
  assert.deepEqual(JSON.parse(r.stdout).checked, { from: 6, to: 6 });

  r = await monitor(["alice", "--since", "0", "--token", alice.tokenId, "--key", attackerKey.publicKey.fingerprint, "--json"]);
  out = JSON.parse(r.stdout);
  assert.deepEqual(
    out.findings.map((f: { index: number; reasons: string[] }) => [f.index, f.reasons]),
    [
      [3, ["unknown_credential"]],
      [5, ["unsigned", "unknown_credential"]],
    ],
    "--key allows the attacker's key for this run; --token flags the stolen token's pushes",
  );
  r = await monitor(["alice", "--since", "0", "--publisher", "carol", "--key", attackerKey.publicKey.fingerprint, "--json"]);
  assert.deepEqual(JSON.parse(r.stdout).findings.map((f: { index: number; reasons: string[] }) => f.reasons.includes("unknown_publisher")), [true, true, true, true, true]);
});

test("a log entry changed in the database is refused (LOG_INCLUSION_INVALID), not passed over", async () => {
  const prisma = registry.db.prisma;
  const row = await prisma.publishLogEntry.findUniqueOrThrow({ where: { index: 3n } });
  const original = row.payload as Record<string, unknown>;
  // The attacker hides their key: the entry now claims alice's.
  await prisma.publishLogEntry.update({ where: { index: 3n }, data: { payload: { ...original, author_key: aliceKey.publicKey.fingerprint } } });
  try {
    const fresh = await mkdtemp(join(tmpdir(), "rye-log-monitor-fresh-"));
    const r = await monitor(["alice", "--json"], { home: fresh, token: alice.token });
    assert.equal(r.code, 1);
    const out = JSON.parse(r.stdout);
    assert.equal(out.error.code, "LOG_INCLUSION_INVALID", r.stdout);
    assert.equal(out.findings, undefined, "nothing is reported from a log that does not verify");
    await assert.rejects(readFile(monitorStatePath({ USER_SPACE: join(fresh, "home") }), "utf8"), /ENOENT/, "nothing is kept either");
  } finally {
    await prisma.publishLogEntry.update({ where: { index: 3n }, data: { payload: original as never } });
  }
});

test("a checkpoint older than the kept one is LOG_ROLLBACK; another tree of the kept size is LOG_INCONSISTENT", async () => {
  const path = monitorStatePath({ USER_SPACE: join(home, "home") });
  const saved = await readFile(path, "utf8");
  try {
    const state = JSON.parse(saved);
    const kept = state.registries[registry.url];
    kept.checkpoint.size += 10;
    await writeFile(path, JSON.stringify(state));
    let r = await monitor(["alice", "--json"]);
    assert.equal(JSON.parse(r.stdout).error?.code, "LOG_ROLLBACK", r.stdout);
    kept.checkpoint.size -= 10;
    kept.checkpoint.root_hash = Buffer.alloc(32, 7).toString("base64");
    await writeFile(path, JSON.stringify(state));
    r = await monitor(["alice", "--json"]);
    assert.equal(JSON.parse(r.stdout).error?.code, "LOG_INCONSISTENT", r.stdout);
    // A larger log whose consistency proof does not lead from the kept root: history rewritten.
    kept.checkpoint.size -= 1;
    await writeFile(path, JSON.stringify(state));
    r = await monitor(["alice", "--json"]);
    assert.equal(JSON.parse(r.stdout).error?.code, "LOG_INCONSISTENT", r.stdout);
  } finally {
    await writeFile(path, saved);
  }
});

test("bad arguments are usage errors (exit 2) before any request", async () => {
  for (const args of [["Alice!"], ["alice", "--since", "-1"], ["alice", "--key", "nothex"], ["alice", "--webhook", "http://x"], ["alice", "--watch", "--interval", "0"], ["alice", "--watch", "--interval", "86401"], ["alice", "--watch", "--webhook", "ftp://x"]]) {
    const r = await monitor(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
  }
});

test("anyone monitors someone else's namespace with no token: the registry's public key list is recorded; a key listed later is still reported", async () => {
  const bobKey = await generateKeyPair();
  await call("POST", "/v1/me/keys", bob.token, { public_key: bobKey.publicKey.pem });
  await push(bob.token, "bob/notes/signed", "1.0.0", bobKey);
  const stranger = await mkdtemp(join(tmpdir(), "rye-log-monitor-stranger-"));
  const first = await monitor(["bob", "--json"], { home: stranger });
  assert.equal(first.code, 1, first.stdout + first.stderr);
  const out = JSON.parse(first.stdout);
  assert.deepEqual(out.allowed_keys, [bobKey.publicKey.fingerprint], "learnt from GET /v1/namespaces/bob/keys, signed in as no one");
  assert.deepEqual(out.findings.map((f: { item: string; reason: string }) => [f.item, f.reason]), [["knowledge bob/notes/other", "unsigned"]], "bob's signed push is quiet");
  // bob's token (stolen) registers another key: the public list now shows it, the monitor keeps the one it recorded.
  const laterKey = await generateKeyPair();
  await call("POST", "/v1/me/keys", bob.token, { public_key: laterKey.publicKey.pem });
  await push(bob.token, "bob/notes/signed", "1.0.1", laterKey);
  await push(bob.token, "bob/notes/signed", "1.0.2", bobKey);
  const second = await monitor(["bob", "--json"], { home: stranger });
  assert.equal(second.code, 1, second.stdout + second.stderr);
  const found = JSON.parse(second.stdout).findings;
  assert.deepEqual(found.map((f: { version: string; author_key: string; reason: string }) => [f.version, f.author_key, f.reason]), [["1.0.1", laterKey.publicKey.fingerprint, "unregistered_key"]]);

  // An organization's namespace: its members' keys (bob's, both listed now), again with no token.
  const org = await registry.db.prisma.organization.create({ data: { name: "acme" } });
  await registry.db.prisma.namespace.create({ data: { name: "acme", orgId: org.id } });
  await registry.db.prisma.membership.create({ data: { orgId: org.id, userId: (await registry.db.prisma.user.findUniqueOrThrow({ where: { username: "bob" } })).id, role: "member" } });
  const acme = await monitor(["acme", "--json"], { home: stranger });
  assert.equal(acme.code, 0, acme.stdout + acme.stderr);
  assert.deepEqual(JSON.parse(acme.stdout).allowed_keys.sort(), [bobKey.publicKey.fingerprint, laterKey.publicKey.fingerprint].sort());

  // A namespace no one has: refused (NOT_FOUND, naming --key), nothing recorded; with --key it is followed.
  const unknown = await monitor(["nobody", "--json"], { home: stranger });
  assert.equal(unknown.code, 1, unknown.stdout + unknown.stderr);
  const envelope = JSON.parse(unknown.stdout);
  assert.equal(envelope.error.code, "NOT_FOUND");
  assert.match(envelope.error.message, /cannot learn the author keys registered to nobody/);
  assert.match(envelope.error.hint, /--key/);
  const state = JSON.parse(await readFile(monitorStatePath({ USER_SPACE: join(stranger, "home") }), "utf8"));
  assert.deepEqual(Object.keys(state.registries[registry.url].namespaces).sort(), ["acme", "bob"]);
  assert.equal((await monitor(["nobody", "--key", bobKey.publicKey.fingerprint, "--json"], { home: stranger })).code, 0);
});

interface Hook {
  url: string;
  bodies: unknown[];
  requests: number;
  server: Server;
}

async function webhookServer(failFirst: number): Promise<Hook> {
  const hook: Hook = { url: "", bodies: [], requests: 0, server: createServer() };
  hook.server.on("request", async (req: IncomingMessage, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    hook.requests += 1;
    if (hook.requests <= failFirst) {
      res.writeHead(503).end();
      return;
    }
    hook.bodies.push(JSON.parse(text));
    res.writeHead(204).end();
  });
  hook.server.listen(0, "127.0.0.1");
  await once(hook.server, "listening");
  hook.url = `http://127.0.0.1:${(hook.server.address() as AddressInfo).port}/rye`;
  return hook;
}

/** `rye log monitor alice --watch …` as a child process; resolves when `until` holds, then stops it with SIGTERM. */
async function watch(extra: string[], until: (stdout: string, stderr: string) => boolean) {
  // Alice has revoked the key the stolen token registered: a fresh monitor records hers alone from the public list.
  await call("DELETE", `/v1/me/keys/${attackerKey.publicKey.fingerprint}`, alice.token, undefined);
  const fresh = await mkdtemp(join(tmpdir(), "rye-log-monitor-watch-"));
  const child = spawn(process.execPath, [RYE_BIN, "log", "monitor", "alice", "--watch", "--interval", "1", "--key", aliceKey.publicKey.fingerprint, "--json", ...extra], {
    env: { ...process.env, USER_SPACE: join(fresh, "home"), RYE_REGISTRY_URL: registry.url, RYE_TOKEN: "" },
    cwd: fresh,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const exited = once(child, "exit");
  const deadline = Date.now() + 60_000;
  try {
    while (!until(stdout, stderr)) {
      assert.ok(Date.now() < deadline && child.exitCode === null, `the watch did not get there:\n${stdout}\n${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    child.kill("SIGTERM"); // also when the wait failed: never leave the watch running
  }
  const [code] = await exited;
  return { code, stdout, stderr };
}

test("--watch POSTs each finding to the webhook (retrying a failing one) and keeps following", async () => {
  const hook = await webhookServer(1);
  try {
    const r = await watch(["--webhook", hook.url], (stdout) => hook.bodies.length >= 2 && stdout.trim().split("\n").length >= 2);
    assert.equal(r.code, 1, "it reported findings");
    const findings = hook.bodies.map((b) => (b as { type: string; namespace: string; finding: { index: number; reason: string } }));
    assert.deepEqual(findings.map((b) => [b.type, b.namespace, b.finding.index, b.finding.reason]), [
      ["rye.log.finding", "alice", 3, "unregistered_key"],
      ["rye.log.finding", "alice", 5, "unsigned"],
    ]);
    assert.equal(hook.requests, 3, "the first POST failed (503) and was retried");
    const passes = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(passes[0].findings.length, 2);
    assert.equal(passes[1].findings.length, 0, "the next pass starts where the first left off");
    assert.doesNotMatch(r.stderr, /warning/);
  } finally {
    hook.server.close();
  }
});

test("--watch reports a webhook that keeps failing and does not stop", async () => {
  const dead = `${await deadRegistryUrl()}/rye`;
  const r = await watch(["--webhook", dead], (stdout, stderr) => /failed 3 times/.test(stderr) && stdout.trim().split("\n").length >= 2);
  assert.match(r.stderr, new RegExp(`warning: the webhook ${dead.replace(/[.]/g, "\\.")} failed 3 times .*finding at index 3 not delivered`));
  assert.equal(r.code, 1);
});
