/**
 * A third-party MCP client signs in to a real registry process with MCP's own OAuth, driven by the official MCP
 * TypeScript SDK's auth client: unauthenticated initialize on a registry that serves /mcp to signed-in callers only
 * (RYE_MCP_ANONYMOUS=false, a private registry) → 401 → protected resource metadata → authorization server metadata → registration
 * (first a Client ID Metadata Document served over https by this test, then dynamic registration) → PKCE authorization,
 * approved on the consent page by the signed-in person over HTTP → tokens for /mcp → tools/call search.
 * The document's https server uses a throwaway certificate (openssl) that the registry trusts via NODE_EXTRA_CA_CERTS,
 * and its loopback address is reachable through the operator's opt-in RYE_OAUTH_CIMD_ALLOW_PRIVATE (no plain http).
 */
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type Browser, chromium } from "@playwright/test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { createScratchPostgresDatabase, postgresAvailable } from "@rye/db/testing";
import { programPath, skipWithoutProgram } from "../../../../scripts/test-requirements.ts";
import { RyeApi } from "../../../../e2e/helpers/api.ts";
import { freePort } from "../../test/free-port.ts";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const REDIRECT = "http://127.0.0.1:33418/callback";
const skip = skipWithoutProgram("openssl") || skipWithoutProgram("chromium");
const SKILL_FILES = [
  { path: "SKILL.md", bytes: new TextEncoder().encode("---\nname: notes\ndescription: Writes notes. Use when notes are asked for.\nmetadata:\n  version: \"1.0.0\"\n---\n\n# notes\n\nSee reference/guide.md.\n") },
  { path: "reference/guide.md", bytes: new TextEncoder().encode("# Guide\n\nKeep notes short.\n") },
];

/** What an MCP client keeps between runs, in memory; the authorization URL is "opened" by the test. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  /** No token at first: the registry's 401 to the unauthenticated initialize starts the SDK's sign-in. */
  saved: OAuthTokens | undefined;
  verifier = "";
  opened: URL | undefined;
  constructor(readonly clientMetadataUrl: string | undefined) {}
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "SDK test client", redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state() {
    return "sdk-state";
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.opened = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe("MCP OAuth with the official SDK against a registry process", { skip }, () => {
  let work: string;
  let registry: ChildProcess;
  let documents: Server;
  let url: string;
  let documentUrl: string;
  let scratch: Awaited<ReturnType<typeof createScratchPostgresDatabase>> | undefined;
  let session: { cookie: string; csrf: string };
  let browser: Browser;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), "rye-mcp-oauth-"));
    const key = join(work, "key.pem");
    const cert = join(work, "cert.pem");
    await promisify(execFile)(programPath("openssl")!, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]);
    documents = createServer({ key: await readFile(key), cert: await readFile(cert) }, (req, res) => {
      if (req.url !== "/oauth/client.json") return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ client_id: documentUrl, client_name: "SDK test client", redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }));
    });
    documents.listen(0, "127.0.0.1");
    await once(documents, "listening");
    documentUrl = `https://127.0.0.1:${(documents.address() as AddressInfo).port}/oauth/client.json`;

    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: "127.0.0.1", RYE_DATA_DIR: join(work, "data"), RYE_REGISTRY_URL: url, RYE_LOG_LEVEL: "error", NODE_EXTRA_CA_CERTS: cert, RYE_OAUTH_CIMD_ALLOW_PRIVATE: "1", RYE_MCP_ANONYMOUS: "false" };
    if (postgresAvailable()) {
      scratch = await createScratchPostgresDatabase();
      env.DATABASE_URL = scratch.url;
    } else delete env.DATABASE_URL;
    registry = spawn(process.execPath, ["--import", "tsx", join(ROOT, "apps/api/src/main.ts")], { cwd: ROOT, env, stdio: ["ignore", "ignore", "inherit"] });
    for (let i = 0; ; i++) {
      if (registry.exitCode !== null) throw new Error(`the registry exited with ${registry.exitCode}`);
      if (await fetch(`${url}/ready`).then((r) => r.ok, () => false)) break;
      if (i > 3000) throw new Error("the registry did not start within 300 s");
      await new Promise((r) => setTimeout(r, 100));
    }
    browser = await chromium.launch({ executablePath: programPath("chromium")!, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
    const api = new RyeApi(url);
    const alice = await api.signUp("alice");
    session = { cookie: alice.cookie, csrf: alice.csrf };
    // A skill of alice's, so a skill file is read as a resource too.
    const token = await api.createToken(alice, ["items:read", "items:write"]);
    await api.pushSkill(token, await api.registerKey(token), "alice", SKILL_FILES);
  });

  after(async () => {
    await browser?.close();
    if (registry && registry.exitCode === null) {
      registry.kill("SIGTERM");
      await once(registry, "exit");
    }
    documents?.closeAllConnections();
    documents?.close();
    await scratch?.drop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  /**
   * The person, signed in in a real browser, opens the authorization URL the SDK produced and clicks Approve on the
   * consent page; the registry redirects the browser to the client's redirect URI (caught here: nothing listens
   * there). Answers the page's HTML and the code.
   */
  async function approve(authorizationUrl: URL): Promise<{ page: string; code: string }> {
    const context = await browser.newContext();
    try {
      const [name, value] = session.cookie.split("=") as [string, string];
      await context.addCookies([{ name, value, url }]);
      const page = await context.newPage();
      let redirected: URL | undefined;
      await page.route(`${REDIRECT}**`, (route) => {
        redirected = new URL(route.request().url());
        return route.fulfill({ status: 200, contentType: "text/plain", body: "signed in" });
      });
      const opened = await page.goto(authorizationUrl.href);
      assert.equal(opened?.status(), 200);
      const html = await page.content();
      await page.getByRole("button", { name: "Approve" }).click();
      await page.waitForURL(`${REDIRECT}**`);
      assert.ok(redirected, "the browser was sent back to the client");
      assert.equal(`${redirected!.origin}${redirected!.pathname}`, REDIRECT);
      assert.equal(redirected!.searchParams.get("iss"), url);
      assert.equal(redirected!.searchParams.get("state"), "sdk-state");
      return { page: html, code: redirected!.searchParams.get("code")! };
    } finally {
      await context.close();
    }
  }

  /** One whole sign-in with `provider`, then a search over the signed-in connection. */
  async function signInAndSearch(provider: MemoryProvider): Promise<string> {
    assert.equal(provider.tokens(), undefined);
    const first = new Client({ name: "sdk-test", version: "1" });
    await assert.rejects(first.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider })), UnauthorizedError);
    assert.ok(provider.opened, "the SDK opened the authorization URL");
    const opened = provider.opened!;
    assert.equal(opened.searchParams.get("resource"), `${url}/mcp`);
    assert.equal(opened.searchParams.get("code_challenge_method"), "S256");
    assert.equal(opened.searchParams.get("scope"), "items:read");
    const { page, code } = await approve(opened);
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider });
    await transport.finishAuth(code);
    assert.equal(provider.saved?.scope, "items:read");
    const client = new Client({ name: "sdk-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider }));
    const found = await client.callTool({ name: "search", arguments: { query: "file" } });
    assert.equal(found.isError, undefined, JSON.stringify(found.content));
    assert.ok(((found.structuredContent as { results: unknown[] }).results ?? []).length > 0, "the seeded system bundle is found");
    // The rest of the surface over the signed-in connection (the SDK checks each structuredContent against the
    // tool's outputSchema from tools/list): get_item, a directive as a prompt, a knowledge item as a resource.
    const tools = await client.listTools();
    assert.deepEqual(tools.tools.map((t) => t.name).sort(), ["get_item", "list_versions", "relations", "search", "skill_files"]);
    const knowledge = await client.callTool({ name: "search", arguments: { query: "", item_type: "knowledge", limit: 1 } });
    const hit = (knowledge.structuredContent as { results: { item_id: string }[] }).results[0]!;
    const item = await client.callTool({ name: "get_item", arguments: { item_type: "knowledge", item_id: hit.item_id } });
    assert.equal(item.isError, undefined, JSON.stringify(item.content));
    const got = (item.structuredContent as { item: { item_id: string; content: string } }).item;
    assert.equal(got.item_id, hit.item_id);
    const resource = await client.readResource({ uri: `rye://knowledge/${hit.item_id}` });
    assert.equal((resource.contents[0] as { text: string }).text, got.content, "the resource is the signed file get_item returns");
    // A skill: SKILL.md first, naming its other files, then one of them on demand.
    const skillMd = (await client.readResource({ uri: "skill://alice/notes/SKILL.md" })).contents[0] as { text: string; _meta?: Record<string, unknown> };
    assert.match(skillMd.text, /^---\nname: notes/);
    assert.deepEqual(skillMd._meta?.["rye/files"], ["skill://alice/notes/reference/guide.md"]);
    const guide = (await client.readResource({ uri: "skill://alice/notes/reference/guide.md" })).contents[0] as { text: string };
    assert.equal(guide.text, "# Guide\n\nKeep notes short.\n");
    const prompts = await client.listPrompts();
    const directive = prompts.prompts[0]!;
    const args = Object.fromEntries((directive.arguments ?? []).filter((a) => a.required).map((a) => [a.name, `value-of-${a.name}`]));
    const prompt = await client.getPrompt({ name: directive.name, arguments: args });
    const rendered = JSON.stringify(prompt.messages);
    for (const value of Object.values(args)) assert.ok(rendered.includes(value), `the prompt renders its input ${value}`);
    assert.ok(prompt.messages.length > 0 && rendered.length > 50, "the directive renders as a prompt");
    await client.close();
    // The token is for /mcp only: the registry API refuses it.
    const atApi = await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${provider.saved!.access_token}` } });
    assert.equal(atApi.status, 401);
    return page;
  }

  test("Client ID Metadata Document: the SDK uses the document's URL as client_id", { timeout: 120_000 }, async () => {
    const provider = new MemoryProvider(documentUrl);
    const page = await signInAndSearch(provider);
    assert.equal(provider.info?.client_id, documentUrl);
    assert.ok(page.includes(`identified by its URL <code>${documentUrl}</code>`));
  });

  test("dynamic client registration: the SDK registers, then signs in the same way", { timeout: 120_000 }, async () => {
    const provider = new MemoryProvider(undefined);
    const page = await signInAndSearch(provider);
    assert.match(provider.info!.client_id, /^rye-dcr-[0-9a-f]{32}$/);
    assert.match(page, /registered itself with this registry under the name “SDK test client”/);
  });
});
