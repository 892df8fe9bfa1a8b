/**
 * `rye mcp`: the stdio MCP server with exactly four tools — search, load, execute, sign — plus resources (installed
 * Agent Skills as `skill://`, items as `rye://<type>/<id>`; resources.ts), directives as prompts (prompts.ts),
 * completions (completions.ts) and list_changed / resources/updated notifications (list-changed.ts).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { RyeError, toErrorEnvelope } from "@rye/core";
import { Engine } from "../engine/engine.ts";
import { executeInput, loadInput, searchInput, signInput } from "./schemas.ts";
import { watchSkillLocks } from "./skill-resources.ts";
import { registerResources } from "./resources.ts";
import { registerCompletions } from "./completions.ts";
import { registerItemWatch } from "./list-changed.ts";
import { registerDirectivePrompts } from "./prompts.ts";
import { toolMetadata } from "./tool-metadata.ts";
import { logCallEnd, mcpLogger, routeConsoleTo } from "./logging.ts";
import { withMcpProgress } from "./progress.ts";
import { IdleCollector } from "./idle-memory.ts";

export const SERVER_INFO = { name: "rye", version: "0.1.0" };

export interface McpServerOptions {
  env?: NodeJS.ProcessEnv;
  /** Default project_path (the server's working directory). */
  cwd?: string;
  systemRoot?: string;
}

function ok(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

function failure(err: unknown): CallToolResult {
  const body = { status: "error", ...toErrorEnvelope(err) };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body };
}

/**
 * Asks the user, through the MCP client's elicitation, whether a call the security gate holds may run. A client
 * without elicitation, a decline, a cancel or no answer within the policy's timeout all refuse it.
 */
async function askApproval(server: McpServer, err: RyeError, signal: AbortSignal): Promise<{ approved: true } | { approved: false; why: string; hint: string }> {
  const details = (err.details ?? {}) as { tool?: string; effective_tier?: string; approval_timeout_seconds?: number; reason?: string };
  if (!server.server.getClientCapabilities()?.elicitation) {
    return { approved: false, why: "Approval needed, and this MCP client cannot ask the user (it does not support elicitation)", hint: "Tell the user what you wanted to run and why; they can run it themselves, or allow it in .ai/config/security.yaml (signed)." };
  }
  const seconds = details.approval_timeout_seconds ?? 60;
  try {
    const result = await server.server.elicitInput(
      {
        mode: "form",
        message: `rye's security gate holds a call for your approval: ${err.message}`,
        requestedSchema: { type: "object", properties: { approve: { type: "boolean", title: `Run ${details.tool ?? "this tool"}?`, description: `Effective tier ${details.effective_tier ?? "?"}; denied if you do not answer within ${seconds} s.` } }, required: ["approve"] },
      },
      { timeout: seconds * 1000, signal },
    );
    if (result.action === "accept" && result.content?.approve === true) return { approved: true };
    return { approved: false, why: result.action === "accept" ? "The user did not approve the call" : `The user ${result.action === "decline" ? "declined" : "cancelled"} the approval`, hint: "Do without this call, or ask the user how to proceed." };
  } catch {
    return { approved: false, why: `No approval within ${seconds} s`, hint: "Ask the user again, or do without this call." };
  }
}

export function createMcpServer(options: McpServerOptions = {}): McpServer {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const engine = (projectPath: string | undefined) =>
    Engine.open({ projectPath: projectPath ?? cwd, env, longLived: true, ...(options.systemRoot ? { systemRoot: options.systemRoot } : {}) });
  const server = new McpServer(SERVER_INFO, { capabilities: { tools: {}, logging: {} } });
  const logger = mcpLogger(server.server);
  // Memory left behind by a burst of calls (a first index build) is given back once the burst is over.
  const idle = new IdleCollector();
  const guard = async (tool: string, body: () => Promise<unknown>): Promise<CallToolResult> => {
    const started = performance.now();
    logger.log("debug", `${tool}: started`);
    try {
      const value = await body();
      logCallEnd(logger, tool, value, performance.now() - started);
      return ok(value);
    } catch (err) {
      logCallEnd(logger, tool, err, performance.now() - started);
      return failure(err);
    } finally {
      idle.activity();
    }
  };
  server.registerTool(
    "search",
    {
      title: "Search rye items",
      description: "Search directives, tools and knowledge across the project, user and system spaces. Ranked (BM25); each hit says its space, id, type, version and whether its signature verifies.",
      inputSchema: searchInput,
      ...toolMetadata("search"),
    },
    async (args, extra) => guard("search", () => withMcpProgress(extra, undefined, async () => (await engine(args.project_path)).search(args))),
  );
  server.registerTool(
    "load",
    {
      title: "Load a rye item",
      description: "Return an item's content, parsed metadata and signature verification; optionally copy it into the project or user space.",
      inputSchema: loadInput,
      ...toolMetadata("load"),
    },
    async (args, extra) => guard("load", () => withMcpProgress(extra, undefined, async () => (await engine(args.project_path)).load(args))),
  );
  server.registerTool(
    "execute",
    {
      title: "Execute a rye item",
      description: "Run a tool through its verified executor chain, or get a directive (with inputs applied) or knowledge entry to act on.",
      inputSchema: executeInput,
      ...toolMetadata("execute"),
    },
    async (args, extra) =>
      guard("execute", () => withMcpProgress(extra, `${args.item_type} ${args.item_id}`, async () => {
        const e = await engine(args.project_path);
        const request = { item_type: args.item_type, item_id: args.item_id, parameters: args.parameters ?? {}, ...(args.dry_run ? { dry_run: true } : {}), signal: extra.signal };
        try {
          return await e.execute(request);
        } catch (err) {
          // The security gate wants a person: ask the user through the client (elicitation), then run or refuse.
          if (!(err instanceof RyeError) || err.code !== "APPROVAL_REQUIRED") throw err;
          const answer = await askApproval(server, err, extra.signal);
          if (!answer.approved) throw new RyeError("APPROVAL_REQUIRED", `${answer.why}: ${err.message}`, { hint: answer.hint, details: err.details });
          return e.execute({ ...request, approved: true });
        }
      })),
  );
  server.registerTool(
    "sign",
    {
      title: "Sign rye items",
      description: "Validate and sign an item (or every item matching a glob) in the project or user space with your key.",
      inputSchema: signInput,
      ...toolMetadata("sign"),
    },
    async (args) => guard("sign", async () => (await engine(args.project_path)).sign(args)),
  );
  // Resources are served by the low-level server so skill:// and rye:// URIs are matched raw (McpServer would
  // normalise `..` away before matching); the project is the server's working directory (resources take no arguments).
  const skills = { projectPath: cwd, env };
  const offline = () => Engine.open({ projectPath: cwd, env: { ...env, RYE_OFFLINE: "1" }, ...(options.systemRoot ? { systemRoot: options.systemRoot } : {}) });
  const items = registerResources(server.server, { engine: () => engine(undefined), offlineEngine: offline, skills });
  const skillLocks = watchSkillLocks(server.server, skills);
  // Directives as prompts (slash commands in clients), for the server's project.
  registerDirectivePrompts(server.server, () => engine(undefined));
  registerCompletions(server.server, { engine: () => engine(undefined), skills });
  // list_changed for prompts and resources, and resources/updated for subscriptions, from one space watcher.
  const itemWatch = registerItemWatch(server.server, { engine: offline, onChange: (change) => items.changed(change) });
  const previous = server.server.onclose;
  server.server.onclose = () => {
    idle.stop();
    skillLocks.close();
    itemWatch.close();
    previous?.();
  };
  return server;
}

export async function runMcpStdio(options: McpServerOptions = {}): Promise<void> {
  const server = createMcpServer(options);
  // stdout is the protocol stream: anything printed with console.* becomes a log message instead.
  routeConsoleTo(mcpLogger(server.server));
  await server.connect(new StdioServerTransport());
}
