/**
 * The executor chain: tool → runtime(s) → primitive, following `executor_id`. Each element resolves
 * only in its parent's space or a lower-precedence one, is verified before anything runs, and the
 * chain ends in one of the two primitives.
 */
import type { ParsedTool } from "@rye/core";
import { RyeError } from "@rye/core";
import type { EngineContext } from "../engine/context.ts";
import type { LoadedItem } from "../engine/read.ts";
import { assertVerified, loadItemFile } from "../engine/read.ts";
import type { ItemFile, SpaceName } from "../spaces/spaces.ts";
import { SPACE_PRECEDENCE } from "../spaces/spaces.ts";
import { locateItem, relaxRegistryCategory } from "../registry/resolve-remote.ts";

export const MAX_CHAIN_DEPTH = 10;
/** Tool types that are data or code for other tools (no executor of their own). */
export const NOT_EXECUTABLE = new Set(["library", "config"]);

export const PRIMITIVE_IDS = {
  "rye/core/primitives/subprocess": "subprocess",
  "rye/core/primitives/http_client": "http_client",
} as const;
export type PrimitiveKind = (typeof PRIMITIVE_IDS)[keyof typeof PRIMITIVE_IDS];

export interface ChainElement {
  file: ItemFile;
  item: LoadedItem;
  tool: ParsedTool;
  itemId: string;
  space: SpaceName;
  toolType: string;
  executorId: string | null;
  /** The element's content hash (the lockfile integrity value). */
  integrity: string;
}

export interface Chain {
  elements: ChainElement[];
  primitive: PrimitiveKind;
}

export interface BuildChainOptions {
  /** Verify every element's signature (default true). */
  verify?: boolean;
}

function allowedSpaces(parent: SpaceName): SpaceName[] {
  return (Object.keys(SPACE_PRECEDENCE) as SpaceName[]).filter((s) => SPACE_PRECEDENCE[s] <= SPACE_PRECEDENCE[parent]);
}

async function resolveElement(ctx: EngineContext, itemId: string, spaces: SpaceName[]): Promise<ItemFile | null> {
  // Local spaces first; a registry id found nowhere is pulled into the user space (when allowed here).
  return locateItem(ctx, "tool", itemId, { spaces });
}

export async function buildChain(ctx: EngineContext, toolId: string, options: BuildChainOptions = {}): Promise<Chain> {
  const verify = options.verify ?? true;
  const elements: ChainElement[] = [];
  const seen = new Set<string>();
  let nextId: string | null = toolId;
  let allowed: SpaceName[] = ["project", "user", "system"];

  while (nextId !== null) {
    if (seen.has(nextId)) {
      const cycle = [...elements.map((e) => e.itemId), nextId].join(" → ");
      throw new RyeError("CHAIN_CYCLE", `Circular executor chain: ${cycle}`, { details: { chain: cycle } });
    }
    if (elements.length >= MAX_CHAIN_DEPTH) {
      throw new RyeError("CHAIN_TOO_DEEP", `The executor chain of ${toolId} is longer than ${MAX_CHAIN_DEPTH} elements`, {
        details: { chain: elements.map((e) => e.itemId) },
      });
    }
    seen.add(nextId);
    const file = await resolveElement(ctx, nextId, allowed);
    if (!file) {
      if (elements.length === 0) {
        throw new RyeError("ITEM_NOT_FOUND", `tool ${toolId} not found`, { hint: `Search for it: rye search "${toolId.split("/").pop()}" --type tool` });
      }
      const parent = elements[elements.length - 1]!;
      throw new RyeError("EXECUTOR_NOT_FOUND", `Executor not found: ${nextId} (named by ${parent.itemId}, searched ${allowed.join(", ")})`, {
        details: { executor_id: nextId, parent: parent.itemId, searched: allowed },
      });
    }
    const item = await loadItemFile(file, ctx.verifier);
    if (verify) assertVerified(item);
    if (item.parsed.type !== "tool") throw new RyeError("INTERNAL", "expected a tool");
    if (relaxRegistryCategory(file, item.parsed.summary.category, item.parsed.issues).length > 0) {
      throw new RyeError("VALIDATION_FAILED", `Chain element ${file.itemId} (${file.space.name}) has invalid metadata`, { details: item.parsed.issues });
    }
    const tool = item.parsed.metadata;
    const executorId = tool.executor_id === null || tool.executor_id === undefined ? null : String(tool.executor_id);
    elements.push({
      file,
      item,
      tool,
      itemId: file.itemId,
      space: file.space.name,
      toolType: String(tool.tool_type),
      executorId,
      integrity: item.verification.contentHash ?? "",
    });
    nextId = executorId;
    allowed = allowedSpaces(file.space.name);
  }

  const last = elements[elements.length - 1]!;
  const primitive = (PRIMITIVE_IDS as Record<string, PrimitiveKind>)[last.itemId];
  if (!primitive && elements.length === 1 && NOT_EXECUTABLE.has(last.toolType)) {
    throw new RyeError("VALIDATION_FAILED", `${toolId} is a ${last.toolType} item: other tools use it, it cannot be executed itself`, {
      hint: "Load it to read it (rye load tool …).",
    });
  }
  if (!primitive) {
    throw new RyeError("UNKNOWN_PRIMITIVE", `${last.itemId} ends the chain of ${toolId} but is not a primitive`, {
      details: { chain: elements.map((e) => e.itemId) },
    });
  }
  return { elements, primitive };
}
