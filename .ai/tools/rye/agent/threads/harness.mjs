// rye:signed:2026-11-29T13:41:57Z:d5c458b988864b3aaed805f7c83a657b61a099b8f455235c6107ba717bbb7fce:c9BJAoEBWUM8JlPbh_x-QiItDJlb6a9kCBW7f0zYlgMrsLu9uM02mzC7tigN7lF9E11wq3bzxB672P-5ol1eBg==:334f126a02990a0c
// @ts-check
/**
 * The safety harness of a thread: the capability check every tool call passes (fail-closed), the limits
 * checked around every LLM call, and which hooks an event fires.
 *
 * Runtime file: imports nothing (the module loader imports the exact bytes it verified); the capability
 * functions of `@rye/core` and the condition language arrive as parameters.
 */
export const __version__ = "1.0.0";
export const __tool_type__ = "library";
export const __executor_id__ = null;
export const __category__ = "rye/agent/threads";
export const __tool_description__ = "Agent runtime: capability checks, limits and hook selection of a thread";

/**
 * @typedef {{ turns: number, input_tokens: number, output_tokens: number, spend: number, elapsed_seconds: number }} Cost
 * @typedef {{ turns: number, tokens: number, spend: number, spawns: number, depth: number, duration_seconds: number }} Limits
 * @typedef {{ limit_code: string, current_value: number, current_max: number }} LimitHit
 * @typedef {{ id: string, event: string, layer?: number, condition?: unknown, action?: Record<string, unknown>, error?: string }} Hook
 * @typedef {{ allowed: boolean, required: string, reason?: string }} Decision
 */

/**
 * @param {{
 *   capabilities: string[],
 *   limits: Limits,
 *   hooks: Hook[],
 *   capabilityFns: { checkCapability: (caps: string[], primary: any, type: any, id?: string) => Decision, searchFilter: (caps: string[], type: any) => (id: string) => boolean },
 *   evaluate: (condition: unknown, doc: unknown) => boolean,
 * }} options
 */
export function createHarness({ capabilities, limits, hooks, capabilityFns, evaluate }) {
  const broken = hooks.filter((h) => h.error);
  if (broken.length) throw new Error(`The directive's hooks cannot run: ${broken.map((h) => h.error).join("; ")}`);
  // Directive hooks (layer 1) before builtin ones (layer 2); order within a layer is kept.
  const ordered = hooks.map((h, i) => ({ h, i })).sort((a, b) => (a.h.layer ?? 1) - (b.h.layer ?? 1) || a.i - b.i).map(({ h }) => h);

  return {
    capabilities,
    limits,

    /** Whether the thread may run `primary` on `itemType` `itemId` (a search has no id). */
    check(/** @type {string} */ primary, /** @type {string} */ itemType, /** @type {string | undefined} */ itemId) {
      return capabilityFns.checkCapability(capabilities, primary, itemType, itemId);
    },

    /** For an allowed search: whether a hit may be shown. */
    searchFilter(/** @type {string} */ itemType) {
      return capabilityFns.searchFilter(capabilities, itemType);
    },

    /**
     * The first limit the thread has reached, or null. `before` a call: the turn about to start must fit too.
     * @param {Cost} cost
     * @param {{ before?: boolean, spentIncludingChildren?: number }} [when]
     * @returns {LimitHit | null}
     */
    exceeded(cost, when = {}) {
      const turns = when.before ? cost.turns + 1 : cost.turns;
      if (turns > limits.turns) return { limit_code: "turns_exceeded", current_value: cost.turns, current_max: limits.turns };
      const tokens = cost.input_tokens + cost.output_tokens;
      if (tokens >= limits.tokens) return { limit_code: "tokens_exceeded", current_value: tokens, current_max: limits.tokens };
      const spend = when.spentIncludingChildren ?? cost.spend;
      if (spend >= limits.spend) return { limit_code: "spend_exceeded", current_value: round(spend), current_max: limits.spend };
      if (cost.elapsed_seconds >= limits.duration_seconds) return { limit_code: "duration_seconds_exceeded", current_value: Math.round(cost.elapsed_seconds), current_max: limits.duration_seconds };
      return null;
    },

    /** The hooks `event` fires for `context`, directive hooks first. */
    hooksFor(/** @type {string} */ event, /** @type {unknown} */ context) {
      return ordered.filter((h) => h.event === event && evaluate(h.condition, context));
    },
  };
}

/** @param {number} n */
function round(n) {
  return Math.round(n * 1e6) / 1e6;
}
