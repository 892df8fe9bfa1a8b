/**
 * The thread record `.ai/threads/<id>/thread.json`: what a thread is and how far it got. The original RYE's fields,
 * extended with limits, capabilities, cost, result, error and escalation.
 *
 * Writes are atomic (temp file + rename) and made under the per-thread lock `.ai/threads/<id>/.lock`, so a
 * read-modify-write (`updateThread`) never loses a concurrent one. Readers need no lock: they see the old or the new
 * file. Fields this version does not know are kept as they are (a newer rye's record survives an update by this one).
 */
import { readdir } from "node:fs/promises";
import { z } from "zod";
import { RyeError } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { readJsonFileAs } from "../fs/json-file.ts";
import { withFileLock } from "./lock.ts";
import type { FileLockOptions } from "./lock.ts";
import { assertThreadId, isValidThreadId, threadFile, threadsDir } from "./paths.ts";

export const THREAD_STATUSES = ["created", "running", "completed", "error", "cancelled", "killed", "suspended"] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];

/**
 * The statuses after which the thread's process is gone: `completed`, `error`, `cancelled`, `killed` and
 * `suspended` (stopped at a limit, waiting for a human to approve an escalation; a resume sets it `running` again).
 */
export const TERMINAL_STATUSES: readonly ThreadStatus[] = ["completed", "error", "cancelled", "killed", "suspended"];

export function isTerminal(status: ThreadStatus | string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

const timestamp = z.iso.datetime({ offset: true });
const count = z.number().int().nonnegative();
const amount = z.number().finite().nonnegative();

export const threadCostSchema = z.object({
  turns: count,
  input_tokens: count,
  output_tokens: count,
  /** USD. */
  spend: amount,
  elapsed_seconds: amount,
});
export type ThreadCost = z.infer<typeof threadCostSchema>;

export const ZERO_COST: ThreadCost = Object.freeze({ turns: 0, input_tokens: 0, output_tokens: 0, spend: 0, elapsed_seconds: 0 });

const recordShape = {
  thread_id: z.string().refine(isValidThreadId, "not a valid thread id"),
  /** The directive's item id, e.g. `acme/ops/triage`. */
  directive: z.string().min(1),
  status: z.enum(THREAD_STATUSES),
  created_at: timestamp,
  updated_at: timestamp,
  model: z.string().optional(),
  provider: z.string().optional(),
  /** The thread's process (the leader of its process group). */
  pid: z.number().int().positive().optional(),
  parent_thread_id: z.string().refine(isValidThreadId, "not a valid thread id").nullable().optional(),
  /** Generations below this thread still allowed (0: it may start no child). */
  depth: count.default(0),
  limits: z.record(z.string(), z.union([z.number(), z.string()])).default({}),
  capabilities: z.array(z.string()).default([]),
  cost: threadCostSchema.default(ZERO_COST),
  result: z.string().optional(),
  error: z.looseObject({ code: z.string(), message: z.string() }).optional(),
  escalation: z.looseObject({ limit_code: z.string(), current_value: z.number(), current_max: z.number() }).optional(),
  /** The thread this one continues (a handoff near the context window, or resume_thread). */
  continues: z.string().refine(isValidThreadId, "not a valid thread id").optional(),
  /** The thread that continued this one. */
  continued_by: z.string().refine(isValidThreadId, "not a valid thread id").optional(),
  /** The id of the thread's capability token (docs/agent-runtime.md §11). */
  capability_token: z.string().optional(),
  /**
   * The PostgreSQL job that runs this thread (the `postgres` back end): a worker runs it, and when that worker dies
   * the queue hands the job to another, which continues the thread; so it is never marked orphaned by its pid.
   */
  durable_job: z.string().optional(),
  /** The machine the thread's process runs on (set with `durable_job`: a pid means something only there). */
  host: z.string().optional(),
  /** When the thread reached its terminal status. */
  ended_at: timestamp.optional(),
};

/** The typed record (only the known fields). */
export const threadRecordSchema = z.object(recordShape);
export type ThreadRecord = z.infer<typeof threadRecordSchema>;
/** What is parsed from disk and written back: the known fields checked, unknown ones kept. */
const storedRecordSchema = z.looseObject(recordShape);

const RECORD_HINT = "The file was edited by hand or written by an incompatible rye; restore it or remove the thread's directory.";

/** A new record with defaults: status `created`, both timestamps now, depth 0, no limits or capabilities, zero cost. */
export function newThreadRecord(init: Pick<ThreadRecord, "thread_id" | "directive"> & Partial<ThreadRecord>, now: Date = new Date()): ThreadRecord {
  const at = now.toISOString();
  return validate({ status: "created", created_at: at, updated_at: at, depth: 0, limits: {}, capabilities: [], cost: { ...ZERO_COST }, ...init });
}

function validate(record: unknown, what = "a thread record"): ThreadRecord {
  const parsed = storedRecordSchema.safeParse(record);
  if (!parsed.success) {
    throw new RyeError("VALIDATION_FAILED", `Invalid thread record: ${what}`, {
      hint: "A bug in the caller: the record must match ThreadRecord (packages/rye/src/threads/record.ts).",
      details: parsed.error.issues.map((i) => ({ field: i.path.join("."), message: i.message })),
    });
  }
  return parsed.data as ThreadRecord;
}

async function readRecordFile(projectPath: string, id: string): Promise<ThreadRecord | undefined> {
  const path = threadFile(projectPath, id, "record");
  const record = (await readJsonFileAs(path, storedRecordSchema, { what: "a valid thread record", hint: RECORD_HINT })) as ThreadRecord | undefined;
  if (record && record.thread_id !== id) {
    throw new RyeError("VALIDATION_FAILED", `${path} is not a valid thread record: it names thread ${record.thread_id}`, { hint: RECORD_HINT });
  }
  return record;
}

/** The record of thread `id`: ITEM_NOT_FOUND when there is none, VALIDATION_FAILED (naming the file) when damaged. */
export async function readThread(projectPath: string, id: string): Promise<ThreadRecord> {
  const record = await readRecordFile(projectPath, id);
  if (!record) {
    throw new RyeError("ITEM_NOT_FOUND", `No thread ${id} in ${threadsDir(projectPath)}`, { hint: "List the threads with `rye thread list --all`." });
  }
  return record;
}

async function writeRecord(projectPath: string, record: ThreadRecord): Promise<void> {
  await writeFileAtomic(threadFile(projectPath, record.thread_id, "record"), `${JSON.stringify(record, null, 2)}\n`);
}

function lockOf(projectPath: string, id: string): string {
  return threadFile(projectPath, id, "lock");
}

/** Options of the functions that take the per-thread lock (defaults: lock.ts). */
export type RecordLockOptions = Pick<FileLockOptions, "timeoutMs" | "staleMs">;

/**
 * Writes the whole record atomically (under the thread's lock), creating the thread's directory when needed. For the
 * first write; later changes go through `updateThread` / `finishThread`, which never lose a concurrent change.
 */
export async function writeThread(projectPath: string, record: ThreadRecord, options: RecordLockOptions = {}): Promise<ThreadRecord> {
  const valid = validate(record);
  assertThreadId(valid.thread_id);
  await withFileLock(lockOf(projectPath, valid.thread_id), () => writeRecord(projectPath, valid), options);
  return valid;
}

export type ThreadPatch = Partial<Omit<ThreadRecord, "thread_id" | "created_at">>;

/**
 * Read-modify-write under the thread's lock. `change` is a shallow patch (a given `cost` replaces the whole cost) or a
 * function of the current record. `updated_at` is set to now. ITEM_NOT_FOUND when the thread has no record.
 */
export async function updateThread(
  projectPath: string,
  id: string,
  change: ThreadPatch | ((record: ThreadRecord) => ThreadRecord),
  options: RecordLockOptions = {},
): Promise<ThreadRecord> {
  return withFileLock(
    lockOf(projectPath, id),
    async () => {
      const current = await readThread(projectPath, id);
      const next = typeof change === "function" ? change(structuredClone(current)) : { ...current, ...change };
      if (next.thread_id !== id || next.created_at !== current.created_at) {
        throw new RyeError("BAD_REQUEST", `updateThread may not change thread_id or created_at of ${id}`, { hint: "A bug in the caller." });
      }
      const valid = validate({ ...next, updated_at: new Date().toISOString() });
      await writeRecord(projectPath, valid);
      return valid;
    },
    options,
  );
}

/**
 * Moves a thread to a terminal status with `ended_at` = now, unless it already has one: then CONFLICT (details:
 * `{ status }`), so a thread that finished and a `rye thread kill` racing with it never overwrite each other.
 */
export async function finishThread(
  projectPath: string,
  id: string,
  status: Exclude<ThreadStatus, "created" | "running">,
  patch: ThreadPatch | ((record: ThreadRecord) => ThreadPatch) = {},
  options: RecordLockOptions = {},
): Promise<ThreadRecord> {
  return updateThread(
    projectPath,
    id,
    (record) => {
      if (isTerminal(record.status)) {
        throw new RyeError("CONFLICT", `Thread ${id} already ended (${record.status})`, {
          hint: "Nothing to stop: see `rye thread status` for how it ended.",
          details: { thread_id: id, status: record.status },
        });
      }
      const extra = typeof patch === "function" ? patch(record) : patch;
      return { ...record, ...extra, status, ended_at: new Date().toISOString() };
    },
    options,
  );
}

export interface DamagedThread {
  thread_id: string;
  error: { code: string; message: string };
}

const READ_CONCURRENCY = 32;

/**
 * Every thread of the project, newest first (`created_at`, then id), and the directories whose record could not be
 * read (damaged, or not a valid id). Directories without a thread.json (a thread being created) are skipped.
 */
export async function listThreads(projectPath: string): Promise<{ threads: ThreadRecord[]; damaged: DamagedThread[] }> {
  let entries;
  try {
    entries = await readdir(threadsDir(projectPath), { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { threads: [], damaged: [] };
    throw err;
  }
  const threads: ThreadRecord[] = [];
  const damaged: DamagedThread[] = [];
  const dirs = entries.filter((e) => e.isDirectory()).map((e) => e.name);
  for (let i = 0; i < dirs.length; i += READ_CONCURRENCY) {
    await Promise.all(
      dirs.slice(i, i + READ_CONCURRENCY).map(async (name) => {
        if (!isValidThreadId(name)) {
          damaged.push({ thread_id: name, error: { code: "BAD_REQUEST", message: `${name} is not a valid thread id` } });
          return;
        }
        try {
          const record = await readRecordFile(projectPath, name);
          if (record) threads.push(record);
        } catch (err) {
          const e = err instanceof RyeError ? err : new RyeError("INTERNAL", String((err as Error).message ?? err));
          damaged.push({ thread_id: name, error: { code: e.code, message: e.message } });
        }
      }),
    );
  }
  threads.sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.thread_id < b.thread_id ? 1 : a.thread_id > b.thread_id ? -1 : 0));
  damaged.sort((a, b) => (a.thread_id < b.thread_id ? -1 : 1));
  return { threads, damaged };
}
