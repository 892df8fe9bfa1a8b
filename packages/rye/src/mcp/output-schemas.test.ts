/**
 * The two checks a result meets on its way out agree: the MCP server's own check (the zod `outputSchema`, run by
 * the SDK's McpServer before a result leaves) and a client's (the JSON Schema `tools/list` advertises, converted
 * as the SDK does and compiled with ajv, as the SDK's Client does). Both accept every shape the engine builds
 * (engine/results.ts) and both refuse a field the schemas do not declare: a server that let such a result through
 * would hand SDK clients a result they throw on.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Ajv } from "ajv";
import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import type { LoadResult, SearchHit, SearchResponse, SignedOne, ToolExecuteResult } from "../engine/results.ts";
import type { ToolName } from "./tool-metadata.ts";
import { OUTPUT_SCHEMAS } from "./tool-metadata.ts";

const ajv = new Ajv({ strict: false, allErrors: true });
const clientCheck = Object.fromEntries((Object.keys(OUTPUT_SCHEMAS) as ToolName[]).map((name) => [name, ajv.compile(toJsonSchemaCompat(OUTPUT_SCHEMAS[name], { strictUnions: true, pipeStrategy: "output" }) as object)]));

function verdicts(tool: ToolName, value: unknown): { server: boolean; client: boolean } {
  return { server: OUTPUT_SCHEMAS[tool].safeParse(value).success, client: clientCheck[tool]!(value) };
}

const localHit: SearchHit = {
  id: "demo/deploy-notes", type: "knowledge", space: "project", name: "deploy-notes", title: "Deploy notes", description: "", category: "demo", version: "1.0.0",
  score: 1, signed: true, verified: true, verifyCode: "OK", shadowed: false, path: "/p/.ai/knowledge/demo/deploy-notes.md", preview: "We deploy on Fridays.",
};
const registryHit = { id: "alice/notes/guide", type: "knowledge", space: "registry", registry: "http://127.0.0.1:1", name: "guide", description: "", category: "notes", version: "1.0.0", score: 0.5, deprecated: false, download_count: 0, quality_score: 40 } as const;
const page: SearchResponse = {
  results: [localHit, registryHit, { ...registryHit, id: "acme/notes/runbook", registry: "http://127.0.0.1:2" }],
  total: 3, query: "deploy", limit: 10, offset: 0, item_type: "all", source: "all", search_type: "keyword",
  registry: { url: "http://127.0.0.1:1", total: 1 },
  registries: [{ url: "http://127.0.0.1:1", total: 1 }, { url: "http://127.0.0.1:2", total: 1 }, { url: "http://127.0.0.1:3", total: 0, warning: "Registry http://127.0.0.1:3 not searched: down" }],
  warnings: ["Registry http://127.0.0.1:3 not searched: down"],
};
const loaded: LoadResult = {
  status: "success", item_type: "knowledge", item_id: "alice/notes/guide", source: "user", path: "/h/.ai/knowledge/alice/notes/guide.md", content: "x", metadata: { title: "Deploy guide" },
  verification: { ok: true, code: "OK", contentHash: "ab", fingerprint: "cd" }, issues: [], registry_notice: "Pinned registry key on first use",
};
const run: ToolExecuteResult = {
  status: "success", type: "tool", item_id: "alice/tools/deploy", data: { deployed: "prod" }, chain: [{ item_id: "alice/tools/deploy", space: "user", tool_type: "javascript", executor_id: "rye/core/runtimes/node", integrity: "x" }],
  metadata: { duration_ms: 1, lockfile_used: false, lockfile_created: true, primitive: "subprocess" },
};
const signed: SignedOne = { status: "signed", item_id: "demo/add", path: "/p/.ai/tools/demo/add.mjs", location: "project", signature: { timestamp: "t", hash: "h", ed25519_sig: "s", pubkey_fp: "f" }, warnings: [], message: "Signed" };

test("server and client both accept every shape: local and registry hits, several registries, a warning", () => {
  assert.deepEqual(verdicts("search", page), { server: true, client: true }, JSON.stringify(clientCheck.search!.errors));
  assert.deepEqual(verdicts("search", { ...page, results: [registryHit], registries: undefined, warnings: undefined }), { server: true, client: true });
  assert.deepEqual(verdicts("load", loaded), { server: true, client: true });
  assert.deepEqual(verdicts("execute", run), { server: true, client: true });
  assert.deepEqual(verdicts("sign", signed), { server: true, client: true });
  assert.deepEqual(verdicts("sign", { status: "error", error: { code: "ITEM_NOT_FOUND", message: "m", hint: "h" } }), { server: true, client: true });
});

test("server and client both refuse a field the schemas do not declare, at any depth", () => {
  const refused = { server: false, client: false };
  assert.deepEqual(verdicts("search", { ...page, results: [{ ...registryHit, stars: 5 }] }), refused, "an undeclared field on a registry hit");
  assert.deepEqual(verdicts("search", { ...page, results: [{ ...localHit, stars: 5 }] }), refused, "an undeclared field on a local hit");
  assert.deepEqual(verdicts("search", { ...page, registries: [{ url: "u", total: 0, reason: "down" }] }), refused, "an undeclared field on a searched registry");
  assert.deepEqual(verdicts("search", { ...page, next_offset: 10 }), refused, "an undeclared field on the page");
  assert.deepEqual(verdicts("load", { ...loaded, verification: { ...loaded.verification, trusted: true } }), refused);
  assert.deepEqual(verdicts("execute", { ...run, metadata: { ...run.metadata, pid: 1 } }), refused);
  assert.deepEqual(verdicts("sign", { ...signed, signature: { ...signed.signature, alg: "ed25519" } }), refused);
  assert.deepEqual(verdicts("search", { ...page, results: [{ ...registryHit, quality_score: 101 }] }), refused, "a quality score out of range");
});
