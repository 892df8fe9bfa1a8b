/** Webhooks: management and its authorization, signed deliveries to a real receiver, retries, redelivery, private items, SSRF guards. */
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, test } from "node:test";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";
import { isSealed } from "../keys/secret-box.ts";
import { silentLogger } from "../logger.ts";
import { postWebhook } from "../services/webhooks/deliver.ts";
import { retryDelayMs, WebhookDispatcher } from "../services/webhooks/dispatcher.ts";
import { WEBHOOK_LIMITS } from "../services/webhooks/events.ts";
import { isNonPublicAddress } from "../services/webhooks/network.ts";
import { assertWebhookUrl } from "../services/webhooks/service.ts";
import { verifyWebhookSignature } from "../services/webhooks/signature.ts";

type Json = Record<string, any>;

interface Received {
  headers: IncomingMessage["headers"];
  body: string;
  json: Json;
}

/** A real HTTP receiver; `answer` decides each response (default 204). */
class Receiver {
  received: Received[] = [];
  answer: (n: number, res: ServerResponse) => void = (_n, res) => res.writeHead(204).end();
  private server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      this.received.push({ headers: req.headers, body, json: JSON.parse(body) as Json });
      this.answer(this.received.length, res);
    });
  });
  url = "";
  async start(): Promise<void> {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
  }
}

const knowledge = (name: string, version = "1.0.0") => `---\nid: ${name}\ntitle: ${name}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\nBody of ${name}.\n`;

let reg: TestRegistry;
let receiver: Receiver;
let tokens: Record<"alice" | "bob" | "carol" | "dave", string>;
let alice: TestUser;

const dispatcher = (overrides: Partial<ConstructorParameters<typeof WebhookDispatcher>[0]> = {}) =>
  new WebhookDispatcher({ db: reg.db, logger: silentLogger, secrets: reg.deps.secrets, registryUrl: "http://registry.test", userAgent: "rye-test", allowPrivateNetworks: true, timeoutMs: 2000, maxAttempts: 3, retryBaseMs: 1, pollMs: 10, ...overrides });

async function call(method: string, path: string, token?: string, json?: unknown): Promise<{ status: number; body: Json }> {
  const res = await reg.request(method, path, { ...(token ? { token } : {}), ...(json !== undefined ? { json } : {}) });
  return { status: res.status, body: (await res.json()) as Json };
}
async function publish(id: string, version = "1.0.0", visibility?: string): Promise<void> {
  const res = await call("POST", "/v1/push", tokens.alice, { item_type: "knowledge", item_id: id, content: knowledge(id.split("/").at(-1)!, version), version, metadata: visibility ? { visibility } : undefined });
  assert.equal(res.status, 201, JSON.stringify(res.body));
}
async function createHook(ns: string, body: Json, token = tokens.alice): Promise<Json> {
  const res = await call("POST", `/v1/namespaces/${ns}/webhooks`, token, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}
const deliveries = async (ns: string, id: string) => (await call("GET", `/v1/namespaces/${ns}/webhooks/${id}/deliveries`, tokens.alice)).body.deliveries as Json[];
/** Runs the dispatcher until nothing is due. */
async function drain(d = dispatcher()): Promise<void> {
  while ((await d.runOnce()) > 0);
}

before(async () => {
  reg = await createTestRegistry({
    config: { rateLimit: { windowSeconds: 60, reads: 100_000, writes: 100_000 }, webhooks: { allowPrivateNetworks: true, timeoutMs: 2000, maxAttempts: 3, retryBaseMs: 1, pollMs: 10 } },
  });
  alice = await reg.createUser("alice");
  const bob = await reg.createUser("bob");
  const carol = await reg.createUser("carol");
  const dave = await reg.createUser("dave");
  await reg.createOrg("acme", [{ user: alice, role: "owner" }, { user: carol, role: "admin" }, { user: dave, role: "member" }]);
  tokens = { alice: await reg.token(alice), bob: await reg.token(bob), carol: await reg.token(carol), dave: await reg.token(dave) };
  receiver = new Receiver();
  await receiver.start();
});
after(async () => {
  await receiver.stop();
  await reg.close();
});
beforeEach(async () => {
  receiver.received = [];
  receiver.answer = (_n, res) => res.writeHead(204).end();
  await reg.db.prisma.webhook.deleteMany({});
});

describe("management", () => {
  test("owners and admins create, list, change and delete; the secret is shown once", async () => {
    const hook = await createHook("acme", { url: `${receiver.url}/hook`, events: ["publish", "yank"] });
    assert.match(hook.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual({ ...hook, id: "x", secret: "x", created_at: "x" }, { id: "x", namespace: "acme", url: `${receiver.url}/hook`, events: ["publish", "yank"], include_private: false, active: true, created_at: "x", secret: "x" });
    const listed = await call("GET", "/v1/namespaces/acme/webhooks", tokens.carol);
    assert.equal(listed.status, 200);
    assert.equal(listed.body.webhooks.length, 1);
    assert.ok(!JSON.stringify(listed.body).includes(hook.secret), "the secret is never listed");
    const patched = await call("PATCH", `/v1/namespaces/acme/webhooks/${hook.id}`, tokens.carol, { active: false, events: ["delete"] });
    assert.deepEqual([patched.status, patched.body.active, patched.body.events], [200, false, ["delete"]]);
    const audits = await reg.db.prisma.auditEvent.findMany({ where: { targetType: "webhook", targetId: hook.id }, orderBy: { createdAt: "asc" } });
    assert.deepEqual(audits.map((a) => a.action), ["webhook.create", "webhook.update"]);
    assert.ok(!JSON.stringify(audits).includes(hook.secret), "the secret is not audited");
    const stored = await reg.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    assert.ok(isSealed(stored.secret) && !stored.secret.includes(hook.secret.slice("whsec_".length)), "the stored secret is sealed, not in clear");
    assert.equal(reg.deps.secrets.open(stored.secret), hook.secret);
    assert.deepEqual((await call("DELETE", `/v1/namespaces/acme/webhooks/${hook.id}`, tokens.alice)).body, { status: "deleted", id: hook.id });
    assert.equal((await call("GET", "/v1/namespaces/acme/webhooks", tokens.alice)).body.webhooks.length, 0);
  });

  test("members, outsiders, read-only tokens and anonymous callers are refused; ids of other namespaces are not found", async () => {
    const hook = await createHook("acme", { url: `${receiver.url}/hook` });
    const readOnly = await reg.token(alice, { scopes: ["items:read"] });
    const cases: [string, string, string | undefined, unknown, number, string][] = [
      ["POST", "/v1/namespaces/acme/webhooks", tokens.dave, { url: `${receiver.url}/x` }, 403, "FORBIDDEN"],
      ["GET", "/v1/namespaces/acme/webhooks", tokens.dave, undefined, 403, "FORBIDDEN"],
      ["GET", `/v1/namespaces/acme/webhooks/${hook.id}/deliveries`, tokens.bob, undefined, 403, "FORBIDDEN"],
      ["DELETE", `/v1/namespaces/acme/webhooks/${hook.id}`, tokens.bob, undefined, 403, "FORBIDDEN"],
      ["POST", "/v1/namespaces/acme/webhooks", readOnly, { url: `${receiver.url}/x` }, 403, "FORBIDDEN"],
      ["POST", "/v1/namespaces/acme/webhooks", undefined, { url: `${receiver.url}/x` }, 401, "UNAUTHORIZED"],
      ["DELETE", `/v1/namespaces/alice/webhooks/${hook.id}`, tokens.alice, undefined, 404, "NOT_FOUND"],
      ["POST", `/v1/namespaces/acme/webhooks/not-a-uuid/ping`, tokens.alice, undefined, 404, "NOT_FOUND"],
      ["POST", "/v1/namespaces/nobody/webhooks", tokens.alice, { url: `${receiver.url}/x` }, 404, "NOT_FOUND"],
      ["POST", "/v1/namespaces/acme/webhooks", tokens.alice, { url: `${receiver.url}/x`, events: ["explode"] }, 400, "BAD_REQUEST"],
      ["POST", "/v1/namespaces/acme/webhooks", tokens.alice, { url: `${receiver.url}/x`, events: [] }, 400, "BAD_REQUEST"],
      ["POST", "/v1/namespaces/acme/webhooks", tokens.alice, { url: "not a url" }, 400, "INVALID_WEBHOOK_URL"],
    ];
    for (const [method, path, token, body, status, code] of cases) {
      const res = await call(method, path, token, body);
      assert.deepEqual([res.status, res.body.error?.code], [status, code], `${method} ${path} ${JSON.stringify(body)}`);
      assert.ok(res.body.error.hint, "with a hint");
    }
    assert.equal((await reg.db.prisma.webhook.count()), 1, "nothing was created");
  });

  test(`a namespace has at most ${WEBHOOK_LIMITS.perNamespace} webhooks`, async () => {
    await Promise.all(Array.from({ length: WEBHOOK_LIMITS.perNamespace + 3 }, (_, i) => call("POST", "/v1/namespaces/acme/webhooks", tokens.alice, { url: `${receiver.url}/${i}` })));
    assert.equal(await reg.db.prisma.webhook.count(), WEBHOOK_LIMITS.perNamespace, "concurrent creations cannot pass the limit");
    const over = await call("POST", "/v1/namespaces/acme/webhooks", tokens.alice, { url: `${receiver.url}/over` });
    assert.deepEqual([over.status, over.body.error.code], [409, "LIMIT_EXCEEDED"]);
  });
});

describe("deliveries", () => {
  test("a publish reaches the namespace's webhook, signed; other namespaces' events do not", async () => {
    const hook = await createHook("acme", { url: `${receiver.url}/hook` });
    await publish("acme/notes/launch");
    await publish("alice/notes/elsewhere");
    await drain();
    assert.equal(receiver.received.length, 1);
    const [got] = receiver.received;
    assert.equal(got!.headers["x-rye-event"], "publish");
    assert.equal(got!.headers["content-type"], "application/json");
    assert.ok(verifyWebhookSignature(hook.secret, got!.body, got!.headers["x-rye-signature"] as string), "the signature verifies with the secret");
    assert.ok(!verifyWebhookSignature("whsec_wrong", got!.body, got!.headers["x-rye-signature"] as string));
    assert.ok(!verifyWebhookSignature(hook.secret, got!.body.replace("launch", "lunch"), got!.headers["x-rye-signature"] as string), "a changed body fails");
    assert.ok(!verifyWebhookSignature(hook.secret, got!.body, got!.headers["x-rye-signature"] as string, { now: Math.floor(Date.now() / 1000) + 3600 }), "an old delivery is a replay");
    assert.equal(got!.json.event, "publish");
    assert.equal(got!.json.registry, "http://registry.test");
    assert.equal(got!.json.id, got!.headers["x-rye-delivery"]);
    assert.deepEqual({ ...got!.json.data, file_sha256: "x", content_hash: "x", log_index: 0 }, { event: "publish", log_index: 0, kind: "item", item_type: "knowledge", id: "acme/notes/launch", version: "1.0.0", file_sha256: "x", content_hash: "x", publisher: "alice" });
    const [logged] = await deliveries("acme", hook.id);
    assert.deepEqual([logged!.status, logged!.attempts, logged!.last_status_code, logged!.event], ["delivered", 1, 204, "publish"]);
    assert.ok(logged!.delivered_at);
  });

  test("yank, deprecate and delete are delivered to subscribers of those events only", async () => {
    await publish("acme/notes/churn");
    const all = await createHook("acme", { url: `${receiver.url}/all` });
    const yanksOnly = await createHook("acme", { url: `${receiver.url}/yanks`, events: ["yank"] });
    await publish("acme/notes/churn", "1.1.0");
    assert.equal((await call("POST", "/v1/yank/knowledge/acme/notes/churn", tokens.alice, { version: "1.1.0" })).status, 200);
    assert.equal((await call("POST", "/v1/deprecate/knowledge/acme/notes/churn", tokens.alice, { message: "old" })).status, 200);
    assert.equal((await call("DELETE", "/v1/delete/knowledge/acme/notes/churn?version=1.1.0", tokens.alice)).status, 200);
    await drain();
    assert.deepEqual((await deliveries("acme", all.id)).map((d) => d.event).reverse(), ["publish", "yank", "deprecate", "delete"]);
    assert.deepEqual((await deliveries("acme", yanksOnly.id)).map((d) => d.event), ["yank"]);
  });

  test("private items' events go only to webhooks that asked for them", async () => {
    const plain = await createHook("acme", { url: `${receiver.url}/plain` });
    const withPrivate = await createHook("acme", { url: `${receiver.url}/private`, include_private: true });
    await publish("acme/notes/hidden_thing", "1.0.0", "private");
    await drain();
    assert.equal((await deliveries("acme", plain.id)).length, 0);
    const [got] = await deliveries("acme", withPrivate.id);
    assert.equal(got!.payload.id, "acme/notes/hidden_thing");
    assert.equal(receiver.received.length, 1);
  });

  test("a failing receiver is retried with doubling delays until it answers, or until the attempts run out", async () => {
    const hook = await createHook("acme", { url: `${receiver.url}/flaky` });
    receiver.answer = (n, res) => res.writeHead(n === 1 ? 500 : 200).end(n === 1 ? "try later" : "ok");
    await publish("acme/notes/retry_me");
    const d = dispatcher();
    assert.equal(await d.runOnce(), 1);
    let [logged] = await deliveries("acme", hook.id);
    assert.deepEqual([logged!.status, logged!.attempts, logged!.last_status_code, logged!.last_error], ["pending", 1, 500, "answered 500: try later"]);
    await new Promise((r) => setTimeout(r, 20));
    await drain(d);
    [logged] = await deliveries("acme", hook.id);
    assert.deepEqual([logged!.status, logged!.attempts, logged!.last_status_code, logged!.last_error], ["delivered", 2, 200, null]);

    receiver.received = [];
    receiver.answer = (_n, res) => res.writeHead(503).end();
    await publish("acme/notes/retry_me", "1.1.0");
    for (let i = 0; i < 10; i++) {
      await d.runOnce();
      await new Promise((r) => setTimeout(r, 10));
    }
    [logged] = await deliveries("acme", hook.id);
    assert.deepEqual([logged!.status, logged!.attempts], ["failed", 3], "stops after maxAttempts");
    assert.equal(receiver.received.length, 3);
    assert.deepEqual([1, 2, 3, 20].map((a) => retryDelayMs(a, 30_000)), [30_000, 60_000, 120_000, 3_600_000], "doubling, at most an hour");
  });

  test("a stalled receiver ends at the deadline; a redirect is not followed", async () => {
    const hook = await createHook("acme", { url: `${receiver.url}/slow` });
    receiver.answer = () => {}; // never answers
    await publish("acme/notes/stall");
    await dispatcher({ timeoutMs: 300 }).runOnce();
    let [logged] = await deliveries("acme", hook.id);
    assert.deepEqual([logged!.status, logged!.last_error], ["pending", "no answer within 300 ms"]);

    await reg.db.prisma.webhookDelivery.deleteMany({});
    receiver.received = [];
    receiver.answer = (_n, res) => res.writeHead(302, { location: `${receiver.url}/elsewhere` }).end();
    await publish("acme/notes/stall", "1.1.0");
    await dispatcher().runOnce();
    [logged] = await deliveries("acme", hook.id);
    assert.equal(logged!.last_error, `redirect to ${receiver.url}/elsewhere not followed`);
    assert.deepEqual(receiver.received.map((r) => r.headers.host), [new URL(receiver.url).host]);
    assert.equal(receiver.received.length, 1, "the redirect target got nothing");
  });

  test("redelivery sends the same payload as a new delivery; ping checks the receiver", async () => {
    const hook = await createHook("acme", { url: `${receiver.url}/again` });
    await publish("acme/notes/again");
    await drain();
    const [first] = await deliveries("acme", hook.id);
    const again = await call("POST", `/v1/namespaces/acme/webhooks/${hook.id}/deliveries/${first!.id}/redeliver`, tokens.carol);
    assert.equal(again.status, 202);
    assert.deepEqual([again.body.redelivery_of, again.body.status], [first!.id, "pending"]);
    const ping = await call("POST", `/v1/namespaces/acme/webhooks/${hook.id}/ping`, tokens.alice);
    assert.equal(ping.status, 202);
    await drain();
    const [original, resent, pinged] = [receiver.received[0]!, ...receiver.received.slice(1).sort((x, y) => (x.json.event === "ping" ? 1 : 0) - (y.json.event === "ping" ? 1 : 0))];
    assert.equal(receiver.received.length, 3);
    assert.deepEqual(resent!.json.data, original.json.data, "the same payload");
    assert.notEqual(resent!.json.id, original.json.id, "a new delivery id");
    assert.deepEqual(pinged!.json.data, { event: "ping", namespace: "acme", webhook_id: hook.id });
    const wrong = await call("POST", `/v1/namespaces/acme/webhooks/${hook.id}/deliveries/00000000-0000-0000-0000-000000000000/redeliver`, tokens.alice);
    assert.deepEqual([wrong.status, wrong.body.error.code], [404, "NOT_FOUND"]);
  });

  test("a disabled webhook gets nothing new, and its pending deliveries fail", async () => {
    const hook = await createHook("acme", { url: `${receiver.url}/off` });
    await publish("acme/notes/off1");
    await call("PATCH", `/v1/namespaces/acme/webhooks/${hook.id}`, tokens.alice, { active: false });
    await publish("acme/notes/off2");
    await drain();
    const logged = await deliveries("acme", hook.id);
    assert.deepEqual(logged.map((d) => [d.status, d.last_error]), [["failed", "the webhook is disabled"]]);
    assert.equal(receiver.received.length, 0);
  });

  test("two dispatchers on one database send every delivery exactly once", async () => {
    await createHook("acme", { url: `${receiver.url}/race` });
    for (let i = 0; i < 12; i++) await publish(`acme/notes/race_${i}`);
    const a = dispatcher();
    const b = dispatcher();
    await Promise.all([drain(a), drain(b)]);
    const ids = receiver.received.map((r) => r.json.id as string);
    assert.equal(ids.length, 12);
    assert.equal(new Set(ids).size, 12);
  });

  test("the running dispatcher delivers by itself and stops cleanly", async () => {
    await createHook("acme", { url: `${receiver.url}/live` });
    const d = dispatcher();
    d.start();
    try {
      await publish("acme/notes/live");
      for (let i = 0; i < 200 && receiver.received.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(receiver.received.length, 1);
    } finally {
      await d.stop();
    }
  });
});

describe("server-side request forgery", () => {
  test("URLs of private networks, plain http and credentials are refused where private networks are not allowed", () => {
    assert.equal(assertWebhookUrl("https://hooks.example.com/rye", false), "https://hooks.example.com/rye");
    for (const url of ["http://hooks.example.com/", "https://127.0.0.1/", "https://10.1.2.3/", "https://169.254.169.254/latest", "https://[::1]/", "https://[::ffff:127.0.0.1]/",
      "https://localhost/", "https://api.localhost/", "https://user:pw@hooks.example.com/", "ftp://hooks.example.com/", "https://192.168.1.1/", "https://100.64.0.1/"]) {
      assert.throws(() => assertWebhookUrl(url, false), (e: any) => e.code === "INVALID_WEBHOOK_URL", url);
    }
    assert.equal(assertWebhookUrl("http://127.0.0.1:9/x", true), "http://127.0.0.1:9/x");
    assert.deepEqual(["8.8.8.8", "2606:4700::1111", "127.0.0.1", "10.0.0.1", "172.20.1.1", "fd00::1", "fe80::1", "::ffff:10.0.0.1", "0.0.0.0", "not-an-ip"].map(isNonPublicAddress),
      [false, false, true, true, true, true, true, true, true, true]);
  });

  test("a host name that resolves to a private address is refused when connecting (DNS rebinding), before anything is sent", async () => {
    const port = new URL(receiver.url).port;
    const attempt = await postWebhook(`http://localhost:${port}/rebound`, "{}", {}, { timeoutMs: 2000, allowPrivateNetworks: false, userAgent: "t" });
    assert.equal(attempt.ok, false);
    assert.match(attempt.error!, /localhost resolves to (127\.0\.0\.1|::1), which is not a public address/);
    assert.equal(receiver.received.length, 0);
  });
});
