/** GET /v1/openapi.json: a well-formed OpenAPI 3.1 document that describes every route, as the routes really answer. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Hono } from "hono";
import { z } from "zod";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";
import { createApp } from "../app.ts";
import type { AppEnv } from "../env.ts";
import { errorHandler } from "../middleware/errors.ts";
import { rateLimit } from "../middleware/rate-limit.ts";
import { requestContext } from "../middleware/request-context.ts";
import type { AppDeps } from "../services/deps.ts";
import { apiDocumentRoutes } from "../routes/api-document.ts";
import { bundlePushRequestSchema, bundleRoutes } from "../routes/bundles.ts";
import { pushRequestSchema } from "../routes/items.ts";
import { logRoutes } from "../routes/log.ts";
import { tokenRequestSchema } from "../routes/tokens.ts";
import { buildOpenApiDocument } from "./document.ts";

type Json = Record<string, any>;
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** The routes of this module group behind the same middleware and error handler as app.ts. */
function specApp(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.use("*", requestContext({ authenticator: deps.authenticator, logger: deps.logger, trustProxy: deps.config.trustProxy }));
  app.use("/v1/*", rateLimit(deps.config.rateLimit));
  app.route("/", bundleRoutes(deps));
  app.route("/", logRoutes(deps));
  app.route("/", apiDocumentRoutes(buildOpenApiDocument({ version: deps.version, serverUrl: deps.config.publicUrl })));
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
    "DELETE /v1/me/oauth-grants/{id}",
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
    "GET /v1/me/oauth-grants",
    "GET /v1/me/orgs",
    "GET /v1/namespaces/{namespace}/webhooks",
    "GET /v1/namespaces/{namespace}/webhooks/{id}/deliveries",
    "GET /v1/namespaces/{name}",
    "GET /v1/namespaces/{name}/keys",
    "GET /v1/namespaces/{name}/verified",
    "GET /v1/openapi.json",
    "GET /v1/orgs/{name}",
    "GET /v1/orgs/{name}/approval",
    "GET /v1/orgs/{name}/invitations",
    "GET /v1/orgs/{name}/remote-mcp",
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
    "PATCH /v1/orgs/{name}/remote-mcp",
    "POST /mcp",
    "POST /oauth/authorize/decision",
    "POST /oauth/device/code",
    "POST /oauth/register",
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
  if (["/oauth/token", "/oauth/device/code", "/oauth/revoke", "/oauth/register"].includes(path)) return "OAuthError";
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

// How the routes really answer, operation by operation, is checked over HTTP against this document by
// src/contract/contract.test.ts.
