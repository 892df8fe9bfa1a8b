/**
 * POST /mcp's tools, driven over real HTTP by the official MCP SDK client (which validates every
 * `structuredContent` against the tool's `outputSchema`): the list with annotations and exact schemas, each tool's
 * answer, the same visibility as HTTP (an organization's private item: anonymous, an outsider, a member; a held
 * version), refusals as `isError` with the API's error code, and the stateless transport (no session id, GET 405).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { keyResolverFrom, verifyItem } from "@rye/core";
import { pushSkill, startMcpFixture, type McpFixture } from "../../test/mcp-registry.ts";
import { MCP_MAX_BODY_BYTES } from "./http.ts";
import { SKILL_FILES_MAX_BYTES, SKILL_FILES_MAX_PATHS } from "./schemas.ts";

type Json = Record<string, any>;

let f: McpFixture;
before(async () => {
  f = await startMcpFixture();
});
after(() => f?.close());

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; structured: Json; text: string }> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[])[0]?.text ?? "";
  return { isError: result.isError === true, structured: (result.structuredContent ?? {}) as Json, text };
}

/** An `isError` answer's API error code. */
const errorCode = (r: { isError: boolean; text: string }) => (r.isError ? (JSON.parse(r.text) as Json).error.code : null);

describe("tools/list", () => {
  test("five read-only tools, each with annotations and an exact object outputSchema", async () => {
    const client = await f.client();
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["get_item", "list_versions", "relations", "search", "skill_files"]);
    for (const tool of tools) {
      assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
      assert.equal(tool.annotations?.openWorldHint, false, tool.name);
      assert.equal(tool.outputSchema?.type, "object", tool.name);
      assert.equal((tool.outputSchema as Json).additionalProperties, false, `${tool.name}: exact`);
    }
    const search = tools.find((t) => t.name === "search")!;
    assert.deepEqual(Object.keys(search.outputSchema!.properties!).sort(), ["facets", "limit", "next_cursor", "offset", "query", "results", "sort", "total", "total_estimated"]);
  });
});

describe("tools/call", () => {
  test("search ranks what anonymous HTTP search finds, with filters and paging", async () => {
    const client = await f.client();
    const mcp = await call(client, "search", { query: "greet" });
    assert.equal(mcp.isError, false, mcp.text);
    const http = (await (await f.http("GET", "/v1/search?query=greet")).json()) as Json;
    assert.deepEqual(mcp.structured.results.map((r: Json) => r.item_id), http.results.map((r: Json) => r.item_id));
    assert.equal(mcp.structured.results[0].item_id, "alice/flows/greet");
    assert.deepEqual(JSON.parse(mcp.text), mcp.structured);

    const knowledgeOnly = await call(client, "search", { item_type: "knowledge", namespace: "alice", limit: 1, facets: true });
    assert.deepEqual(knowledgeOnly.structured.results.map((r: Json) => r.item_id), ["alice/notes/style"]);
    assert.equal(knowledgeOnly.structured.limit, 1);
    assert.ok(Array.isArray(knowledgeOnly.structured.facets.item_type));

    const page1 = await call(client, "search", { namespace: "alice", limit: 2 });
    assert.equal(page1.structured.results.length, 2);
    assert.equal(typeof page1.structured.next_cursor, "string");
    const page2 = await call(client, "search", { namespace: "alice", limit: 2, cursor: page1.structured.next_cursor });
    const ids = [...page1.structured.results, ...page2.structured.results].map((r: Json) => r.item_id);
    assert.equal(new Set(ids).size, ids.length, "pages do not overlap");
    assert.equal(ids.length, page1.structured.total);
  });

  test("get_item: the signed content verifies against the registry key it names, with attestation, log index and publisher key", async () => {
    const client = await f.client();
    const r = await call(client, "get_item", { item_type: "knowledge", item_id: "alice/notes/style" });
    assert.equal(r.isError, false, r.text);
    const { item, registry_key, publisher_key, verify_offline } = r.structured;
    assert.equal(item.version, "1.0.0", "latest is the published version, never the held 1.1.0");
    const signer = await f.reg.deps.keyring.signer();
    assert.deepEqual(registry_key, { fingerprint: signer.publicKey.fingerprint, public_key: signer.publicKey.pem });
    const verified = await verifyItem(item.content, "knowledge", keyResolverFrom([signer.publicKey]));
    assert.equal(verified.ok, true, JSON.stringify(verified));
    assert.equal(item.attestation.key_fingerprint, signer.publicKey.fingerprint);
    assert.equal(typeof item.log_index, "number");
    assert.equal(publisher_key, null, "alice pushed unsigned content: the registry signed it alone");
    assert.match(verify_offline, /rye verify style\.md --type knowledge/);
    assert.match(verify_offline, new RegExp(`/v1/log/entries\\?from=${item.log_index}`));
    // The same bytes GET /v1/pull answers.
    const pulled = (await (await f.http("GET", "/v1/pull/knowledge/alice/notes/style?version=1.0.0")).json()) as Json;
    assert.equal(item.content, pulled.content);
    assert.deepEqual(item.attestation, pulled.attestation);
  });

  test("get_item of a skill names the publisher's key that signed its manifest", async () => {
    const client = await f.client();
    const r = await call(client, "get_item", { item_type: "skill", item_id: "alice/notes" });
    assert.equal(r.isError, false, r.text);
    const key = f.keys.get(f.users.alice.id)!;
    assert.deepEqual(r.structured.publisher_key, { fingerprint: key.publicKey.fingerprint, public_key: key.publicKey.pem, revoked: false });
  });

  test("list_versions and relations answer what the HTTP routes answer", async () => {
    const client = await f.client();
    const versions = await call(client, "list_versions", { item_type: "knowledge", item_id: "alice/notes/style" });
    assert.equal(versions.isError, false, versions.text);
    const http = (await (await f.http("GET", "/v1/items/knowledge/alice/notes/style")).json()) as Json;
    // The download count is flushed in the background (an earlier test pulled over HTTP): compared apart.
    const counted = ({ download_count, ...rest }: Json) => (assert.equal(typeof download_count, "number"), rest);
    assert.deepEqual(counted(versions.structured), counted(http));
    assert.deepEqual(versions.structured.versions.map((v: Json) => v.version), ["1.0.0"]);

    const relations = await call(client, "relations", { item_type: "tool", item_id: "alice/tools/fetch" });
    assert.equal(relations.isError, false, relations.text);
    assert.deepEqual(relations.structured, await (await f.http("GET", "/v1/relations/tool/alice/tools/fetch")).json());
  });

  test("skill_files: SKILL.md by default, other files on request (binary as base64), unknown paths omitted", async () => {
    const client = await f.client();
    const first = await call(client, "skill_files", { skill_id: "alice/notes" });
    assert.equal(first.isError, false, first.text);
    assert.deepEqual(first.structured.files.map((x: Json) => x.path), ["SKILL.md", "assets/logo.bin", "reference/guide.md"]);
    assert.deepEqual(first.structured.contents.map((x: Json) => x.path), ["SKILL.md"]);
    assert.match(first.structured.contents[0].text, /^---\nname: notes/);
    assert.match(first.structured.manifest, /rye:signed:/);

    const more = await call(client, "skill_files", { skill_id: "alice/notes", paths: ["reference/guide.md", "assets/logo.bin", "nope.md"] });
    assert.deepEqual(more.structured.contents, [
      { path: "reference/guide.md", encoding: "utf-8", text: "# Guide\n\nKeep notes short.\n" },
      { path: "assets/logo.bin", encoding: "base64", text: Buffer.from([0xff, 0xfe, 0x00, 0x01]).toString("base64") },
    ]);
    assert.deepEqual(more.structured.omitted, [{ path: "nope.md", reason: "not_in_skill" }]);
  });

  test("skill_files: at most SKILL_FILES_MAX_BYTES of contents per answer, at most SKILL_FILES_MAX_PATHS paths", async () => {
    const big = (path: string) => ({ path, bytes: new Uint8Array(Math.ceil(SKILL_FILES_MAX_BYTES * 0.6)).fill(0x61) });
    const files = [{ path: "SKILL.md", bytes: new TextEncoder().encode("---\nname: bulky\ndescription: Holds big files. Use when testing limits.\nmetadata:\n  version: \"1.0.0\"\n---\n\n# bulky\n") }, big("a.txt"), big("b.txt")];
    const res = await pushSkill(f, f.users.alice, f.tokens.alice, files);
    assert.equal(res.status, 201, await res.text());
    const client = await f.client();
    const r = await call(client, "skill_files", { skill_id: "alice/bulky", paths: ["a.txt", "b.txt", "SKILL.md"] });
    assert.equal(r.isError, false, r.text.slice(0, 500));
    assert.deepEqual(r.structured.contents.map((c: Json) => c.path), ["a.txt", "SKILL.md"], "b.txt would pass the budget; the small SKILL.md still fits");
    assert.deepEqual(r.structured.omitted, [{ path: "b.txt", reason: "too_large" }]);
    const tooMany = await call(client, "skill_files", { skill_id: "alice/bulky", paths: Array.from({ length: SKILL_FILES_MAX_PATHS + 1 }, (_, i) => `f${i}.md`) });
    assert.equal(tooMany.isError, true);
    assert.match(tooMany.text, /paths/);
  });

  test("bad arguments and unknown items are isError answers with the API's code, never a protocol failure", async () => {
    const client = await f.client();
    assert.equal(errorCode(await call(client, "get_item", { item_type: "knowledge", item_id: "alice/notes/nope" })), "ITEM_NOT_FOUND");
    assert.equal(errorCode(await call(client, "search", { cursor: "garbage" })), "BAD_REQUEST");
    const invalid = await call(client, "search", { limit: 1000 });
    assert.equal(invalid.isError, true);
    assert.match(invalid.text, /limit/);
  });
});

describe("visibility follows the HTTP rules", () => {
  const secret = { item_type: "knowledge", item_id: "acme/internal/secret-plan" };

  test("an organization's private item: invisible anonymously and to an outsider's token, visible to a member's", async () => {
    for (const token of [undefined, f.tokens.otto]) {
      const client = await f.client(token);
      assert.equal(errorCode(await call(client, "get_item", secret)), "ITEM_NOT_FOUND");
      assert.equal(errorCode(await call(client, "list_versions", secret)), "ITEM_NOT_FOUND");
      const found = await call(client, "search", { query: "secret plan" });
      assert.equal(found.structured.results.length, 0, `search hides it (${token ? "outsider" : "anonymous"})`);
    }
    const member = await f.client(f.tokens.mia);
    const got = await call(member, "get_item", secret);
    assert.equal(got.isError, false, got.text);
    assert.equal(got.structured.item.visibility, "private");
    const found = await call(member, "search", { query: "secret plan" });
    assert.deepEqual(found.structured.results.map((r: Json) => r.item_id), ["acme/internal/secret-plan"]);
  });

  test("a private answer a member's read put in the pull cache is never served to an outsider or anonymously", async () => {
    const member = await f.client(f.tokens.mia);
    const pinned = { ...secret, version: "1.0.0" };
    assert.equal((await call(member, "get_item", pinned)).isError, false);
    assert.equal((await call(member, "get_item", secret)).isError, false);
    for (const token of [f.tokens.otto, undefined]) {
      const client = await f.client(token);
      assert.equal(errorCode(await call(client, "get_item", pinned)), "ITEM_NOT_FOUND");
      assert.equal(errorCode(await call(client, "get_item", secret)), "ITEM_NOT_FOUND");
    }
  });

  test("a held version: invisible to anonymous and other callers, seen by those who review it (the namespace's owner, a registry admin)", async () => {
    for (const token of [undefined, f.tokens.otto, f.tokens.mia]) {
      const client = await f.client(token);
      assert.equal(errorCode(await call(client, "get_item", { item_type: "knowledge", item_id: "alice/notes/style", version: "1.1.0" })), "ITEM_NOT_FOUND");
      const versions = await call(client, "list_versions", { item_type: "knowledge", item_id: "alice/notes/style" });
      assert.deepEqual(versions.structured.versions.map((v: Json) => v.version), ["1.0.0"]);
    }
    for (const token of [f.tokens.alice, f.tokens.root]) {
      const reviewer = await f.client(token);
      const held = await call(reviewer, "get_item", { item_type: "knowledge", item_id: "alice/notes/style", version: "1.1.0" });
      assert.equal(held.isError, false, held.text);
      assert.equal(held.structured.item.status, "pending");
      const versions = await call(reviewer, "list_versions", { item_type: "knowledge", item_id: "alice/notes/style" });
      assert.deepEqual(versions.structured.versions.map((v: Json) => [v.version, v.status]), [["1.1.0", "pending"], ["1.0.0", "published"]]);
    }
  });
});

describe("an organization that forbids remote MCP clients (PATCH /v1/orgs/{name}/remote-mcp)", () => {
  const secret = { item_type: "knowledge", item_id: "acme/internal/secret-plan" };
  const setting = (token: string, allowed: boolean) => f.http("PATCH", "/v1/orgs/acme/remote-mcp", { token, json: { allowed } });
  /** An access token for /mcp issued to a third-party client (a client ID metadata document URL). */
  const thirdPartyToken = async (user: { id: string; username: string }) =>
    (await f.reg.deps.accessTokens.issueAccessToken({ sub: user.id, username: user.username, scope: ["items:read"], clientId: "https://chat.example/oauth/client.json", audience: `${f.url}/mcp` })).token;

  test("its private items vanish from /mcp for its members and registry admins, stay on HTTP, and come back when allowed again", async () => {
    const owner = await f.reg.createUser("olga");
    const org = await f.reg.db.prisma.organization.findUniqueOrThrow({ where: { name: "acme" } });
    await f.reg.db.prisma.membership.create({ data: { orgId: org.id, userId: owner.id, role: "owner" } });
    const ownerToken = await f.reg.token(owner, { scopes: ["items:read", "org:admin"] });

    // Only owners and admins set it; any member reads it.
    const byMember = await setting(await f.reg.token(f.users.mia, { scopes: ["items:read", "org:admin"] }), false);
    assert.equal(byMember.status, 403);
    assert.equal(((await byMember.json()) as Json).error.code, "FORBIDDEN");
    assert.deepEqual(await (await f.http("GET", "/v1/orgs/acme/remote-mcp", { token: f.tokens.mia })).json(), { org: "acme", allowed: true });
    // A member's third-party token sees the private item while allowed.
    const chat = await f.client(await thirdPartyToken(f.users.mia));
    assert.equal((await call(chat, "get_item", secret)).isError, false);

    const forbid = await setting(ownerToken, false);
    assert.equal(forbid.status, 200);
    assert.deepEqual(await forbid.json(), { org: "acme", allowed: false });
    const audit = await f.reg.db.prisma.auditEvent.findFirstOrThrow({ where: { action: "org.remote_mcp", targetId: org.id } });
    assert.deepEqual(audit.details, { org: "acme", from: true, to: false });

    // Through /mcp: the member (personal token or third-party token) and a registry admin see nothing of it, even
    // though the member's earlier read put the answer in the pull cache.
    for (const token of [f.tokens.mia, await thirdPartyToken(f.users.mia), f.tokens.root]) {
      const client = await f.client(token);
      assert.equal(errorCode(await call(client, "get_item", secret)), "ITEM_NOT_FOUND");
      assert.equal(errorCode(await call(client, "get_item", { ...secret, version: "1.0.0" })), "ITEM_NOT_FOUND");
      assert.equal(errorCode(await call(client, "list_versions", secret)), "ITEM_NOT_FOUND");
      assert.equal((await call(client, "search", { query: "secret plan" })).structured.results.length, 0);
    }
    // Over HTTP nothing changed for them.
    for (const token of [f.tokens.mia, f.tokens.root]) assert.equal((await f.http("GET", "/v1/pull/knowledge/acme/internal/secret-plan", { token })).status, 200);
    assert.equal((await f.http("GET", "/v1/search?query=secret%20plan", { token: f.tokens.mia }).then((r) => r.json()) as Json).results.length, 1);

    assert.equal((await setting(ownerToken, true)).status, 200);
    const member = await f.client(f.tokens.mia);
    assert.equal((await call(member, "get_item", secret)).isError, false);
    assert.deepEqual((await call(member, "search", { query: "secret plan" })).structured.results.map((r: Json) => r.item_id), ["acme/internal/secret-plan"]);
    assert.equal((await call(await f.client(f.tokens.root), "get_item", secret)).isError, false);
  });

  test("a token issued to a third-party client never carries registry-admin powers", async () => {
    const held = { item_type: "knowledge", item_id: "alice/notes/style", version: "1.1.0" };
    assert.equal((await call(await f.client(f.tokens.root), "get_item", held)).isError, false, "the admin's own token reviews held versions");
    assert.equal(errorCode(await call(await f.client(await thirdPartyToken(f.users.root)), "get_item", held)), "ITEM_NOT_FOUND");
    assert.equal(errorCode(await call(await f.client(await thirdPartyToken(f.users.root)), "get_item", secret)), "ITEM_NOT_FOUND");
  });
});

describe("stateless Streamable HTTP", () => {
  test("no session id is issued; GET, DELETE and other methods are 405; answers are never shared by caches", async () => {
    const init = await f.http("POST", "/mcp", {
      headers: { accept: "application/json, text/event-stream" },
      json: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } },
    });
    assert.equal(init.status, 200, await init.clone().text());
    assert.equal(init.headers.get("mcp-session-id"), null);
    assert.equal(init.headers.get("cache-control"), "private, no-store");
    assert.equal(((await init.json()) as Json).result.serverInfo.name, "rye-registry");
    // A request without any initialize before it is answered: any replica can take any request.
    const list = await f.http("POST", "/mcp", { headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" }, json: { jsonrpc: "2.0", id: 2, method: "tools/list" } });
    assert.equal(list.status, 200);
    assert.equal(((await list.json()) as Json).result.tools.length, 5);
    const huge = await f.http("POST", "/mcp", { headers: { accept: "application/json, text/event-stream" }, json: { ...{ jsonrpc: "2.0", id: 3, method: "tools/call" }, params: { name: "search", arguments: { query: "x".repeat(MCP_MAX_BODY_BYTES) } } } });
    assert.equal(huge.status, 413, "a body above MCP_MAX_BODY_BYTES is refused before it is parsed");
    for (const method of ["GET", "DELETE", "PUT"]) {
      const res = await f.http(method, "/mcp", { headers: { accept: "text/event-stream" } });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get("allow"), "POST");
    }
  });
});
