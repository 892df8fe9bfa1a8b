/** `rye webhook …` and `rye registry changes` against a real registry over HTTP. */
import "@rye/core/node";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { hashToken, TOKEN_PREFIX } from "../../../../../apps/api/src/auth/api-tokens.ts";
import { startTestRegistry, type TestRegistry } from "../../../test/registry-server.ts";
import { registerRegistry } from "./registry.ts";
import { registerWebhook } from "./webhook.ts";
import { runCommands } from "../test-fixtures.ts";

let registry: TestRegistry;
let token: string;
let outsiderToken: string;

async function user(username: string): Promise<string> {
  const prisma = registry.db.prisma;
  const row = await prisma.user.create({ data: { username, email: `${username}@example.test` } });
  await prisma.namespace.create({ data: { name: username, userId: row.id } });
  const secret = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
  await prisma.apiToken.create({ data: { userId: row.id, name: "test", tokenHash: hashToken(secret), scopes: ["items:read", "items:write"] } });
  return secret;
}

before(async () => {
  registry = await startTestRegistry({ env: { RYE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "1" } });
  token = await user("alice");
  outsiderToken = await user("mallory");
});
after(() => registry.close());

async function rye(args: string[], as = token) {
  const root = await mkdtemp(join(tmpdir(), "rye-cli-webhook-"));
  const cwd = join(root, "project");
  await mkdir(cwd, { recursive: true });
  const register = (program: Parameters<typeof registerWebhook>[0], ctx: Parameters<typeof registerWebhook>[1]) => {
    registerRegistry(program, ctx);
    registerWebhook(program, ctx);
  };
  return runCommands(register, args, { USER_SPACE: join(root, "home"), RYE_REGISTRY_URL: registry.url, RYE_TOKEN: as }, cwd);
}

test("add prints the secret once; list, update, ping, deliveries, redeliver and remove work end to end", async () => {
  let r = await rye(["webhook", "add", "alice", "http://127.0.0.1:9/hook", "--event", "publish", "--event", "yank"]);
  assert.equal(r.code, 0, r.stderr);
  const id = /Created webhook ([0-9a-f-]{36}) for alice → http:\/\/127\.0\.0\.1:9\/hook \(events: publish, yank\)\./.exec(r.stdout)?.[1];
  assert.ok(id, r.stdout);
  assert.match(r.stdout, /Signing secret \(shown only now; store it with the receiver\): whsec_/);

  r = await rye(["webhook", "list", "alice"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`${id}  active    http://127.0.0.1:9/hook  events: publish,yank`));
  assert.doesNotMatch(r.stdout, /whsec_/);

  r = await rye(["webhook", "update", "alice", id, "--disable", "--include-private"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /disabled.*\+private/);
  r = await rye(["webhook", "update", "alice", id, "--enable", "--json"]);
  assert.deepEqual([JSON.parse(r.stdout).active, JSON.parse(r.stdout).include_private], [true, true], "an option not given is left alone");

  r = await rye(["webhook", "ping", "alice", id, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const ping = JSON.parse(r.stdout);
  r = await rye(["webhook", "redeliver", "alice", id, ping.id]);
  assert.match(r.stdout, new RegExp(`Queued redelivery [0-9a-f-]{36} of ${ping.id}\\.`));
  r = await rye(["webhook", "deliveries", "alice", id]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim().split("\n").length, 2);
  assert.match(r.stdout, new RegExp(`ping +pending +attempts 0 .*\\(redelivery of ${ping.id}\\)`));

  r = await rye(["webhook", "remove", "alice", id]);
  assert.equal(r.code, 0, r.stderr);
  assert.match((await rye(["webhook", "list", "alice"])).stdout, /No webhooks in alice/);
});

test("refusals carry the registry's code and hint; bad arguments are caught before any request", async () => {
  let r = await rye(["webhook", "add", "alice", "http://127.0.0.1:9/x"], outsiderToken);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /error\[FORBIDDEN\]: You cannot publish to the alice namespace/);
  r = await rye(["webhook", "add", "alice", "ftp://example.com/"]);
  assert.match(r.stderr, /error\[INVALID_WEBHOOK_URL\]: Webhook URLs must use https/);
  const before = registry.requests.length;
  r = await rye(["webhook", "add", "alice", "https://example.com/", "--event", "explode"]);
  assert.match(r.stderr, /error\[BAD_REQUEST\]: Unknown event explode/);
  r = await rye(["webhook", "remove", "alice", "../../v1/push"]);
  assert.match(r.stderr, /error\[BAD_REQUEST\]: Not a webhook id/);
  r = await rye(["webhook", "list", "../etc"]);
  assert.match(r.stderr, /error\[BAD_REQUEST\]: Not a namespace/);
  r = await rye(["webhook", "update", "alice", "00000000-0000-0000-0000-000000000000"]);
  assert.match(r.stderr, /error\[BAD_REQUEST\]: Nothing to change/);
  assert.equal(registry.requests.length, before, "no request was sent");
});

test("rye registry changes pages the public feed", async () => {
  const publish = async (name: string) => {
    const content = `---\nid: ${name}\ntitle: ${name}\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n---\n\nBody.\n`;
    const res = await fetch(`${registry.url}/v1/push`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ item_type: "knowledge", item_id: `alice/notes/${name}`, version: "1.0.0", content }) });
    assert.equal(res.status, 201);
  };
  await publish("feed_one");
  await publish("feed_two");
  let r = await rye(["registry", "changes", "--limit", "1"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^0  \S+  publish     knowledge alice\/notes\/feed_one@1\.0\.0\n\(more: rye registry changes --since 1\)\n$/);
  r = await rye(["registry", "changes", "--since", "1", "--json"]);
  const page = JSON.parse(r.stdout);
  assert.deepEqual([page.changes.map((c: { subject: { id: string } }) => c.subject.id), page.caught_up], [["alice/notes/feed_two"], true]);
  r = await rye(["registry", "changes", "--since", "-3"]);
  assert.match(r.stderr, /error\[BAD_REQUEST\]: since must be a non-negative integer/);
});
