/**
 * The OpenAPI 3.1 description of every registry route, served as GET /v1/openapi.json (routes/api-document.ts). It is
 * generated from the route declarations (contract/routes.ts) with `z.toJSONSchema` (OpenAPI 3.1 schemas are JSON
 * Schema 2020-12), whose named shapes become `#/components/schemas/<id>`.
 */
import { z } from "zod";
import { ERROR_CODE_LIST, errorEnvelopeSchema, REGISTRY_ITEM_TYPES, signedAttestationSchema } from "@rye/core";
import type { RouteConfig } from "@hono/zod-openapi";
import { DECLARED_ROUTES } from "./routes.ts";
import type { Operation, Reply } from "./operation.ts";
import { type ErrorFormat, securityOf } from "./route.ts";
import { SESSION_COOKIE } from "../auth/web-sessions.ts";
import { OAuthErrorBody } from "../oauth/contract.ts";
import { ACCOUNT_HEADERS } from "../routes/accounts.ts";


// ---------------------------------------------------------------- shared pieces
// The shapes clients read come from @rye/core's contracts (packages/core/src/contracts): one definition
// for the API, this document, the website and the CLI.

const SignedAttestation = signedAttestationSchema;
const ErrorEnvelope = errorEnvelopeSchema.meta({ description: `The one error shape of the API. error.code is one of: ${ERROR_CODE_LIST.join(", ")}.` });


// ---------------------------------------------------------------- the registry of named schemas
/** The named shapes of the shared error responses. */
const HAND_WRITTEN_SCHEMAS: Record<string, z.ZodType> = {
  ErrorEnvelope,
  SignedAttestation,
  OAuthError: OAuthErrorBody,
};

function componentRegistry(schemas: Record<string, z.ZodType>) {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  return registry;
}

type JsonObject = Record<string, unknown>;
const SCHEMA_REF = "#/components/schemas/";
const ref = (id: string) => ({ $ref: `${SCHEMA_REF}${id}` });

/** Request and response shapes ("input" view: what a client may send, defaults optional). */
function componentSchemas(): Record<string, JsonObject> {
  const { schemas } = z.toJSONSchema(componentRegistry(namedSchemas()), { uri: (id) => `${SCHEMA_REF}${id}`, io: "input" });
  return Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _s, $id: _i, ...schema }]) => [id, schema as JsonObject]));
}

/**
 * The document's named shapes and the named shapes they contain (a declared answer's nested `.meta({ id })` schema, say
 * a list's item), so that each is one component that the others refer to.
 */
function namedSchemas(): Record<string, z.ZodType> {
  const schemas = { ...OPENAPI_SCHEMAS };
  for (;;) {
    const { schemas: converted } = z.toJSONSchema(componentRegistry(schemas), { uri: (id) => `${SCHEMA_REF}${id}`, io: "input" });
    const nested = Object.keys((converted.__shared as { $defs?: JsonObject } | undefined)?.$defs ?? {});
    if (nested.length === 0) return schemas;
    for (const id of nested) {
      const schema = z.globalRegistry._idmap.get(id);
      if (!schema) throw new Error(`the nested schema ${id} is not named in zod's global registry`);
      schemas[id] = schema as z.ZodType;
    }
  }
}

/** Query parameters from a zod object, one parameter per property. */
function queryParameters(schema: z.ZodObject): JsonObject[] {
  const json = z.toJSONSchema(schema, { io: "input" }) as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, { description, ...s }]) => ({
    name,
    in: "query",
    required: json.required?.includes(name) ?? false,
    ...(description ? { description } : {}),
    schema: s,
  }));
}

// ---------------------------------------------------------------- operations
const ERROR_RESPONSES: Record<number, [name: string, description: string]> = {
  400: ["BadRequest", "Bad request (the code says what: BAD_REQUEST, VALIDATION_FAILED, INVALID_ITEM_ID, INVALID_PARAMETER for a malformed path or query, …)"],
  401: ["Unauthorized", "Not signed in, or the bearer token is invalid, expired or revoked"],
  403: ["Forbidden", "Not allowed: a token scope, role or namespace is missing, or a session's CSRF token"],
  404: ["NotFound", "Not found (or not visible to the caller)"],
  409: ["Conflict", "Conflict with the current state"],
  413: ["PayloadTooLarge", "Request body too large"],
  429: ["RateLimited", "Too many requests (Retry-After)"],
  503: ["Unavailable", "A dependency is unavailable"],
};
/** The request guard's answer on an operation whose own errors are not in the rye envelope. */
const MALFORMED_REQUEST: JsonObject = {
  description: "INVALID_PARAMETER: a malformed path or query (control characters, bad percent-encoding, over a length limit), in the rye envelope",
  content: { "application/json": { schema: ref("ErrorEnvelope") } },
};
/** Per format: the shared responses (`<prefix><name>`) and the default one (`Error`, `<prefix>ServerError`). */
const ERROR_FORMATS: Record<ErrorFormat, { prefix: string; statuses: number[]; content: JsonObject; headers?: JsonObject; unexpected: string }> = {
  envelope: { prefix: "", statuses: [400, 401, 403, 404, 409, 413, 429, 503], content: { "application/json": { schema: ref("ErrorEnvelope") } }, unexpected: "Unexpected error (500) or unavailable dependency (503)" },
  oauth: {
    prefix: "OAuth",
    statuses: [400, 401, 413],
    content: { "application/json": { schema: ref("OAuthError") } },
    headers: { "Cache-Control": { $ref: "#/components/headers/NoStore" } },
    unexpected: "server_error (500)",
  },
  html: { prefix: "Page", statuses: [400, 401, 403], content: { "text/html": { schema: { type: "string" } } }, unexpected: "Internal error (500), as an HTML page" },
};
const errorResponseName = (format: ErrorFormat, status: number | "default") =>
  status === "default" ? (format === "envelope" ? "Error" : `${ERROR_FORMATS[format].prefix}ServerError`) : `${ERROR_FORMATS[format].prefix}${ERROR_RESPONSES[status]![0]}`;

// ---------------------------------------------------------------- declared routes
/** The id a declared schema carries (`.meta({ id })`): its name under #/components/schemas. */
function schemaId(schema: unknown, where: string): string {
  const id = z.globalRegistry.get(schema as z.ZodType)?.id;
  if (!id) throw new Error(`${where}: a JSON body or answer needs a named schema (.meta({ id }))`);
  return id;
}

type DeclaredResponse = { description: string; headers?: JsonObject; content?: Record<string, { schema: unknown }>; "x-rye-error"?: true };

/** A route declaration (contract/route.ts) as an operation of this document, and the named schemas it uses. */
function declaredOperation(route: RouteConfig, schemas: Record<string, z.ZodType>): Operation {
  const where = `${route.method.toUpperCase()} ${route.path}`;
  if (!route.operationId || !route.summary || route.tags?.length !== 1) throw new Error(`${where}: declare operationId, summary and one tag`);
  const named = (schema: unknown) => {
    const id = schemaId(schema, where);
    schemas[id] = schema as z.ZodType;
    return id;
  };
  const replies: Reply[] = [];
  const errors: Operation["errors"] = [];
  const extensions = route as RouteConfig & { "x-rye-etag"?: true; "x-rye-error-format"?: ErrorFormat };
  for (const [status, response] of Object.entries(route.responses) as [string, DeclaredResponse][]) {
    if (status === "304") {
      if (!extensions["x-rye-etag"]) throw new Error(`${where}: a 304 goes with "x-rye-etag": true`);
      continue; // operationObject describes it with the ETag
    }
    if (response["x-rye-error"]) {
      errors.push(response.description ? [Number(status), response.description] : Number(status));
      continue;
    }
    const json = zodSchema(response.content?.["application/json"]?.schema);
    // Other media types, and JSON answers described with a plain JSON Schema (GET /v1/openapi.json's), are written inline.
    const content = response.content && !json ? Object.fromEntries(Object.entries(response.content).map(([type, c]) => [type, { schema: (zodSchema(c.schema) ? z.toJSONSchema(c.schema as z.ZodType, { io: "output" }) : c.schema) as JsonObject }])) : undefined;
    replies.push({ status: Number(status), description: response.description, ...(json ? { schema: named(json) } : content ? { content: stripDialect(content) } : {}), ...(response.headers ? { headers: response.headers } : {}) });
  }
  const [ok, ...also] = replies;
  if (!ok) throw new Error(`${where}: declare its success answer`);
  // One named schema, in one or more media types (the OAuth endpoints read a form or a JSON object of strings).
  const bodyContent = Object.entries(route.request?.body?.content ?? {}) as [string, { schema?: unknown }][];
  const body = bodyContent[0]?.[1].schema;
  if (bodyContent.some(([, c]) => c.schema !== body)) throw new Error(`${where}: every media type of the body has the same schema`);
  const bodyTypes = bodyContent.map(([type]) => type);
  const query = route.request?.query;
  return {
    method: route.method as Operation["method"],
    path: route.path.replace(/\{(\w+)\{[^}]*\}\}/g, "{$1}"),
    operationId: route.operationId,
    summary: route.summary,
    tag: route.tags[0]!,
    security: (route.security ?? []) as JsonObject[],
    ...(query ? { query: query as z.ZodObject } : {}),
    ...(body ? { body: named(body) } : {}),
    ...(body && bodyTypes.join() !== "application/json" ? { bodyTypes } : {}),
    ok,
    ...(also.length > 0 ? { also } : {}),
    errors,
    ...(extensions["x-rye-error-format"] ? { errorFormat: extensions["x-rye-error-format"] } : {}),
    ...(extensions["x-rye-etag"] ? { etag: true } : {}),
  };
}

const zodSchema = (schema: unknown): z.ZodType | undefined => (schema instanceof z.ZodType ? schema : undefined);

/** JSON Schema of a non-JSON media type, without the dialect line (the document declares 3.1's). */
function stripDialect(content: Record<string, { schema: JsonObject }>): JsonObject {
  return Object.fromEntries(Object.entries(content).map(([type, { schema: { $schema: _s, ...schema } }]) => [type, { schema }]));
}

const DECLARED = (() => {
  const schemas: Record<string, z.ZodType> = {};
  const operations = DECLARED_ROUTES.map((route) => declaredOperation(route, schemas));
  return { schemas, operations };
})();

/** Every named shape of the document (also what the tests check live responses against). */
export const OPENAPI_SCHEMAS: Record<string, z.ZodType> = { ...HAND_WRITTEN_SCHEMAS, ...DECLARED.schemas };

const OPERATIONS: Operation[] = DECLARED.operations;

function security(op: Operation): JsonObject[] {
  return op.security ?? securityOf(op.auth!, op.scopes);
}

/** 401 where a credential is required or a bearer token may be sent (an invalid one is refused, not ignored); 403 where a scope or a CSRF token is. */
function authErrors(op: Operation): number[] {
  const requirements = security(op);
  const optional = requirements.length === 0 || requirements.some((requirement) => Object.keys(requirement).length === 0);
  const schemes = new Set(requirements.flatMap((requirement) => Object.keys(requirement)));
  const scoped = requirements.some((requirement) => ((requirement.bearerAuth as string[] | undefined)?.length ?? 0) > 0);
  return [...(!optional || schemes.has("bearerAuth") ? [401] : []), ...(scoped || schemes.has("csrfToken") ? [403] : [])];
}

const PATH_PARAMETERS: Record<string, JsonObject> = {
  item_type: { name: "item_type", in: "path", required: true, schema: { type: "string", enum: [...REGISTRY_ITEM_TYPES] } },
  item_id: { name: "item_id", in: "path", required: true, description: "namespace/category…/name (skills: namespace/name); its slashes are sent as they are.", schema: { type: "string" } },
  namespace: { name: "namespace", in: "path", required: true, description: "A user's or organization's namespace.", schema: { type: "string" } },
  skill_name: { name: "skill_name", in: "path", required: true, description: "A skill's name (its SKILL.md name).", schema: { type: "string", pattern: "^[a-z0-9]+(-[a-z0-9]+)*$" } },
  skill: { name: "skill", in: "path", required: true, description: "A skill's name, or name@version to pin one version.", schema: { type: "string" } },
  version: { name: "version", in: "path", required: true, description: "A semantic version.", schema: { type: "string" } },
  file: { name: "file", in: "path", required: true, description: "SKILL.md, <name>-<version>.tar.gz or <name>-<version>.zip.", schema: { type: "string" } },
  bundle_id: { name: "bundle_id", in: "path", required: true, description: "namespace/name…; its slashes are sent as they are.", schema: { type: "string" } },
  provider: { name: "provider", in: "path", required: true, description: "An id from GET /v1/auth/providers.", schema: { type: "string", pattern: "^[a-z0-9][a-z0-9_-]{0,31}$" } },
  name: { name: "name", in: "path", required: true, description: "Organization name (case-insensitive).", schema: { type: "string" } },
  username: { name: "username", in: "path", required: true, description: "A member's username (case-insensitive).", schema: { type: "string" } },
  id: { name: "id", in: "path", required: true, description: "Token, invitation, webhook or verification claim id.", schema: { type: "string", format: "uuid" } },
  delivery: { name: "delivery", in: "path", required: true, description: "A webhook delivery's id.", schema: { type: "string", format: "uuid" } },
  fingerprint: { name: "fingerprint", in: "path", required: true, description: "Key fingerprint (16 hex characters).", schema: { type: "string", pattern: "^[0-9a-f]{16,64}$" } },
  tile: {
    name: "tile",
    in: "path",
    required: true,
    description: "<L>/<N>[.p/<W>] or entries/<N>[.p/<W>] (C2SP tlog-tiles): L in 0–7, N in 3-digit groups, all but the last prefixed by x; its slashes are sent as they are.",
    schema: { type: "string" },
  },
};

function replyObject(reply: Reply, etag = false): JsonObject {
  const headers = { ...reply.headers, ...(etag ? { ETag: { $ref: "#/components/headers/ETag" }, "Cache-Control": { $ref: "#/components/headers/CacheControl" } } : {}) };
  return {
    description: reply.description,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(reply.schema ? { content: { "application/json": { schema: ref(reply.schema) } } } : reply.content ? { content: reply.content } : {}),
  };
}

function operationObject(op: Operation): JsonObject {
  const format = op.errorFormat ?? "envelope";
  const pathParams = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ $ref: `#/components/parameters/${m[1]}` }));
  const parameters = [...pathParams, ...(op.query ? queryParameters(op.query) : []), ...(op.etag ? [{ $ref: "#/components/parameters/IfNoneMatch" }] : [])];
  const described = new Map(op.errors.map((e) => (typeof e === "number" ? [e, undefined] : e)));
  for (const status of [...authErrors(op), ...(op.path.startsWith("/v1/") ? [429] : [])]) if (!described.has(status)) described.set(status, undefined);
  // Every request's path and query pass the request guard first (middleware/request-target.ts): any operation can
  // answer 400 INVALID_PARAMETER, in the rye envelope whatever the operation's own error format.
  const malformed = format === "envelope" || described.has(400) ? undefined : MALFORMED_REQUEST;
  if (format === "envelope" && !described.has(400)) described.set(400, undefined);
  const responses: JsonObject = { [op.ok.status]: replyObject(op.ok, op.etag) };
  if (malformed) responses["400"] = malformed;
  for (const reply of op.also ?? []) responses[reply.status] = replyObject(reply);
  if (op.etag) responses["304"] = { description: "Not modified (If-None-Match matched the ETag)" };
  for (const [status, description] of [...described].sort(([a], [b]) => a - b)) {
    const { content, headers } = ERROR_FORMATS[format];
    responses[status] = description ? { description, ...(headers ? { headers } : {}), content } : { $ref: `#/components/responses/${errorResponseName(format, status)}` };
  }
  responses.default = { $ref: `#/components/responses/${errorResponseName(format, "default")}` };
  const bodyTypes = op.bodyTypes ?? ["application/json"];
  return {
    operationId: op.operationId,
    summary: op.summary,
    tags: [op.tag],
    security: security(op),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body ? { requestBody: { required: true, content: Object.fromEntries(bodyTypes.map((type) => [type, { schema: ref(op.body!) }])) } } : {}),
    responses,
  };
}

/** The shared error responses of each format that an operation refers to. */
function errorResponses(paths: Record<string, JsonObject>): JsonObject {
  const used = new Set(JSON.stringify(paths).match(/#\/components\/responses\/\w+/g)?.map((ref) => ref.slice("#/components/responses/".length)));
  const responses: JsonObject = {};
  for (const [format, { statuses, content, headers, unexpected }] of Object.entries(ERROR_FORMATS) as [ErrorFormat, (typeof ERROR_FORMATS)[ErrorFormat]][]) {
    for (const status of statuses) responses[errorResponseName(format, status)] = { description: ERROR_RESPONSES[status]![1], ...(headers ? { headers } : {}), content };
    responses[errorResponseName(format, "default")] = { description: unexpected, ...(headers ? { headers } : {}), content };
  }
  return Object.fromEntries(Object.entries(responses).filter(([name]) => used.has(name)));
}

/** What each tag groups, in the order the document lists them. */
const TAGS: Record<string, string> = {
  meta: "Liveness and readiness probes, and this document.",
  keys: "The registry's signing keys: the active one for trust on first use, every key with its rotations and revocations.",
  items: "Directives, tools and knowledge: publish, download, search, metadata, relations, quality and download statistics.",
  manage: "What a namespace's owners and admins change on an item: visibility, yanks, deprecation, deletion, transfer.",
  bundles: "Bundles: a signed manifest and its files, published and downloaded as one.",
  skills: "Agent Skills: publish, download and the /.well-known/agent-skills discovery indexes other agents install from.",
  approval: "Versions held for approval (RYE_REGISTRY_APPROVAL) and the reviewers' decisions.",
  log: "The append-only publish log, its signed checkpoints and the changes feed for mirrors and indexers.",
  webhooks: "Signed POSTs of a namespace's item events to URLs its owners choose, with a delivery log.",
  orgs: "Organizations and namespaces: members, invitations, CI tokens, verified domains and GitHub organizations.",
  oauth: "The registry's OAuth 2.0 authorization server for its CLI: device flow, authorization code with PKCE, tokens, revocation.",
  auth: "Accounts and the website's sessions: sign-up, sign-in (local or an upstream identity provider), the current account, sign-out.",
  tokens: "The signed-in account's personal access tokens: scoped, optionally restricted to a namespace or an item glob, expiring, revocable.",
  mcp: "The registry as a remote Model Context Protocol server (docs/remote-mcp.md): search, signed items and their relations for any MCP client.",
};

function tagObjects(): JsonObject[] {
  const used = new Set(OPERATIONS.map((op) => op.tag));
  for (const tag of used) if (!TAGS[tag]) throw new Error(`the tag ${tag} has no description in TAGS`);
  return Object.entries(TAGS)
    .filter(([name]) => used.has(name))
    .map(([name, description]) => ({ name, description }));
}

export function buildOpenApiDocument(options: { version: string; serverUrl: string }): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const op of OPERATIONS) paths[op.path] = { ...paths[op.path], [op.method]: operationObject(op) };
  return {
    openapi: "3.1.0",
    info: {
      title: "rye registry API",
      version: options.version,
      license: { name: "MIT", identifier: "MIT" },
      description:
        "Registry of signed AI-agent workflow items (directives, tools, knowledge) and bundles, with its OAuth authorization server, accounts, tokens and organizations. " +
        "Errors use the ErrorEnvelope shape, except under /oauth/*: the form-encoded endpoints answer RFC 6749 OAuthError bodies, the browser endpoints HTML pages or redirects.",
    },
    servers: [{ url: options.serverUrl }],
    tags: tagObjects(),
    paths,
    components: {
      schemas: componentSchemas(),
      parameters: {
        ...PATH_PARAMETERS,
        IfNoneMatch: { name: "If-None-Match", in: "header", required: false, description: "An ETag from an earlier response.", schema: { type: "string" } },
      },
      headers: {
        ETag: { description: "Quoted SHA-256 of the served file (item content or bundle manifest); for item pulls followed by `.` and 16 hex digits of the version's state (yanked, deprecated, visibility…), so a change of state is not answered 304.", schema: { type: "string" } },
        CacheControl: { description: "immutable for explicit versions of public content; private for private content.", schema: { type: "string" } },
        NoStore: { description: "no-store (with Pragma: no-cache): tokens, codes and their errors are never cached.", schema: { type: "string", const: "no-store" } },
        ...ACCOUNT_HEADERS,
      },
      responses: errorResponses(paths),
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "A personal/CI token (rye_pat_…) or an OAuth access token from `rye login`. Where an operation lists scopes under bearerAuth, the token must hold them.",
        },
        cookieAuth: { type: "apiKey", in: "cookie", name: SESSION_COOKIE, description: "The website's browser session (POST /v1/auth/login, /v1/auth/signup or an upstream sign-in)." },
        csrfToken: {
          type: "apiKey",
          in: "header",
          name: "X-CSRF-Token",
          description: "The session's csrf_token (from sign-in or GET /v1/auth/session): required with cookieAuth on state-changing requests.",
        },
      },
    },
  };
}
