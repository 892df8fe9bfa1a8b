/** Executing a tool: build and verify the chain, check the lockfile, template the config, run the primitive. */
import { delimiter, dirname, join } from "node:path";
import { policySandbox, RyeError, sandboxSpecSchema } from "@rye/core";
import type { SandboxSpec } from "@rye/core";
import { LAYOUT } from "../package-layout.ts";
import type { EngineContext } from "../engine/context.ts";
import type { ChainSummary, ToolExecuteResult } from "../engine/results.ts";
import type { Chain, ChainElement } from "./chain.ts";
import { buildChain } from "./chain.ts";
import { resolveAnchor, verifyAnchor } from "./anchor.ts";
import { mergeChainEnv, resolveChainEnv } from "./env.ts";
import type { ChainElementLock } from "./lockfile.ts";
import { buildLockfile, checkLockfile, readLockfile, writeLockfile } from "./lockfile.ts";
import { runHttpClient } from "./primitives/http-client.ts";
import { runSubprocess } from "./primitives/subprocess.ts";
import { parameterSchema, validateParameters } from "./schema.ts";
import { gateToolCall, securitySettings } from "../security/gate.ts";
import { combineSandbox } from "./primitives/sandbox.ts";
import { expandPlaceholders, templateArgv } from "./templating.ts";

export const RUNNERS_DIR = LAYOUT.runnersDir;

export interface ToolExecuteOptions {
  parameters: Record<string, unknown>;
  dryRun?: boolean;
  signal?: AbortSignal;
  /**
   * The calling thread's context for a child thread (`RYE_THREAD_PARENT`), set by the agent runtime only.
   * Every other tool runs without any `RYE_THREAD_*` variable, so no tool can hand a forged one on.
   */
  threadParent?: string;
  /**
   * The thread a `rye thread worker` runs as a durable job (`RYE_THREAD_WORKER`, with `recover` also
   * `RYE_THREAD_RECOVER=1`: continue it from its transcript), set by the worker only, for the runtime's own tools.
   */
  threadWorker?: { threadId: string; recover: boolean };
  /** The calling thread's generation (0: the user or a root thread), set by the agent runtime only: the gate is stricter below. */
  generation?: number;
  /** A person approved this call (set in-process by a prompt, MCP elicitation or the runtime's approval), never by parameters. */
  approved?: boolean;
}

/**
 * The tools that receive the calling thread's context: the agent runtime's own entry points, and every tool the
 * state_graph runtime runs (a graph checks each node against its caller's capabilities). Their files are
 * verified like any chain element; every other tool runs without the context, so it cannot act as the thread.
 */
const THREAD_CONTEXT_TOOLS = new Set(["rye/agent/threads/thread_directive", "rye/agent/threads/orchestrator"]);
const THREAD_CONTEXT_RUNTIMES = new Set(["rye/core/runtimes/state_graph"]);

export function receivesThreadContext(chain: Chain): boolean {
  return THREAD_CONTEXT_TOOLS.has(chain.elements[0]!.itemId) || chain.elements.some((e) => THREAD_CONTEXT_RUNTIMES.has(e.itemId));
}

/** The environment of a tool's process: the engine's, without the agent runtime's own variables. */
export function toolEnvironment(env: Record<string, string | undefined>, threadParent?: string, threadWorker?: ToolExecuteOptions["threadWorker"]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(env)) if (!key.startsWith("RYE_THREAD_")) out[key] = value;
  if (threadParent !== undefined) out.RYE_THREAD_PARENT = threadParent;
  if (threadWorker !== undefined) {
    out.RYE_THREAD_WORKER = threadWorker.threadId;
    if (threadWorker.recover) out.RYE_THREAD_RECOVER = "1";
  }
  return out;
}

export type { ChainSummary, ToolExecuteResult };

function lockElements(chain: Chain): ChainElementLock[] {
  return chain.elements.map((e) => ({ item_id: e.itemId, space: e.space, tool_type: e.toolType, executor_id: e.executorId, integrity: e.integrity }));
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Config from the chain: primitive first, then runtimes, the tool's own config last. */
function mergedConfig(chain: Chain): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const element of [...chain.elements].reverse()) Object.assign(config, asRecord(element.tool.config));
  return config;
}

export async function executeTool(ctx: EngineContext, toolId: string, options: ToolExecuteOptions): Promise<ToolExecuteResult> {
  const started = performance.now();
  const chain = await buildChain(ctx, toolId);
  const root = chain.elements[0]!;
  const version = String(root.tool.version);
  const parameters = await validateParameters(parameterSchema(root.tool), options.parameters, toolId);
  const summary = lockElements(chain);
  // The security gate, before anything of the tool runs (docs/security.md).
  const gate = await gateToolCall(ctx, { toolId: root.itemId, extras: root.tool.extras, parameters, ...(options.generation !== undefined ? { generation: options.generation } : {}), ...(options.approved ? { approved: true } : {}) });

  const locked = await readLockfile(ctx.spaces, root.itemId, version);
  if (locked) checkLockfile(locked.lockfile, locked.path, summary);

  const metadata: ToolExecuteResult["metadata"] = { duration_ms: 0, lockfile_used: Boolean(locked), lockfile_created: false, primitive: chain.primitive, security: { tier: gate.tier, effective_tier: gate.effective_tier, decision: gate.decision } };
  // A multi-file tool: every file of its folder verifies before anything runs (anchor.ts).
  const config = mergedConfig(chain);
  const anchorSettings = await resolveAnchor(config, root.file.path);
  const anchor = anchorSettings ? await verifyAnchor(anchorSettings, ctx.verifier, root.file.space.name) : null;
  if (anchor) metadata.anchor = { root: anchor.root, files_verified: anchor.verified.length };
  if (options.dryRun) {
    metadata.duration_ms = Math.round(performance.now() - started);
    return { status: "validation_passed", type: "tool", item_id: root.itemId, chain: summary, metadata };
  }

  const baseEnv: Record<string, string | undefined> = {
    ...(receivesThreadContext(chain) ? toolEnvironment(ctx.env, options.threadParent, options.threadWorker) : toolEnvironment(ctx.env)),
    RYE_NODE: ctx.env.RYE_NODE ?? process.execPath,
    RYE_PROJECT_PATH: ctx.projectPath,
  };
  const toolDir = dirname(root.file.path);
  // Each layer (primitive → runtimes → tool) sees the variables of the layers below it.
  const delta = await resolveChainEnv(
    [...chain.elements].reverse().map((e) => e.tool.env_config ?? {}),
    { baseEnv, projectPath: ctx.projectPath, toolDir },
  );
  const env = mergeChainEnv([baseEnv, delta]);
  if (anchor) {
    // The anchor folder first on the module paths (CommonJS and Python; ES modules resolve from the file).
    for (const name of ["NODE_PATH", "PYTHONPATH"]) env[name] = [anchor.root, ...(name === "NODE_PATH" ? [join(anchor.root, "node_modules")] : []), ...(env[name] ? [env[name]] : [])].join(delimiter);
    env.RYE_ANCHOR = anchor.root;
  }

  const builtins: Record<string, unknown> = {
    tool_path: root.file.path,
    tool_dir: toolDir,
    project_path: ctx.projectPath,
    user_space: ctx.userBase,
    system_space: ctx.space("system").root,
    runners_dir: RUNNERS_DIR,
    params_json: JSON.stringify(parameters),
  };
  // `<key>_json` gives signed config values JSON-encoded (for JSON templates such as the MCP runtimes' stdin).
  for (const [key, value] of Object.entries(config)) builtins[`${key}_json`] = JSON.stringify(value);
  // Built-ins come last: a parameter named tool_path or runners_dir must never redirect what runs.
  const vars = { ...parameters, ...builtins };
  // `${VAR}` and `{name}` expand in one pass, so text that came from a variable is never expanded again.
  const templating = { templateVars: config, env };
  const templated = dropUnresolved(asRecord(expandPlaceholders(config, vars, templating)));

  let data: unknown;
  let success: boolean;
  if (chain.primitive === "subprocess") {
    if (typeof templated.command !== "string" || templated.command === "") {
      throw new RyeError("VALIDATION_FAILED", `The chain of ${toolId} gives the subprocess primitive no command`);
    }
    const args = templateArgv(asArray(config.args), vars, templating);
    // OS limits and isolation: what the tool's chain asks for, tightened by what the policy imposes at this tier.
    const sandbox = combineSandbox(parseSandbox(config.sandbox, toolId), policySandbox((await securitySettings(ctx)).policy, gate.effective_tier));
    const result = await runSubprocess(
      {
        command: templated.command,
        args,
        cwd: typeof templated.cwd === "string" ? templated.cwd : ctx.projectPath,
        env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === "string")),
        ...(typeof templated.timeout === "number" ? { timeout: templated.timeout } : {}),
        ...(typeof templated.input_data === "string" ? { input_data: templated.input_data } : {}),
      },
      { baseEnv: {}, ...(options.signal ? { signal: options.signal } : {}), ...(sandbox ? { sandbox: { spec: sandbox, projectPath: ctx.projectPath } } : {}) },
    );
    if (result.sandbox) metadata.sandbox = result.sandbox;
    success = result.success;
    data = result.data ?? { stdout: result.stdout, stderr: result.stderr, return_code: result.exitCode };
    if (!result.success && result.data && typeof result.data === "object") data = { ...(result.data as object), stderr: result.stderr, return_code: result.exitCode };
  } else {
    const result = await runHttpClient(templated as unknown as Parameters<typeof runHttpClient>[0], options.signal ? { signal: options.signal } : {});
    success = result.success;
    data = { status_code: result.status, body: result.body, headers: result.headers };
  }

  // A tool that reports `success: false` in its result failed (as in the original), whatever its exit code.
  if (success && data && typeof data === "object" && (data as { success?: unknown }).success === false) success = false;
  if (success && !locked) {
    const space = ctx.space("project");
    await writeLockfile(space, buildLockfile(root.itemId, version, summary));
    metadata.lockfile_created = true;
  }
  metadata.duration_ms = Math.round(performance.now() - started);
  metadata.resolved_env_keys = Object.keys(delta).filter((k) => !(k in ctx.env));
  return { status: success ? "success" : "error", type: "tool", item_id: root.itemId, data, chain: summary, metadata };
}

/** The `sandbox` of a tool's chain config, checked (a bad one is an error naming the tool, never ignored). */
function parseSandbox(value: unknown, toolId: string): SandboxSpec | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = sandboxSpecSchema.safeParse(value);
  if (!parsed.success) throw new RyeError("VALIDATION_FAILED", `The sandbox settings of ${toolId} are not valid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`, { hint: "See docs/security.md (network, filesystem, memory_mb, cpu_seconds, required)." });
  return parsed.data;
}

const LONE_PLACEHOLDER = /^\{[A-Za-z_][A-Za-z0-9_.]*\}$/;

/** Optional values: a config entry that is still a lone `{name}` (no such parameter) is left out. */
function dropUnresolved(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === "string" && LONE_PLACEHOLDER.test(v)) continue;
    out[key] = v && typeof v === "object" && !Array.isArray(v) ? dropUnresolved(v as Record<string, unknown>) : v;
  }
  return out;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

