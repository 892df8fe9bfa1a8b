/**
 * Templating of tool configs: `${VAR}` environment references and `{name}` placeholders.
 *
 * Every template is tokenised once and rendered in a single pass, so text that was substituted is never scanned
 * again: a parameter value `{tool_path}` or `${HOME}` stays literal. There is no shell anywhere, so no command
 * substitution (`$(…)`, backticks) exists to begin with.
 *
 * Placeholder rounds: values in `vars` (user parameters, paths, JSON) are opaque. Only values passed as
 * `templateVars` (config authored in signed items) may themselves contain placeholders; those are resolved against
 * each other and against `vars`, at most MAX_PLACEHOLDER_ROUNDS levels of indirection deep, always re-rendering the
 * *original* config template so that parameter text pulled in by an earlier round is never re-expanded.
 */
import { isDeepStrictEqual } from "node:util";
import { RyeError } from "@rye/core";

export const MAX_PLACEHOLDER_ROUNDS = 3;

type Segment =
  | { kind: "text"; text: string }
  | { kind: "escaped-dollar" }
  | { kind: "env"; name: string; fallback: string | undefined; raw: string }
  | { kind: "placeholder"; path: string; raw: string };

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/y;
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_.]*)\}/y;

function tokenize(template: string): Segment[] {
  const segments: Segment[] = [];
  let text = "";
  const flushText = () => {
    if (text) segments.push({ kind: "text", text });
    text = "";
  };
  let i = 0;
  while (i < template.length) {
    const ch = template[i];
    if (ch === "$" && template[i + 1] === "$") {
      flushText();
      segments.push({ kind: "escaped-dollar" });
      i += 2;
    } else if (ch === "$" && template[i + 1] === "{") {
      ENV_REFERENCE.lastIndex = i;
      const match = ENV_REFERENCE.exec(template);
      if (match) {
        flushText();
        segments.push({ kind: "env", name: match[1]!, fallback: match[2], raw: match[0] });
        i += match[0].length;
      } else {
        // Not a valid env reference; `${…}` is still never read as a placeholder.
        text += "${";
        i += 2;
      }
    } else if (ch === "{") {
      PLACEHOLDER.lastIndex = i;
      const match = PLACEHOLDER.exec(template);
      if (match) {
        flushText();
        segments.push({ kind: "placeholder", path: match[1]!, raw: match[0] });
        i += match[0].length;
      } else {
        text += ch;
        i += 1;
      }
    } else {
      text += ch;
      i += 1;
    }
  }
  flushText();
  return segments;
}

/**
 * Expands `${VAR}` and `${VAR:-default}` (unset or empty VAR gives the default; no default gives "") and turns `$$`
 * into `$`. `$NAME` without braces, `$(…)` and backticks stay literal. Defaults are literal text up to the first `}`.
 */
export function expandEnvVars(text: string, env: Record<string, string | undefined>): string {
  let out = "";
  for (const segment of tokenize(text)) {
    if (segment.kind === "text") out += segment.text;
    else if (segment.kind === "escaped-dollar") out += "$";
    else if (segment.kind === "placeholder") out += segment.raw;
    else out += envValue(segment, env);
  }
  return out;
}

type Lookup = { found: true; value: unknown } | { found: false };

/** Own properties only, so `{constructor}` or `{__proto__}` never reach the prototype chain. */
function lookup(scope: Record<string, unknown>, path: string): Lookup {
  if (Object.hasOwn(scope, path)) {
    const value = scope[path];
    return value === undefined ? { found: false } : { found: true, value };
  }
  let current: unknown = scope;
  for (const key of path.split(".")) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, key)) return { found: false };
    current = (current as Record<string, unknown>)[key];
  }
  return current === undefined ? { found: false } : { found: true, value: current };
}

function stringifyForText(value: unknown, placeholder: string): string {
  if (typeof value === "string") return value;
  if (value !== null && typeof value === "object") {
    try {
      return JSON.stringify(value);
    } catch {
      throw new RyeError("INPUT_INVALID", `The value of ${placeholder} cannot be written as JSON`);
    }
  }
  return String(value);
}

function envValue(segment: Extract<Segment, { kind: "env" }>, env: Record<string, string | undefined>): string {
  const value = Object.hasOwn(env, segment.name) ? env[segment.name] : undefined;
  return value !== undefined && value !== "" ? value : (segment.fallback ?? "");
}

/** With `env`, `${…}` and `$$` are expanded in the same pass as the placeholders; without, they stay as written. */
function renderPlaceholders(template: string, scope: Record<string, unknown>, env: Record<string, string | undefined> | undefined): unknown {
  const segments = tokenize(template);
  const only = segments.length === 1 ? segments[0] : undefined;
  if (only?.kind === "placeholder") {
    const hit = lookup(scope, only.path);
    return hit.found ? hit.value : template;
  }
  let out = "";
  for (const segment of segments) {
    if (segment.kind === "text") out += segment.text;
    else if (segment.kind === "escaped-dollar") out += env ? "$" : "$$";
    else if (segment.kind === "env") out += env ? envValue(segment, env) : segment.raw;
    else {
      const hit = lookup(scope, segment.path);
      out += hit.found ? stringifyForText(hit.value, segment.raw) : segment.raw;
    }
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function substitute(value: unknown, scope: Record<string, unknown>, env: Record<string, string | undefined> | undefined): unknown {
  if (typeof value === "string") return renderPlaceholders(value, scope, env);
  if (Array.isArray(value)) return value.map((item) => substitute(item, scope, env));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, scope, env)]));
  return value;
}

export interface PlaceholderOptions {
  /**
   * Config values that are themselves templates (e.g. a runtime's `script: "{runners_dir}/x.mjs"`). They are resolved
   * against each other and `vars` before use. A name present in `vars` shadows the same name here.
   */
  templateVars?: Record<string, unknown>;
  /**
   * Also expand `${VAR}` / `${VAR:-default}` / `$$` from this env, in the same single pass: neither an env value nor
   * a parameter is then ever scanned for the other syntax. Without it, env syntax is left as written.
   */
  env?: Record<string, string | undefined>;
}

/** The lookup scope: `vars` verbatim, plus `templateVars` resolved up to MAX_PLACEHOLDER_ROUNDS levels deep. */
function buildScope(vars: Record<string, unknown>, options: PlaceholderOptions): Record<string, unknown> {
  const { templateVars, env } = options;
  if (!templateVars) return vars;
  const templates = Object.fromEntries(Object.entries(templateVars).filter(([name]) => !Object.hasOwn(vars, name)));
  let resolved = templates;
  for (let round = 0; round < MAX_PLACEHOLDER_ROUNDS; round++) {
    const scope = { ...resolved, ...vars };
    const next = Object.fromEntries(Object.entries(templates).map(([name, template]) => [name, substitute(template, scope, env)]));
    if (isDeepStrictEqual(next, resolved)) break;
    resolved = next;
  }
  return { ...resolved, ...vars };
}

/**
 * Replaces `{name}` / `{a.b.c}` placeholders in strings, recursively through arrays and plain objects. A string that
 * is exactly one placeholder takes the value with its type; inside other text, objects and arrays are JSON and
 * everything else `String()`. Unknown placeholders stay as they are; `${…}` too unless `options.env` is given.
 */
export function expandPlaceholders(value: unknown, vars: Record<string, unknown>, options: PlaceholderOptions = {}): unknown {
  return substitute(value, buildScope(vars, options), options.env);
}

export interface ArgvOptions extends PlaceholderOptions {
  /** Argument templates (exact strings, e.g. "{extra_flag}") whose result may start with "-". */
  allowLeadingDash?: Iterable<string>;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Templates each argv element on its own: one element always yields exactly one argument. Rejects (INPUT_INVALID)
 * NUL bytes, objects/arrays/null as arguments, and option injection — a template that does not start with "-"
 * producing a value that does — unless the template is allow-listed or follows a literal "--" element.
 */
export function templateArgv(args: unknown[], vars: Record<string, unknown>, options: ArgvOptions = {}): string[] {
  const scope = buildScope(vars, options);
  const allowed = new Set(options.allowLeadingDash ?? []);
  let optionsEnded = false;
  return args.map((template, index) => {
    const where = `argv[${index}]`;
    if (typeof template === "number" || typeof template === "boolean" || typeof template === "bigint") return String(template);
    if (typeof template !== "string") {
      throw new RyeError("INPUT_INVALID", `${where} is ${describe(template)}; arguments must be strings or numbers`);
    }
    if (template.includes("\0")) throw new RyeError("INPUT_INVALID", `${where} contains a NUL byte`);
    const expanded = renderPlaceholders(template, scope, options.env);
    if (typeof expanded !== "string" && typeof expanded !== "number" && typeof expanded !== "boolean" && typeof expanded !== "bigint") {
      throw new RyeError("INPUT_INVALID", `${where} (${template}) expands to ${describe(expanded)}, which cannot be one argument`, {
        hint: "Embed the value in text (e.g. --data={value}) to pass it as JSON, or pass it through {params_json}.",
      });
    }
    const result = String(expanded);
    if (result.includes("\0")) throw new RyeError("INPUT_INVALID", `${where} (${template}) expands to a value containing a NUL byte`);
    if (!optionsEnded && !template.startsWith("-") && result.startsWith("-") && !allowed.has(template)) {
      throw new RyeError("INPUT_INVALID", `${where} (${template}) expands to a value starting with "-", which the program would read as an option`, {
        hint: 'Values starting with "-" are only accepted after a "--" argument, inside "--name={value}", or when the runtime allow-lists the template.',
      });
    }
    if (template === "--") optionsEnded = true;
    return result;
  });
}
