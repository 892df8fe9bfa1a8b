/** Who calls a tool, and what a tool answers: shared by the tools (tools.ts, get-item.ts) and both call paths. */
import type { z } from "zod";
import type { Principal } from "../auth/principal.ts";
import type { AppDeps } from "../services/deps.ts";

export interface McpCaller {
  deps: AppDeps;
  /** The bearer token's principal, or null (anonymous): what the caller may read is what it may read over HTTP. */
  principal: Principal | null;
  /** The HTTP request's id (logs, and the error an unexpected failure answers with). */
  requestId: string;
}

/** A tool's answer: its structured content, parsed by the output schema, and exactly that as JSON (its text content). */
export interface ToolAnswer {
  structured: Record<string, unknown>;
  json: string;
}

/** The answer, parsed by its schema (fields outside the schema are dropped, missing ones throw), and its JSON. */
export function parsedAnswer<S extends z.ZodType>(schema: S, value: z.input<S>): ToolAnswer {
  const structured = schema.parse(value) as Record<string, unknown>;
  return { structured, json: JSON.stringify(structured) };
}
