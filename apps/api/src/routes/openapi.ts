/**
 * GET /v1/openapi.json: an OpenAPI 3.1 description of every registry route, generated from zod schemas
 * with `z.toJSONSchema` (OpenAPI 3.1 schemas are JSON Schema 2020-12). Request bodies the routes parse
 * come from the routes themselves; the other shapes are described here, in one registry whose ids
 * become `#/components/schemas/<id>`.
 */
import { Hono } from "hono";
import { z } from "zod";
import { ERROR_CODE_LIST, errorEnvelopeSchema, ITEM_TYPES, keyRotationSchema, logCheckpointSchema, publishAttestationSchema } from "@rye/core";
import type { AppEnv } from "../env.ts";
import type { AppDeps } from "../services/deps.ts";
import { bundlePushRequestSchema } from "./bundles.ts";
import { pushRequestSchema } from "./items.ts";
import { logEntriesQuerySchema } from "./log.ts";

// ---------------------------------------------------------------- shared pieces
const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const timestamp = z.iso.datetime();
const itemType = z.enum(ITEM_TYPES);
const visibility = z.enum(["public", "unlisted", "private"]);
const signedDocument = <T extends z.ZodType>(payload: T) =>
  z.object({
    payload,
    signature: z.string().meta({ description: "Padded base64url Ed25519 signature over the canonical JSON of payload." }),
    key_fingerprint: z.string().meta({ description: "Fingerprint of the registry key that signed (see GET /v1/keys)." }),
  });

const SignedAttestation = signedDocument(publishAttestationSchema);
const SignedCheckpoint = signedDocument(logCheckpointSchema);
const ErrorEnvelope = errorEnvelopeSchema.meta({ description: `The one error shape of the API. error.code is one of: ${ERROR_CODE_LIST.join(", ")}.` });

// ---------------------------------------------------------------- health and keys
const HealthResponse = z.object({
  status: z.enum(["healthy", "degraded"]),
  version: z.string(),
  database: z.enum(["connected", "error"]),
  database_kind: z.enum(["postgres", "pglite"]),
});
const RegistryKeyInfo = z.object({
  fingerprint: z.string(),
  public_key: z.string().meta({ description: "SPKI PEM." }),
  algorithm: z.literal("ed25519"),
  valid_from: timestamp,
  valid_until: timestamp.nullable(),
  previous_fingerprint: z.string().nullable(),
  rotation: signedDocument(keyRotationSchema).nullable().meta({ description: "Signed by the previous key." }),
  revoked_at: timestamp.nullable(),
  revocation_reason: z.string().nullable(),
  active: z.boolean(),
});
const KeysResponse = z.object({ registry: z.string(), active: z.string(), keys: z.array(RegistryKeyInfo) });

// ---------------------------------------------------------------- items
const SignatureInfo = z.object({ timestamp: z.string(), hash: z.string(), registry_username: z.string().nullable(), fingerprint: z.string() });
const ItemCoordinates = { item_type: itemType, item_id: z.string(), namespace: z.string(), category: z.string(), name: z.string(), version: z.string() };
const PushResponse = z.object({
  status: z.literal("published"),
  ...ItemCoordinates,
  signature: SignatureInfo,
  signed_content: z.string().meta({ description: "The item re-signed by the registry (|rye-registry@<publisher>)." }),
  file_sha256: hex64,
  attestation: SignedAttestation,
  log_index: z.number().int(),
});
const PullQuery = z.object({ version: z.string().optional().meta({ description: "Default: the highest non-yanked version." }) });
const PullResponse = z.object({
  ...ItemCoordinates,
  content: z.string(),
  file_extension: z.string(),
  author: z.string(),
  signature: SignatureInfo,
  content_hash: hex64,
  file_sha256: hex64,
  author_key: z.object({ fingerprint: z.string(), signature: z.string().nullable(), verified: z.boolean() }).nullable(),
  attestation: SignedAttestation,
  log_index: z.number().int().nullable(),
  yanked: z.boolean(),
  yanked_reason: z.string().nullable(),
  deprecated: z.boolean(),
  deprecation_message: z.string().nullable(),
  visibility,
  created_at: timestamp,
});

// ---------------------------------------------------------------- search and metadata
const SearchQuery = z.object({
  query: z.string().max(256).optional().meta({ description: "Search text (name, description, category, content)." }),
  item_type: itemType.optional(),
  namespace: z.string().max(64).optional(),
  category: z.string().max(256).optional().meta({ description: "Category prefix." }),
  tool_type: z.string().max(64).optional(),
  limit: z.number().int().min(1).max(100).default(20),
  cursor: z.string().max(512).optional().meta({ description: "next_cursor of the previous page." }),
  offset: z.number().int().min(0).max(10_000).optional().meta({ description: "Original API paging; prefer cursor." }),
});
const SearchResult = z.object({
  item_type: itemType,
  item_id: z.string(),
  namespace: z.string(),
  category: z.string(),
  name: z.string(),
  description: z.string(),
  version: z.string().nullable(),
  author: z.string(),
  download_count: z.number().int(),
  created_at: timestamp,
  updated_at: timestamp,
  tool_type: z.string().nullable(),
  deprecated: z.boolean(),
  visibility,
  score: z.number().nullable(),
});
const SearchResponse = z.object({
  results: z.array(SearchResult),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int().optional(),
  next_cursor: z.string().nullable(),
  query: z.string(),
});
const ItemDetails = z.object({
  ...ItemCoordinates,
  version: z.string().nullable(),
  description: z.string(),
  author: z.string(),
  latest_version: z.string().nullable(),
  visibility,
  deprecated: z.boolean(),
  deprecation_message: z.string().nullable(),
  download_count: z.number().int(),
  tool_type: z.string().nullable(),
  file_extension: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  versions: z.array(
    z.object({
      version: z.string(),
      created_at: timestamp,
      yanked: z.boolean(),
      yanked_reason: z.string().nullable(),
      content_hash: hex64,
      size_bytes: z.number().int(),
      publisher: z.string(),
      log_index: z.number().int().nullable(),
    }),
  ),
});

// ---------------------------------------------------------------- management
const ItemTarget = { item_type: itemType, item_id: z.string() };
const VisibilityRequest = z.object({ visibility });
const VisibilityResponse = z.object({ status: z.literal("updated"), ...ItemTarget, visibility, previous_visibility: visibility });
const YankRequest = z.object({ version: z.string().min(1).max(256), reason: z.string().max(1000).optional() });
const UnyankRequest = z.object({ version: z.string().min(1).max(256) });
const YankResponse = z.object({
  status: z.enum(["yanked", "unyanked"]),
  ...ItemTarget,
  version: z.string(),
  reason: z.string().nullable().optional(),
  latest_version: z.string().nullable(),
  log_index: z.number().int(),
});
const DeprecateRequest = z.union([
  z.object({ deprecated: z.literal(true).optional(), message: z.string().min(1).max(1000) }).strict(),
  z.object({ deprecated: z.literal(false) }).strict(),
]);
const DeprecateResponse = z.object({ status: z.enum(["deprecated", "undeprecated"]), ...ItemTarget, deprecated: z.boolean(), deprecation_message: z.string().nullable() });
const DeleteQuery = z.object({
  version: z.string().optional().meta({ description: "Delete one version; omitted: every version and the item." }),
  force: z.enum(["true", "false", "1", "0"]).optional().meta({ description: "Registry admins: bypass the deletion policy." }),
});
const DeleteResponse = z.object({ status: z.literal("deleted"), ...ItemTarget, version: z.string().meta({ description: '"all" when every version was deleted.' }), deleted_versions: z.array(z.string()) });
const TransferRequest = z.object({ to_namespace: z.string().min(1).max(64) });
const TransferResponse = z.object({ status: z.literal("transferred"), ...ItemTarget, previous_item_id: z.string(), namespace: z.string(), previous_namespace: z.string() });

// ---------------------------------------------------------------- bundles and log
const BundlePushResponse = z.object({
  status: z.literal("pushed"),
  bundle_id: z.string(),
  version: z.string(),
  file_count: z.number().int(),
  manifest: z.string().meta({ description: "The manifest re-signed by the registry (|rye-registry@<publisher>)." }),
  attestation: SignedAttestation,
  log_index: z.number().int(),
});
const BundlePullResponse = z.object({
  bundle_id: z.string(),
  version: z.string(),
  manifest: z.string(),
  manifest_sha256: hex64,
  files: z.record(z.string(), z.object({ content_base64: z.string(), sha256: hex64, size: z.number().int(), inline_signed: z.boolean() })),
  author: z.string(),
  created_at: timestamp,
  attestation: z.object({ payload: publishAttestationSchema, signature: z.string(), key_fingerprint: z.string().nullable() }),
  log_index: z.number().int().nullable(),
  yanked: z.boolean(),
  visibility,
});
const LogEntry = z.object({
  index: z.number().int(),
  kind: z.string(),
  payload: z.record(z.string(), z.unknown()),
  prev_hash: hex64,
  entry_hash: hex64.meta({ description: "sha256(canonical JSON of {index, kind, payload, prev_hash})." }),
  created_at: timestamp,
});
const LogEntriesResponse = z.object({ entries: z.array(LogEntry), tree_size: z.number().int(), next_from: z.number().int().nullable() });

// ---------------------------------------------------------------- the registry of named schemas
function componentRegistry() {
  const registry = z.registry<{ id: string }>();
  const named: Record<string, z.ZodType> = {
    ErrorEnvelope,
    SignedAttestation,
    SignedCheckpoint,
    HealthResponse,
    KeysResponse,
    PushRequest: pushRequestSchema,
    PushResponse,
    PullResponse,
    SearchResponse,
    ItemDetails,
    VisibilityRequest,
    VisibilityResponse,
    YankRequest,
    UnyankRequest,
    YankResponse,
    DeprecateRequest,
    DeprecateResponse,
    DeleteResponse,
    TransferRequest,
    TransferResponse,
    BundlePushRequest: bundlePushRequestSchema,
    BundlePushResponse,
    BundlePullResponse,
    LogEntriesResponse,
  };
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  return registry;
}

type JsonObject = Record<string, unknown>;
const SCHEMA_REF = "#/components/schemas/";
const ref = (id: string) => ({ $ref: `${SCHEMA_REF}${id}` });

/** Request and response shapes ("input" view: what a client may send, defaults optional). */
function componentSchemas(): Record<string, JsonObject> {
  const { schemas } = z.toJSONSchema(componentRegistry(), { uri: (id) => `${SCHEMA_REF}${id}`, io: "input" });
  return Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _s, $id: _i, ...schema }]) => [id, schema as JsonObject]));
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
type Auth = "none" | "optional" | "required";
const ERROR_RESPONSES: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  413: "PayloadTooLarge",
  429: "RateLimited",
};

interface Operation {
  method: "get" | "post" | "delete";
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  auth: Auth;
  query?: z.ZodObject;
  body?: string;
  ok: { status: number; description: string; schema?: string; content?: JsonObject; headers?: JsonObject };
  errors: number[];
  /** Conditional GET: If-None-Match in, ETag + 304 out. */
  etag?: boolean;
}

const MANAGE = [400, 401, 403, 404, 409, 413];
const manage = (verb: string, operationId: string, summary: string, body: string | undefined, response: string, method: "post" | "delete" = "post"): Operation => ({
  method,
  path: `/v1/${verb}/{item_type}/{item_id}`,
  operationId,
  summary,
  tag: "manage",
  auth: "required",
  ...(body ? { body } : {}),
  ...(method === "delete" ? { query: DeleteQuery } : {}),
  ok: { status: 200, description: "Done", schema: response },
  errors: MANAGE,
});

const OPERATIONS: Operation[] = [
  { method: "get", path: "/health", operationId: "health", summary: "Service and database health", tag: "meta", auth: "none", ok: { status: 200, description: "Healthy (503 with the same body when the database is unreachable)", schema: "HealthResponse" }, errors: [] },
  {
    method: "get",
    path: "/v1/public-key",
    operationId: "getPublicKey",
    summary: "The active registry public key (SPKI PEM), for trust on first use",
    tag: "keys",
    auth: "none",
    ok: { status: 200, description: "PEM", content: { "application/x-pem-file": { schema: { type: "string" } } }, headers: { "X-Key-Fingerprint": { schema: { type: "string" } } } },
    errors: [],
  },
  { method: "get", path: "/v1/keys", operationId: "listKeys", summary: "Every registry key with validity, rotation statements and revocations", tag: "keys", auth: "none", ok: { status: 200, description: "Keys", schema: "KeysResponse" }, errors: [] },
  { method: "post", path: "/v1/push", operationId: "pushItem", summary: "Publish a version of an item", tag: "items", auth: "required", body: "PushRequest", ok: { status: 201, description: "Published", schema: "PushResponse" }, errors: [400, 401, 403, 404, 409, 413] },
  { method: "get", path: "/v1/pull/{item_type}/{item_id}", operationId: "pullItem", summary: "Download a version of an item", tag: "items", auth: "optional", query: PullQuery, ok: { status: 200, description: "The item, signed by the registry", schema: "PullResponse" }, errors: [400, 404], etag: true },
  { method: "get", path: "/v1/search", operationId: "search", summary: "Search items", tag: "items", auth: "optional", query: SearchQuery, ok: { status: 200, description: "A page of results", schema: "SearchResponse" }, errors: [400] },
  { method: "get", path: "/v1/items/{item_type}/{item_id}", operationId: "getItem", summary: "An item's metadata and versions", tag: "items", auth: "optional", ok: { status: 200, description: "The item", schema: "ItemDetails" }, errors: [400, 404] },
  manage("visibility", "setVisibility", "Change an item's visibility", "VisibilityRequest", "VisibilityResponse"),
  manage("publish", "publishItem", "Make an item public", undefined, "VisibilityResponse"),
  manage("unpublish", "unpublishItem", "Make an item private", undefined, "VisibilityResponse"),
  manage("yank", "yankVersion", "Yank a version: still pullable by explicit version, never chosen as latest", "YankRequest", "YankResponse"),
  manage("unyank", "unyankVersion", "Undo a yank", "UnyankRequest", "YankResponse"),
  manage("deprecate", "deprecateItem", "Deprecate an item with a message, or undo it with {deprecated:false}", "DeprecateRequest", "DeprecateResponse"),
  manage("delete", "deleteItem", "Delete a version, or the whole item (subject to the deletion policy)", undefined, "DeleteResponse", "delete"),
  manage("transfer", "transferItem", "Move an item to another namespace", "TransferRequest", "TransferResponse"),
  { method: "post", path: "/v1/bundle/push", operationId: "pushBundle", summary: "Publish a version of a bundle (a signed manifest and its files)", tag: "bundles", auth: "required", body: "BundlePushRequest", ok: { status: 201, description: "Published", schema: "BundlePushResponse" }, errors: [400, 401, 403, 404, 409, 413] },
  { method: "get", path: "/v1/bundle/pull/{bundle_id}", operationId: "pullBundle", summary: "Download a version of a bundle", tag: "bundles", auth: "optional", query: PullQuery, ok: { status: 200, description: "The bundle", schema: "BundlePullResponse" }, errors: [400, 404], etag: true },
  { method: "get", path: "/v1/log/entries", operationId: "listLogEntries", summary: "Entries of the append-only publish log (a hash chain)", tag: "log", auth: "none", query: logEntriesQuerySchema, ok: { status: 200, description: "A page of entries", schema: "LogEntriesResponse" }, errors: [400] },
  { method: "get", path: "/v1/log/checkpoint", operationId: "getLogCheckpoint", summary: "The latest signed checkpoint of the log head", tag: "log", auth: "none", ok: { status: 200, description: "Checkpoint", schema: "SignedCheckpoint" }, errors: [] },
  { method: "get", path: "/v1/openapi.json", operationId: "getOpenApi", summary: "This document", tag: "meta", auth: "none", ok: { status: 200, description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } }, errors: [] },
];

const SECURITY: Record<Auth, JsonObject[]> = { none: [], optional: [{}, { bearerAuth: [] }], required: [{ bearerAuth: [] }] };
const PATH_PARAMETERS: Record<string, JsonObject> = {
  item_type: { name: "item_type", in: "path", required: true, schema: { type: "string", enum: [...ITEM_TYPES] } },
  item_id: { name: "item_id", in: "path", required: true, description: "namespace/category…/name; its slashes are sent as they are.", schema: { type: "string" } },
  bundle_id: { name: "bundle_id", in: "path", required: true, description: "namespace/name…; its slashes are sent as they are.", schema: { type: "string" } },
};

function operationObject(op: Operation): JsonObject {
  const pathParams = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ $ref: `#/components/parameters/${m[1]}` }));
  const parameters = [...pathParams, ...(op.query ? queryParameters(op.query) : []), ...(op.etag ? [{ $ref: "#/components/parameters/IfNoneMatch" }] : [])];
  const errors = [...op.errors, ...(op.auth === "required" ? [401, 403] : []), ...(op.path.startsWith("/v1/") ? [429] : [])];
  const responses: JsonObject = {
    [op.ok.status]: {
      description: op.ok.description,
      ...(op.ok.headers || op.etag ? { headers: { ...op.ok.headers, ...(op.etag ? { ETag: { $ref: "#/components/headers/ETag" }, "Cache-Control": { $ref: "#/components/headers/CacheControl" } } : {}) } } : {}),
      ...(op.ok.schema ? { content: { "application/json": { schema: ref(op.ok.schema) } } } : op.ok.content ? { content: op.ok.content } : {}),
    },
  };
  if (op.etag) responses["304"] = { description: "Not modified (If-None-Match matched the ETag)" };
  for (const status of [...new Set(errors)].sort()) responses[status] = { $ref: `#/components/responses/${ERROR_RESPONSES[status]}` };
  responses.default = { $ref: "#/components/responses/Error" };
  return {
    operationId: op.operationId,
    summary: op.summary,
    tags: [op.tag],
    security: SECURITY[op.auth],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: ref(op.body) } } } } : {}),
    responses,
  };
}

export function buildOpenApiDocument(options: { version: string; serverUrl: string }): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const op of OPERATIONS) paths[op.path] = { ...paths[op.path], [op.method]: operationObject(op) };
  const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: ref("ErrorEnvelope") } } });
  return {
    openapi: "3.1.0",
    info: {
      title: "rye registry API",
      version: options.version,
      description: "Registry of signed AI-agent workflow items (directives, tools, knowledge) and bundles. Errors always use the ErrorEnvelope shape.",
    },
    servers: [{ url: options.serverUrl }],
    tags: ["meta", "keys", "items", "manage", "bundles", "log"].map((name) => ({ name })),
    paths,
    components: {
      schemas: componentSchemas(),
      parameters: {
        ...PATH_PARAMETERS,
        IfNoneMatch: { name: "If-None-Match", in: "header", required: false, description: "An ETag from an earlier response.", schema: { type: "string" } },
      },
      headers: {
        ETag: { description: "Quoted SHA-256 of the served file (item content or bundle manifest).", schema: { type: "string" } },
        CacheControl: { description: "immutable for explicit versions of public content; private for private content.", schema: { type: "string" } },
      },
      responses: {
        ...Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([status, name]) => [name, errorResponse(`Error ${status}`)])),
        Error: errorResponse("Unexpected error (500) or unavailable dependency (503)"),
      },
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "A personal/CI token (rye_pat_…) or an OAuth access token from `rye login`." },
      },
    },
  };
}

export function openapiRoutes(deps: AppDeps): Hono<AppEnv> {
  const document = buildOpenApiDocument({ version: deps.version, serverUrl: deps.config.publicUrl });
  return new Hono<AppEnv>().get("/v1/openapi.json", (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(document);
  });
}
