/**
 * The MCP server's own logs go to the client as `notifications/message` (MCP logging), never to stdout (on stdio
 * that is the protocol stream) and never as free text on stderr the client cannot filter.
 *
 * Level: `warning` and above until the client sends `logging/setLevel`; then the level it sets. Each connection
 * (one McpServer per stdio process or HTTP session) keeps its own.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { LoggingLevelSchema, SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";

export const LOGGER_NAME = "rye";
export const DEFAULT_LOG_LEVEL: LoggingLevel = "warning";
const SEVERITY = new Map<LoggingLevel, number>(LoggingLevelSchema.options.map((level, index) => [level, index]));

export interface McpLogger {
  log(level: LoggingLevel, data: unknown): void;
  /** The level in force for this connection. */
  level(): LoggingLevel;
}

const loggers = new WeakMap<Server, McpLogger>();

/** The logger of a server declared with the `logging` capability (made on first use; it takes over `logging/setLevel`). */
export function mcpLogger(server: Server): McpLogger {
  let logger = loggers.get(server);
  if (!logger) loggers.set(server, (logger = createLogger(server)));
  return logger;
}

function createLogger(server: Server): McpLogger {
  let current: LoggingLevel = DEFAULT_LOG_LEVEL;
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    current = request.params.level;
    return {};
  });
  return {
    level: () => current,
    log(level, data) {
      if (SEVERITY.get(level)! < SEVERITY.get(current)!) return;
      // A log line must never fail the call it describes (e.g. the client went away meanwhile).
      server.sendLoggingMessage({ level, logger: LOGGER_NAME, data }).catch(() => undefined);
    },
  };
}

const CONSOLE_LEVELS: [keyof Console & ("debug" | "log" | "info" | "warn" | "error"), LoggingLevel][] = [
  ["debug", "debug"],
  ["log", "info"],
  ["info", "info"],
  ["warn", "warning"],
  ["error", "error"],
];

/**
 * On stdio, anything the process would print with console.* (a library's warning, a stray debug line) goes to
 * the client as a log message instead of corrupting the protocol stream on stdout.
 */
export function routeConsoleTo(logger: McpLogger): void {
  for (const [method, level] of CONSOLE_LEVELS) {
    console[method] = (...args: unknown[]) => logger.log(level, args.map((a) => (typeof a === "string" ? a : a instanceof Error ? a.message : safeJson(a))).join(" "));
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** One line per finished tool call: `info` when it succeeded, `warning` for a refusal, `error` for an internal failure. */
export function logCallEnd(logger: McpLogger, tool: string, outcome: unknown, ms: number): void {
  const took = `${Math.round(ms)} ms`;
  if (outcome instanceof Error) {
    const code = (outcome as { code?: unknown }).code;
    logger.log(code === "INTERNAL" || typeof code !== "string" ? "error" : "warning", `${tool}: ${typeof code === "string" ? code : "failed"} after ${took}: ${outcome.message}`);
    return;
  }
  const body = (outcome ?? {}) as { status?: unknown; item_id?: unknown; registry_notice?: unknown };
  logger.log("info", `${tool}${typeof body.item_id === "string" ? ` ${body.item_id}` : ""}: ${typeof body.status === "string" ? body.status : "done"} in ${took}`);
  if (typeof body.registry_notice === "string") logger.log("notice", body.registry_notice);
}
