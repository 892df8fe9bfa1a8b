// rye:signed:2026-11-29T13:41:57Z:d2b4758b6b62550ba550a910bbf7841afa8879fd5a30e4b5f17a745b3d1834a4:DzajG5qXGYhGAdGbtr10K3OrK8AztYZzB37BTbjYmMRm-9NJMqKqNeWNAx631mSZbPDIPrsbQITzC3xiEY_MCQ==:334f126a02990a0c
// @ts-check
/**
 * The runtime's configuration as data: `config/<name>.yaml` of this tool folder (resolved through the spaces,
 * verified) deep-merged with a project's signed `.ai/config/<name>.yaml`, plus the pure functions that read
 * it: error classification, retry delays and limit resolution.
 *
 * Merge rules (`mergeConfig`): objects merge key by key; a list whose items carry an `id` merges item by item
 * (an override item with a known id is merged into it, `{id, remove: true}` deletes it, a new id is appended,
 * items without an id are appended); any other value is replaced.
 *
 * Runtime file: imports nothing (the module loader imports the exact bytes it verified).
 */
export const __version__ = "1.0.0";
export const __tool_type__ = "library";
export const __executor_id__ = null;
export const __category__ = "rye/agent/threads";
export const __tool_description__ = "Agent runtime: configuration loading and merging, error classification, retry delays, limit resolution";

export const CONFIG_NAMES = /** @type {const} */ (["resilience", "error_classification", "events", "hook_conditions", "prompts"]);

/** @param {unknown} v @returns {v is Record<string, unknown>} */
function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** @param {unknown[]} list */
function isIdList(list) {
  return list.length > 0 && list.every((item) => isObject(item) && typeof item.id === "string");
}

/**
 * @param {unknown} base
 * @param {unknown} override
 * @returns {unknown}
 */
export function mergeConfig(base, override) {
  if (override === undefined) return base;
  if (isObject(base) && isObject(override)) {
    /** @type {Record<string, unknown>} */
    const out = { ...base };
    for (const [key, value] of Object.entries(override)) out[key] = key in base ? mergeConfig(base[key], value) : value;
    return out;
  }
  if (Array.isArray(base) && Array.isArray(override) && (isIdList(base) || isIdList(override.filter(isObject)))) {
    const out = base.map((item) => item);
    for (const item of override) {
      if (!isObject(item) || typeof item.id !== "string") {
        out.push(item);
        continue;
      }
      const at = out.findIndex((b) => isObject(b) && b.id === item.id);
      if (item.remove === true) {
        if (at >= 0) out.splice(at, 1);
      } else if (at >= 0) out[at] = mergeConfig(out[at], item);
      else out.push(item);
    }
    return out;
  }
  return override;
}

/**
 * @typedef {{ readBase: (name: string) => Promise<{ content: string, path: string }>,
 *             readOverride: (name: string) => Promise<{ content: string, path: string } | null>,
 *             parseYaml: (text: string) => unknown }} ConfigSources
 */

/**
 * One configuration, merged. Both sources verify what they return (the base through the spaces, the override
 * with the project's trust) and throw when they cannot.
 * @param {string} name
 * @param {ConfigSources} sources
 * @returns {Promise<Record<string, unknown>>}
 */
export async function loadConfig(name, sources) {
  const base = await sources.readBase(name);
  const parsed = sources.parseYaml(base.content);
  if (!isObject(parsed)) throw new Error(`${base.path} is not a YAML mapping`);
  const override = await sources.readOverride(name);
  if (!override) return parsed;
  const extra = sources.parseYaml(override.content);
  if (!isObject(extra)) throw new Error(`${override.path} is not a YAML mapping`);
  // The override's own item metadata (it is a signed config item) is not configuration.
  const { version: _v, tool_type: _t, executor_id: _e, category: _c, description: _d, ...settings } = extra;
  return /** @type {Record<string, unknown>} */ (mergeConfig(parsed, settings));
}

/* ------------------------------------------------------------------ errors and retries */

/**
 * @typedef {{ category: string, retryable: boolean, retry_policy?: Record<string, unknown> | null, code?: string }} Classification
 */

/**
 * The first pattern of `error_classification` matching the error context (`{status_code, headers, error: {type,
 * message, code}}`), else the default.
 * @param {Record<string, unknown>} config
 * @param {Record<string, unknown>} context
 * @param {(condition: unknown, doc: unknown) => boolean} evaluate
 * @returns {Classification}
 */
export function classifyError(config, context, evaluate) {
  const patterns = Array.isArray(config.patterns) ? config.patterns : [];
  for (const p of patterns) {
    if (!isObject(p) || !evaluate(p.match, context)) continue;
    return {
      category: String(p.category ?? "permanent"),
      retryable: p.retryable === true,
      retry_policy: isObject(p.retry_policy) ? p.retry_policy : null,
      ...(typeof p.id === "string" ? { code: p.id } : {}),
    };
  }
  const fallback = isObject(config.default) ? config.default : {};
  return { category: String(fallback.category ?? "permanent"), retryable: fallback.retryable === true, retry_policy: isObject(fallback.retry_policy) ? fallback.retry_policy : null };
}

/** @param {unknown} v @param {number} d */
const num = (v, d) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : d);

/**
 * Milliseconds to wait before retry number `attempt` (0 = the first retry), or null for no retry.
 * exponential: min(base · 2^attempt, max) seconds; fixed: delay seconds; use_header: the header's seconds or
 * HTTP date, else the fallback policy; none: null.
 * @param {Record<string, unknown> | null | undefined} policy
 * @param {number} attempt
 * @param {Record<string, string>} [headers]
 * @param {() => number} [now]
 * @returns {number | null}
 */
export function retryDelayMs(policy, attempt, headers = {}, now = Date.now) {
  if (!policy) return null;
  switch (policy.type) {
    case "exponential":
      return Math.round(Math.min(num(policy.base, 2) * 2 ** attempt, num(policy.max ?? policy.max_delay, 120)) * 1000);
    case "fixed":
      return Math.round(num(policy.delay, 60) * 1000);
    case "use_header": {
      const name = String(policy.header ?? "retry-after").toLowerCase();
      const raw = Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
      if (raw !== undefined) {
        const seconds = Number(raw);
        if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
        const date = Date.parse(raw);
        if (Number.isFinite(date)) return Math.max(0, date - now());
      }
      const fallback = isObject(policy.fallback) ? { type: policy.fallback.type ?? policy.fallback.policy ?? "exponential", ...policy.fallback } : null;
      return retryDelayMs(fallback, attempt, {}, now);
    }
    default:
      return null;
  }
}

/* ------------------------------------------------------------------ limits */

export const LIMIT_NAMES = /** @type {const} */ (["turns", "tokens", "spend", "spawns", "depth", "duration_seconds"]);

/**
 * @typedef {{ turns: number, tokens: number, spend: number, spawns: number, depth: number, duration_seconds: number, spend_currency: string }} Limits
 */

/** @param {unknown} source @returns {Partial<Limits>} */
function pickLimits(source) {
  /** @type {Record<string, number | string>} */
  const out = {};
  if (!isObject(source)) return out;
  for (const name of LIMIT_NAMES) {
    const raw = source[name];
    const value = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) out[name] = value;
  }
  if (typeof source.spend_currency === "string") out.spend_currency = source.spend_currency;
  return /** @type {Partial<Limits>} */ (out);
}

/**
 * defaults → directive → overrides, then capped by the parent (`min`); depth = min(own, parent.depth − 1).
 * Returns `{ limits }`, or `{ error: "depth_exceeded", limits }` when no depth is left.
 * @param {unknown} defaults
 * @param {unknown} directive
 * @param {unknown} overrides
 * @param {Partial<Limits> | null} parent
 * @returns {{ limits: Limits, error?: string }}
 */
export function resolveLimits(defaults, directive, overrides, parent) {
  const limits = /** @type {Limits} */ ({ turns: 25, tokens: 200_000, spend: 1, spawns: 10, depth: 10, duration_seconds: 600, spend_currency: "USD", ...pickLimits(defaults), ...pickLimits(directive), ...pickLimits(overrides) });
  if (parent) {
    for (const name of LIMIT_NAMES) {
      if (name === "depth") continue;
      const cap = parent[name];
      if (typeof cap === "number") limits[name] = Math.min(limits[name], cap);
    }
    if (typeof parent.depth === "number") limits.depth = Math.min(limits.depth, parent.depth - 1);
    // A child that names no spend limit gets an even share of its parent's (spend ÷ spawns), so the first of
    // several children started side by side cannot take the whole budget.
    const named = pickLimits(directive).spend !== undefined || pickLimits(overrides).spend !== undefined;
    if (!named && typeof parent.spend === "number" && typeof parent.spawns === "number") {
      limits.spend = Math.min(limits.spend, Math.floor((parent.spend / Math.max(1, parent.spawns)) * 1e9) / 1e9);
    }
  }
  for (const name of ["turns", "tokens", "spawns", "depth", "duration_seconds"]) {
    const key = /** @type {keyof Limits} */ (name);
    limits[key] = /** @type {never} */ (Math.floor(Number(limits[key])));
  }
  return limits.depth < 0 ? { limits, error: "depth_exceeded" } : { limits };
}
