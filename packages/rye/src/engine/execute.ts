/** `execute`: directives go back to the LLM with their inputs applied, knowledge is returned, tools run. */
import type { ItemType } from "@rye/core";
import { assertItemId, RyeError } from "@rye/core";
import { DIRECTIVE_INSTRUCTIONS, interpolateDirective, resolveDirectiveInputs } from "../execute/directive.ts";
import type { ExecuteResult } from "./results.ts";
import { executeTool } from "../execute/tool.ts";
import { collectRegistryNotices, locateItem, looksLikeRegistryId, parseRemoteRef, relaxRegistryCategory } from "../registry/resolve-remote.ts";
import type { EngineContext } from "./context.ts";
import { assertVerified, loadItemFile } from "./read.ts";

export interface ExecuteParams {
  item_type: ItemType;
  item_id: string;
  parameters?: Record<string, unknown>;
  dry_run?: boolean;
  signal?: AbortSignal;
  /** Set by the agent runtime only (never from a tool call's parameters): see ToolExecuteOptions.threadParent. */
  thread_parent?: string;
  /** Set by `rye thread worker` only: the durable thread job it runs (see ToolExecuteOptions.threadWorker). */
  thread_worker?: { threadId: string; recover: boolean };
  /** Set by the agent runtime only: the calling thread's generation (0 for a root thread), for the security gate. */
  thread_generation?: number;
  /** Set in-process only (a prompt, MCP elicitation, the runtime after `rye thread approve`): a person approved this call. */
  approved?: boolean;
}

export const KNOWLEDGE_INSTRUCTIONS = "Use this knowledge to inform your decisions.";

export async function executeItem(ctx: EngineContext, params: ExecuteParams): Promise<ExecuteResult> {
  const { result, notices } = await collectRegistryNotices(() => executeItemInner(ctx, params));
  return notices.length ? { ...result, registry_notice: notices.join("\n") } : result;
}

async function executeItemInner(ctx: EngineContext, params: ExecuteParams): Promise<ExecuteResult> {
  const ref = parseRemoteRef(params.item_id);
  assertItemId(ref.id);
  const parameters = params.parameters ?? {};
  if (params.item_type === "tool") {
    // An explicit registry reference (prefix / @version) is installed first; the chain then resolves
    // every element locally or, for registry ids, through the registry too (see buildChain).
    if (ref.explicit && looksLikeRegistryId(ref.id)) await locateItem(ctx, "tool", params.item_id);
    return executeTool(ctx, ref.id, {
      parameters,
      ...(params.dry_run ? { dryRun: true } : {}),
      ...(params.signal ? { signal: params.signal } : {}),
      ...(params.thread_parent !== undefined ? { threadParent: params.thread_parent } : {}),
      ...(params.thread_worker !== undefined ? { threadWorker: params.thread_worker } : {}),
      ...(params.thread_generation !== undefined ? { generation: params.thread_generation } : {}),
      ...(params.approved === true ? { approved: true } : {}),
    });
  }
  const started = performance.now();
  const file = await locateItem(ctx, params.item_type, params.item_id);
  if (!file) {
    throw new RyeError("ITEM_NOT_FOUND", `${params.item_type} ${params.item_id} not found`, {
      hint: `Search for it: rye search "${params.item_id.split("/").pop()}" --type ${params.item_type}`,
    });
  }
  const item = await loadItemFile(file, ctx.verifier);
  assertVerified(item);
  const meta = { duration_ms: 0, source: file.space.name };
  if (item.parsed.type === "directive") {
    if (relaxRegistryCategory(file, item.parsed.summary.category, item.parsed.issues).length > 0) {
      throw new RyeError("VALIDATION_FAILED", `directive ${file.itemId} has invalid metadata`, { details: item.parsed.issues });
    }
    const inputs = resolveDirectiveInputs(item.parsed.metadata, parameters);
    // The parsed directive as the open JSON object the result schema declares it to be.
    const data: Record<string, unknown> = { ...interpolateDirective(item.parsed.metadata, inputs) };
    meta.duration_ms = Math.round(performance.now() - started);
    if (params.dry_run) {
      return { status: "validation_passed", type: "directive", item_id: file.itemId, inputs, message: "Directive is valid and its inputs are satisfied", metadata: meta };
    }
    return { status: "success", type: "directive", item_id: file.itemId, data, inputs, instructions: DIRECTIVE_INSTRUCTIONS, metadata: meta };
  }
  if (item.parsed.type === "knowledge") {
    const data = { ...item.parsed.metadata.frontmatter, id: file.itemId, body: item.parsed.metadata.body, raw: item.content };
    meta.duration_ms = Math.round(performance.now() - started);
    if (params.dry_run) return { status: "validation_passed", type: "knowledge", item_id: file.itemId, metadata: meta };
    return { status: "success", type: "knowledge", item_id: file.itemId, data, instructions: KNOWLEDGE_INSTRUCTIONS, metadata: meta };
  }
  throw new RyeError("INTERNAL", "unreachable item type");
}
