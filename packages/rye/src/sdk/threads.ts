/**
 * The thread infrastructure the agent runtime's files use through the SDK (`sdk/v1` → `threads`): records,
 * transcripts, the budget ledger, cancellation, and the parent context a child thread receives.
 */
import { resolve } from "node:path";
import { z } from "zod";
import { RyeError } from "@rye/core";
import { isCancelRequested } from "../threads/cancel.ts";
import { allocateThreadId, newThreadId } from "../threads/ids.ts";
import { getEntry, release, remaining, report, reserve } from "../threads/ledger.ts";
import { finishThread, newThreadRecord, readThread, updateThread, writeThread } from "../threads/record.ts";
import { TranscriptWriter } from "../threads/transcript.ts";
import { cancelDescendants, cancelThread, killThread, reapOrphans, runningDescendants } from "../threads/control.ts";
import { aggregateResults, chainIds, chainSearch, descendantIds, getChain, listActive, readTranscriptPage, waitThreads } from "../threads/orchestrate.ts";

const parentContextSchema = z.object({
  thread_id: z.string(),
  project_path: z.string(),
  depth: z.number().int().nonnegative(),
  limits: z.record(z.string(), z.union([z.number(), z.string()])),
  capabilities: z.array(z.string()),
});
export type ParentContext = z.infer<typeof parentContextSchema>;

/**
 * The parent context the runtime handed to this process (`RYE_THREAD_PARENT`), checked against the parent's
 * record: the parent exists in this project, is running, and the context says what its record says. null for a
 * root thread. A context that does not check out refuses the start (FORBIDDEN).
 */
export async function readParentContext(env: NodeJS.ProcessEnv, projectPath: string): Promise<ParentContext | null> {
  const raw = env.RYE_THREAD_PARENT;
  if (raw === undefined || raw === "") return null;
  const refuse = (why: string) => new RyeError("FORBIDDEN", `The parent thread context of this thread is not valid: ${why}; the thread was not started`, { hint: "Child threads are started by the agent runtime only (rye_execute of rye/agent/threads/thread_directive)." });
  let parsed: ParentContext;
  try {
    parsed = parentContextSchema.parse(JSON.parse(raw));
  } catch {
    throw refuse("it is not the runtime's JSON");
  }
  if (resolve(parsed.project_path) !== resolve(projectPath)) throw refuse(`it belongs to another project (${parsed.project_path})`);
  const record = await readThread(projectPath, parsed.thread_id).catch(() => undefined);
  if (!record) throw refuse(`there is no thread ${parsed.thread_id}`);
  if (record.status !== "running") throw refuse(`thread ${parsed.thread_id} is ${record.status}`);
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (record.depth !== parsed.depth || !same([...record.capabilities].sort(), [...parsed.capabilities].sort())) throw refuse(`it does not match the record of thread ${parsed.thread_id}`);
  return parsed;
}

export const threads = {
  allocateThreadId,
  newThreadId,
  newThreadRecord,
  writeThread,
  readThread,
  updateThread,
  finishThread,
  TranscriptWriter,
  isCancelRequested,
  reserve,
  report,
  release,
  remaining,
  getEntry,
  readParentContext,
  // Orchestration (docs/agent-runtime.md §10)
  waitThreads,
  getChain,
  chainIds,
  descendantIds,
  chainSearch,
  readTranscriptPage,
  aggregateResults,
  listActive,
  cancelThread,
  cancelDescendants,
  killThread,
  reapOrphans,
  runningDescendants,
};
