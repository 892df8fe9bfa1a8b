/**
 * The registry's MCP server for one caller: built per HTTP request (stateless Streamable HTTP, http.ts), so it holds
 * nothing beyond the request and any API replica can answer any request.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { registerCompletions } from "./completions.ts";
import { registerDirectivePrompts } from "./prompts.ts";
import { registerResources } from "./resources.ts";
import { type McpCaller, registerTools } from "./tools.ts";

export const MCP_SERVER_NAME = "rye-registry";

const INSTRUCTIONS =
  "The rye registry: signed directives, tools, knowledge and Agent Skills. Find items with `search`, read one version with `get_item` (its content, the registry's signature and attestation, and how to verify it offline), " +
  "see its versions with `list_versions`, what it uses and what uses it with `relations`, and a skill's files with `skill_files`. Every tool only reads. " +
  "Published directives are prompts (named by their ids, their inputs as arguments); knowledge items (rye://knowledge/<id>) and skill files (skill://<namespace>/<name>/SKILL.md first) are resources.";

/**
 * The SDK builds a JSON Schema validator (a new Ajv) per server unless given one; this server never elicits, so one
 * shared validator saves that on every request (a third of a tools/call's CPU, apps/api/bench/mcp.bench.ts).
 */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

export function createRegistryMcpServer(caller: McpCaller): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, title: "rye registry", version: caller.deps.version }, { instructions: INSTRUCTIONS, jsonSchemaValidator: SHARED_VALIDATOR });
  registerTools(server, caller);
  // Prompts and resources come from the database, paged: the low-level handlers (McpServer's own lists are static).
  registerDirectivePrompts(server.server, caller);
  registerResources(server.server, caller);
  registerCompletions(server.server, caller);
  return server;
}
