/**
 * The registry's MCP tools: `search`, `get_item`, `list_versions`, `relations`, `skill_files`. Each only reads this
 * registry (annotations `readOnlyHint: true`, `openWorldHint: false`), answers with `structuredContent` parsed by
 * its exact output schema (schemas.ts) plus the same JSON as text for clients that read text only, and turns a
 * refusal (not found, bad argument) into an `isError` answer carrying the API's error envelope.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { parseSkillId, toErrorEnvelope } from "@rye/core";
import { callerError } from "./errors.ts";
import type { Principal } from "../auth/principal.ts";
import type { AppDeps } from "../services/deps.ts";
import { assertType } from "../services/items.ts";
import { itemRelations } from "../services/relations.ts";
import { searchItems } from "../services/search.ts";
import { findReadableSkillVersion } from "../services/skills/lookup.ts";
import { requiredBlob, storedManifest } from "../services/skills/stored.ts";
import { publisherKey, readItemDetails, readPull, registryKeyPem } from "./reads.ts";
import {
  getItemInput,
  getItemOutput,
  type GetItemOutput,
  listVersionsInput,
  listVersionsOutput,
  relationsInput,
  relationsOutput,
  searchInput,
  searchOutput,
  SKILL_FILES_MAX_BYTES,
  skillFilesInput,
  skillFilesOutput,
  type SkillFilesOutput,
} from "./schemas.ts";

export interface McpCaller {
  deps: AppDeps;
  /** The bearer token's principal, or null (anonymous): what the caller may read is what it may read over HTTP. */
  principal: Principal | null;
  /** The HTTP request's id (logs, and the error an unexpected failure answers with). */
  requestId: string;
}

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The answer, parsed by its schema (fields outside the schema are dropped, missing ones throw), as structured content and text. */
function answer<S extends z.ZodType>(schema: S, value: z.input<S>): CallToolResult {
  const structured = schema.parse(value) as Record<string, unknown>;
  return { structuredContent: structured, content: [{ type: "text", text: JSON.stringify(structured) }] };
}

/** A failure answers `isError` with the error envelope as text (errors.ts: unexpected ones logged, answered INTERNAL). */
function refusing(caller: McpCaller, tool: string) {
  return async (run: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    try {
      return await run();
    } catch (err) {
      return { isError: true, content: [{ type: "text", text: JSON.stringify(toErrorEnvelope(callerError(caller, err, `tools/call ${tool}`))) }] };
    }
  };
}

/** How to check a `get_item` answer without trusting the connection it came over. */
export function verifyOfflineText(item: GetItemOutput["item"], registryUrl: string): string {
  const file = `${item.name}${item.file_extension}`;
  const type = item.item_type === "skill" ? "" : ` --type ${item.item_type}`;
  return [
    `1. Save item.content exactly as ${file}.`,
    `2. Trust the registry key ${item.signature.fingerprint} once: save registry_key.public_key as registry.pem, compare its fingerprint with ${registryUrl}/v1/keys (or a pin you already hold, e.g. .ai/rye.lock), then run: rye trust add registry.pem`,
    `3. Run: rye verify ${file}${type} — OK means the content hash matches the registry's signature line (content_hash ${item.content_hash}).`,
    `4. item.attestation.payload is signed by the same key (Ed25519 over its canonical JSON, item.attestation.signature)${item.log_index === null ? "" : `; it is entry ${item.log_index} of the registry's public log (${registryUrl}/v1/log/entries?from=${item.log_index}&limit=1)`}.`,
  ].join("\n");
}

export function registerTools(server: McpServer, caller: McpCaller): void {
  const { deps, principal } = caller;

  server.registerTool(
    "search",
    {
      title: "Search the registry",
      description: "Ranked search over the registry's directives, tools, knowledge and skills you may see, with type, namespace, category, tool type and quality filters and paging (the website's and GET /v1/search's search).",
      inputSchema: searchInput,
      outputSchema: searchOutput,
      annotations: { ...READ_ONLY, title: "Search the registry" },
    },
    async (args) =>
      refusing(caller, "search")(async () =>
        answer(
          searchOutput,
          await searchItems(deps.db, principal, {
            query: args.query,
            itemType: args.item_type,
            namespace: args.namespace,
            category: args.category,
            toolType: args.tool_type,
            minQuality: args.min_quality,
            sort: args.sort,
            limit: args.limit,
            offset: args.offset,
            cursor: args.cursor,
            facets: args.facets ?? false,
          }),
        ),
      ),
  );

  server.registerTool(
    "get_item",
    {
      title: "Get one signed item version",
      description: "One version of an item: its content with the registry's signature line, the registry's signed attestation, its public log index, the registry's and the publisher's keys, and how to verify it offline with rye verify.",
      inputSchema: getItemInput,
      outputSchema: getItemOutput,
      annotations: { ...READ_ONLY, title: "Get one signed item version" },
    },
    async (args) =>
      refusing(caller, "get_item")(async () => {
        const pulled = await readPull(deps, principal, args.item_type, args.item_id, args.version);
        // The pull answer as served (answer() below parses the whole output by its schema once).
        const item = JSON.parse(Buffer.from(pulled.body).toString("utf8")) as GetItemOutput["item"];
        const fingerprint = item.attestation.key_fingerprint || item.signature.fingerprint;
        return answer(getItemOutput, {
          item,
          registry_key: { fingerprint, public_key: await registryKeyPem(deps, fingerprint) },
          publisher_key: item.author_key ? await publisherKey(deps, item.author, item.author_key.fingerprint) : null,
          verify_offline: verifyOfflineText(item, deps.config.publicUrl.replace(/\/+$/, "")),
        });
      }),
  );

  server.registerTool(
    "list_versions",
    {
      title: "List an item's versions",
      description: "An item's metadata and every version you may see (highest first): yanked ones marked, held ones only for their reviewers.",
      inputSchema: listVersionsInput,
      outputSchema: listVersionsOutput,
      annotations: { ...READ_ONLY, title: "List an item's versions" },
    },
    async (args) => refusing(caller, "list_versions")(async () => answer(listVersionsOutput, await readItemDetails(deps, principal, args.item_type, args.item_id))),
  );

  server.registerTool(
    "relations",
    {
      title: "What an item uses and what uses it",
      description: "What one version of an item uses (tools and directives it executes, knowledge it loads, a tool's executor) resolved against the registry, and the items whose latest version uses it.",
      inputSchema: relationsInput,
      outputSchema: relationsOutput,
      annotations: { ...READ_ONLY, title: "What an item uses and what uses it" },
    },
    async (args) => refusing(caller, "relations")(async () => answer(relationsOutput, await itemRelations(deps.db, principal, assertType(args.item_type), args.item_id, args.version))),
  );

  server.registerTool(
    "skill_files",
    {
      title: "A skill's manifest and files",
      description: "An Agent Skill's registry-signed manifest and file list, with the contents of the files asked for (SKILL.md by default).",
      inputSchema: skillFilesInput,
      outputSchema: skillFilesOutput,
      annotations: { ...READ_ONLY, title: "A skill's manifest and files" },
    },
    async (args) =>
      refusing(caller, "skill_files")(async () => {
        const ref = parseSkillId(args.skill_id);
        const { item, row } = await findReadableSkillVersion(deps.db, principal, ref.namespace, ref.name, args.version);
        const manifest = storedManifest(row.content);
        const files = Object.entries(manifest.files)
          .map(([path, entry]) => ({ path, sha256: entry.sha256, size: entry.size, executable: entry.executable === true }))
          .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        const contents: SkillFilesOutput["contents"] = [];
        const omitted: SkillFilesOutput["omitted"] = [];
        let budget = SKILL_FILES_MAX_BYTES;
        for (const path of [...new Set(args.paths ?? ["SKILL.md"])]) {
          const entry = manifest.files[path];
          if (!entry) omitted.push({ path, reason: "not_in_skill" });
          else if (entry.size > budget) omitted.push({ path, reason: "too_large" });
          else {
            budget -= entry.size;
            contents.push(fileContent(path, await requiredBlob(deps.blobs, entry.sha256)));
          }
        }
        return answer(skillFilesOutput, {
          item_id: `${item.namespace.name}/${item.name}`,
          namespace: item.namespace.name,
          name: item.name,
          version: row.version,
          description: manifest.skill.description,
          manifest: row.content,
          manifest_sha256: row.fileSha256,
          files,
          contents,
          omitted,
        });
      }),
  );
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A file as UTF-8 text when it is valid UTF-8, else base64. */
export function fileContent(path: string, bytes: Uint8Array): SkillFilesOutput["contents"][number] {
  try {
    return { path, encoding: "utf-8", text: utf8.decode(bytes) };
  } catch {
    return { path, encoding: "base64", text: Buffer.from(bytes).toString("base64") };
  }
}
