/**
 * A plain tools/call answered without an SDK server (direct-call.ts) and get_item's kept answers (get-item.ts),
 * over real HTTP: the direct answer is the SDK's answer; only requests the SDK would accept unchanged take the
 * direct path; a kept get_item answer is never served to a caller who may not read the version, and is dropped
 * when what it says changes (yank, new version, visibility, membership; the publisher key's revocation is read on
 * every call).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { knowledge, pushSkill, skillFiles, startMcpFixture, type McpFixture } from "../../test/mcp-registry.ts";
import { directToolCall } from "./direct-call.ts";
import { MCP_MAX_BODY_BYTES } from "./http.ts";

type Json = Record<string, any>;

let f: McpFixture;
before(async () => {
  f = await startMcpFixture();
});
after(() => f?.close());

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

/** POST /mcp with a Content-Length (the direct path) or chunked (no length: the SDK transport reads it). */
async function post(body: unknown, options: { token?: string; chunked?: boolean } = {}): Promise<{ status: number; json: Json }> {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = { ...MCP_HEADERS, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) };
  const init: RequestInit & { duplex?: "half" } = options.chunked
    ? { method: "POST", headers, body: new Blob([text]).stream(), duplex: "half" }
    : { method: "POST", headers, body: text };
  const res = await fetch(`${f.url}/mcp`, init);
  return { status: res.status, json: (await res.json()) as Json };
}

const toolCall = (name: string, args: Record<string, unknown>, id: number | string = 7) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; structured: Json; text: string }> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[])[0]?.text ?? "";
  return { isError: result.isError === true, structured: (result.structuredContent ?? {}) as Json, text };
}
const errorCode = (r: { isError: boolean; text: string }) => (r.isError ? (JSON.parse(r.text) as Json).error.code : null);

describe("direct tools/call", () => {
  test("answers exactly what the SDK server answers, for every tool, a refusal and a signed-in caller", async () => {
    const calls: [Record<string, unknown>, string?][] = [
      [toolCall("search", { query: "greet", limit: 5 })],
      [toolCall("search", { namespace: "alice", facets: true }, "str-id")],
      [toolCall("get_item", { item_type: "knowledge", item_id: "alice/notes/style", version: "1.0.0" })],
      [toolCall("get_item", { item_type: "skill", item_id: "alice/notes" })],
      [toolCall("get_item", { item_type: "knowledge", item_id: "acme/internal/secret-plan" }), f.tokens.mia],
      [toolCall("get_item", { item_type: "knowledge", item_id: "acme/internal/secret-plan" })],
      [toolCall("list_versions", { item_type: "knowledge", item_id: "alice/notes/style" })],
      [toolCall("relations", { item_type: "tool", item_id: "alice/tools/fetch" })],
      [toolCall("skill_files", { skill_id: "alice/notes", paths: ["SKILL.md", "assets/logo.bin", "nope"] })],
      [toolCall("search", { cursor: "garbage" })],
    ];
    for (const [body, token] of calls) {
      const direct = await post(body, { token });
      const viaSdk = await post(body, { token, chunked: true });
      assert.equal(direct.status, 200);
      // list_versions carries a download count flushed in the background: equal either way here (nothing pulls).
      assert.deepEqual(direct.json, viaSdk.json, JSON.stringify(body));
      const result = direct.json.result as Json;
      if (!result.isError) assert.equal(result.content[0].text, JSON.stringify(result.structuredContent), "the text is the structured content's JSON");
    }
    const refused = await post(toolCall("get_item", { item_type: "knowledge", item_id: "acme/internal/secret-plan" }));
    assert.equal(JSON.parse(refused.json.result.content[0].text).error.code, "ITEM_NOT_FOUND");
  });

  test("only a plain single tools/call the SDK would accept unchanged is answered directly", async () => {
    const caller = { deps: f.reg.deps, principal: null, requestId: "test" };
    const request = (body: unknown, headers: Record<string, string> = MCP_HEADERS) => {
      const text = typeof body === "string" ? body : JSON.stringify(body);
      return new Request(`${f.url}/mcp`, { method: "POST", headers: { ...headers, "content-length": String(Buffer.byteLength(text)) }, body: text });
    };
    const direct = async (req: Request) => "response" in (await directToolCall(req, caller, MCP_MAX_BODY_BYTES));
    const search = toolCall("search", { query: "greet" });
    assert.equal(await direct(request(search)), true);
    assert.equal(await direct(request(search, { ...MCP_HEADERS, "content-type": "application/json; charset=utf-8" })), true);
    const { "mcp-protocol-version": _, ...noVersion } = MCP_HEADERS;
    assert.equal(await direct(request(search, noVersion)), true, "no version header: the SDK assumes its default");
    for (const [why, req] of [
      ["initialize", request({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })],
      ["tools/list", request({ jsonrpc: "2.0", id: 1, method: "tools/list" })],
      ["a batch", request([search])],
      ["a notification", request({ jsonrpc: "2.0", method: "notifications/initialized" })],
      ["an unknown tool", request(toolCall("nope", {}))],
      ["a name every object has", request(toolCall("toString", {}))],
      ["__proto__", request(toolCall("__proto__", {}))],
      ["arguments the input schema refuses", request(toolCall("search", { limit: 1000 }))],
      ["task augmentation", request({ ...search, params: { ...search.params, task: { ttl: 1000 } } })],
      ["a field JSON-RPC does not have", request({ ...search, extra: 1 })],
      ["invalid JSON", request("{nope")],
      ["an unsupported protocol version", request(search, { ...MCP_HEADERS, "mcp-protocol-version": "1999-01-01" })],
      ["Accept without text/event-stream", request(search, { ...MCP_HEADERS, accept: "application/json" })],
      ["another Content-Type", request(search, { ...MCP_HEADERS, "content-type": "text/plain" })],
    ] as const) {
      assert.equal(await direct(req), false, why);
    }
    const tooLong = new Request(`${f.url}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, "content-length": String(MCP_MAX_BODY_BYTES + 1) }, body: "x".repeat(MCP_MAX_BODY_BYTES + 1) });
    assert.equal(await direct(tooLong), false, "above MCP_MAX_BODY_BYTES: the SDK refuses it (413)");
  });

  test("what the direct path hands back is answered by the SDK as before: parse errors, bad arguments, batches", async () => {
    const bad = await fetch(`${f.url}/mcp`, { method: "POST", headers: MCP_HEADERS, body: "{nope" });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as Json).error.code, -32700);
    const invalid = await post(toolCall("search", { limit: 1000 }));
    assert.equal(invalid.json.result.isError, true);
    assert.match(invalid.json.result.content[0].text, /Input validation error.*limit/s);
    for (const name of ["toString", "__proto__", "nope"]) {
      const unknown = await post(toolCall(name, {}));
      assert.equal(unknown.status, 200, name);
      assert.equal(unknown.json.result.isError, true, name);
      assert.match(unknown.json.result.content[0].text, new RegExp(`Tool ${name} (not found|disabled)`), name);
    }
    const batch = await post([toolCall("search", { query: "greet" }, 1), toolCall("get_item", { item_type: "knowledge", item_id: "alice/notes/style" }, 2)]);
    assert.deepEqual((batch.json as unknown as Json[]).map((r) => [r.id, r.result.isError ?? false]), [[1, false], [2, false]]);
  });
});

describe("get_item's kept answers", () => {
  const secret = { item_type: "knowledge", item_id: "acme/internal/secret-plan" };

  test("a private version's answer kept for a member is never served to an outsider or anonymously", async () => {
    const member = await f.client(f.tokens.mia);
    for (const args of [{ ...secret, version: "1.0.0" }, secret]) {
      const first = await call(member, "get_item", args);
      const again = await call(member, "get_item", args);
      assert.equal(first.isError, false, first.text);
      assert.equal(again.text, first.text, "the member's second call is the kept answer");
      for (const token of [f.tokens.otto, undefined]) {
        const r = await call(await f.client(token), "get_item", args);
        assert.equal(errorCode(r), "ITEM_NOT_FOUND", `${token ? "outsider" : "anonymous"}: ${r.text.slice(0, 200)}`);
        assert.doesNotMatch(r.text, /acme plan/);
      }
    }
  });

  test("dropped when the version is yanked, when a new version is published, when the item turns private", async () => {
    const anon = await f.client();
    const push = (version: string) => f.http("POST", "/v1/push", { token: f.tokens.alice, json: { item_type: "knowledge", item_id: "alice/notes/kept", content: knowledge("kept", "notes", version), version } });
    assert.equal((await push("1.0.0")).status, 201);
    const pinned = { item_type: "knowledge", item_id: "alice/notes/kept", version: "1.0.0" };
    const latest = { item_type: "knowledge", item_id: "alice/notes/kept" };
    for (let i = 0; i < 2; i++) {
      assert.equal((await call(anon, "get_item", pinned)).structured.item.yanked, false);
      assert.equal((await call(anon, "get_item", latest)).structured.item.version, "1.0.0");
    }

    assert.equal((await push("1.1.0")).status, 201);
    assert.equal((await call(anon, "get_item", latest)).structured.item.version, "1.1.0", "latest follows a new version");

    assert.equal((await f.http("POST", "/v1/yank/knowledge/alice/notes/kept", { token: f.tokens.alice, json: { version: "1.0.0", reason: "broken" } })).status, 200);
    const yanked = await call(anon, "get_item", pinned);
    assert.equal(yanked.structured.item.yanked, true, "a pinned answer shows the yank");
    assert.equal(yanked.structured.item.yanked_reason, "broken");

    assert.equal((await f.http("POST", "/v1/visibility/knowledge/alice/notes/kept", { token: f.tokens.alice, json: { visibility: "private" } })).status, 200);
    for (const args of [pinned, latest]) assert.equal(errorCode(await call(anon, "get_item", args)), "ITEM_NOT_FOUND");
    const owner = await f.client(f.tokens.alice);
    assert.equal((await call(owner, "get_item", latest)).structured.item.visibility, "private");
  });

  test("a member removed from the organization no longer gets the kept private answer", async () => {
    const member = await f.client(f.tokens.mia);
    assert.equal((await call(member, "get_item", secret)).isError, false);
    const mia = f.users.mia;
    const membership = await f.reg.db.prisma.membership.findFirstOrThrow({ where: { userId: mia.id } });
    await f.reg.db.prisma.membership.deleteMany({ where: { orgId: membership.orgId, userId: mia.id } });
    try {
      assert.equal(errorCode(await call(member, "get_item", secret)), "ITEM_NOT_FOUND");
    } finally {
      await f.reg.db.prisma.membership.create({ data: { orgId: membership.orgId, userId: mia.id, role: membership.role } });
    }
    assert.equal((await call(member, "get_item", secret)).isError, false);
  });

  test("the publisher key's revocation shows on the next call (it does not move the read generation)", async () => {
    assert.equal((await pushSkill(f, f.users.otto, f.tokens.otto, skillFiles("otto-notes", "1.0.0"))).status, 201);
    const anon = await f.client();
    const skill = { item_type: "skill", item_id: "otto/otto-notes" };
    for (let i = 0; i < 2; i++) assert.equal((await call(anon, "get_item", skill)).structured.publisher_key.revoked, false);
    const key = f.keys.get(f.users.otto.id)!;
    await f.reg.db.prisma.userKey.updateMany({ where: { fingerprint: key.publicKey.fingerprint }, data: { revokedAt: new Date() } });
    const after = await call(anon, "get_item", skill);
    assert.deepEqual(after.structured.publisher_key, { fingerprint: key.publicKey.fingerprint, public_key: key.publicKey.pem, revoked: true });
    assert.equal(after.text, JSON.stringify(after.structured));
  });
});
