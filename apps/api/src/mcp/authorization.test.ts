/**
 * /mcp's authorization front door (MCP authorization spec, RFC 9728, RFC 6750) over real HTTP: the protected resource
 * metadata at both well-known URLs; a refused token (unknown, expired, revoked) is a 401 whose WWW-Authenticate leads
 * the official SDK's discovery to the registry's authorization server metadata; a token without items:read is a 403
 * insufficient_scope naming the scope; the registry's own OAuth access tokens (JWTs) and personal tokens are accepted.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { discoverOAuthServerInfo, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createTestRegistry } from "../../test/harness.ts";
import { loadConfig } from "../config.ts";
import { startMcpFixture, type McpFixture } from "../../test/mcp-registry.ts";

type Json = Record<string, any>;

let f: McpFixture;
before(async () => {
  f = await startMcpFixture();
});
after(() => f?.close());

const INIT = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
const initialize = (token?: string) => f.http("POST", "/mcp", { ...(token ? { token } : {}), headers: { accept: "application/json, text/event-stream" }, json: INIT });

describe("protected resource metadata (RFC 9728)", () => {
  test("/mcp's metadata names it as the resource, the registry as its authorization server and items:read", async () => {
    const res = await f.http("GET", "/.well-known/oauth-protected-resource/mcp");
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { resource: `${f.url}/mcp`, authorization_servers: [f.url], scopes_supported: ["items:read"], bearer_methods_supported: ["header"], resource_name: "rye registry (MCP)" });
    const root = (await (await f.http("GET", "/.well-known/oauth-protected-resource")).json()) as Json;
    assert.equal(root.resource, f.url);
    assert.deepEqual(root.authorization_servers, [f.url]);
  });

  test("the authorization server metadata advertises what the MCP spec asks: code flow with PKCE S256, iss in responses", async () => {
    const as = (await (await f.http("GET", "/.well-known/oauth-authorization-server")).json()) as Json;
    assert.equal(as.issuer, f.url);
    assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);
    assert.ok(as.response_types_supported.includes("code"));
    assert.ok(as.grant_types_supported.includes("authorization_code"));
    assert.equal(as.authorization_response_iss_parameter_supported, true);
  });
});

describe("challenges", () => {
  test("an unknown, expired or revoked token: 401 with WWW-Authenticate resource_metadata, which the SDK's discovery follows", async () => {
    const expired = await f.reg.token(f.users.mia, { expiresAt: new Date(Date.now() - 60_000) });
    const revoked = await f.reg.token(f.users.mia, { revoked: true });
    for (const token of ["rye_pat_unknown", expired, revoked]) {
      const res = await initialize(token);
      assert.equal(res.status, 401);
      const params = extractWWWAuthenticateParams(res);
      assert.equal(params.resourceMetadataUrl?.href, `${f.url}/.well-known/oauth-protected-resource/mcp`);
      assert.equal(params.error, "invalid_token");
      assert.equal(((await res.json()) as Json).error.code, "UNAUTHORIZED");
    }
    const params = extractWWWAuthenticateParams(await initialize("rye_pat_unknown"));
    const info = await discoverOAuthServerInfo(new URL(`${f.url}/mcp`), { resourceMetadataUrl: params.resourceMetadataUrl! });
    assert.equal(info.authorizationServerUrl, f.url);
    assert.equal(info.resourceMetadata?.resource, `${f.url}/mcp`);
    assert.equal(info.authorizationServerMetadata?.token_endpoint, `${f.url}/oauth/token`);
  });

  test("the SDK client with a refused token fails to connect with the 401 (it never sees tools)", async () => {
    const client = new Client({ name: "stale", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(`${f.url}/mcp`), { requestInit: { headers: { authorization: "Bearer rye_pat_unknown" } } });
    await assert.rejects(client.connect(transport), (err: Error & { code?: number }) => err.code === 401 && /UNAUTHORIZED/.test(err.message));
  });

  test("a token without items:read: 403 insufficient_scope naming the scope", async () => {
    const res = await initialize(f.tokens.writeOnly);
    assert.equal(res.status, 403);
    const params = extractWWWAuthenticateParams(res);
    assert.equal(params.error, "insufficient_scope");
    assert.equal(params.scope, "items:read");
    assert.equal(params.resourceMetadataUrl?.href, `${f.url}/.well-known/oauth-protected-resource/mcp`);
    const body = (await res.json()) as Json;
    assert.equal(body.error.code, "FORBIDDEN");
    assert.equal(body.error.details.scope, "items:read");
  });

  test("anonymous callers and valid tokens are not challenged: a personal token, and an OAuth access token issued for /mcp", async () => {
    assert.equal((await initialize()).status, 200);
    assert.equal((await initialize(f.tokens.mia)).status, 200);
    const jwt = await f.reg.deps.accessTokens.issueAccessToken({ sub: f.users.mia.id, username: "mia", scope: ["items:read"], clientId: "rye-cli", audience: `${f.url}/mcp` });
    const client = new Client({ name: "oauth", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${f.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${jwt.token}` } } }));
    const got = await client.callTool({ name: "get_item", arguments: { item_type: "knowledge", item_id: "acme/internal/secret-plan" } });
    assert.equal(got.isError, undefined, JSON.stringify(got.content));
    await client.close();
  });

  test("other routes keep their own 401 (no /mcp challenge outside /mcp)", async () => {
    const res = await f.http("GET", "/v1/search?query=x", { token: "rye_pat_unknown" });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get("www-authenticate"), null);
  });
});

describe("RYE_MCP_ANONYMOUS=false: a registry whose MCP server answers signed-in callers only", () => {
  test("a request without a token is a 401 whose challenge (no error code: no token was sent) leads the SDK to sign-in; a token is served", async () => {
    const url = "http://127.0.0.1:9";
    assert.equal(loadConfig({}).oauth.mcpAnonymous, true);
    const oauth = loadConfig({ RYE_MCP_ANONYMOUS: "false" }).oauth;
    assert.equal(oauth.mcpAnonymous, false);
    const reg = await createTestRegistry({ config: { publicUrl: url, oauth } });
    try {
      const post = (headers: Record<string, string> = {}) =>
        reg.app.request("/mcp", { method: "POST", headers: { accept: "application/json, text/event-stream", "content-type": "application/json", ...headers }, body: JSON.stringify(INIT) });
      const anonymous = await post();
      assert.equal(anonymous.status, 401);
      const params = extractWWWAuthenticateParams(anonymous);
      assert.equal(params.resourceMetadataUrl?.href, `${url}/.well-known/oauth-protected-resource/mcp`);
      assert.equal(params.scope, "items:read");
      assert.equal(params.error, undefined);
      const body = (await anonymous.json()) as Json;
      assert.equal(body.error.code, "UNAUTHORIZED");
      assert.match(body.error.hint, /Sign in/);
      // A refused token keeps its invalid_token challenge; a good one is answered.
      assert.equal(extractWWWAuthenticateParams(await post({ authorization: "Bearer rye_pat_unknown" })).error, "invalid_token");
      const user = await reg.createUser("ana");
      assert.equal((await post({ authorization: `Bearer ${await reg.token(user, { scopes: ["items:read"] })}` })).status, 200);
      // The rest of the registry still serves anonymous reads.
      assert.equal((await reg.app.request("/v1/search?query=x")).status, 200);
    } finally {
      await reg.close();
    }
  });
});

describe("audience (RFC 8707): no token passthrough", () => {
  const issue = (audience: string | undefined) =>
    f.reg.deps.accessTokens.issueAccessToken({ sub: f.users.mia.id, username: "mia", scope: ["items:read"], clientId: "rye-cli", ...(audience ? { audience } : {}) });

  test("a token issued for the registry API is refused at /mcp with the 401 challenge; one for /mcp is refused at /v1", async () => {
    const api = await issue(undefined);
    const mcp = await issue(`${f.url}/mcp`);
    const refused = await initialize(api.token);
    assert.equal(refused.status, 401);
    const params = extractWWWAuthenticateParams(refused);
    assert.equal(params.error, "invalid_token");
    assert.equal(params.resourceMetadataUrl?.href, `${f.url}/.well-known/oauth-protected-resource/mcp`);
    assert.match(((await refused.json()) as Json).error.message, new RegExp(`issued for ${f.url}, not for ${f.url}/mcp`));
    assert.equal((await initialize(mcp.token)).status, 200);

    const atApi = await f.http("GET", "/v1/search?query=x", { token: mcp.token });
    assert.equal(atApi.status, 401);
    assert.match(((await atApi.json()) as Json).error.message, /not for http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal((await f.http("GET", "/v1/search?query=x", { token: api.token })).status, 200);
  });

  test("a token for another server (an audience that is neither) is refused at both", async () => {
    const other = await issue("https://other.example/mcp");
    assert.equal((await initialize(other.token)).status, 401);
    assert.equal((await f.http("GET", "/v1/search?query=x", { token: other.token })).status, 401);
  });

  test("RYE_OAUTH_ACCEPT_ANY_AUDIENCE: the operator's opt-in accepts either token at both", async () => {
    const url = "http://127.0.0.1:9";
    for (const acceptAnyAudience of [false, true]) {
      const oauth = loadConfig({ RYE_OAUTH_ACCEPT_ANY_AUDIENCE: acceptAnyAudience ? "1" : "0" }).oauth;
      assert.equal(oauth.acceptAnyAudience, acceptAnyAudience);
      const accepted = acceptAnyAudience;
      const reg = await createTestRegistry({ config: { publicUrl: url, oauth } });
      try {
        const user = await reg.createUser("ana");
        const token = async (audience: string) => (await reg.deps.accessTokens.issueAccessToken({ sub: user.id, username: "ana", scope: ["items:read"], clientId: "rye-cli", audience })).token;
        const atMcp = await reg.app.request("/mcp", { method: "POST", headers: { authorization: `Bearer ${await token(url)}`, accept: "application/json, text/event-stream", "content-type": "application/json" }, body: JSON.stringify(INIT) });
        const atApi = await reg.app.request("/v1/search?query=x", { headers: { authorization: `Bearer ${await token(`${url}/mcp`)}` } });
        assert.equal(atMcp.status, accepted ? 200 : 401, `acceptAnyAudience ${accepted}`);
        assert.equal(atApi.status, accepted ? 200 : 401, `acceptAnyAudience ${accepted}`);
      } finally {
        await reg.close();
      }
    }
  });
});
