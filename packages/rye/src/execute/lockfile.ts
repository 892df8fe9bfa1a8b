/**
 * Lockfiles pin a tool's resolved executor chain: `<space>/.ai/lockfiles/<tool_id>@<version>.lock.json`
 * (rye-format §5.1). Written atomically; read project → user → system.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { RyeError } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import type { Space, SpaceName } from "../spaces/spaces.ts";

export interface ChainElementLock {
  item_id: string;
  space: SpaceName;
  tool_type: string;
  executor_id: string | null;
  integrity: string;
}

const lockfileSchema = z.object({
  lockfile_version: z.literal(1),
  generated_at: z.string(),
  root: z.object({ tool_id: z.string(), version: z.string(), integrity: z.string() }),
  resolved_chain: z.array(
    z.object({
      item_id: z.string(),
      space: z.string(),
      tool_type: z.string(),
      executor_id: z.string().nullable(),
      integrity: z.string(),
    }),
  ),
  registry: z.unknown().optional(),
  verified_deps: z.unknown().optional(),
});
export type Lockfile = z.infer<typeof lockfileSchema>;

export function lockfilePath(space: Space, toolId: string, version: string): string {
  return join(space.root, "lockfiles", `${toolId}@${version}.lock.json`);
}

export async function readLockfile(spaces: Space[], toolId: string, version: string): Promise<{ lockfile: Lockfile; path: string } | null> {
  for (const space of spaces) {
    const path = lockfilePath(space, toolId, version);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch {
      continue;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new RyeError("LOCKFILE_MISMATCH", `Lockfile ${path} is not valid JSON`, { hint: `Delete ${path} to regenerate it.` });
    }
    const parsed = lockfileSchema.safeParse(data);
    if (!parsed.success) {
      throw new RyeError("LOCKFILE_MISMATCH", `Lockfile ${path} is malformed`, {
        hint: `Delete ${path} to regenerate it.`,
        details: parsed.error.issues.map((i) => ({ field: i.path.join("."), message: i.message })),
      });
    }
    return { lockfile: parsed.data, path };
  }
  return null;
}

export function buildLockfile(toolId: string, version: string, chain: ChainElementLock[]): Lockfile {
  return {
    lockfile_version: 1,
    generated_at: new Date().toISOString().replace("Z", "000+00:00"),
    root: { tool_id: toolId, version, integrity: chain[0]!.integrity },
    resolved_chain: chain,
    registry: null,
    verified_deps: null,
  };
}

export async function writeLockfile(space: Space, lockfile: Lockfile): Promise<string> {
  const path = lockfilePath(space, lockfile.root.tool_id, lockfile.root.version);
  await writeFileAtomic(path, `${JSON.stringify(lockfile, null, 2)}\n`);
  return path;
}

/** Compares the resolved chain with a lockfile; throws LOCKFILE_MISMATCH naming the first difference. */
export function checkLockfile(lockfile: Lockfile, path: string, chain: ChainElementLock[]): void {
  const fail = (what: string) => {
    throw new RyeError("LOCKFILE_MISMATCH", `Lockfile integrity mismatch for ${lockfile.root.tool_id}@${lockfile.root.version}: ${what}`, {
      hint: `If the change is intended, delete ${path} (it is rewritten on the next run); otherwise restore the item.`,
      details: { lockfile: path },
    });
  };
  if (lockfile.root.integrity !== chain[0]!.integrity) fail(`the tool itself changed (hash ${chain[0]!.integrity.slice(0, 16)}…, locked ${lockfile.root.integrity.slice(0, 16)}…)`);
  if (lockfile.resolved_chain.length !== chain.length) fail(`the chain has ${chain.length} elements, the lockfile ${lockfile.resolved_chain.length}`);
  chain.forEach((element, i) => {
    const locked = lockfile.resolved_chain[i]!;
    if (locked.item_id !== element.item_id) fail(`element ${i + 1} is ${element.item_id}, locked ${locked.item_id}`);
    if (locked.space !== element.space) fail(`${element.item_id} now resolves in the ${element.space} space, locked ${locked.space}`);
    if (locked.integrity !== element.integrity) fail(`${element.item_id} (${element.space}) changed (hash ${element.integrity.slice(0, 16)}…, locked ${locked.integrity.slice(0, 16)}…)`);
  });
}
