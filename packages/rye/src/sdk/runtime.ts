/**
 * What the agent runtime's own files (signed node tools under `.ai/tools/rye/agent/`) reach through the SDK:
 * the engine, verified reads of items and configuration overrides, and a module loader that imports exactly
 * the bytes it verified. Exported from `sdk/v1` (docs/sdk.md).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ItemType } from "@rye/core";
import { RyeError, utf8Decode } from "@rye/core";
import { Engine } from "../engine/engine.ts";
import type { EngineOptions } from "../engine/context.ts";
import { assertVerified, readItemText } from "../engine/read.ts";
import type { SpaceName } from "../spaces/spaces.ts";
import { listItemFiles, resolveItem } from "../spaces/spaces.ts";
import { importVerified } from "./verified-modules.ts";

export interface VerifiedItem {
  type: ItemType;
  itemId: string;
  path: string;
  space: SpaceName;
  content: string;
}

/** The engine of a project: search, load, execute, sign (what the CLI and the MCP server use). */
export function openEngine(options: EngineOptions): Promise<Engine> {
  return Engine.open(options);
}

/**
 * An item resolved through the spaces on this machine (project > user > system; never pulled from a
 * registry) and verified with the trust of its space. Throws ITEM_NOT_FOUND or the verification failure.
 */
export async function readVerifiedItem(engine: Pick<Engine, "ctx">, type: ItemType, itemId: string): Promise<VerifiedItem> {
  const file = await resolveItem(engine.ctx.spaces, type, itemId);
  if (!file) throw new RyeError("ITEM_NOT_FOUND", `${type} ${itemId} is in no space (project, user, system)`, { hint: "Is rye's system bundle complete? Reinstall the package, or restore the file." });
  // Read and verified, not parsed: callers use the bytes (a module to import, YAML they parse themselves), and parsing
  // the runtime modules' JavaScript for metadata nobody read was ~15% of a thread process's start-up (profiled).
  const content = await readItemText(file.path);
  const verification = await engine.ctx.verifier.verify(content, type, file.space.name);
  assertVerified({ file, verification });
  return { type, itemId: file.itemId, path: file.path, space: file.space.name, content };
}

/** Every item of `type` whose id is `<folder>/<name>`, each verified; a project item shadows a user or system one. */
export async function listVerifiedItems(engine: Pick<Engine, "ctx">, type: ItemType, folder: string): Promise<VerifiedItem[]> {
  const seen = new Set<string>();
  const out: VerifiedItem[] = [];
  for (const space of engine.ctx.spaces) {
    for (const file of await listItemFiles(space, type)) {
      const rest = file.itemId.startsWith(`${folder}/`) ? file.itemId.slice(folder.length + 1) : undefined;
      if (!rest || rest.includes("/") || seen.has(file.itemId)) continue;
      seen.add(file.itemId);
      out.push(await readVerifiedItem(engine, type, file.itemId));
    }
  }
  return out.sort((a, b) => (a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0));
}

const CONFIG_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * A project's override of a runtime configuration, `<project>/.ai/config/<name>.yaml`, verified with the
 * project's trust, or null when there is none. An unsigned or altered override is an error: overrides can
 * change safety settings, so they are never read unverified.
 */
export async function readConfigOverride(engine: Pick<Engine, "ctx">, name: string): Promise<VerifiedItem | null> {
  if (!CONFIG_NAME.test(name)) throw new RyeError("BAD_REQUEST", `Not a configuration name: ${JSON.stringify(name)}`);
  const path = join(engine.ctx.projectPath, ".ai", "config", `${name}.yaml`);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  const content = utf8Decode(bytes);
  const result = await engine.ctx.verifier.verify(content, "tool", "project");
  if (!result.ok) {
    throw new RyeError(result.code === "OK" ? "INTEGRITY_MISMATCH" : result.code, `The configuration override ${path} does not verify: ${result.message}`, {
      hint: `Overrides of the runtime's configuration must be signed: give it the metadata of a config item (version, tool_type: config, executor_id: null, category: config, description) and run \`rye sign .ai/config/${name}.yaml --type tool\`.`,
      details: { path, code: result.code },
    });
  }
  return { type: "tool", itemId: `config/${name}`, path, space: "project", content };
}

/**
 * Imports a runtime module (a `.mjs`/`.js` tool item) from the bytes that were verified, so nothing can
 * change it between the check and the import. Such a module may import only `node:` builtins.
 */
export async function importVerifiedModule(engine: Engine, itemId: string): Promise<{ module: Record<string, unknown>; item: VerifiedItem }> {
  const item = await readVerifiedItem(engine, "tool", itemId);
  if (!/\.(mjs|js)$/.test(item.path)) throw new RyeError("VALIDATION_FAILED", `${item.path} is not an ES module (.mjs or .js)`);
  try {
    return { module: await importVerified(item.content), item };
  } catch (err) {
    throw new RyeError("VALIDATION_FAILED", `The runtime module ${itemId} (${item.path}) cannot be loaded: ${err instanceof Error ? err.message : String(err)}`, {
      hint: "Runtime modules may import only node: builtins; everything else arrives as a parameter.",
    });
  }
}
