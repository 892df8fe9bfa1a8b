/**
 * What `rye log monitor` keeps between runs, per registry URL, in `$USER_SPACE/.ai/monitor/log-monitor.json`
 * (atomic, 0600): the last checkpoint it verified (and the tree's frontier at that size, so the next run appends to
 * it instead of trusting the registry's tiles), and per namespace the author keys it recorded when it first followed
 * it and the index it has checked up to. A damaged file is an error, never silently replaced.
 */
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../../fs/atomic.ts";
import { readJsonFileAs } from "../../fs/json-file.ts";
import { userAiDir } from "../../spaces/paths.ts";

const hash = z.string().regex(/^[A-Za-z0-9+/]{43}=$/, "a base64 SHA-256 hash");

const namespaceStateSchema = z.object({
  /** The namespace's registered author keys when the monitor first followed it (a key added later is not trusted). */
  keys: z.array(z.object({ fingerprint: z.string(), recorded_at: z.string() })),
  /** The first entry index not checked yet. */
  next_index: z.number().int().nonnegative(),
  followed_at: z.string(),
});
export type NamespaceState = z.infer<typeof namespaceStateSchema>;

const registryStateSchema = z.object({
  origin: z.string(),
  checkpoint: z.object({ size: z.number().int().nonnegative(), root_hash: hash, note: z.string(), verified_at: z.string() }),
  /** The roots of the perfect subtrees the tree of `checkpoint.size` leaves is made of, left to right. */
  frontier: z.array(hash).max(64),
  namespaces: z.record(z.string(), namespaceStateSchema),
});
export type RegistryMonitorState = z.infer<typeof registryStateSchema>;

const stateFileSchema = z.object({ version: z.literal(1), registries: z.record(z.string(), registryStateSchema) });
type StateFile = z.infer<typeof stateFileSchema>;

export function monitorStatePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(userAiDir(env), "monitor", "log-monitor.json");
}

async function readStateFile(env: NodeJS.ProcessEnv): Promise<StateFile> {
  const file = await readJsonFileAs(monitorStatePath(env), stateFileSchema, {
    what: "a log monitor state file",
    hint: "Restore the file; deleting it makes the monitor trust the registry's log and the namespace's keys as it finds them next time.",
  });
  return file ?? { version: 1, registries: {} };
}

export async function readMonitorState(registryUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<RegistryMonitorState | undefined> {
  return (await readStateFile(env)).registries[registryUrl];
}

/** Replaces one registry's state; the rest of the file is re-read first, so other registries' states are kept. */
export async function writeMonitorState(registryUrl: string, state: RegistryMonitorState, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const file = await readStateFile(env);
  file.registries[registryUrl] = state;
  await writeFileAtomic(monitorStatePath(env), `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
}
