/**
 * The budget ledger `.ai/threads/ledger.json`: what every thread of a project may spend (reserved), has spent
 * (actual), and how many children it started — shared by all processes of the project.
 *
 * Every operation, reads included, is one step under one lock (`.ai/threads/.ledger.lock`): read the file, check,
 * change, write it atomically. So a reservation's check and insert cannot interleave with another's (the original
 * RYE's reserve checked and inserted in two transactions, and ignored its siblings' reservations).
 *
 * - `remaining(t) = t.reserved_spend − t.actual_spend − Σ over t's active children of max(reserved, actual)`
 *   (a child overrunning its reservation counts with what it spent).
 * - `reserve` of a child takes from its parent's remaining; refused (FORBIDDEN, `details.limit_code`
 *   `spend_exceeded` / `spawns_exceeded`) when it does not fit or the parent started `maxSpawns` children already.
 * - `report` adds to `actual_spend` (never clamped: an overrun stays visible). A report arriving after the entry was
 *   released (a killed thread's last words) also goes to the released ancestors and the first active one, exactly
 *   as if it had come before the release.
 * - `release` closes the entry and adds its `actual_spend` (which includes its released children's) to the parent's,
 *   walking up through ancestors already released: spend is transitive to the root. Idempotent.
 *
 * Amounts are USD; sums are computed in integer nano-dollars (1e-9 USD) and stored rounded to 1e-9, so repeated
 * reports never drift (0.1 + 0.2 is 0.3 here).
 */
import { z } from "zod";
import { RyeError } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { readJsonFileAs } from "../fs/json-file.ts";
import { withFileLock } from "./lock.ts";
import type { FileLockOptions } from "./lock.ts";
import { assertThreadId, isValidThreadId, ledgerLockPath, ledgerPath } from "./paths.ts";

const usd = z.number().finite().nonnegative();
const threadId = z.string().refine(isValidThreadId, "not a valid thread id");
const timestamp = z.iso.datetime({ offset: true });

export const ledgerEntrySchema = z.object({
  thread_id: threadId,
  parent_thread_id: threadId.nullable(),
  reserved_spend: usd,
  actual_spend: usd,
  max_spend: usd,
  spawned: z.number().int().nonnegative(),
  /** The most this thread ever had committed at once (own spend plus its open children's reservations), in USD. */
  peak_committed: usd.optional(),
  status: z.enum(["active", "released"]),
  created_at: timestamp,
  updated_at: timestamp,
});
export type LedgerEntry = z.infer<typeof ledgerEntrySchema>;

export const ledgerSchema = z.object({ version: z.literal(1), entries: z.record(z.string(), ledgerEntrySchema) });
export type Ledger = z.infer<typeof ledgerSchema>;

export type LedgerOptions = Pick<FileLockOptions, "timeoutMs" | "staleMs">;

const NANO = 1e9;
export const toNano = (usdAmount: number): number => Math.round(usdAmount * NANO);
export const fromNano = (nano: number): number => nano / NANO;
/** Rounds a USD amount to the ledger's precision (1e-9). */
export const roundUsd = (usdAmount: number): number => fromNano(toNano(usdAmount));

const LEDGER_HINT = "The ledger was edited by hand or damaged; restore .ai/threads/ledger.json from a backup (rye never replaces a damaged ledger).";

export function checkAmount(name: string, value: number): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || toNano(value) > Number.MAX_SAFE_INTEGER) {
    throw new RyeError("BAD_REQUEST", `${name} must be a finite amount of USD ≥ 0, got ${String(value)}`, { hint: "A bug in the caller." });
  }
}

async function load(projectPath: string): Promise<Ledger> {
  const data = await readJsonFileAs(ledgerPath(projectPath), ledgerSchema, { what: "a valid budget ledger", hint: LEDGER_HINT });
  const ledger = data ?? { version: 1 as const, entries: {} };
  for (const [key, entry] of Object.entries(ledger.entries)) {
    if (key !== entry.thread_id) {
      throw new RyeError("VALIDATION_FAILED", `${ledgerPath(projectPath)} is not a valid budget ledger: entry ${key} names ${entry.thread_id}`, { hint: LEDGER_HINT });
    }
  }
  return ledger;
}

async function save(projectPath: string, ledger: Ledger): Promise<void> {
  await writeFileAtomic(ledgerPath(projectPath), `${JSON.stringify(ledger, null, 2)}\n`);
}

/** Runs `body` on the ledger under its lock; writes it back when `body` says it changed it. */
async function transact<T>(projectPath: string, options: LedgerOptions, body: (ledger: Ledger) => { value: T; changed: boolean }): Promise<T> {
  return withFileLock(
    ledgerLockPath(projectPath),
    async () => {
      const ledger = await load(projectPath);
      const { value, changed } = body(ledger);
      if (changed) await save(projectPath, ledger);
      return value;
    },
    options,
  );
}

function entryOf(ledger: Ledger, id: string): LedgerEntry {
  const entry = ledger.entries[id];
  if (!entry) {
    throw refusals.noEntry(id);
  }
  return entry;
}

/** Nano-dollars the thread can still hand out or spend (may be negative after an overrun). */
function remainingNano(ledger: Ledger, parent: LedgerEntry): number {
  let open = 0;
  for (const child of Object.values(ledger.entries)) {
    if (child.parent_thread_id === parent.thread_id && child.status === "active") open += Math.max(toNano(child.reserved_spend), toNano(child.actual_spend));
  }
  return toNano(parent.reserved_spend) - toNano(parent.actual_spend) - open;
}

/** Adds `nano` to the entry's actual spend, and to its ancestors' as long as the one below was released. */
function addSpend(ledger: Ledger, entry: LedgerEntry, nano: number, now: string): void {
  const seen = new Set<string>();
  let node: LedgerEntry | undefined = entry;
  while (node && !seen.has(node.thread_id)) {
    seen.add(node.thread_id);
    node.actual_spend = fromNano(toNano(node.actual_spend) + nano);
    node.updated_at = now;
    if (node.status !== "released" || node.parent_thread_id === null) break;
    node = ledger.entries[node.parent_thread_id];
  }
}

export interface ReserveRequest {
  threadId: string;
  /** USD the thread may spend (its `spend` limit). */
  amount: number;
  /** The parent thread; none for a root thread. */
  parentId?: string | null;
  /** The parent's `spawns` limit: refused when it has started this many children already. */
  maxSpawns?: number;
  /**
   * A child takes `amount` or what its parent has left, whichever is less, in the same step (no race between
   * reading the remainder and reserving it). Refused with `spend_exceeded` only when nothing is left.
   */
  upTo?: boolean;
  /**
   * Threads that may hold a reservation at once in this project (the concurrency cap "threads in total"):
   * refused with `threads_exceeded` when this many are active already. Checked in the same locked step.
   */
  maxActive?: number;
}

/** Checks a reservation request before anything is read (shared by every ledger back end). */
export function checkReserveRequest(request: ReserveRequest): { id: string; parentId: string | null } {
  const id = assertThreadId(request.threadId);
  const parentId = request.parentId ?? null;
  if (parentId !== null) assertThreadId(parentId);
  if (parentId === id) throw new RyeError("BAD_REQUEST", `Thread ${id} cannot be its own parent`, { hint: "A bug in the caller." });
  checkAmount("amount", request.amount);
  if (request.maxActive !== undefined && (!Number.isInteger(request.maxActive) || request.maxActive < 1)) {
    throw new RyeError("BAD_REQUEST", `maxActive must be an integer ≥ 1, got ${request.maxActive}`, { hint: "A bug in the caller." });
  }
  if (request.maxSpawns !== undefined && (!Number.isInteger(request.maxSpawns) || request.maxSpawns < 0)) {
    throw new RyeError("BAD_REQUEST", `maxSpawns must be an integer ≥ 0, got ${request.maxSpawns}`, { hint: "A bug in the caller." });
  }
  return { id, parentId };
}

/** The refusals of a reservation, in the same words for every ledger back end. */
export const refusals = {
  duplicate: (id: string, existing: LedgerEntry) =>
    new RyeError("CONFLICT", `Thread ${id} already has a budget reservation`, { hint: "Each thread reserves once, when it starts.", details: existing }),
  threads: (active: number, maxActive: number) =>
    new RyeError("FORBIDDEN", `${active} threads are running in this project, the limit is ${maxActive}`, {
      hint: "Wait for running threads to end (rye thread list), or raise concurrency.max_threads in .ai/config/resilience.yaml.",
      details: { limit_code: "threads_exceeded", active, max_threads: maxActive },
    }),
  noParent: (parentId: string) =>
    new RyeError("ITEM_NOT_FOUND", `The parent thread ${parentId} has no budget reservation`, { hint: "The parent must reserve before it starts children." }),
  parentEnded: (parentId: string) =>
    new RyeError("CONFLICT", `The parent thread ${parentId} has ended (its reservation was released)`, {
      hint: "A child can only be started by a running thread.",
      details: { parent_thread_id: parentId },
    }),
  spawns: (parentId: string, spawned: number, maxSpawns: number) =>
    new RyeError("FORBIDDEN", `Thread ${parentId} has started ${spawned} children, its limit is ${maxSpawns}`, {
      hint: "Raise the parent's spawns limit, or do the work without a child thread.",
      details: { limit_code: "spawns_exceeded", spawned, max_spawns: maxSpawns, parent_thread_id: parentId },
    }),
  spend: (parentId: string, leftNano: number, requestedUsd: number, requestedNano: number) =>
    new RyeError("FORBIDDEN", `Thread ${parentId} has ${fromNano(Math.max(0, leftNano)).toFixed(6)} USD left to give, ${requestedUsd} USD were requested`, {
      hint: "Give the child a smaller spend limit, or raise the parent's.",
      details: { limit_code: "spend_exceeded", remaining: fromNano(leftNano), requested: fromNano(requestedNano), parent_thread_id: parentId },
    }),
  noEntry: (id: string) =>
    new RyeError("ITEM_NOT_FOUND", `The budget ledger has no entry for thread ${id}`, { hint: "A thread gets its entry from reserve() when it starts." }),
};

/**
 * Creates the thread's entry. A child's amount must fit in its parent's remaining and the parent must be active and
 * below `maxSpawns` (checked first); the parent's `spawned` is incremented in the same step. Refusals: FORBIDDEN with
 * `details.limit_code` (`spend_exceeded`: `{remaining, requested}`; `spawns_exceeded`: `{spawned, max_spawns}`),
 * ITEM_NOT_FOUND (no parent entry), CONFLICT (the parent was released, or the thread already has an entry).
 */
export async function reserve(projectPath: string, request: ReserveRequest, options: LedgerOptions = {}): Promise<LedgerEntry> {
  const { id, parentId } = checkReserveRequest(request);
  return transact(projectPath, options, (ledger) => {
    const existing = ledger.entries[id];
    if (existing) {
      throw refusals.duplicate(id, existing);
    }
    if (request.maxActive !== undefined) {
      const active = Object.values(ledger.entries).filter((e) => e.status === "active").length;
      if (active >= request.maxActive) {
        throw refusals.threads(active, request.maxActive);
      }
    }
    const now = new Date().toISOString();
    let requested = toNano(request.amount);
    if (parentId !== null) {
      const parent = ledger.entries[parentId];
      if (!parent) {
        throw refusals.noParent(parentId);
      }
      if (parent.status !== "active") {
        throw refusals.parentEnded(parentId);
      }
      if (request.maxSpawns !== undefined && parent.spawned >= request.maxSpawns) {
        throw refusals.spawns(parentId, parent.spawned, request.maxSpawns);
      }
      const left = remainingNano(ledger, parent);
      if (request.upTo && left > 0) requested = Math.min(requested, left);
      if (requested > left || (request.upTo && left <= 0)) {
        throw refusals.spend(parentId, left, request.amount, requested);
      }
      parent.spawned += 1;
      parent.updated_at = now;
    }
    const entry: LedgerEntry = {
      thread_id: id,
      parent_thread_id: parentId,
      reserved_spend: fromNano(requested),
      actual_spend: 0,
      max_spend: fromNano(requested),
      spawned: 0,
      status: "active",
      created_at: now,
      updated_at: now,
    };
    ledger.entries[id] = entry;
    if (parentId !== null) {
      const parent = ledger.entries[parentId]!;
      const committed = fromNano(toNano(parent.reserved_spend) - remainingNano(ledger, parent));
      parent.peak_committed = Math.max(parent.peak_committed ?? 0, committed);
    }
    return { value: { ...entry }, changed: true };
  });
}

/** Adds `deltaSpend` USD (≥ 0) to the thread's actual spend; see the module comment for late reports. */
export async function report(projectPath: string, threadId: string, deltaSpend: number, options: LedgerOptions = {}): Promise<LedgerEntry> {
  const id = assertThreadId(threadId);
  checkAmount("deltaSpend", deltaSpend);
  return transact(projectPath, options, (ledger) => {
    const entry = entryOf(ledger, id);
    const delta = toNano(deltaSpend);
    if (delta === 0) return { value: { ...entry }, changed: false };
    addSpend(ledger, entry, delta, new Date().toISOString());
    return { value: { ...entry }, changed: true };
  });
}

/** Closes the thread's reservation and adds its actual spend to its parent (and released ancestors). Idempotent. */
export async function release(projectPath: string, threadId: string, options: LedgerOptions = {}): Promise<LedgerEntry> {
  const id = assertThreadId(threadId);
  return transact(projectPath, options, (ledger) => {
    const entry = entryOf(ledger, id);
    if (entry.status === "released") return { value: { ...entry }, changed: false };
    const now = new Date().toISOString();
    entry.status = "released";
    entry.updated_at = now;
    const parent = entry.parent_thread_id === null ? undefined : ledger.entries[entry.parent_thread_id];
    const spent = toNano(entry.actual_spend);
    if (parent && spent > 0) addSpend(ledger, parent, spent, now);
    return { value: { ...entry }, changed: true };
  });
}

/** USD the thread can still spend or give to children (negative after an overrun). ITEM_NOT_FOUND without entry. */
export async function remaining(projectPath: string, threadId: string, options: LedgerOptions = {}): Promise<number> {
  const id = assertThreadId(threadId);
  return transact(projectPath, options, (ledger) => ({ value: fromNano(remainingNano(ledger, entryOf(ledger, id))), changed: false }));
}

/** The thread's entry, or undefined when it has none. */
export async function getEntry(projectPath: string, threadId: string, options: LedgerOptions = {}): Promise<LedgerEntry | undefined> {
  const id = assertThreadId(threadId);
  return transact(projectPath, options, (ledger) => ({ value: ledger.entries[id] ? { ...ledger.entries[id] } : undefined, changed: false }));
}

/** The whole ledger (empty when the project has none yet). */
export async function readLedger(projectPath: string, options: LedgerOptions = {}): Promise<Ledger> {
  return transact(projectPath, options, (ledger) => ({ value: ledger, changed: false }));
}
