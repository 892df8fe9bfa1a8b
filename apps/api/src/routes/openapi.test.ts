/** GET /v1/openapi.json: a well-formed OpenAPI 3.1 document that describes every route. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Hono } from "hono";
import { z } from "zod";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";
import type { AppEnv } from "../env.ts";
import { errorHandler } from "../middleware/errors.ts";
import { rateLimit } from "../middleware/rate-limit.ts";
import { requestContext } from "../middleware/request-context.ts";
import type { AppDeps } from "../services/deps.ts";
import { bundlePushRequestSchema, bundleRoutes } from "./bundles.ts";
import { pushRequestSchema } from "./items.ts";
import { logRoutes } from "./log.ts";
import { openapiRoutes } from "./openapi.ts";

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

test("the document is OpenAPI 3.1 with bearer auth and the shared error envelope", () => {
  assert.match(doc.openapi, /^3\.1\.\d+$/);
  assert.equal(doc.info.title, "rye registry API");
  assert.equal(doc.info.version, reg.deps.version);
  assert.deepEqual(doc.servers, [{ url: "http://registry.test" }]);
  assert.deepEqual(doc.components.securitySchemes.bearerAuth, { ...doc.components.securitySchemes.bearerAuth, type: "http", scheme: "bearer" });
  assert.deepEqual(doc.components.schemas.ErrorEnvelope.required, ["error"]);
  assert.match(doc.components.schemas.ErrorEnvelope.description, /VERSION_EXISTS/);
  for (const schema of Object.values(doc.components.schemas as Record<string, Json>)) {
    assert.equal(schema.$schema, undefined);
    assert.equal(schema.$id, undefined);
  }
});

test("the paths and methods are pinned", () => {
  assert.deepEqual(operations().map((o) => `${o.method.toUpperCase()} ${o.path}`).sort(), [
    "DELETE /v1/delete/{item_type}/{item_id}",
    "GET /health",
    "GET /v1/bundle/pull/{bundle_id}",
    "GET /v1/items/{item_type}/{item_id}",
    "GET /v1/keys",
    "GET /v1/log/checkpoint",
    "GET /v1/log/entries",
    "GET /v1/openapi.json",
    "GET /v1/public-key",
    "GET /v1/pull/{item_type}/{item_id}",
    "GET /v1/search",
    "POST /v1/bundle/push",
    "POST /v1/deprecate/{item_type}/{item_id}",
    "POST /v1/publish/{item_type}/{item_id}",
    "POST /v1/push",
    "POST /v1/transfer/{item_type}/{item_id}",
    "POST /v1/unpublish/{item_type}/{item_id}",
    "POST /v1/unyank/{item_type}/{item_id}",
    "POST /v1/visibility/{item_type}/{item_id}",
    "POST /v1/yank/{item_type}/{item_id}",
  ]);
});

test("every operation has a unique id, a success response, errors as the envelope and its path parameters", () => {
  const ids = new Set<string>();
  const resolve = (node: Json): Json => (node.$ref ? resolvePointer(node.$ref) : node);
  for (const { path, method, op } of operations()) {
    const where = `${method} ${path}`;
    assert.ok(op.operationId && !ids.has(op.operationId), where);
    ids.add(op.operationId);
    const statuses = Object.keys(op.responses);
    assert.ok(statuses.some((s) => /^2\d\d$/.test(s)), `${where} has a 2xx response`);
    for (const status of statuses.filter((s) => /^[45]\d\d$|^default$/.test(s))) {
      assert.equal(resolve(op.responses[status]).content["application/json"].schema.$ref, "#/components/schemas/ErrorEnvelope", `${where} ${status}`);
    }
    const declared = (op.parameters ?? []).map(resolve).filter((p: Json) => p.in === "path");
    const expected = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    assert.deepEqual(declared.map((p: Json) => p.name), expected, where);
    assert.ok(declared.every((p: Json) => p.required === true), where);
    assert.ok(Array.isArray(op.security), where);
    for (const requirement of op.security) for (const scheme of Object.keys(requirement)) assert.ok(doc.components.securitySchemes[scheme], `${where}: ${scheme}`);
    if (op.requestBody) assert.ok(["post", "put", "patch"].includes(method), where);
  }
  const push = doc.paths["/v1/push"].post;
  assert.deepEqual(push.security, [{ bearerAuth: [] }]);
  assert.ok(push.responses["401"] && push.responses["409"] && push.responses["413"]);
  assert.deepEqual(doc.paths["/v1/bundle/pull/{bundle_id}"].get.security, [{}, { bearerAuth: [] }], "public pull: auth optional");
  assert.ok(doc.paths["/v1/bundle/pull/{bundle_id}"].get.responses["304"]);
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

test("request bodies are the schemas the routes parse with", () => {
  const { $schema: _a, ...push } = z.toJSONSchema(pushRequestSchema, { io: "input" });
  assert.deepEqual(doc.components.schemas.PushRequest, push);
  const { $schema: _b, ...bundle } = z.toJSONSchema(bundlePushRequestSchema, { io: "input" });
  assert.deepEqual(doc.components.schemas.BundlePushRequest, bundle);
  assert.deepEqual(doc.paths["/v1/bundle/push"].post.requestBody.content["application/json"].schema, { $ref: "#/components/schemas/BundlePushRequest" });
});

test("every route the registry app mounts is described", () => {
  const documented = new Set(operations().map((o) => `${o.method.toUpperCase()} ${o.path}`));
  const mounted = [...reg.app.routes, ...specApp(reg.deps).routes]
    .filter((r) => r.method !== "ALL")
    .map((r) => `${r.method} ${r.path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}")}`);
  assert.ok(mounted.includes("GET /v1/bundle/pull/{bundle_id}"));
  for (const route of mounted) assert.ok(documented.has(route), `${route} is not in the OpenAPI document`);
});
