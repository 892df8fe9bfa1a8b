// rye:signed:2026-11-29T13:41:57Z:c82d0c254f07dad0da9fdad9eb25c44d5af3e016defe5bb900270771a711842e:jINh-OiJduPBteZBjSecA1zqO32zk4tJZyuOrR2SWEumDo8T_gaL29tnB9GfUkaap4Bd9beQsamy8lTlkTGQBA==:334f126a02990a0c
// @ts-check
/**
 * Runs a directive as an agent thread (docs/agent-runtime.md). The entry of the runtime: it reaches the
 * engine only through the SDK (`ryeos/sdk/v1`), loads the other runtime files through the verified module
 * loader (a project overrides one by placing a signed file at the same path) and hands over to runner.mjs.
 *
 * The parent of a child thread is known from `RYE_THREAD_PARENT`, which only the runtime's dispatcher sets
 * (the executor removes `RYE_THREAD_*` from every other tool's environment); parameters cannot name it.
 * With `async_exec` the thread runs in a detached worker process and this call returns at once; with the postgres
 * threads back end it becomes a durable job that a `rye thread worker` runs (docs/agent-runtime.md §13).
 */
import { spawn } from "node:child_process";

export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __tier__ = "T1";
export const __category__ = "rye/agent/threads";
export const __tool_description__ =
  "Run a directive as an autonomous agent thread: an LLM uses rye's search/load/execute/sign under the directive's permissions, limits and budget; returns the result (or the thread id with async_exec)";

/** A sync thread may run up to the subprocess primitive's longest timeout; every file here is verified first. */
export const CONFIG = { timeout: 3600, anchor: { mode: "always" } };

export const CONFIG_SCHEMA = {
  type: "object",
  properties: {
    directive_name: { type: "string", minLength: 1, maxLength: 256, description: "The directive to run (its item id)" },
    inputs: { type: "object", default: {}, description: "The directive's inputs" },
    model: { type: "string", minLength: 1, maxLength: 200, description: "A tier (fast, general, reasoning) or a model id" },
    async_exec: { type: "boolean", default: false, description: "Return the thread id at once and run the thread in the background" },
    limit_overrides: {
      type: "object",
      properties: {
        turns: { type: "number", minimum: 0 },
        tokens: { type: "number", minimum: 0 },
        spend: { type: "number", minimum: 0 },
        spawns: { type: "number", minimum: 0 },
        depth: { type: "number", minimum: 0 },
        duration_seconds: { type: "number", minimum: 0 },
      },
      additionalProperties: false,
      description: "Lower or raise the directive's limits (a child thread stays within its parent's)",
    },
    resume_from: { type: "string", pattern: "^[a-z0-9][a-z0-9_.-]{0,159}$", description: "Continue this stopped thread (same directive) from its transcript; a thread may resume only its descendants" },
    message: { type: "string", maxLength: 100000, description: "With resume_from: the new instructions the continuation starts with" },
  },
  required: ["directive_name"],
  additionalProperties: false,
};

/** Runtime modules, loaded in this order through the verified loader. */
const MODULES = ["conditions", "config", "prompt", "harness", "dispatcher", "sse", "http", "provider", "continuation", "runner"];

/**
 * @param {any} sdk
 * @param {any} engine
 * @param {NodeJS.ProcessEnv} env
 */
async function loadRuntime(sdk, engine, env) {
  /** @type {Record<string, any>} */
  const modules = {};
  for (const name of MODULES) modules[name] = (await sdk.importVerifiedModule(engine, `rye/agent/threads/${name}`)).module;
  /** @type {Record<string, unknown>} */
  const configs = {};
  for (const name of modules.config.CONFIG_NAMES) {
    configs[name] = await modules.config.loadConfig(name, {
      readBase: (/** @type {string} */ n) => sdk.readVerifiedItem(engine, "tool", `rye/agent/threads/config/${n}`),
      readOverride: (/** @type {string} */ n) => sdk.readConfigOverride(engine, n),
      parseYaml: sdk.parseYaml,
    });
  }
  // The provider's requests go through http.mjs (node:http), not the global fetch: undici is not loaded at all.
  const providers = (await sdk.listVerifiedItems(engine, "tool", "rye/agent/providers")).map((/** @type {any} */ item) =>
    modules.provider.createProvider(sdk.parseYaml(item.content), { env, sse: modules.sse, fetch: modules.http.fetch }),
  );
  return { modules, configs, providers };
}

/**
 * Ends the record of a thread whose worker stops before the thread started: a closing transcript event, then the
 * status (a record that already ended keeps its status).
 * @param {any} sdk @param {string} projectPath @param {string} threadId
 * @param {"cancelled" | "error"} status @param {{ code: string, message: string }} error
 */
async function endUnstarted(sdk, projectPath, threadId, status, error) {
  const transcript = new sdk.threads.TranscriptWriter(projectPath, threadId);
  try {
    await transcript.append(status === "cancelled" ? "thread_cancelled" : "thread_error", { status, error });
  } finally {
    await transcript.close().catch(() => undefined);
  }
  await sdk.threads.finishThread(projectPath, threadId, status, { error }).catch((/** @type {any} */ err) => (err?.code === "CONFLICT" ? undefined : Promise.reject(err)));
}

/**
 * @param {Record<string, any>} params
 * @param {{ projectPath?: string, toolPath?: string, loadSdk?: () => Promise<any> }} context
 */
export async function main(params, context) {
  if (!context.loadSdk) throw new Error("rye/agent/threads/thread_directive must run through rye's node runtime (it provides the SDK)");
  const sdk = await context.loadSdk();
  const env = process.env;
  const projectPath = context.projectPath ?? process.cwd();
  const engine = await sdk.openEngine({ projectPath, env });
  const workerId = env.RYE_THREAD_WORKER;
  // A background worker whose thread was cancelled before it started (its parent cancelled meanwhile, and may have
  // ended) stops here; one refused before the thread starts ends the record itself instead of leaving it "created".
  if (workerId && (await sdk.threads.isCancelRequested(projectPath, workerId))) {
    const error = { code: "cancelled", message: "Cancelled on request before the thread started" };
    await endUnstarted(sdk, projectPath, workerId, "cancelled", error);
    return { success: false, status: "cancelled", thread_id: workerId, error: error.message, error_code: error.code };
  }
  const parent = await sdk.threads.readParentContext(env, projectPath).catch(async (/** @type {any} */ err) => {
    if (workerId) await endUnstarted(sdk, projectPath, workerId, "error", { code: String(err?.code ?? "INTERNAL"), message: String(err?.message ?? err) });
    throw err;
  });

  if (params.async_exec && !workerId) {
    // Refuse what cannot start before going to the background: the directive and its inputs.
    await engine.execute({ item_type: "directive", item_id: params.directive_name, parameters: { inputs: params.inputs ?? {} }, dry_run: true });
    const threadId = await sdk.threads.allocateThreadId(projectPath, params.directive_name);
    const durable = sdk.threads.backendKind(env) === "postgres";
    // The record exists at once (created); the worker replaces it when its thread starts.
    await sdk.threads.writeThread(projectPath, sdk.threads.newThreadRecord({ thread_id: threadId, directive: params.directive_name, parent_thread_id: parent?.thread_id ?? null, ...(durable ? { durable_job: "queued" } : {}) }));
    if (durable) {
      // The postgres back end: a durable job that any `rye thread worker` of this project runs (and, when that
      // worker dies, another continues); the parent's context travels with the job instead of the environment.
      const job = { project_path: projectPath, thread_id: threadId, params: { ...params, async_exec: true }, parent: env.RYE_THREAD_PARENT ?? null };
      const jobId = await sdk.threads.enqueueThread(job, env).catch(async (/** @type {any} */ err) => {
        await sdk.threads.finishThread(projectPath, threadId, "error", { error: { code: "enqueue_failed", message: String(err?.message ?? err) } }).catch(() => undefined);
        throw err;
      });
      await sdk.threads.updateThread(projectPath, threadId, { durable_job: jobId });
      return { success: true, status: "queued", thread_id: threadId, job_id: jobId, directive: params.directive_name };
    }
    const child = spawn(process.execPath, [process.argv[1] ?? "", context.toolPath ?? ""], {
      cwd: projectPath,
      env: { ...env, RYE_THREAD_WORKER: threadId, RYE_PROJECT_PATH: projectPath },
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
      windowsHide: true,
    });
    child.stdin?.end(JSON.stringify({ ...params, async_exec: true }));
    child.unref();
    if (child.pid !== undefined) await sdk.threads.updateThread(projectPath, threadId, { pid: child.pid });
    return { success: true, status: "running", thread_id: threadId, pid: child.pid, directive: params.directive_name };
  }

  const rt = { sdk, engine, projectPath, env, capabilityFns: sdk.capabilities, threads: sdk.threads, ...(await loadRuntime(sdk, engine, env)) };
  return rt.modules.runner.runThread(rt, { params, parent, ...(workerId ? { threadId: workerId } : {}) });
}
