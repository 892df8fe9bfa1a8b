/**
 * The registry budget of one engine call (a CLI command's search/load/execute, an MCP tool call): one deadline
 * for every registry request the call makes — the pull, the key list, the checkpoint, each element of an
 * executor chain, each registry searched — instead of one deadline per request, so a registry that hangs costs a
 * call at most the budget. The budget is ambient for the call (AsyncLocalStorage), like progress
 * (engine/progress.ts): `registryFetch` reads it, nothing in between carries it.
 *
 * Its length: `RYE_REGISTRY_DEADLINE_MS`, else `deadline_ms` in the project's, else the user's
 * `.ai/config/registries.json`, else 5 s. It is read when the call first reaches for a registry, so a local
 * call never reads the configuration; the clock starts with the call.
 *
 * Registry failures that a transparent lookup turned into "not found here" (see resolve-remote.ts) are
 * remembered on the budget: when the call then fails because the item is missing or cannot be verified without
 * the registry, the caller gets the registry's TIMEOUT / UNAVAILABLE instead, which says what to fix.
 */
import { RyeError } from "@rye/core";
import { progressListener, reportProgress } from "../engine/progress.ts";
import { DEFAULT_REGISTRY_DEADLINE_MS, MAX_REGISTRY_DEADLINE_MS, validDeadlineMs } from "./deadline-limits.ts";
import { CallStorage } from "../engine/call-storage.ts";

export const REGISTRY_DEADLINE_VARIABLE = "RYE_REGISTRY_DEADLINE_MS";
/** How often a call waiting on a registry reports progress (MCP `notifications/progress`). */
export const WAIT_PROGRESS_INTERVAL_MS = 500;

export interface BudgetLength {
  ms: number;
  /** Where the length came from, for the hint of a timeout. */
  source: string;
}

export interface RegistryBudget extends BudgetLength {
  startedAt: number;
  endsAt: number;
}

interface BudgetState {
  startedAt: number;
  length: () => Promise<BudgetLength>;
  /** Registry failures a lookup swallowed (code TIMEOUT / UNAVAILABLE). */
  swallowed: RyeError[];
  waiting: number;
  ticker: NodeJS.Timeout | undefined;
}

const budgets = new CallStorage<BudgetState>();

function invalidLength(raw: unknown, where: string): RyeError {
  return new RyeError("BAD_REQUEST", `${where}=${JSON.stringify(raw)} is not a whole number of milliseconds between 1 and ${MAX_REGISTRY_DEADLINE_MS}`, {
    hint: `${where} sets how long one search, load or execute may wait for registries in total; use a number like ${DEFAULT_REGISTRY_DEADLINE_MS}, or remove it for the default.`,
  });
}

/** The budget's length for a call in `projectPath` (see the module comment). */
export async function registryDeadline(options: { env: NodeJS.ProcessEnv; projectPath?: string | undefined }): Promise<BudgetLength> {
  const raw = options.env[REGISTRY_DEADLINE_VARIABLE];
  if (raw !== undefined && raw !== "") {
    const ms = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!validDeadlineMs(ms)) throw invalidLength(raw, REGISTRY_DEADLINE_VARIABLE);
    return { ms, source: REGISTRY_DEADLINE_VARIABLE };
  }
  // Loaded on first use: registries.ts parses its files with zod, which a local search must not load.
  const { loadRegistries } = await import("./registries.ts");
  const config = await loadRegistries({ env: options.env, projectPath: options.projectPath });
  if (config.deadlineMs) return { ms: config.deadlineMs.ms, source: `"deadline_ms" in the ${config.deadlineMs.origin} .ai/config/registries.json` };
  return { ms: DEFAULT_REGISTRY_DEADLINE_MS, source: "the default" };
}

/** Runs `body` (one engine call) under a fresh registry budget; a nested call gets its own. */
export function withRegistryBudget<T>(options: { env: NodeJS.ProcessEnv; projectPath?: string | undefined }, body: () => Promise<T>): Promise<T> {
  let length: Promise<BudgetLength> | undefined;
  const state: BudgetState = {
    startedAt: Date.now(),
    length: () => (length ??= registryDeadline(options)),
    swallowed: [],
    waiting: 0,
    ticker: undefined,
  };
  return budgets.run(state, async () => {
    try {
      return await body();
    } finally {
      clearInterval(state.ticker);
    }
  });
}

/** The running call's budget, or undefined outside one (explicit registry commands keep per-request deadlines). */
export async function currentRegistryBudget(): Promise<RegistryBudget | undefined> {
  const state = budgets.getStore();
  if (!state) return undefined;
  const { ms, source } = await state.length();
  return { ms, source, startedAt: state.startedAt, endsAt: state.startedAt + ms };
}

/**
 * Marks the call as waiting on `registry` until `work` settles; while anything waits and the call has a progress
 * listener, the time spent of the budget is reported every WAIT_PROGRESS_INTERVAL_MS.
 */
export async function waitingOn<T>(registry: string, budget: RegistryBudget, work: () => Promise<T>): Promise<T> {
  const state = budgets.getStore();
  if (!state || !progressListener()) return work();
  const host = new URL(registry).host;
  state.waiting++;
  state.ticker ??= setInterval(() => {
    const elapsed = Math.min(Date.now() - budget.startedAt, budget.ms);
    reportProgress({ key: "registry wait", done: elapsed, total: budget.ms, message: `Waiting for the registry at ${host}: ${(elapsed / 1000).toFixed(1)} s of ${(budget.ms / 1000).toFixed(1)} s` });
  }, WAIT_PROGRESS_INTERVAL_MS);
  state.ticker.unref();
  try {
    return await work();
  } finally {
    if (--state.waiting === 0) {
      clearInterval(state.ticker);
      state.ticker = undefined;
    }
  }
}

/** A lookup turned this registry failure into "not found here": remember it for `explainWithRegistry`. */
export function noteSwallowedRegistryFailure(err: unknown): void {
  const state = budgets.getStore();
  if (!state || !(err instanceof RyeError) || (err.code !== "TIMEOUT" && err.code !== "UNAVAILABLE")) return;
  if (!state.swallowed.some((e) => e.message === err.message)) state.swallowed.push(err);
}

/** What a missing registry can explain: an item not found, or a cached registry item that cannot be verified here. */
const EXPLAINED = new Set(["ITEM_NOT_FOUND", "UNTRUSTED_KEY"]);

/**
 * The error to report for a failed call: when the call could not reach a registry and then failed for want of
 * it, the registry's TIMEOUT / UNAVAILABLE (naming the registry), with the consequence; else `err` itself.
 */
export function explainWithRegistry(err: unknown): unknown {
  const cause = budgets.getStore()?.swallowed[0];
  if (!cause || !(err instanceof RyeError) || !EXPLAINED.has(err.code)) return err;
  return new RyeError(cause.code, `${cause.message}. Without it: ${err.message}`, {
    hint: cause.hint,
    details: { ...(cause.details as object | undefined), then: { code: err.code, message: err.message } },
  });
}
