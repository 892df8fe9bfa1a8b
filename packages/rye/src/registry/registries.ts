/**
 * Which registries the CLI knows, and which one serves a given item.
 *
 * - user file: `$USER_SPACE/.ai/config/registries.json` (written atomically by `rye registry add/remove`);
 * - project file: `<project>/.ai/config/registries.json` (read only; overrides the user file).
 *
 * Both have the shape `{ default?: url, deadline_ms?: ms, registries: [{ name, url, scopes: [namespace…] }] }`;
 * `deadline_ms` is the registry budget of one search/load/execute (budget.ts).
 * Routing works like npm scopes: an item `acme/…` goes to the registry whose `scopes` include `acme`,
 * else to the default registry: `$RYE_REGISTRY_URL`, else the configured default (project, then user),
 * else `http://localhost:3000`.
 */
import { join } from "node:path";
import { z } from "zod";
import { RyeError, validateNamespace } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { readJsonFile } from "../fs/json-file.ts";
import { userAiDir } from "../spaces/paths.ts";
import { DEFAULT_REGISTRY_URL, normalizeRegistryUrl } from "./registry-url.ts";
import { MAX_REGISTRY_DEADLINE_MS, validDeadlineMs } from "./deadline-limits.ts";

export const REGISTRY_NAME_RE = /^[a-z0-9-]{1,32}$/;

export { DEFAULT_REGISTRY_DEADLINE_MS, MAX_REGISTRY_DEADLINE_MS, validDeadlineMs } from "./deadline-limits.ts";

export interface RegistryEntry {
  name: string;
  /** Normalised with `normalizeRegistryUrl`. */
  url: string;
  scopes: string[];
}

export interface RegistriesConfig {
  default?: string;
  /** The registry budget of one engine call (budget.ts). */
  deadline_ms?: number;
  registries: RegistryEntry[];
}

export type ConfigOrigin = "user" | "project";

export interface EffectiveRegistry extends RegistryEntry {
  origin: ConfigOrigin;
}

export interface EffectiveRegistries {
  /** The configured default (project file first, then user file), normalised; not `$RYE_REGISTRY_URL`. */
  default?: { url: string; origin: ConfigOrigin };
  /** The configured registry budget (project file first, then user file); not `$RYE_REGISTRY_DEADLINE_MS`. */
  deadlineMs?: { ms: number; origin: ConfigOrigin };
  registries: EffectiveRegistry[];
}

export interface RegistryRoute {
  url: string;
  /** The configured registry's name, when the URL belongs to one. */
  name?: string;
  /** Why this registry: a scope match, `$RYE_REGISTRY_URL`, a configured default, or the built-in default. */
  source: "scope" | "env" | "project-default" | "user-default" | "builtin";
  /** The namespace that matched a scope (source "scope"). */
  scope?: string;
}

export interface RegistryConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** Project root (its `.ai/config/registries.json` overrides the user file); omit for none. */
  projectPath?: string | undefined;
}

const entrySchema = z
  .object({
    name: z.string().regex(REGISTRY_NAME_RE, "registry names are 1-32 lowercase letters, digits or '-'"),
    url: z.string(),
    scopes: z.array(z.string()).default([]),
  })
  .strict();

const fileSchema = z
  .object({
    default: z.string().optional(),
    deadline_ms: z.number().refine(validDeadlineMs, `a whole number of milliseconds between 1 and ${MAX_REGISTRY_DEADLINE_MS}`).optional(),
    registries: z.array(entrySchema).default([]),
  })
  .strict();

export function userRegistriesPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(userAiDir(env), "config", "registries.json");
}

export function projectRegistriesPath(projectPath: string): string {
  return join(projectPath, ".ai", "config", "registries.json");
}

interface Issue {
  field: string;
  message: string;
}

function invalid(where: string, issues: Issue[]): RyeError {
  return new RyeError("VALIDATION_FAILED", `Invalid registry configuration in ${where}`, {
    hint: "Fix the listed issues (names are [a-z0-9-]{1,32}, URLs http(s), each scope in one registry only).",
    details: issues,
  });
}

/** Validates and normalises a configuration object; throws VALIDATION_FAILED listing every problem. */
export function parseRegistriesConfig(data: unknown, where = "registries.json"): RegistriesConfig {
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    throw invalid(
      where,
      parsed.error.issues.map((i) => ({ field: i.path.join(".") || "(root)", message: i.message })),
    );
  }
  const issues: Issue[] = [];
  const names = new Map<string, number>();
  const urls = new Map<string, string>();
  const scopeOwner = new Map<string, string>();
  const registries: RegistryEntry[] = [];
  parsed.data.registries.forEach((entry, index) => {
    const field = `registries.${index}`;
    if (names.has(entry.name)) issues.push({ field: `${field}.name`, message: `duplicate registry name "${entry.name}"` });
    names.set(entry.name, index);
    let url = entry.url;
    try {
      url = normalizeRegistryUrl(entry.url);
    } catch (err) {
      issues.push({ field: `${field}.url`, message: (err as Error).message });
    }
    const other = urls.get(url);
    if (other !== undefined) issues.push({ field: `${field}.url`, message: `${url} is already configured as "${other}"` });
    else urls.set(url, entry.name);
    const scopes: string[] = [];
    entry.scopes.forEach((scope, s) => {
      const problem = validateNamespace(scope);
      if (problem) {
        issues.push({ field: `${field}.scopes.${s}`, message: `${JSON.stringify(scope)}: ${problem}` });
        return;
      }
      const owner = scopeOwner.get(scope);
      if (owner !== undefined) {
        issues.push({ field: `${field}.scopes.${s}`, message: `scope "${scope}" already belongs to registry "${owner}"` });
        return;
      }
      scopeOwner.set(scope, entry.name);
      scopes.push(scope);
    });
    registries.push({ name: entry.name, url, scopes });
  });
  let defaultUrl: string | undefined;
  if (parsed.data.default !== undefined) {
    try {
      defaultUrl = normalizeRegistryUrl(parsed.data.default);
    } catch (err) {
      issues.push({ field: "default", message: (err as Error).message });
    }
  }
  if (issues.length) throw invalid(where, issues);
  return { ...(defaultUrl !== undefined ? { default: defaultUrl } : {}), ...(parsed.data.deadline_ms !== undefined ? { deadline_ms: parsed.data.deadline_ms } : {}), registries };
}

async function readConfigFile(path: string): Promise<RegistriesConfig | undefined> {
  const data = await readJsonFile(path, "Fix or delete the file.");
  return data === undefined ? undefined : parseRegistriesConfig(data, path);
}

/** The user's configuration (empty when the file does not exist). */
export async function readUserRegistries(env: NodeJS.ProcessEnv = process.env): Promise<RegistriesConfig> {
  return (await readConfigFile(userRegistriesPath(env))) ?? { registries: [] };
}

/** The project's override file, or undefined. */
export async function readProjectRegistries(projectPath: string): Promise<RegistriesConfig | undefined> {
  return readConfigFile(projectRegistriesPath(projectPath));
}

export async function writeUserRegistries(config: RegistriesConfig, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const valid = parseRegistriesConfig(config, userRegistriesPath(env));
  await writeFileAtomic(userRegistriesPath(env), `${JSON.stringify(valid, null, 2)}\n`, { mode: 0o644, dirMode: 0o755 });
}

/**
 * User and project configuration merged: a project entry replaces a user entry with the same name
 * (or URL), and a scope claimed by the project is taken away from user entries.
 */
export async function loadRegistries(options: RegistryConfigOptions = {}): Promise<EffectiveRegistries> {
  const env = options.env ?? process.env;
  const user = await readUserRegistries(env);
  const project = options.projectPath ? await readProjectRegistries(options.projectPath) : undefined;
  return mergeRegistries(user, project);
}

export function mergeRegistries(user: RegistriesConfig, project: RegistriesConfig | undefined): EffectiveRegistries {
  const projectEntries = project?.registries ?? [];
  const projectNames = new Set(projectEntries.map((r) => r.name));
  const projectUrls = new Set(projectEntries.map((r) => r.url));
  const projectScopes = new Set(projectEntries.flatMap((r) => r.scopes));
  const registries: EffectiveRegistry[] = [
    ...projectEntries.map((r) => ({ ...r, origin: "project" as const })),
    ...user.registries
      .filter((r) => !projectNames.has(r.name) && !projectUrls.has(r.url))
      .map((r) => ({ ...r, scopes: r.scopes.filter((s) => !projectScopes.has(s)), origin: "user" as const })),
  ];
  const def = project?.default !== undefined ? { url: project.default, origin: "project" as const } : user.default !== undefined ? { url: user.default, origin: "user" as const } : undefined;
  const deadline = project?.deadline_ms !== undefined ? { ms: project.deadline_ms, origin: "project" as const } : user.deadline_ms !== undefined ? { ms: user.deadline_ms, origin: "user" as const } : undefined;
  return { ...(def ? { default: def } : {}), ...(deadline ? { deadlineMs: deadline } : {}), registries };
}

/** The namespace of an item id (`acme/tools/x` → `acme`) or a bare namespace. */
export function namespaceOf(itemIdOrNamespace: string): string {
  const trimmed = itemIdOrNamespace.trim().replace(/^@/, "");
  return trimmed.split("/")[0] ?? "";
}

/** Routes an item id or namespace to a registry, like npm scopes. */
export async function resolveRegistryFor(itemIdOrNamespace: string | undefined, options: RegistryConfigOptions = {}): Promise<RegistryRoute> {
  const env = options.env ?? process.env;
  const config = await loadRegistries({ env, projectPath: options.projectPath });
  return routeRegistry(config, itemIdOrNamespace, env);
}

/** Pure routing over an already-loaded configuration. */
export function routeRegistry(config: EffectiveRegistries, itemIdOrNamespace: string | undefined, env: NodeJS.ProcessEnv = process.env): RegistryRoute {
  const nameFor = (url: string) => config.registries.find((r) => r.url === url)?.name;
  const withName = (route: RegistryRoute): RegistryRoute => {
    const name = nameFor(route.url);
    return name !== undefined ? { ...route, name } : route;
  };
  if (itemIdOrNamespace) {
    const ns = namespaceOf(itemIdOrNamespace);
    const owner = config.registries.find((r) => r.scopes.includes(ns));
    if (owner) return { url: owner.url, name: owner.name, source: "scope", scope: ns };
  }
  if (env.RYE_REGISTRY_URL) return withName({ url: normalizeRegistryUrl(env.RYE_REGISTRY_URL), source: "env" });
  if (config.default) return withName({ url: config.default.url, source: config.default.origin === "project" ? "project-default" : "user-default" });
  return withName({ url: DEFAULT_REGISTRY_URL, source: "builtin" });
}

/**
 * A registry named by the user: a configured name, else a URL (normalised). Throws NOT_FOUND for an
 * unknown name.
 */
export function findRegistry(config: EffectiveRegistries, nameOrUrl: string): { url: string; name?: string } {
  const byName = config.registries.find((r) => r.name === nameOrUrl);
  if (byName) return { url: byName.url, name: byName.name };
  if (REGISTRY_NAME_RE.test(nameOrUrl) && !nameOrUrl.includes(":")) {
    throw new RyeError("NOT_FOUND", `No registry named "${nameOrUrl}"`, { hint: "See `rye registry list`, or pass the registry URL." });
  }
  const url = normalizeRegistryUrl(nameOrUrl);
  const byUrl = config.registries.find((r) => r.url === url);
  return byUrl ? { url, name: byUrl.name } : { url };
}

/** Adds a registry to the user file; `makeDefault` also makes it the default. */
export async function addRegistry(
  entry: { name: string; url: string; scopes?: string[] },
  options: { env?: NodeJS.ProcessEnv; makeDefault?: boolean } = {},
): Promise<RegistryEntry> {
  const env = options.env ?? process.env;
  const config = await readUserRegistries(env);
  if (config.registries.some((r) => r.name === entry.name)) {
    throw new RyeError("CONFLICT", `A registry named "${entry.name}" already exists`, { hint: `Remove it first: rye registry remove ${entry.name}` });
  }
  const next: RegistriesConfig = {
    ...config,
    registries: [...config.registries, { name: entry.name, url: entry.url, scopes: entry.scopes ?? [] }],
  };
  if (options.makeDefault) next.default = entry.url;
  const valid = parseRegistriesConfig(next, userRegistriesPath(env));
  await writeUserRegistries(valid, env);
  return valid.registries.find((r) => r.name === entry.name)!;
}

/** Removes a registry from the user file (and the default when it pointed at it). False when absent. */
export async function removeRegistry(name: string, options: { env?: NodeJS.ProcessEnv } = {}): Promise<RegistryEntry | undefined> {
  const env = options.env ?? process.env;
  const config = await readUserRegistries(env);
  const entry = config.registries.find((r) => r.name === name);
  if (!entry) return undefined;
  const next: RegistriesConfig = { registries: config.registries.filter((r) => r.name !== name) };
  if (config.default !== undefined && config.default !== entry.url) next.default = config.default;
  await writeUserRegistries(next, env);
  return entry;
}
