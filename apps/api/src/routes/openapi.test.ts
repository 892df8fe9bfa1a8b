/** GET /v1/openapi.json: a well-formed OpenAPI 3.1 document that describes every route, as the routes really answer. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, test } from "node:test";
import { Hono } from "hono";
import { z } from "zod";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";
import { createApp } from "../app.ts";
import type { AppEnv } from "../env.ts";
import { errorHandler } from "../middleware/errors.ts";
import { rateLimit } from "../middleware/rate-limit.ts";
import { requestContext } from "../middleware/request-context.ts";
import { authorizationServerMetadata } from "../oauth/metadata-routes.ts";
import type { AppDeps } from "../services/deps.ts";
import { bundlePushRequestSchema, bundleRoutes } from "./bundles.ts";
import { pushRequestSchema } from "./items.ts";
import { logRoutes } from "./log.ts";
import { OPENAPI_SCHEMAS, openapiRoutes } from "./openapi.ts";
import { tokenRequestSchema } from "./tokens.ts";

type Json = Record<string, any>;
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** The routes of this module group behind the same middleware and error handler as app.ts. */
function specApp(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.use("*", requestContext({ authenticator: deps.authenticator, logger: deps.logger, trustProxy: deps.config.trustProxy }));
  app.use("/v1/*", rateLimit(deps.config.rateLimit));
  app.route("/", bundleRoutes(deps));
  app.route("/", logRoutes(deps));
  app.route("/", openapiRoutes(deps));
  app.onError(errorHandler(deps.logger));
  return app;
}

let reg: TestRegistry;
let doc: Json;
before(async () => {
  reg = await createTestRegistry();
  const res = await specApp(reg.deps).request("/v1/openapi.json");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /application\/json/);
  doc = (await res.json()) as Json;
});
after(() => reg.close());

const operations = () =>
  Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) => Object.entries(item).filter(([m]) => METHODS.includes(m)).map(([method, op]) => ({ path, method, op: op as Json })));

test("the document is OpenAPI 3.1 with bearer and cookie auth and the shared error shapes", () => {
  assert.match(doc.openapi, /^3\.1\.\d+$/);
  assert.equal(doc.info.title, "rye registry API");
  assert.equal(doc.info.version, reg.deps.version);
  assert.deepEqual(doc.servers, [{ url: "http://registry.test" }]);
  const schemes = doc.components.securitySchemes;
  assert.deepEqual(schemes.bearerAuth, { ...schemes.bearerAuth, type: "http", scheme: "bearer" });
  assert.deepEqual(schemes.cookieAuth, { ...schemes.cookieAuth, type: "apiKey", in: "cookie", name: "rye_session" });
  assert.deepEqual(schemes.csrfToken, { ...schemes.csrfToken, type: "apiKey", in: "header", name: "X-CSRF-Token" });
  assert.deepEqual(doc.components.schemas.ErrorEnvelope.required, ["error"]);
  assert.match(doc.components.schemas.ErrorEnvelope.description, /VERSION_EXISTS/);
  assert.deepEqual(doc.components.schemas.OAuthError.required, ["error", "error_description"]);
  assert.ok(doc.components.schemas.OAuthError.properties.error.enum.includes("authorization_pending"));
  for (const schema of Object.values(doc.components.schemas as Record<string, Json>)) {
    assert.equal(schema.$schema, undefined);
    assert.equal(schema.$id, undefined);
  }
});

test("the paths and methods are pinned", () => {
  assert.deepEqual(operations().map((o) => `${o.method.toUpperCase()} ${o.path}`).sort(), [
    "DELETE /v1/delete/{item_type}/{item_id}",
    "DELETE /v1/me/keys/{fingerprint}",
    "DELETE /v1/namespaces/{namespace}/webhooks/{id}",
    "DELETE /v1/orgs/{name}/invitations/{id}",
    "DELETE /v1/orgs/{name}/members/{username}",
    "DELETE /v1/orgs/{name}/tokens/{id}",
    "DELETE /v1/orgs/{name}/verifications/{id}",
    "DELETE /v1/tokens/{id}",
    "GET /.well-known/agent-skills/index.json",
    "GET /.well-known/jwks.json",
    "GET /.well-known/oauth-authorization-server",
    "GET /.well-known/oauth-protected-resource",
    "GET /.well-known/oauth-protected-resource/mcp",
    "GET /health",
    "GET /oauth/authorize",
    "GET /ready",
    "GET /v1/approvals",
    "GET /v1/auth/oidc/{provider}/callback",
    "GET /v1/auth/oidc/{provider}/start",
    "GET /v1/auth/providers",
    "GET /v1/auth/session",
    "GET /v1/bundle/pull/{bundle_id}",
    "GET /v1/changes",
    "GET /v1/device",
    "GET /v1/downloads/{item_type}/{item_id}",
    "GET /v1/items/{item_type}/{item_id}",
    "GET /v1/keys",
    "GET /v1/log/checkpoint",
    "GET /v1/log/entries",
    "GET /v1/me",
    "GET /v1/me/invitations",
    "GET /v1/me/keys",
    "GET /v1/me/orgs",
    "GET /v1/namespaces/{namespace}/webhooks",
    "GET /v1/namespaces/{namespace}/webhooks/{id}/deliveries",
    "GET /v1/namespaces/{name}",
    "GET /v1/namespaces/{name}/verified",
    "GET /v1/openapi.json",
    "GET /v1/orgs/{name}",
    "GET /v1/orgs/{name}/approval",
    "GET /v1/orgs/{name}/invitations",
    "GET /v1/orgs/{name}/tokens",
    "GET /v1/orgs/{name}/verifications",
    "GET /v1/orgs/{name}/verifications/{id}/github",
    "GET /v1/public-key",
    "GET /v1/pull/{item_type}/{item_id}",
    "GET /v1/quality/{item_type}/{item_id}",
    "GET /v1/relations/{item_type}/{item_id}",
    "GET /v1/search",
    "GET /v1/skills/{namespace}/{skill_name}",
    "GET /v1/stats",
    "GET /v1/tlog/checkpoint",
    "GET /v1/tlog/info",
    "GET /v1/tlog/proof/consistency",
    "GET /v1/tlog/proof/inclusion",
    "GET /v1/tlog/tile/{tile}",
    "GET /v1/tokens",
    "GET /v1/verifications/github/callback",
    "GET /{namespace}/.well-known/agent-skills/index.json",
    "GET /{namespace}/.well-known/agent-skills/{skill_name}/{version}/{file}",
    "GET /{namespace}/{skill}/.well-known/agent-skills/index.json",
    "PATCH /v1/namespaces/{namespace}/webhooks/{id}",
    "PATCH /v1/orgs/{name}/approval",
    "PATCH /v1/orgs/{name}/members/{username}",
    "POST /mcp",
    "POST /oauth/authorize/decision",
    "POST /oauth/device/code",
    "POST /oauth/revoke",
    "POST /oauth/token",
    "POST /v1/approve/{item_type}/{item_id}",
    "POST /v1/auth/login",
    "POST /v1/auth/logout",
    "POST /v1/auth/signup",
    "POST /v1/auth/supabase/session",
    "POST /v1/bundle/push",
    "POST /v1/deprecate/{item_type}/{item_id}",
    "POST /v1/device/approve",
    "POST /v1/device/deny",
    "POST /v1/me/invitations/{id}/accept",
    "POST /v1/me/invitations/{id}/decline",
    "POST /v1/me/keys",
    "POST /v1/namespaces/{namespace}/webhooks",
    "POST /v1/namespaces/{namespace}/webhooks/{id}/deliveries/{delivery}/redeliver",
    "POST /v1/namespaces/{namespace}/webhooks/{id}/ping",
    "POST /v1/orgs",
    "POST /v1/orgs/invitations/accept",
    "POST /v1/orgs/{name}/invitations",
    "POST /v1/orgs/{name}/tokens",
    "POST /v1/orgs/{name}/verifications",
    "POST /v1/orgs/{name}/verifications/{id}/check",
    "POST /v1/orgs/{name}/verifications/{id}/transfer",
    "POST /v1/publish/{item_type}/{item_id}",
    "POST /v1/push",
    "POST /v1/reject/{item_type}/{item_id}",
    "POST /v1/skills/push",
    "POST /v1/tokens",
    "POST /v1/transfer/{item_type}/{item_id}",
    "POST /v1/unpublish/{item_type}/{item_id}",
    "POST /v1/unyank/{item_type}/{item_id}",
    "POST /v1/visibility/{item_type}/{item_id}",
    "POST /v1/yank/{item_type}/{item_id}",
  ]);
});

/** The error body of a path: RFC 6749 §5.2 on the form-encoded OAuth endpoints, HTML on the browser ones, else the rye envelope. */
function errorFormatOf(path: string): "OAuthError" | "html" | "ErrorEnvelope" {
  if (["/oauth/token", "/oauth/device/code", "/oauth/revoke"].includes(path)) return "OAuthError";
  if (path.startsWith("/oauth/authorize")) return "html";
  return "ErrorEnvelope";
}

const resolve = (node: Json): Json => (node.$ref ? resolvePointer(node.$ref) : node);

test("every operation has a unique id, a success or redirect response, errors in their format and its path parameters", () => {
  const ids = new Set<string>();
  for (const { path, method, op } of operations()) {
    const where = `${method} ${path}`;
    assert.ok(op.operationId && !ids.has(op.operationId), where);
    ids.add(op.operationId);
    const statuses = Object.keys(op.responses);
    assert.ok(statuses.some((s) => /^[23]\d\d$/.test(s)), `${where} has a 2xx or 3xx response`);
    for (const status of statuses.filter((s) => /^3\d\d$/.test(s) && s !== "304")) assert.ok(resolve(op.responses[status]).headers.Location, `${where} ${status} has a Location`);
    const format = errorFormatOf(path);
    for (const status of statuses.filter((s) => /^[45]\d\d$|^default$/.test(s) && !(path === "/ready" && s === "503"))) {
      const { content } = resolve(op.responses[status]);
      if (format === "html") assert.deepEqual(Object.keys(content), ["text/html"], `${where} ${status}`);
      else assert.equal(content["application/json"].schema.$ref, `#/components/schemas/${format}`, `${where} ${status}`);
    }
    const declared = (op.parameters ?? []).map(resolve).filter((p: Json) => p.in === "path");
    const expected = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    assert.deepEqual(declared.map((p: Json) => p.name), expected, where);
    assert.ok(declared.every((p: Json) => p.required === true), where);
    assert.ok(Array.isArray(op.security), where);
    for (const requirement of op.security) for (const scheme of Object.keys(requirement)) assert.ok(doc.components.securitySchemes[scheme], `${where}: ${scheme}`);
    if (op.requestBody) assert.ok(["post", "put", "patch"].includes(method), where);
    const schemes = op.security.flatMap((requirement: Json) => Object.keys(requirement));
    if (schemes.includes("csrfToken")) assert.ok(op.security.every((r: Json) => !r.cookieAuth || r.csrfToken) && op.responses["403"], `${where}: CSRF goes with the cookie, refused with 403`);
    if (op.security.some((r: Json) => r.bearerAuth?.length > 0)) assert.ok(op.responses["403"], `${where}: a token without the scope is refused with 403`);
  }
  const push = doc.paths["/v1/push"].post;
  // A token with items:write, or the website's session with its CSRF token (publishing from the browser).
  assert.deepEqual(push.security, [{ bearerAuth: ["items:write"] }, { cookieAuth: [], csrfToken: [] }]);
  assert.deepEqual(doc.paths["/v1/yank/{item_type}/{item_id}"].post.security, push.security);
  assert.ok(push.responses["401"] && push.responses["409"] && push.responses["413"]);
  assert.deepEqual(doc.paths["/v1/bundle/pull/{bundle_id}"].get.security, [{}, { bearerAuth: [] }], "public pull: auth optional");
  assert.ok(doc.paths["/v1/bundle/pull/{bundle_id}"].get.responses["304"]);
  assert.deepEqual(doc.paths["/v1/tokens"].post.security, [{ bearerAuth: [] }, { cookieAuth: [], csrfToken: [] }]);
  assert.deepEqual(doc.paths["/v1/tokens"].get.security, [{ bearerAuth: [] }, { cookieAuth: [] }]);
  assert.deepEqual(doc.paths["/v1/orgs/{name}/tokens"].post.security, [{ bearerAuth: ["org:admin"] }, { cookieAuth: [], csrfToken: [] }]);
  assert.deepEqual(doc.paths["/v1/orgs/{name}"].get.security, [{}, { bearerAuth: [] }, { cookieAuth: [] }]);
  assert.deepEqual(doc.paths["/v1/device/approve"].post.security, [{ cookieAuth: [], csrfToken: [] }]);
  assert.deepEqual(doc.paths["/oauth/authorize/decision"].post.security, [{ cookieAuth: [] }], "the CSRF token is a form field there");
  assert.deepEqual(doc.paths["/oauth/token"].post.security, [], "public clients, no client authentication");
  assert.equal(resolve(doc.paths["/oauth/authorize"].get.responses["200"]).content["text/html"].schema.type, "string");
  assert.ok(doc.paths["/oauth/authorize"].get.responses["302"].headers.Location.required);
  assert.deepEqual(Object.keys(doc.paths["/oauth/authorize/decision"].post.responses).filter((s) => /^[23]/.test(s)), ["302"]);
  assert.deepEqual(Object.keys(doc.paths["/v1/auth/logout"].post.responses).filter((s) => /^2/.test(s)), ["204"]);
  assert.equal(doc.paths["/ready"].get.responses["503"].content["application/json"].schema.$ref, "#/components/schemas/ReadyResponse", "not ready is not an error envelope");
  assert.equal(doc.paths["/health"].get.responses["503"], undefined, "liveness does not fail with the database");
});

function resolvePointer(ref: string): Json {
  assert.ok(ref.startsWith("#/"), `only local refs: ${ref}`);
  let node: any = doc;
  for (const part of ref.slice(2).split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))) {
    assert.ok(node && typeof node === "object" && Object.hasOwn(node, part), `unresolved $ref ${ref}`);
    node = node[part];
  }
  return node as Json;
}

test("every $ref resolves", () => {
  const refs: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) {
        if (key === "$ref" && typeof value === "string") refs.push(value);
        else walk(value);
      }
    }
  };
  walk(doc);
  assert.ok(refs.length > 50);
  for (const ref of refs) resolvePointer(ref);
});

/** A schema's own JSON Schema (a named one is converted as a definition of its own and referred to). */
function ownJsonSchema(schema: z.ZodType): Json {
  const { $schema: _s, $defs, ...json } = z.toJSONSchema(schema, { io: "input" }) as Json;
  const id = z.globalRegistry.get(schema)?.id;
  return id ? $defs[id] : json;
}

test("request bodies are the schemas the routes parse with", () => {
  assert.deepEqual(doc.components.schemas.PushRequest, ownJsonSchema(pushRequestSchema));
  assert.deepEqual(doc.components.schemas.BundlePushRequest, ownJsonSchema(bundlePushRequestSchema));
  assert.deepEqual(doc.paths["/v1/bundle/push"].post.requestBody.content["application/json"].schema, { $ref: "#/components/schemas/BundlePushRequest" });
  assert.deepEqual(doc.components.schemas.TokenRequest, ownJsonSchema(tokenRequestSchema));
  for (const path of ["/v1/tokens", "/v1/orgs/{name}/tokens"]) assert.deepEqual(doc.paths[path].post.requestBody.content["application/json"].schema, { $ref: "#/components/schemas/TokenRequest" });
  // RFC 6749 §4.1.3 / RFC 8628 §3.1 / RFC 7009 §2.1: form-encoded (oauth/params.ts also takes a JSON object of strings)
  for (const path of ["/oauth/token", "/oauth/device/code", "/oauth/revoke", "/oauth/authorize/decision", "/v1/device/approve", "/v1/device/deny"]) {
    assert.deepEqual(Object.keys(doc.paths[path].post.requestBody.content), ["application/x-www-form-urlencoded", "application/json"], path);
  }
  assert.deepEqual(
    doc.components.schemas.OAuthTokenRequest.oneOf.map((grant: Json) => grant.properties.grant_type.const),
    ["urn:ietf:params:oauth:grant-type:device_code", "authorization_code", "refresh_token"],
  );
});

test("every route the registry app mounts is described", () => {
  const documented = new Set(operations().map((o) => `${o.method.toUpperCase()} ${o.path}`));
  // With adminSecret, as `npm start` runs it: the loopback operator endpoint is mounted too.
  const mounted = [...reg.app.routes, ...createApp({ ...reg.deps, adminSecret: "s".repeat(43) }).routes, ...specApp(reg.deps).routes]
    .filter((r) => r.method !== "ALL")
    .map((r) => `${r.method} ${r.path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}")}`);
  assert.ok(mounted.includes("GET /v1/bundle/pull/{bundle_id}"));
  assert.ok(mounted.includes("POST /oauth/token") && mounted.includes("GET /v1/search") && mounted.includes("POST /v1/yank/{item_type}/{item_id}"));
  // The operator CLI's channel (routes/admin.ts) answers 404 to everyone else: not part of the public API.
  const operator = (route: string) => route.split(" ")[1]!.startsWith("/v1/admin/");
  assert.ok(mounted.some(operator));
  for (const route of mounted.filter(operator)) assert.ok(!documented.has(route), `${route} is internal`);
  // The interim /login and /device HTML pages (routes/browser-pages.ts) are for people, not API clients.
  const page = (route: string) => ["/login", "/device"].includes(route.split(" ")[1]!);
  assert.ok(mounted.some(page));
  for (const route of mounted.filter((r) => !operator(r) && !page(r))) assert.ok(documented.has(route), `${route} is not in the OpenAPI document`);
});

// ---------------------------------------------------------------- the document against live answers

/** Fields of `value` that its schema (and the schemas it refers to) does not declare. */
function undocumented(value: unknown, schema: Json, at: string): string[] {
  const branches = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].map(resolve);
  if (Array.isArray(value)) {
    const items = branches.find((b) => b.items)?.items;
    return items ? value.flatMap((v, i) => undocumented(v, items, `${at}[${i}]`)) : [];
  }
  if (!value || typeof value !== "object") return [];
  const declaring = branches.filter((b) => b.properties || b.additionalProperties !== undefined);
  if (declaring.length === 0) return []; // free-form
  return Object.entries(value).flatMap(([key, v]) => {
    const owner = declaring.find((b) => b.properties && Object.hasOwn(b.properties, key));
    if (owner) return undocumented(v, owner.properties[key], `${at}.${key}`);
    const open = declaring.find((b) => b.additionalProperties && typeof b.additionalProperties === "object");
    return open ? undocumented(v, open.additionalProperties, `${at}.${key}`) : [`${at}.${key}`];
  });
}

/**
 * The answer of `method template` must be one the document lists, with the documented body: the
 * named schema's zod type accepts it and declares every field, HTML where HTML is documented, no
 * body where none is, and a Location on redirects.
 */
async function assertDocumented(method: string, template: string, res: Response): Promise<Json> {
  const where = `${method} ${template} → ${res.status}`;
  const operation = doc.paths[template]?.[method.toLowerCase()];
  assert.ok(operation, `${method} ${template} is documented`);
  const documented = operation.responses[String(res.status)];
  assert.ok(documented, `${where} is a documented status`);
  const { content, headers } = resolve(documented);
  const text = await res.text();
  if (headers?.Location) assert.ok(res.headers.get("location"), `${where}: Location`);
  if (!content) {
    assert.equal(text, "", `${where}: no body`);
    return {};
  }
  const type = res.headers.get("content-type")?.split(";")[0];
  assert.ok(type && content[type], `${where}: ${type} is documented (${Object.keys(content)})`);
  if (type !== "application/json") return {};
  const body = JSON.parse(text) as Json;
  const id = (content[type].schema.$ref as string).replace("#/components/schemas/", "");
  const parsed = OPENAPI_SCHEMAS[id]!.safeParse(body);
  assert.ok(parsed.success, `${where}: ${id} does not accept ${text}: ${JSON.stringify(parsed.error?.issues)}`);
  assert.deepEqual(undocumented(body, doc.components.schemas[id], "$"), [], `${where}: fields ${id} does not declare`);
  return body;
}

test("the routes answer as documented: OAuth, sign-in, sessions, tokens and organizations", async () => {
  interface Call {
    json?: unknown;
    form?: Record<string, string>;
    cookie?: string;
    csrf?: string;
    bearer?: string;
  }
  const call = async (method: string, path: string, template: string, o: Call = {}) => {
    const headers: Record<string, string> = {};
    if (o.cookie) headers.cookie = o.cookie;
    if (o.csrf) headers["x-csrf-token"] = o.csrf;
    if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
    let body: string | undefined;
    if (o.json !== undefined) [headers["content-type"], body] = ["application/json", JSON.stringify(o.json)];
    if (o.form) [headers["content-type"], body] = ["application/x-www-form-urlencoded", new URLSearchParams(o.form).toString()];
    const res = await reg.app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const location = res.headers.get("location");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("rye_session="))?.split(";")[0];
    return { status: res.status, location, cookie, body: await assertDocumented(method, template, res) };
  };
  const expect = async (status: number, pending: ReturnType<typeof call>) => {
    const answer = await pending;
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    return answer;
  };

  // local accounts and sessions
  const signup = (username: string) => expect(201, call("POST", "/v1/auth/signup", "/v1/auth/signup", { json: { username, email: `${username}@example.test`, password: `${username}-long-password` } }));
  const alice = await signup("alice");
  assert.ok(alice.cookie);
  const session = { cookie: alice.cookie, csrf: alice.body.csrf_token as string };
  await expect(200, call("GET", "/v1/auth/session", "/v1/auth/session", { cookie: session.cookie }));
  await expect(401, call("GET", "/v1/auth/session", "/v1/auth/session"));
  await expect(200, call("POST", "/v1/auth/login", "/v1/auth/login", { json: { login: "alice", password: "alice-long-password" } }));
  await expect(401, call("POST", "/v1/auth/login", "/v1/auth/login", { json: { login: "alice", password: "wrong-password" } }));
  await expect(400, call("POST", "/v1/auth/login", "/v1/auth/login", { form: { login: "alice" } }));
  await expect(200, call("GET", "/v1/auth/providers", "/v1/auth/providers"));
  await expect(404, call("GET", "/v1/auth/oidc/nope/start", "/v1/auth/oidc/{provider}/start"));
  await expect(404, call("POST", "/v1/auth/supabase/session", "/v1/auth/supabase/session", { json: { access_token: "x" } }));
  const me = await expect(200, call("GET", "/v1/me", "/v1/me", { cookie: session.cookie }));
  assert.equal(me.body.token, null);

  // metadata, device flow, token, refresh, revocation
  await expect(200, call("GET", "/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server"));
  assert.deepEqual(Object.keys(authorizationServerMetadata("http://registry.test")).sort(), Object.keys(doc.components.schemas.AuthorizationServerMetadata.properties).sort());
  await expect(200, call("GET", "/.well-known/jwks.json", "/.well-known/jwks.json"));
  const started = await expect(200, call("POST", "/oauth/device/code", "/oauth/device/code", { form: { client_id: "rye-cli" } }));
  await expect(401, call("POST", "/oauth/device/code", "/oauth/device/code", { form: { client_id: "nope" } }));
  const devicePoll = { grant_type: "urn:ietf:params:oauth:grant-type:device_code", client_id: "rye-cli", device_code: started.body.device_code as string };
  const pending = await expect(400, call("POST", "/oauth/token", "/oauth/token", { form: devicePoll }));
  assert.equal(pending.body.error, "authorization_pending");
  await expect(401, call("GET", `/v1/device?user_code=${started.body.user_code}`, "/v1/device"));
  await expect(200, call("GET", `/v1/device?user_code=${started.body.user_code}`, "/v1/device", { cookie: session.cookie }));
  await expect(404, call("GET", "/v1/device?user_code=BBBB-BBBB", "/v1/device", { cookie: session.cookie }));
  await expect(403, call("POST", "/v1/device/approve", "/v1/device/approve", { cookie: session.cookie, form: { user_code: started.body.user_code } }));
  await expect(200, call("POST", "/v1/device/approve", "/v1/device/approve", { cookie: session.cookie, form: { user_code: started.body.user_code, csrf_token: session.csrf } }));
  const tokens = await expect(200, call("POST", "/oauth/token", "/oauth/token", { form: devicePoll }));
  const viaJwt = await expect(200, call("GET", "/v1/me", "/v1/me", { bearer: tokens.body.access_token }));
  assert.equal(viaJwt.body.token.type, "jwt");
  await expect(401, call("GET", "/v1/me", "/v1/me", { bearer: "not-a-token" }));
  const refreshed = await expect(200, call("POST", "/oauth/token", "/oauth/token", { json: { grant_type: "refresh_token", client_id: "rye-cli", refresh_token: tokens.body.refresh_token, scope: "items:read" } }));
  assert.equal(refreshed.body.scope, "items:read");
  await expect(200, call("POST", "/oauth/revoke", "/oauth/revoke", { form: { token: refreshed.body.refresh_token, client_id: "rye-cli" } }));
  await expect(400, call("POST", "/oauth/token", "/oauth/token", { form: { grant_type: "refresh_token", client_id: "rye-cli", refresh_token: refreshed.body.refresh_token } }));
  const denied = await expect(200, call("POST", "/oauth/device/code", "/oauth/device/code", { form: { client_id: "rye-cli", scope: "items:read" } }));
  await expect(200, call("POST", "/v1/device/deny", "/v1/device/deny", { cookie: session.cookie, csrf: session.csrf, json: { user_code: denied.body.user_code } }));

  // authorization code flow: consent page, decision, redirect, code exchange
  const verifier = "v".repeat(43);
  const authorization = {
    response_type: "code",
    client_id: "rye-cli",
    redirect_uri: "http://127.0.0.1:4567/callback",
    state: "st4te",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    scope: "items:read items:write",
  };
  const authorizeUrl = `/oauth/authorize?${new URLSearchParams(authorization)}`;
  const toLogin = await expect(302, call("GET", authorizeUrl, "/oauth/authorize"));
  assert.match(toLogin.location!, /^http:\/\/registry\.test\/login\?next=/);
  await expect(200, call("GET", authorizeUrl, "/oauth/authorize", { cookie: session.cookie }));
  await expect(400, call("GET", authorizeUrl.replace("rye-cli", "nope"), "/oauth/authorize", { cookie: session.cookie }));
  const noneUrl = `${authorizeUrl}&prompt=none`;
  assert.match((await expect(302, call("GET", noneUrl, "/oauth/authorize", { cookie: session.cookie }))).location!, /error=consent_required/);
  await expect(403, call("POST", "/oauth/authorize/decision", "/oauth/authorize/decision", { cookie: session.cookie, form: { ...authorization, decision: "approve", csrf_token: "wrong" } }));
  await expect(401, call("POST", "/oauth/authorize/decision", "/oauth/authorize/decision", { form: { ...authorization, decision: "approve", csrf_token: session.csrf } }));
  const approved = await expect(302, call("POST", "/oauth/authorize/decision", "/oauth/authorize/decision", { cookie: session.cookie, form: { ...authorization, decision: "approve", csrf_token: session.csrf } }));
  const code = new URL(approved.location!).searchParams.get("code")!;
  const exchange = { grant_type: "authorization_code", client_id: "rye-cli", code, redirect_uri: authorization.redirect_uri, code_verifier: verifier };
  await expect(200, call("POST", "/oauth/token", "/oauth/token", { form: exchange }));
  await expect(400, call("POST", "/oauth/token", "/oauth/token", { form: exchange }));

  // personal tokens
  await expect(403, call("POST", "/v1/tokens", "/v1/tokens", { cookie: session.cookie, json: { name: "ci", scopes: ["items:read"] } }));
  const pat = await expect(201, call("POST", "/v1/tokens", "/v1/tokens", { cookie: session.cookie, csrf: session.csrf, json: { name: "ci", scopes: ["items:read", "items:write"], item_pattern: "alice/ci/*" } }));
  await expect(200, call("GET", "/v1/tokens", "/v1/tokens", { bearer: pat.body.token }));
  const viaPat = await expect(200, call("GET", "/v1/me", "/v1/me", { bearer: pat.body.token }));
  assert.equal(viaPat.body.token.item_pattern, "alice/ci/*");
  await expect(403, call("POST", "/v1/tokens", "/v1/tokens", { bearer: pat.body.token, json: { name: "wider", scopes: ["org:admin"] } }));
  await expect(200, call("DELETE", `/v1/tokens/${pat.body.id}`, "/v1/tokens/{id}", { cookie: session.cookie, csrf: session.csrf }));
  await expect(404, call("DELETE", "/v1/tokens/00000000-0000-4000-8000-000000000000", "/v1/tokens/{id}", { cookie: session.cookie, csrf: session.csrf }));

  // organizations
  const bob = await signup("bob");
  const bobSession = { cookie: bob.cookie!, csrf: bob.body.csrf_token as string };
  await expect(201, call("POST", "/v1/orgs", "/v1/orgs", { ...session, json: { name: "acme", display_name: "Acme" } }));
  await expect(409, call("POST", "/v1/orgs", "/v1/orgs", { ...session, json: { name: "acme" } }));
  assert.ok((await expect(200, call("GET", "/v1/orgs/acme", "/v1/orgs/{name}", { cookie: session.cookie }))).body.members);
  assert.equal((await expect(200, call("GET", "/v1/orgs/acme", "/v1/orgs/{name}"))).body.members, undefined);
  await expect(404, call("GET", "/v1/orgs/nope", "/v1/orgs/{name}"));
  const invitation = await expect(201, call("POST", "/v1/orgs/acme/invitations", "/v1/orgs/{name}/invitations", { ...session, json: { username: "bob" } }));
  await expect(400, call("POST", "/v1/orgs/acme/invitations", "/v1/orgs/{name}/invitations", { ...session, json: { username: "bob", email: "bob@example.test" } }));
  await expect(200, call("POST", "/v1/orgs/invitations/accept", "/v1/orgs/invitations/accept", { ...bobSession, json: { token: invitation.body.token } }));
  await expect(403, call("PATCH", "/v1/orgs/acme/members/alice", "/v1/orgs/{name}/members/{username}", { ...bobSession, json: { role: "member" } }));
  await expect(200, call("PATCH", "/v1/orgs/acme/members/bob", "/v1/orgs/{name}/members/{username}", { ...session, json: { role: "admin" } }));
  const ci = await expect(201, call("POST", "/v1/orgs/acme/tokens", "/v1/orgs/{name}/tokens", { ...session, json: { name: "ci", scopes: ["items:write"] } }));
  await expect(200, call("GET", "/v1/orgs/acme/tokens", "/v1/orgs/{name}/tokens", { cookie: session.cookie }));
  await expect(403, call("GET", "/v1/orgs/acme/tokens", "/v1/orgs/{name}/tokens", { bearer: ci.body.token }));
  await expect(200, call("DELETE", `/v1/orgs/acme/tokens/${ci.body.id}`, "/v1/orgs/{name}/tokens/{id}", session));
  await expect(409, call("DELETE", "/v1/orgs/acme/members/alice", "/v1/orgs/{name}/members/{username}", session));
  await expect(200, call("DELETE", "/v1/orgs/acme/members/bob", "/v1/orgs/{name}/members/{username}", bobSession));

  await expect(403, call("POST", "/v1/auth/logout", "/v1/auth/logout", { cookie: session.cookie }));
  await expect(204, call("POST", "/v1/auth/logout", "/v1/auth/logout", session));
  await expect(204, call("POST", "/v1/auth/logout", "/v1/auth/logout"));
});

test("the routes answer as documented: items, search, management and the log", async () => {
  const carol = await reg.createUser("carol");
  await reg.createOrg("carolco", [{ user: carol, role: "owner" }]);
  const token = await reg.token(carol);
  const call = async (method: string, path: string, template: string, o: { json?: unknown; bearer?: string; headers?: Record<string, string> } = {}) => {
    const res = await reg.request(method, path, { ...(o.json !== undefined ? { json: o.json } : {}), ...(o.bearer ? { token: o.bearer } : {}), ...(o.headers ? { headers: o.headers } : {}) });
    const etag = res.headers.get("etag");
    return { status: res.status, etag, body: await assertDocumented(method, template, res) };
  };
  const expect = async (status: number, pending: ReturnType<typeof call>) => {
    const answer = await pending;
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    return answer;
  };
  const note = (version: string) => `---\nid: openapi\ntitle: openapi\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\nBody ${version}.\n`;
  const push = (version: string) => call("POST", "/v1/push", "/v1/push", { bearer: token, json: { item_type: "knowledge", item_id: "carol/notes/openapi", content: note(version), version } });
  const item = (verb: string) => `/v1/${verb}/knowledge/carol/notes/openapi`;
  const template = (verb: string) => `/v1/${verb}/{item_type}/{item_id}`;

  await expect(201, push("1.0.0"));
  await expect(201, push("1.1.0"));
  await expect(409, push("1.1.0"));
  await expect(401, call("POST", "/v1/push", "/v1/push", { json: {} }));
  await expect(200, call("GET", "/health", "/health"));
  await expect(200, call("GET", "/ready", "/ready"));
  await expect(200, call("GET", "/v1/keys", "/v1/keys"));
  await expect(200, call("GET", "/v1/search?query=openapi", "/v1/search"));
  await expect(400, call("GET", "/v1/search?limit=0", "/v1/search"));
  await expect(200, call("GET", "/v1/search?query=openapi&facets=1&sort=downloads", "/v1/search"));
  await expect(200, call("GET", "/v1/stats", "/v1/stats"));
  await expect(200, call("GET", "/v1/items/knowledge/carol/notes/openapi", "/v1/items/{item_type}/{item_id}"));
  await expect(404, call("GET", "/v1/items/knowledge/carol/notes/missing", "/v1/items/{item_type}/{item_id}"));
  await expect(200, call("POST", item("yank"), template("yank"), { bearer: token, json: { version: "1.1.0", reason: "broken" } }));
  await expect(409, call("POST", item("yank"), template("yank"), { bearer: token, json: { version: "1.1.0" } }));
  await expect(200, call("POST", item("unyank"), template("unyank"), { bearer: token, json: { version: "1.1.0" } }));
  await expect(200, call("POST", item("deprecate"), template("deprecate"), { bearer: token, json: { message: "use another" } }));
  await expect(200, call("POST", item("deprecate"), template("deprecate"), { bearer: token, json: { deprecated: false } }));
  await expect(200, call("POST", item("visibility"), template("visibility"), { bearer: token, json: { visibility: "unlisted" } }));
  await expect(200, call("POST", item("unpublish"), template("unpublish"), { bearer: token }));
  await expect(200, call("POST", item("publish"), template("publish"), { bearer: token }));
  await expect(200, call("DELETE", `${item("delete")}?version=1.1.0`, template("delete"), { bearer: token }));
  const pulled = await expect(200, call("GET", "/v1/pull/knowledge/carol/notes/openapi?version=1.0.0", "/v1/pull/{item_type}/{item_id}"));
  await expect(304, call("GET", "/v1/pull/knowledge/carol/notes/openapi?version=1.0.0", "/v1/pull/{item_type}/{item_id}", { headers: { "if-none-match": pulled.etag! } }));
  await expect(403, call("DELETE", `${item("delete")}?force=true`, template("delete"), { bearer: token }));
  await expect(200, call("POST", item("transfer"), template("transfer"), { bearer: token, json: { to_namespace: "carolco" } }));
  await expect(403, call("POST", "/v1/transfer/knowledge/carolco/notes/openapi", template("transfer"), { bearer: await reg.token(carol, { scopes: ["items:read"] }), json: { to_namespace: "carol" } }));
  await expect(200, call("GET", "/v1/log/entries?limit=2", "/v1/log/entries"));
  await expect(200, call("GET", "/v1/log/checkpoint", "/v1/log/checkpoint"));
  await expect(200, call("GET", "/v1/changes?limit=50", "/v1/changes"));
  await expect(200, call("GET", "/v1/downloads/knowledge/carolco/notes/openapi?days=7", "/v1/downloads/{item_type}/{item_id}"));
  await expect(400, call("GET", "/v1/downloads/knowledge/carolco/notes/openapi?days=0", "/v1/downloads/{item_type}/{item_id}"));
  await expect(404, call("GET", "/v1/downloads/knowledge/carolco/notes/missing", "/v1/downloads/{item_type}/{item_id}"));
  await expect(200, call("GET", "/v1/relations/knowledge/carolco/notes/openapi", "/v1/relations/{item_type}/{item_id}"));
  await expect(400, call("GET", "/v1/relations/knowledge/carolco/notes/openapi?version=x", "/v1/relations/{item_type}/{item_id}"));
  await expect(404, call("GET", "/v1/relations/knowledge/carolco/notes/missing", "/v1/relations/{item_type}/{item_id}"));
  await expect(200, call("GET", "/v1/quality/knowledge/carolco/notes/openapi", "/v1/quality/{item_type}/{item_id}"));
  await expect(400, call("GET", "/v1/quality/knowledge/carolco/notes/openapi?version=x", "/v1/quality/{item_type}/{item_id}"));
  await expect(404, call("GET", "/v1/quality/knowledge/carolco/notes/missing", "/v1/quality/{item_type}/{item_id}"));
  await expect(400, call("GET", "/v1/changes?since=-1", "/v1/changes"));

  const hooks = "/v1/namespaces/{namespace}/webhooks";
  const hook = await expect(201, call("POST", "/v1/namespaces/carolco/webhooks", hooks, { bearer: token, json: { url: "https://hooks.example.com/rye", events: ["publish"] } }));
  await expect(400, call("POST", "/v1/namespaces/carolco/webhooks", hooks, { bearer: token, json: { url: "http://10.0.0.1/" } }));
  await expect(200, call("GET", "/v1/namespaces/carolco/webhooks", hooks, { bearer: token }));
  await expect(200, call("PATCH", `/v1/namespaces/carolco/webhooks/${hook.body.id}`, `${hooks}/{id}`, { bearer: token, json: { events: ["publish", "yank"] } }));
  const ping = await expect(202, call("POST", `/v1/namespaces/carolco/webhooks/${hook.body.id}/ping`, `${hooks}/{id}/ping`, { bearer: token }));
  await expect(200, call("GET", `/v1/namespaces/carolco/webhooks/${hook.body.id}/deliveries`, `${hooks}/{id}/deliveries`, { bearer: token }));
  await expect(202, call("POST", `/v1/namespaces/carolco/webhooks/${hook.body.id}/deliveries/${ping.body.id}/redeliver`, `${hooks}/{id}/deliveries/{delivery}/redeliver`, { bearer: token }));
  await expect(200, call("DELETE", `/v1/namespaces/carolco/webhooks/${hook.body.id}`, `${hooks}/{id}`, { bearer: token }));
  await expect(404, call("DELETE", `/v1/namespaces/carolco/webhooks/${hook.body.id}`, `${hooks}/{id}`, { bearer: token }));
});
