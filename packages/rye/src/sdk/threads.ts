/**
 * The thread infrastructure the agent runtime's files use through the SDK (`sdk/v1` → `threads`): records,
 * transcripts, the budget ledger, cancellation, and the parent context a child thread receives.
 */
import { hostname } from "node:os";
import { resolve } from "node:path";
import { z } from "zod";
import { RyeError } from "@rye/core";
import { isCancelRequested, isHandoffRequested, requestHandoff } from "../threads/cancel.ts";
import { allocateThreadId, newThreadId } from "../threads/ids.ts";
import { getEntry, release, remaining, report, reserve } from "../threads/budget.ts";
import { threadsBackend } from "../threads/backend.ts";
import type { ThreadJob } from "../threads/thread-job.ts";
import { finishThread, newThreadRecord, readThread, updateThread, writeThread } from "../threads/record.ts";
import { dropPartialTail, readTranscript, TranscriptWriter } from "../threads/transcript.ts";
import { awaitApproval, requestIdFor, writeApprovalRequest } from "../threads/approvals.ts";
import { KeyStore } from "../keys/keystore.ts";
import type { CapabilityToken } from "../threads/capability-token.ts";
import { decodeToken, encodeToken, MAX_CHAIN_LENGTH, mintToken, verifyChain } from "../threads/capability-token.ts";
import { cancelDescendants, cancelThread, killThread, reapOrphans, runningDescendants } from "../threads/control.ts";
import { aggregateResults, chainIds, chainSearch, descendantIds, getChain, listActive, readTranscriptPage, waitThreads } from "../threads/orchestrate.ts";

const parentContextSchema = z.object({
  thread_id: z.string(),
  project_path: z.string(),
  depth: z.number().int().nonnegative(),
  limits: z.record(z.string(), z.union([z.number(), z.string()])),
  capabilities: z.array(z.string()),
  /** The parent's capability tokens, root → parent (encoded); the parent's capabilities are its last token's. */
  token_chain: z.array(z.string()).max(MAX_CHAIN_LENGTH).optional(),
  /** Generations of the parent below its root thread (the security gate is stricter for each). */
  generation: z.number().int().min(0).max(MAX_CHAIN_LENGTH).optional(),
});
export type ParentContext = z.infer<typeof parentContextSchema>;

/** The user's signing key: it signs and verifies capability tokens (loaded once per process and key folder). */
const signingKeys = new Map<string, ReturnType<KeyStore["loadOrCreate"]>>();
function userKey(env: NodeJS.ProcessEnv) {
  const store = new KeyStore({ env });
  let key = signingKeys.get(store.dir);
  if (!key) {
    key = store.loadOrCreate();
    key.catch(() => signingKeys.delete(store.dir));
    signingKeys.set(store.dir, key);
  }
  return key.then((k) => k.key);
}

/**
 * Mints a thread's capability token, signed with the user's key: a root token, or the attenuation of the last
 * token of `parentChain` (caps intersected, expiry never later than the parent's). Returns the thread's chain.
 */
export async function mintCapabilityToken(
  request: { caps: readonly string[]; directiveId: string; threadId: string; expiresInSeconds: number; parentChain?: readonly string[] },
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ token: CapabilityToken; chain: string[] }> {
  const key = await userKey(env);
  const parentChain = request.parentChain ?? [];
  const parent = parentChain.length > 0 ? decodeToken(parentChain[parentChain.length - 1]!) : undefined;
  const token = await mintToken({ caps: request.caps, directiveId: request.directiveId, threadId: request.threadId, expiresAt: new Date(Date.now() + request.expiresInSeconds * 1000), ...(parent ? { parent } : {}) }, key);
  return { token, chain: [...parentChain, encodeToken(token)] };
}

/**
 * Verifies a thread's token chain (signatures with the user's key, expiry, audience, links, no widening) and
 * returns its last token, which must belong to `threadId`. Throws CAP_TOKEN_* codes.
 */
export async function verifyCapabilityChain(chain: readonly string[], threadId: string, env: NodeJS.ProcessEnv = process.env): Promise<CapabilityToken> {
  const key = await userKey(env);
  const tokens = await verifyChain(chain, { keys: [key.publicKey.raw], threadId });
  return tokens[tokens.length - 1]!;
}

/**
 * The parent context the runtime handed to this process (`RYE_THREAD_PARENT`), checked against the parent's
 * record (the parent exists in this project, is running, at the depth the context says) and its capability
 * token chain (CAP_TOKEN_* codes): the capabilities returned are the verified token's, whatever the context or
 * any file says. null for a root thread. A context that does not check out refuses the start.
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
  if (record.depth !== parsed.depth) throw refuse(`it does not match the record of thread ${parsed.thread_id}`);
  if (!parsed.token_chain?.length) throw new RyeError("CAP_TOKEN_MISSING", `The parent thread context names thread ${parsed.thread_id} but carries no capability token; the thread was not started`);
  const token = await verifyCapabilityChain(parsed.token_chain, parsed.thread_id, env);
  // A generation counts spawns; handoffs add tokens but no generation, so it can never exceed the links.
  if ((parsed.generation ?? 0) > parsed.token_chain.length - 1) throw refuse(`its generation ${parsed.generation} is more than its token chain allows`);
  return { ...parsed, capabilities: [...token.caps] };
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
  readTranscript,
  dropPartialTail,
  hostname,
  isCancelRequested,
  requestHandoff,
  isHandoffRequested,
  requestIdFor,
  writeApprovalRequest,
  awaitApproval,
  reserve,
  report,
  release,
  remaining,
  getEntry,
  readParentContext,
  /** `local` or `postgres` (docs/agent-runtime.md §13): where async children run and the ledger lives. */
  backendKind: (env: NodeJS.ProcessEnv = process.env) => threadsBackend(env).kind,
  /** Queues a durable thread job (loads pg-boss only when called). */
  enqueueThread: async (job: Omit<ThreadJob, "enqueued_at">, env: NodeJS.ProcessEnv = process.env) => (await import("../threads/queue.ts")).enqueueThread(job, env),
  mintCapabilityToken,
  verifyCapabilityChain,
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
