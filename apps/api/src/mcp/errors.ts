/**
 * Errors of the MCP handlers: a refusal the caller can act on (a RyeError below 500: not found, a bad argument) keeps
 * its code, message and hint; anything else is logged here and answered INTERNAL with the request id, since its
 * message may describe the server's insides.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { RyeError, toErrorEnvelope } from "@rye/core";
import type { AppDeps } from "../services/deps.ts";

/** JSON-RPC code the MCP specification gives "resource not found". */
export const RESOURCE_NOT_FOUND = -32002;

export interface ErrorContext {
  deps: AppDeps;
  requestId: string;
}

/** The error as the caller may see it (logged when it is not the caller's). */
export function callerError(ctx: ErrorContext, err: unknown, where: string): RyeError {
  if (err instanceof RyeError && err.status < 500) return err;
  ctx.deps.logger.log("error", "mcp request failed", { requestId: ctx.requestId, where, error: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined });
  return new RyeError("INTERNAL", "Internal error", { details: { request_id: ctx.requestId } });
}

/** A JSON-RPC error for a prompts/resources/completion request; `notFound` is the code for a 404 refusal. */
export function mcpError(ctx: ErrorContext, err: unknown, where: string, notFound: number = ErrorCode.InvalidParams): McpError {
  const error = callerError(ctx, err, where);
  const envelope = toErrorEnvelope(error);
  const code = error.status === 404 ? notFound : error.status < 500 ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new McpError(code, `${envelope.error.code}: ${envelope.error.message}`, envelope.error);
}
