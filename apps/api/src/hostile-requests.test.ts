/**
 * Hostile input against a real server (issue #29 §3): for every operation of the served /v1/openapi.json, and
 * every route the app has that the document does not list, at least 20 requests with hostile path and query values
 * (NUL, `..`, `%2e%2e`, overlong, RTL override, lone `%`, LIKE wildcards, invalid UTF-8, emoji, …), malformed,
 * wrongly typed, deep and oversized bodies, and no, bogus and valid credentials. Real HTTP on loopback, the real
 * database (PostgreSQL when DATABASE_URL is set, and PGlite). No answer may be a 5xx other than 503, and no body
 * may carry a stack trace, an error dump or an internal path.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { createHash, randomUUID } from "node:crypto";
import { once } from "node:events";
import { Agent, request } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { buildManifest, buildSkillManifest, generateKeyPair, type KeyPair, serializeManifest, signManifest, signSkillManifest } from "@rye/core";
import { postgresAvailable } from "@rye/db/testing";
import { createTestRegistry, type TestRegistry } from "../test/harness.ts";
import { type HostileRequest, hostileRequestsFor, type Operation, operationsOf } from "../test/hostile-requests.ts";

const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url)).replace(/\/$/, "");
const MAX_ITEM_BYTES = 64 * 1024;
const CONCURRENCY = 6;
const BODY_CAP = 4 * 1024 * 1024;

/** Valid values for parameters, so that one hostile value at a time reaches the code behind the others. */
const VALID: Record<string, string> = {
  item_type: "knowledge",
  item_id: "alice/notes/guide",
  namespace: "alice",
  name: "acme",
  skill: "demo-skill",
  skill_name: "demo-skill",
  version: "1.0.0",
  file: "SKILL.md",
  bundle_id: "alice/bundle",
  provider: "github",
  username: "alice",
  fingerprint: "0123456789abcdef",
  limit: "5",
  offset: "0",
  query: "guide",
  item_type_query: "knowledge",
};
const knowledge = (name: string, frontmatter = "") => `---\nid: ${name}\ntitle: ${name}\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n${frontmatter}---\n\nHow to deploy.\n`;
/** Plausible values of body properties (by name), so that one hostile field at a time gets past the others. */
const PLAUSIBLE: Record<string, unknown> = {
  item_type: "knowledge",
  item_id: "alice/notes/fuzz",
  content: knowledge("fuzz"),
  version: "1.0.0",
  // The push's optional metadata, as the item itself declares it.
  title: "fuzz",
  category: "notes",
  entry_type: "reference",
  file_extension: ".md",
  namespace: "alice",
  to_namespace: "acme",
  to_org: "acme",
  bundle_id: "alice/bundle",
  url: "https://example.com/hook",
  email: "carol@example.test",
  username: "bob",
  login: "alice",
  password: "correct horse battery staple",
  client_id: "rye-cli",
  grant_type: "urn:ietf:params:oauth:grant-type:device_code",
  redirect_uri: "http://127.0.0.1:8976/callback",
  subject: "example.com",
  name: "fuzz",
  user_code: "BCDF-GHJK",
};
const validValue = (param: string) => VALID[param] ?? (param === "id" || param === "delivery" ? randomUUID() : "1");

/** A stack frame, an `XError:` dump, an internal file path, or a database driver's message. */
const LEAKS: [string, RegExp][] = [
  ["stack frame", /\bat (?:async )?[\w.<>$]+ \(|\n\s+at \S|\bat (?:file:\/\/|\/)\S+:\d+:\d+/],
  ["error dump", /\b[A-Z]\w*(?:Error|Exception): /],
  ["node_modules path", /node_modules/],
  ["TypeScript source path", /[\w-]+\.tsx?(?::\d+|\b(?!["\w-]))/],
  ["repository path", new RegExp(REPO_ROOT.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))],
  ["/work path", /\/work\//],
  ["Prisma or PostgreSQL detail", /prisma|invalid byte sequence|violates .* constraint|syntax error at or near/i],
];

interface Answer {
  status: number;
  body: string;
}

/**
 * One request, exactly as given (node:http sends the target verbatim). A kept-alive socket the server closed
 * meanwhile (it closes one whose request body it did not read) fails with ECONNRESET or EPIPE before any answer: that
 * request is sent again on a new connection, as node's documentation advises.
 */
function send(base: { port: number; agent: Agent | false }, r: HostileRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: base.port, method: r.method, path: r.target, agent: base.agent, headers: { ...r.headers, ...(r.body ? { "content-length": String(r.body.length) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size <= BODY_CAP) chunks.push(c);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (req.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE")) send({ port: base.port, agent: false }, r).then(resolve, reject);
      else reject(error);
    });
    req.end(r.body);
  });
}

async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/** Express routes (`:param`, `:param{regex}`) as OpenAPI templates, to match the app's routes with the document's. */
const templateOf = (honoPath: string) => honoPath.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}");

async function skillPushBody(key: KeyPair, description: string, name = "demo-skill") {
  const skillMd = new TextEncoder().encode(`---\nname: ${name}\ndescription: ${description}\nmetadata:\n  version: "1.0.0"\n---\n\n# Demo\n`);
  const manifest = await signSkillManifest(buildSkillManifest([{ path: "SKILL.md", bytes: skillMd }]), key);
  const files = { "SKILL.md": { content_base64: Buffer.from(skillMd).toString("base64"), sha256: createHash("sha256").update(skillMd).digest("hex") } };
  return { namespace: "alice", manifest, files };
}

async function seed(reg: TestRegistry): Promise<{ token: string; key: KeyPair }> {
  const alice = await reg.createUser("alice", { admin: true });
  const bob = await reg.createUser("bob");
  await reg.createOrg("acme", [{ user: alice, role: "owner" }, { user: bob, role: "member" }]);
  const token = await reg.token(alice, { scopes: ["items:read", "items:write", "org:admin"] });
  const pushed = await reg.request("POST", "/v1/push", { token, json: { item_type: "knowledge", item_id: "alice/notes/guide", content: knowledge("guide"), version: "1.0.0" } });
  assert.equal(pushed.status, 201, await pushed.text());
  const key = await generateKeyPair();
  await reg.db.prisma.userKey.create({ data: { userId: alice.id, fingerprint: key.publicKey.fingerprint, publicKeyPem: key.publicKey.pem } });
  const skill = await reg.request("POST", "/v1/skills/push", { token, json: await skillPushBody(key, "Does demo things. Use when a demo is asked for.") });
  assert.equal(skill.status, 201, await skill.text());
  return { token, key };
}

const PRIMARY = postgresAvailable() ? "postgres" : "pglite";

for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
  describe(`hostile requests on ${kind}`, () => {
    let reg: TestRegistry;
    let server: ReturnType<typeof serve>;
    let port: number;
    let token: string;
    let key: KeyPair;
    let spec: Parameters<typeof operationsOf>[0];
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

    before(async () => {
      reg = await createTestRegistry({
        kind,
        // Rate limits would answer 429 before the code under test runs: lifted. Small items keep "oversized" small.
        config: { rateLimit: { windowSeconds: 60, reads: 1_000_000, writes: 1_000_000, store: "memory" }, limits: { maxItemBytes: MAX_ITEM_BYTES, maxBundleBytes: 4 * MAX_ITEM_BYTES, maxJsonBodyBytes: 6 * MAX_ITEM_BYTES + 64 * 1024, maxBundleBodyBytes: 8 * MAX_ITEM_BYTES + 64 * 1024 } },
      });
      ({ token, key } = await seed(reg));
      server = serve({ fetch: reg.app.fetch, port: 0, hostname: "127.0.0.1" });
      await once(server, "listening");
      port = (server.address() as AddressInfo).port;
      const res = await send({ port, agent }, { method: "GET", target: "/v1/openapi.json", headers: {}, label: "spec" });
      assert.equal(res.status, 200);
      spec = JSON.parse(res.body);
    });
    after(async () => {
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await reg.close();
    });

    test("every operation, listed or not, answers hostile input without a 5xx (but 503) or a leak", async () => {
      const listed = operationsOf(spec);
      const known = new Set(listed.map((o) => `${o.method} ${o.template}`));
      // Routes the document does not list (browser pages) are fuzzed too, and so is HEAD of the discovery routes.
      const unlisted: Operation[] = [];
      for (const route of reg.app.routes) {
        if (route.method === "ALL") continue;
        const key = `${route.method} ${templateOf(route.path)}`;
        if (known.has(key)) continue;
        known.add(key);
        unlisted.push({ method: route.method, template: templateOf(route.path), pathParams: [...templateOf(route.path).matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!), queryParams: [{ name: "next", type: "string" }], ...(route.method === "POST" ? { body: { contentTypes: ["application/x-www-form-urlencoded"], schema: { properties: { username: { type: "string" }, password: { type: "string" }, user_code: { type: "string" }, csrf: { type: "string" } } } } } : {}) });
      }
      for (const o of listed.filter((o) => o.template.includes("/.well-known/agent-skills/"))) unlisted.push({ ...o, method: "HEAD" });
      const operations = [...listed, ...unlisted];
      assert.ok(listed.length >= 80, `the served document lists ${listed.length} operations`);
      assert.ok(operations.some((o) => o.template.startsWith("/oauth/")), "OAuth endpoints are covered");
      assert.ok(operations.some((o) => o.template === "/{namespace}/.well-known/agent-skills/index.json"), "the namespace discovery index is covered");

      const failures: string[] = [];
      const perOperation = new Map<string, number>();
      let sent = 0;
      let authenticated = 0;
      const all = operations.flatMap((op) => {
        const list = hostileRequestsFor(spec, op, { valid: validValue, plausible: (name) => PLAUSIBLE[name], validToken: token, oversizeBytes: 8 * MAX_ITEM_BYTES + 128 * 1024 });
        perOperation.set(`${op.method} ${op.template}`, list.length);
        return list;
      });
      // With PostgreSQL at hand, PGlite (the embedded default) gets every fifth request: every route, a fifth of the time.
      const requests = kind === PRIMARY ? all : all.filter((_, i) => i % 5 === 0);
      const started = performance.now();
      await pool(requests, CONCURRENCY, async (r) => {
        const where = `${r.method} ${r.target.length > 160 ? `${r.target.slice(0, 160)}…` : r.target} [${r.label}]`;
        const answer = await send({ port, agent }, r).catch((error: Error) => error);
        sent++;
        if (answer instanceof Error) {
          failures.push(`${where}: no answer (${answer.message})`);
          return;
        }
        if (r.headers.authorization?.startsWith("Bearer rye_") && !r.headers.authorization.includes("bogus") && answer.status !== 401) authenticated++;
        if (answer.status >= 500 && answer.status !== 503) failures.push(`${where}: ${answer.status} ${answer.body.slice(0, 300)}`);
        // One check, for every route, before any of them: a malformed path or query never reaches a route.
        if (r.malformed && !(answer.status === 400 && (r.method === "HEAD" || answer.body.includes('"code":"INVALID_PARAMETER"')))) failures.push(`${where}: not refused as INVALID_PARAMETER: ${answer.status} ${answer.body.slice(0, 200)}`);
        // The served document itself describes the API: only answers are searched for leaks.
        if (r.target.startsWith("/v1/openapi.json")) return;
        for (const [what, pattern] of LEAKS) if (pattern.test(answer.body)) failures.push(`${where}: ${what} in the body: ${answer.body.slice(0, 300)}`);
      });
      const seconds = (performance.now() - started) / 1000;
      console.error(`hostile requests on ${kind}: ${sent} requests to ${operations.length} operations in ${seconds.toFixed(1)} s`);

      assert.deepEqual(failures, [], `${failures.length} hostile requests were answered badly:\n${failures.slice(0, 400).join("\n")}`);
      for (const [op, n] of perOperation) assert.ok(n >= 20, `${op}: only ${n} hostile requests`);
      // The valid token stayed valid (nothing revoked it): the authenticated paths were exercised, not refused at the door.
      assert.ok(authenticated > requests.length / 20, `only ${authenticated} requests with the valid token were authenticated`);
    });

    test("a NUL made by a YAML escape in clean bytes is refused as the item's, skill's or bundle's own fault, not stored", async () => {
      const http = (target: string, json: unknown) =>
        send({ port, agent }, { method: "POST", target, label: "yaml", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: Buffer.from(JSON.stringify(json)) });
      for (const escape of ["\\0", "\\x00", "\\u0000"]) {
        const item = await http("/v1/push", { item_type: "knowledge", item_id: "alice/notes/escaped", content: knowledge("escaped", `description: "a${escape}b"\n`), version: "1.0.0" });
        assert.equal(item.status, 400, item.body);
        assert.equal(JSON.parse(item.body).error.code, "VALIDATION_FAILED");
        assert.match(JSON.parse(item.body).error.message, /description contains NUL/);
        const skill = await http("/v1/skills/push", await skillPushBody(key, `"Does a${escape}b. Use when asked."`, "escaped-skill"));
        assert.equal(skill.status, 400, skill.body);
        assert.equal(JSON.parse(skill.body).error.code, "VALIDATION_FAILED");
        assert.match(JSON.parse(skill.body).error.message, /description contains NUL/);
      }
      // A bundle's manifest is YAML too: a NUL in its description is written as an escape by the serializer.
      const bytes = new TextEncoder().encode(knowledge("escaped"));
      const files = [{ path: ".ai/knowledge/alice/escaped/escaped.md", bytes }];
      const manifest = await signManifest(serializeManifest(buildManifest({ id: "alice/escaped", version: "1.0.0", description: "a\u0000b" }, files)), key);
      assert.match(manifest, /a\\0b/);
      const bundle = await http("/v1/bundle/push", { bundle_id: "alice/escaped", manifest, files: { [files[0]!.path]: { content_base64: Buffer.from(bytes).toString("base64"), sha256: createHash("sha256").update(bytes).digest("hex") } } });
      assert.equal(bundle.status, 400, bundle.body);
      assert.match(JSON.parse(bundle.body).error.message, /description contains NUL/);
      assert.equal(await reg.db.prisma.item.count({ where: { name: { in: ["escaped", "escaped-skill"] } } }), 0);
    });
  });
}
