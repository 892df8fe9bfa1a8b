/**
 * Environment of a chain element (`env_config`): the project's `.env`, an interpreter lookup and ordered `env`
 * entries with `${VAR:-default}` expansion.
 *
 * `resolveEnvConfig` returns only the variables the element defines (a delta); the base environment is used for
 * lookups but not copied into the result. Merging deltas (`mergeChainEnv`) therefore never lets a copy of the OS
 * environment in a later layer undo a variable an earlier layer set on purpose.
 */
import { constants } from "node:fs";
import { access, readFile, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { RyeError } from "@rye/core";
import { executableNames, hasPathSeparator, pathCandidates, pathFromEnv, venvPythonCandidates } from "../fs/platform.ts";
import { expandEnvVars } from "./templating.ts";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const envName = z.string().regex(ENV_NAME, "must be an environment variable name");

const interpreterSchema = z.object({
  type: z.enum(["system_binary", "venv_python", "node_modules"]),
  binary: z.string().min(1).optional(),
  venv_path: z.string().min(1).default(".venv"),
  var: envName,
  fallback: z.string().min(1).optional(),
});

const envConfigSchema = z.object({
  interpreter: interpreterSchema.optional(),
  // YAML turns `PYTHONUNBUFFERED: 1` into a number; environment values are always text.
  env: z.record(envName, z.union([z.string(), z.number(), z.boolean()]).transform(String)).optional(),
});

export type EnvConfig = z.infer<typeof envConfigSchema>;
export type InterpreterConfig = z.infer<typeof interpreterSchema>;

export interface ResolveEnvOptions {
  baseEnv: Record<string, string | undefined>;
  projectPath?: string;
  toolDir?: string;
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

const DOUBLE_QUOTE_ESCAPES: Record<string, string> = { n: "\n", r: "\r", t: "\t", '"': '"', "\\": "\\", $: "$" };

function parseDotEnvValue(raw: string, lineNumber: number): string {
  const text = raw.trim();
  const quote = text[0];
  if (quote === "'" || quote === '"') {
    let value = "";
    for (let i = 1; i < text.length; i++) {
      const ch = text[i]!;
      if (ch === quote) {
        const rest = text.slice(i + 1).trim();
        if (rest && !rest.startsWith("#")) throw dotEnvError(lineNumber, "text after the closing quote");
        return value;
      }
      if (quote === '"' && ch === "\\" && i + 1 < text.length) {
        const next = text[i + 1]!;
        value += DOUBLE_QUOTE_ESCAPES[next] ?? `\\${next}`;
        i += 1;
      } else value += ch;
    }
    throw dotEnvError(lineNumber, "unterminated quote");
  }
  const comment = text.search(/\s#/);
  return (comment === -1 ? text : text.slice(0, comment)).trim();
}

function dotEnvError(lineNumber: number, problem: string): RyeError {
  // Never echo the line: it may hold a secret.
  return new RyeError("INPUT_INVALID", `.env line ${lineNumber}: ${problem}`, {
    hint: "Use KEY=VALUE lines (optionally `export KEY=VALUE`, single or double quotes, # comments).",
  });
}

/**
 * Parses `.env` text: `KEY=VALUE`, `export KEY=VALUE`, `#` comments, optional single quotes (literal) or double
 * quotes (\n \t \" \\ escapes). Values are never interpolated or executed.
 */
export function parseDotEnv(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith("#")) return;
    const body = trimmed.replace(/^export\s+/, "");
    const eq = body.indexOf("=");
    if (eq === -1) throw dotEnvError(index + 1, "missing '='");
    const key = body.slice(0, eq).trim();
    if (!ENV_NAME.test(key)) throw dotEnvError(index + 1, "invalid variable name");
    result[key] = parseDotEnvValue(body.slice(eq + 1), index + 1);
  });
  return result;
}

async function loadDotEnv(projectPath: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(join(projectPath, ".env"), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new RyeError("UNAVAILABLE", `Cannot read ${join(projectPath, ".env")}: ${(err as Error).message}`);
  }
  return parseDotEnv(text);
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function firstExecutable(candidates: string[]): Promise<string | undefined> {
  for (const candidate of candidates) if (await isExecutableFile(candidate)) return candidate;
  return undefined;
}

/** Like `which`, without a subprocess. Relative PATH entries (e.g. `.`) are skipped: they depend on the cwd. */
export async function findOnPath(binary: string, pathValue: string | undefined, env: Record<string, string | undefined> = process.env): Promise<string | undefined> {
  if (hasPathSeparator(binary)) return isAbsolute(binary) && (await isExecutableFile(binary)) ? binary : undefined;
  return firstExecutable(pathCandidates(binary, pathValue, env));
}

function searchRoots(options: ResolveEnvOptions): string[] {
  const roots = [options.toolDir, options.projectPath].filter((dir): dir is string => Boolean(dir)).map((dir) => resolve(dir));
  return [...new Set(roots)];
}

function requireBinary(interpreter: InterpreterConfig): string {
  if (!interpreter.binary) {
    throw new RyeError("BAD_REQUEST", `env_config.interpreter of type ${interpreter.type} needs a 'binary'`);
  }
  return interpreter.binary;
}

/** Interpreter search: the tool's directory first, then the project (the nearest install wins). */
async function findInterpreter(interpreter: InterpreterConfig, options: ResolveEnvOptions, env: Record<string, string>): Promise<string | undefined> {
  switch (interpreter.type) {
    case "system_binary":
      return findOnPath(requireBinary(interpreter), pathFromEnv(env), env);
    case "venv_python":
      return firstExecutable(
        searchRoots(options).flatMap((root) => venvPythonCandidates(resolve(root, interpreter.venv_path))),
      );
    case "node_modules": {
      const binary = requireBinary(interpreter);
      return firstExecutable(searchRoots(options).flatMap((root) => executableNames(binary, env).map((name) => join(root, "node_modules", ".bin", name))));
    }
  }
}

/**
 * Resolves one `env_config` into the variables it defines: `.env` entries not already in the base env, the
 * interpreter variable, then `env` entries in order, each expanded against everything defined before it.
 */
export async function resolveEnvConfig(envConfig: unknown, options: ResolveEnvOptions): Promise<Record<string, string>> {
  const parsed = envConfigSchema.safeParse(envConfig ?? {});
  if (!parsed.success) {
    throw new RyeError("BAD_REQUEST", `Invalid env_config: ${z.prettifyError(parsed.error)}`, { details: parsed.error.issues });
  }
  const config = parsed.data;
  const base = definedOnly(options.baseEnv);
  const defined: Record<string, string> = {};

  if (options.projectPath) {
    for (const [key, value] of Object.entries(await loadDotEnv(options.projectPath))) {
      if (!Object.hasOwn(base, key)) defined[key] = value;
    }
  }
  const visible = () => ({ ...base, ...defined });

  if (config.interpreter) {
    const found = await findInterpreter(config.interpreter, options, visible());
    const value = found ?? config.interpreter.fallback;
    if (value === undefined) {
      throw new RyeError("UNAVAILABLE", `No ${config.interpreter.type} interpreter found for ${config.interpreter.var}`, {
        hint: "Install the interpreter or give env_config.interpreter a fallback.",
      });
    }
    defined[config.interpreter.var] = value;
  }

  for (const [key, template] of Object.entries(config.env ?? {})) {
    defined[key] = expandEnvVars(template, visible());
  }
  return defined;
}

/** Merges env layers in order (primitive → runtime(s) → tool): later layers win; undefined values are skipped. */
export function mergeChainEnv(layers: ReadonlyArray<Record<string, string | undefined> | undefined>): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const layer of layers) {
    if (layer) Object.assign(merged, definedOnly(layer));
  }
  return merged;
}

/**
 * Resolves the env_configs of a chain given primitive first, each against the base env plus every layer before it
 * (so a tool's `${RYE_PYTHON}` sees the runtime's interpreter), and returns the merged delta.
 */
export async function resolveChainEnv(envConfigs: readonly unknown[], options: ResolveEnvOptions): Promise<Record<string, string>> {
  let merged: Record<string, string> = {};
  for (const envConfig of envConfigs) {
    const layer = await resolveEnvConfig(envConfig, { ...options, baseEnv: { ...options.baseEnv, ...merged } });
    merged = mergeChainEnv([merged, layer]);
  }
  return merged;
}
