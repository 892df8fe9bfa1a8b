// rye:signed:2026-11-29T13:41:57Z:03c5619e2f2be1be9703803a1005e8884ff0fab90be9eb561963033b1677dc2d:t9rUHxzKgx1gGNM1HfZr0mGYZx_q-BQCbiYutcHpea8LilnLtdOOwp5Th81dSw73MQBne3Z-X7-L8lUpBqNCAg==:334f126a02990a0c
// @ts-check
/**
 * The condition language of the runtime's data files (error classification, hook conditions) and `${…}`
 * interpolation of hook parameters. A condition is `{any: [...]}`, `{all: [...]}`, `{not: condition}`, or a
 * leaf `{path, op, value}` with op `eq ne gt gte lt lte in contains regex exists` (default `eq`; a regex may
 * start with `(?i)` for a case-insensitive match). A path is
 * dotted keys through objects, and numeric segments index arrays. An empty condition is true.
 *
 * Runtime file: imports nothing (the module loader imports the exact bytes it verified).
 */
export const __version__ = "1.0.0";
export const __tool_type__ = "library";
export const __executor_id__ = null;
export const __category__ = "rye/agent/threads";
export const __tool_description__ = "Agent runtime: condition language (any/all/not, eq ne gt gte lt lte in contains regex exists) and ${path} interpolation";

/** Longest text a `regex` or `contains` condition looks at (bounded work on large error bodies). */
export const MAX_MATCH_TEXT = 10_000;
const MAX_DEPTH = 32;

/**
 * @param {unknown} doc
 * @param {string | undefined} path
 * @returns {unknown}
 */
export function getPath(doc, path) {
  if (!path) return doc;
  let current = doc;
  for (const key of path.split(".")) {
    if (current === null || current === undefined) return undefined;
    if (Array.isArray(current)) current = /^\d+$/.test(key) ? current[Number(key)] : undefined;
    else if (typeof current === "object") current = Object.hasOwn(current, key) ? /** @type {Record<string, unknown>} */ (current)[key] : undefined;
    else return undefined;
  }
  return current;
}

/** @param {unknown} value */
function asText(value) {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? "";
  return text.length > MAX_MATCH_TEXT ? text.slice(0, MAX_MATCH_TEXT) : text;
}

/**
 * @param {string} op
 * @param {unknown} actual
 * @param {unknown} expected
 * @returns {boolean}
 */
function compare(op, actual, expected) {
  switch (op) {
    case "eq":
      return actual === expected || (typeof actual === "object" && actual !== null && JSON.stringify(actual) === JSON.stringify(expected));
    case "ne":
      return !compare("eq", actual, expected);
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      if (typeof actual !== "number" || typeof expected !== "number") return false;
      return op === "gt" ? actual > expected : op === "gte" ? actual >= expected : op === "lt" ? actual < expected : actual <= expected;
    }
    case "in":
      return Array.isArray(expected) && expected.some((e) => compare("eq", actual, e));
    case "contains":
      if (actual === undefined || actual === null) return false;
      if (Array.isArray(actual)) return actual.some((a) => compare("eq", a, expected));
      return asText(actual).includes(String(expected));
    case "regex": {
      if (actual === undefined || actual === null || typeof expected !== "string") return false;
      try {
        // A leading (?i) makes the match case-insensitive (the data files' way to spell the i flag).
        const insensitive = expected.startsWith("(?i)");
        return new RegExp(insensitive ? expected.slice(4) : expected, insensitive ? "i" : "").test(asText(actual));
      } catch {
        return false;
      }
    }
    case "exists":
      return (actual !== undefined && actual !== null) === (expected === undefined ? true : Boolean(expected));
    default:
      return false;
  }
}

/**
 * Evaluates a condition against a document. Unknown operators and malformed nodes are false.
 * @param {unknown} condition
 * @param {unknown} doc
 * @returns {boolean}
 */
export function evaluate(condition, doc, depth = 0) {
  if (condition === undefined || condition === null) return true;
  if (typeof condition !== "object" || Array.isArray(condition) || depth > MAX_DEPTH) return false;
  const node = /** @type {Record<string, unknown>} */ (condition);
  if (Object.keys(node).length === 0) return true;
  if ("any" in node) return Array.isArray(node.any) && node.any.some((c) => evaluate(c, doc, depth + 1));
  if ("all" in node) return Array.isArray(node.all) && node.all.every((c) => evaluate(c, doc, depth + 1));
  if ("not" in node) return !evaluate(node.not, doc, depth + 1);
  if (typeof node.path !== "string") return false;
  return compare(typeof node.op === "string" ? node.op : "eq", getPath(doc, node.path), node.value);
}

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_.]*)\}/g;
const LONE = /^\$\{([A-Za-z_][A-Za-z0-9_.]*)\}$/;

/**
 * `${path}` in strings (deep, through objects and arrays) from `context`. A string that is exactly one
 * placeholder takes the value with its type; inside text, objects become JSON and missing values "".
 * Only hook parameters are interpolated; the values come from the runtime's own event context.
 * @param {unknown} value
 * @param {unknown} context
 * @returns {unknown}
 */
export function interpolate(value, context, depth = 0) {
  if (depth > MAX_DEPTH) return value;
  if (typeof value === "string") {
    const lone = LONE.exec(value);
    if (lone) return getPath(context, lone[1]);
    return value.replace(PLACEHOLDER, (_whole, path) => {
      const found = getPath(context, path);
      return found === undefined || found === null ? "" : typeof found === "string" ? found : JSON.stringify(found);
    });
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, context, depth + 1));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, context, depth + 1)]));
  }
  return value;
}
