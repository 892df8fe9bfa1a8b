/**
 * The limits of a call's registry budget (budget.ts), apart from registries.ts: a cold local search loads budget.ts
 * and must not load the schema library registries.ts parses its files with.
 */

/** The default registry budget of one engine call. */
export const DEFAULT_REGISTRY_DEADLINE_MS = 5_000;
/** The largest registry budget accepted from the environment or a configuration file (10 minutes). */
export const MAX_REGISTRY_DEADLINE_MS = 600_000;

export function validDeadlineMs(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1 && value <= MAX_REGISTRY_DEADLINE_MS;
}
