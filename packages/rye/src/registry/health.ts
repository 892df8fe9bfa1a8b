/**
 * Registries that just failed to answer, remembered for the life of the process (an `rye mcp` server, a thread
 * worker): a registry whose request timed out or could not connect is not asked again for a short interval —
 * requests to it fail at once with the error that marked it — so the next calls do not each wait the budget
 * again. The interval starts at UNHEALTHY_FIRST_MS and doubles with each failure after the previous interval
 * ended, up to UNHEALTHY_MAX_MS; the first answer of any status clears it. A CLI process lives for one command,
 * so the state is in memory only.
 */
import { RyeError } from "@rye/core";

export const UNHEALTHY_FIRST_MS = 2_000;
export const UNHEALTHY_MAX_MS = 60_000;

interface Unhealthy {
  until: number;
  intervalMs: number;
  error: RyeError;
}

const registries = new Map<string, Unhealthy>();

/** The error for a request to `registry` while it is marked unhealthy; undefined when it may be asked. */
export function unhealthyError(registry: string, now = Date.now()): RyeError | undefined {
  const state = registries.get(registry);
  if (!state || now >= state.until) return undefined;
  const seconds = ((state.until - now) / 1000).toFixed(1);
  return new RyeError(state.error.code, `${state.error.message} (not asked again for ${seconds} s)`, {
    hint: state.error.hint,
    details: { ...(state.error.details as object | undefined), registry, unhealthy_for_ms: state.until - now },
  });
}

/** `registry` failed to answer: not asked again for the next interval (growing while it keeps failing). */
export function markUnhealthy(registry: string, error: RyeError, now = Date.now()): void {
  const state = registries.get(registry);
  // Requests in flight together fail together: one failure, not several doublings.
  if (state && now < state.until) return;
  const intervalMs = state ? Math.min(state.intervalMs * 2, UNHEALTHY_MAX_MS) : UNHEALTHY_FIRST_MS;
  registries.set(registry, { until: now + intervalMs, intervalMs, error });
}

/** `registry` answered: forget its failures. */
export function markHealthy(registry: string): void {
  registries.delete(registry);
}
