/**
 * Knowledge items and Agent Skills as MCP resources, with progressive disclosure as the local server does it:
 *   rye://knowledge/<namespace>/<category…>/<name>[@version]   a knowledge item's signed file (latest by default)
 *   skill://<namespace>/<name>[@version]/<path>                  one file of a skill
 * `resources/list` pages every visible knowledge item, then every visible skill's SKILL.md only (the registry's search,
 * newest first; the cursor carries the search's own cursor, so any replica serves the next page). Reading a SKILL.md
 * answers its bytes and, in `_meta["rye/files"]`, the URIs of the skill's other files, read on demand. A file is
 * looked up by path in the skill's signed manifest, never on a file system.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ListResourcesResult, ReadResourceResult, Resource } from "@modelcontextprotocol/sdk/types.js";
import { ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ReadResourceRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { parseRegistryRef, RyeError, SKILL_FILE } from "@rye/core";
import { mcpError, RESOURCE_NOT_FOUND } from "./errors.ts";
import { searchItems } from "../services/search.ts";
import { findReadableSkillVersion } from "../services/skills/lookup.ts";
import { requiredBlob, storedManifest } from "../services/skills/stored.ts";
import { readPull } from "./reads.ts";
import type { McpCaller } from "./tools.ts";

export const KNOWLEDGE_SCHEME = "rye://knowledge/";
export const SKILL_SCHEME = "skill://";
export const KNOWLEDGE_TEMPLATE = `${KNOWLEDGE_SCHEME}{+id}`;
export const SKILL_TEMPLATE = `${SKILL_SCHEME}{namespace}/{name}/{+path}`;
/** Resources per `resources/list` page. */
export const RESOURCES_PAGE = 50;

/** Each segment percent-encoded, its slashes kept; `@` (a version) stays readable. */
const encodePath = (path: string) => path.split("/").map((segment) => encodeURIComponent(segment).replace(/%40/g, "@")).join("/");
export const knowledgeUri = (id: string) => `${KNOWLEDGE_SCHEME}${encodePath(id)}`;
export const skillFileUri = (skillId: string, path: string) => `${SKILL_SCHEME}${encodePath(skillId)}/${encodePath(path)}`;

const MIME: Record<string, string> = {
  md: "text/markdown",
  txt: "text/plain",
  py: "text/x-python",
  sh: "application/x-sh",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/typescript",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  html: "text/html",
  css: "text/css",
  csv: "text/csv",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  pdf: "application/pdf",
};

export function mimeTypeOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return (dot > 0 && MIME[base.slice(dot + 1).toLowerCase()]) || "application/octet-stream";
}

/** The percent-decoded segments of a URI's path; `.`/`..`/empty segments, encoded slashes and control characters are refused. */
function segmentsOf(uri: string, rest: string): string[] {
  return rest.split("/").map((segment) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw new RyeError("BAD_REQUEST", `${uri} is not a valid URI (bad percent-encoding)`);
    }
    // eslint-disable-next-line no-control-regex
    if (decoded === "" || decoded === "." || decoded === ".." || /[\\/\u0000-\u001f]/.test(decoded)) throw new RyeError("BAD_REQUEST", `${uri} has an empty, dot or encoded-separator segment`);
    return decoded;
  });
}

/** `name@1.2.0` → name and version. */
function splitVersion(text: string): { name: string; version: string | undefined } {
  const at = text.lastIndexOf("@");
  return at > 0 ? { name: text.slice(0, at), version: text.slice(at + 1) } : { name: text, version: undefined };
}

export function parseKnowledgeUri(uri: string): { id: string; version: string | undefined } {
  const { name: id, version } = splitVersion(segmentsOf(uri, uri.slice(KNOWLEDGE_SCHEME.length)).join("/"));
  parseRegistryRef("knowledge", id);
  return { id, version };
}

export function parseSkillUri(uri: string): { namespace: string; name: string; version: string | undefined; path: string } {
  const segments = segmentsOf(uri, uri.slice(SKILL_SCHEME.length));
  if (segments.length < 3) throw new RyeError("BAD_REQUEST", `${uri} names no file`, { hint: `Skill files look like ${SKILL_SCHEME}<namespace>/<name>/${SKILL_FILE}.` });
  const { name, version } = splitVersion(segments[1]!);
  return { namespace: segments[0]!, name, version, path: segments.slice(2).join("/") };
}

interface ListCursor {
  type: "knowledge" | "skill";
  search?: string;
}

function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

function decodeCursor(raw: string | undefined): ListCursor {
  if (raw === undefined) return { type: "knowledge" };
  try {
    const cursor = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as ListCursor;
    if ((cursor.type === "knowledge" || cursor.type === "skill") && (cursor.search === undefined || typeof cursor.search === "string")) return cursor;
  } catch {
    // refused below
  }
  throw new RyeError("BAD_REQUEST", "Unknown resources/list cursor", { hint: "Pass nextCursor from the previous page, or list from the first page." });
}

async function readKnowledge(caller: McpCaller, uri: string): Promise<ReadResourceResult> {
  const { id, version } = parseKnowledgeUri(uri);
  const pulled = await readPull(caller.deps, caller.principal, "knowledge", id, version);
  const item = JSON.parse(Buffer.from(pulled.body).toString("utf8")) as { content: string; version: string; content_hash: string; signature: { fingerprint: string } };
  return {
    contents: [{ uri, mimeType: "text/markdown", text: item.content, _meta: { "rye/version": item.version, "rye/content_hash": item.content_hash, "rye/signed_by": item.signature.fingerprint } }],
  };
}

async function readSkillFile(caller: McpCaller, uri: string): Promise<ReadResourceResult> {
  const { namespace, name, version, path } = parseSkillUri(uri);
  const { item, row } = await findReadableSkillVersion(caller.deps.db, caller.principal, namespace, name, version);
  const manifest = storedManifest(row.content);
  const entry = manifest.files[path];
  if (!entry) throw new RyeError("NOT_FOUND", `${path} is not a file of skill ${item.namespace.name}/${item.name}@${row.version}`, { hint: `Read ${skillFileUri(`${item.namespace.name}/${item.name}`, SKILL_FILE)}: its _meta "rye/files" lists the others.` });
  const bytes = await requiredBlob(caller.deps.blobs, entry.sha256);
  const mimeType = mimeTypeOf(path);
  const skillId = `${item.namespace.name}/${item.name}${version ? `@${row.version}` : ""}`;
  const meta: Record<string, unknown> = { "rye/version": row.version, "rye/sha256": entry.sha256 };
  if (path === SKILL_FILE) meta["rye/files"] = Object.keys(manifest.files).filter((p) => p !== SKILL_FILE).sort().map((p) => skillFileUri(skillId, p));
  let text: string | null = null;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    text = null;
  }
  const content = text !== null && !mimeType.startsWith("image/") && mimeType !== "application/pdf" ? { text } : { blob: Buffer.from(bytes).toString("base64") };
  return { contents: [{ uri, mimeType, ...content, _meta: meta }] };
}

export function registerResources(server: Server, caller: McpCaller): void {
  const { deps, principal } = caller;
  server.registerCapabilities({ resources: {} });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      { uriTemplate: KNOWLEDGE_TEMPLATE, name: "knowledge", title: "Knowledge item", description: "A knowledge item's signed file: rye://knowledge/<namespace>/<category>/<name>, @<version> to pin one", mimeType: "text/markdown" },
      { uriTemplate: SKILL_TEMPLATE, name: "skill-file", title: "Agent Skill file", description: `One file of an Agent Skill: read ${SKILL_FILE} first; its _meta "rye/files" lists the others (<name>@<version> pins a version)` },
    ],
  }));
  server.setRequestHandler(ListResourcesRequestSchema, async (request): Promise<ListResourcesResult> => {
    try {
      const cursor = decodeCursor(request.params?.cursor);
      const page = await searchItems(deps.db, principal, { query: "", itemType: cursor.type, limit: RESOURCES_PAGE, cursor: cursor.search });
      const resources: Resource[] = page.results.map((hit) =>
        cursor.type === "knowledge"
          ? { uri: knowledgeUri(hit.item_id), name: hit.item_id, title: hit.name, description: hit.description, mimeType: "text/markdown" }
          : { uri: skillFileUri(hit.item_id, SKILL_FILE), name: `${hit.item_id}/${SKILL_FILE}`, title: hit.name, description: hit.description, mimeType: "text/markdown" },
      );
      const next: ListCursor | null = page.next_cursor ? { type: cursor.type, search: page.next_cursor } : cursor.type === "knowledge" ? { type: "skill" } : null;
      return { resources, ...(next ? { nextCursor: encodeCursor(next) } : {}) };
    } catch (err) {
      throw mcpError(caller, err, "resources/list");
    }
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (request): Promise<ReadResourceResult> => {
    const { uri } = request.params;
    try {
      if (uri.startsWith(KNOWLEDGE_SCHEME)) return await readKnowledge(caller, uri);
      if (uri.startsWith(SKILL_SCHEME)) return await readSkillFile(caller, uri);
      throw new RyeError("BAD_REQUEST", `${JSON.stringify(uri.slice(0, 200))} is not a resource of this server`, { hint: `Resources are ${KNOWLEDGE_TEMPLATE} and ${SKILL_TEMPLATE}.` });
    } catch (err) {
      throw mcpError(caller, err, "resources/read", RESOURCE_NOT_FOUND);
    }
  });
}
