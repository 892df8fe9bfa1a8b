// rye:signed:2026-11-29T13:41:57Z:beff942bc00520747dc3fafe1f9a49f6727390ccb9bd36a3e4d9bdb14a659bc1:WfXeppymqOnshgC812FUgt2iuT8yuucWFbVbBt7DGEgG8vm8Tvjb2rz_hHp1Vb2vpNZVgRxBYX3vnkGA_YBuDA==:334f126a02990a0c
// @ts-check
/**
 * Orchestrator operations over agent threads (docs/agent-runtime.md §10): wait for threads (event-driven, with a
 * timeout), statuses, aggregated results, the thread tree, a search over every transcript of a tree, paged
 * transcripts, cancel (cascading to descendants) and kill.
 *
 * Called by a thread (`rye_execute` of this tool), the runtime's dispatcher hands it the calling thread's context
 * (`RYE_THREAD_PARENT`, never from parameters): a thread may act only on its own descendants. From MCP or the
 * command line (no calling thread) every thread of the project is reachable.
 */
export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __tier__ = "T1";
export const __category__ = "rye/agent/threads";
export const __tool_description__ =
  "Coordinate agent threads: wait_threads, get_status, list_active, aggregate_results, get_chain, chain_search, read_transcript, cancel_thread, kill_thread, resume_thread, handoff_thread";

/** A wait may last up to an hour (the subprocess primitive's longest timeout). */
export const CONFIG = { timeout: 3600 };

export const CONFIG_SCHEMA = {
  type: "object",
  properties: {
    operation: {
      type: "string",
      enum: ["wait_threads", "get_status", "list_active", "aggregate_results", "get_chain", "chain_search", "read_transcript", "cancel_thread", "kill_thread", "resume_thread", "handoff_thread"],
      description: "What to do",
    },
    thread_ids: { type: "array", items: { type: "string", pattern: "^[a-z0-9][a-z0-9_.-]{0,159}$" }, minItems: 1, maxItems: 100, description: "wait_threads, get_status, aggregate_results: the threads" },
    thread_id: { type: "string", pattern: "^[a-z0-9][a-z0-9_.-]{0,159}$", description: "get_chain, chain_search, read_transcript, cancel_thread, kill_thread, resume_thread, handoff_thread: the thread" },
    message: { type: "string", minLength: 1, maxLength: 100000, description: "resume_thread: the new instructions the continuation starts with" },
    model: { type: "string", minLength: 1, maxLength: 200, description: "resume_thread: the model or tier of the continuation (default: the directive's)" },
    timeout_seconds: { type: "number", minimum: 0, maximum: 3600, default: 300, description: "wait_threads: how long to wait at most" },
    any: { type: "boolean", default: false, description: "wait_threads: return when the first thread ends" },
    pattern: { type: "string", minLength: 1, maxLength: 200, description: "chain_search: a regular expression" },
    ignore_case: { type: "boolean", default: false },
    limit: { type: "integer", minimum: 1, maximum: 1000, description: "chain_search: matches; read_transcript: events per page" },
    offset: { type: "integer", minimum: 0, default: 0, description: "read_transcript: the first event" },
    reason: { type: "string", maxLength: 500, description: "cancel_thread: why" },
    grace_ms: { type: "integer", minimum: 0, maximum: 60000, default: 3000, description: "kill_thread: time between SIGTERM and SIGKILL" },
  },
  required: ["operation"],
  additionalProperties: false,
};

/** @param {string} message @param {string} code */
const refuse = (message, code = "FORBIDDEN") => ({ success: false, error: { code, message } });

/**
 * @param {Record<string, any>} params
 * @param {{ projectPath?: string, loadSdk?: () => Promise<any> }} context
 */
export async function main(params, context) {
  if (!context.loadSdk) throw new Error("rye/agent/threads/orchestrator must run through rye's node runtime (it provides the SDK)");
  const sdk = await context.loadSdk();
  const t = sdk.threads;
  const projectPath = context.projectPath ?? process.cwd();
  const caller = await t.readParentContext(process.env, projectPath);

  /**
   * A thread may act only on its descendants; MCP and the CLI (no calling thread) on every thread.
   * @param {string[]} ids @returns {Promise<string[]>} the ids outside what the caller may touch
   */
  const outsideOf = async (ids) => {
    if (!caller) return [];
    const below = new Set(await t.descendantIds(projectPath, caller.thread_id));
    return ids.filter((id) => !below.has(id));
  };
  /** @param {string[]} ids */
  const guard = async (ids) => {
    const outside = await outsideOf(ids);
    if (outside.length > 0) return refuse(`A thread may act only on threads it started (directly or below): ${outside.join(", ")} ${outside.length === 1 ? "is" : "are"} not among them`);
    return null;
  };
  const need = (/** @type {string} */ name) => {
    if (params[name] === undefined) throw Object.assign(new Error(`${params.operation} needs ${name}`), { code: "BAD_REQUEST" });
    return params[name];
  };

  switch (params.operation) {
    case "wait_threads": {
      const ids = need("thread_ids");
      const denied = await guard(ids);
      if (denied) return denied;
      return { success: true, ...(await t.waitThreads(projectPath, ids, { timeoutSeconds: params.timeout_seconds ?? 300, any: params.any === true })) };
    }
    case "get_status":
    case "aggregate_results": {
      const ids = need("thread_ids");
      const denied = await guard(ids);
      if (denied) return denied;
      const aggregated = await t.aggregateResults(projectPath, ids);
      return params.operation === "get_status" ? { success: true, threads: aggregated.threads } : { success: true, ...aggregated };
    }
    case "list_active": {
      const active = await t.listActive(projectPath);
      if (!caller) return { success: true, threads: active };
      const outside = new Set(await outsideOf(active.map((/** @type {any} */ a) => a.thread_id)));
      return { success: true, threads: active.filter((/** @type {any} */ a) => !outside.has(a.thread_id)) };
    }
    case "get_chain": {
      const id = need("thread_id");
      const denied = caller && id !== caller.thread_id ? await guard([id]) : null;
      if (denied) return denied;
      return { success: true, chain: await t.getChain(projectPath, id, { subtree: Boolean(caller) }) };
    }
    case "chain_search": {
      const id = need("thread_id");
      const denied = caller && id !== caller.thread_id ? await guard([id]) : null;
      if (denied) return denied;
      return { success: true, ...(await t.chainSearch(projectPath, id, need("pattern"), { limit: params.limit ?? 50, ignoreCase: params.ignore_case === true, subtree: Boolean(caller) })) };
    }
    case "read_transcript": {
      const id = need("thread_id");
      const denied = await guard([id]);
      if (denied) return denied;
      return { success: true, thread_id: id, ...(await t.readTranscriptPage(projectPath, id, { offset: params.offset ?? 0, limit: params.limit ?? 100 })) };
    }
    case "cancel_thread": {
      const id = need("thread_id");
      const denied = await guard([id]);
      if (denied) return denied;
      const asked = await t.cancelThread(projectPath, id, { cascade: true, ...(params.reason ? { reason: params.reason } : {}) });
      return { success: true, thread_id: id, cancel_requested: asked };
    }
    case "kill_thread": {
      const id = need("thread_id");
      const denied = await guard([id]);
      if (denied) return denied;
      const cancelled = await t.cancelDescendants(projectPath, id, `parent ${id} was killed`);
      const outcome = await t.killThread(projectPath, id, { graceMs: params.grace_ms ?? 3000, by: caller ? `thread ${caller.thread_id}` : "orchestrator" });
      return { success: true, thread_id: id, status: outcome.record.status, ended_by_itself: outcome.endedByItself, descendants_cancelled: cancelled, ledger: outcome.ledger };
    }
    case "resume_thread": {
      // A new thread (same directive) continues the stopped one from its transcript with the new message; it runs
      // in the background as a child of the calling thread (or a root thread from MCP and the command line).
      const id = need("thread_id");
      const denied = await guard([id]);
      if (denied) return denied;
      const record = await t.readThread(projectPath, id);
      const engine = await sdk.openEngine({ projectPath, env: process.env });
      const started = await engine.execute({
        item_type: "tool",
        item_id: "rye/agent/threads/thread_directive",
        parameters: { directive_name: record.directive, resume_from: id, message: need("message"), async_exec: true, ...(params.model ? { model: params.model } : {}) },
        ...(process.env.RYE_THREAD_PARENT ? { thread_parent: process.env.RYE_THREAD_PARENT } : {}),
      });
      const data = started?.data ?? {};
      if (started?.status === "error" || data.success === false) return { success: false, error: data.error ?? started?.error ?? { code: "INTERNAL", message: "the continuation did not start" } };
      return { success: true, resumed: id, thread_id: data.thread_id, status: data.status };
    }
    case "handoff_thread": {
      // A running thread hands over to a continuation after its current turn (summary + trailing turns).
      const id = need("thread_id");
      const denied = await guard([id]);
      if (denied) return denied;
      const record = await t.readThread(projectPath, id);
      if (record.status !== "running") return refuse(`Thread ${id} is ${record.status}: handoff_thread is for a running thread; continue a stopped one with resume_thread`, "CONFLICT");
      await t.requestHandoff(projectPath, id, { reason: caller ? `asked by thread ${caller.thread_id}` : "asked by the orchestrator" });
      return { success: true, thread_id: id, handoff_requested: true };
    }
    default:
      return refuse(`Unknown operation ${JSON.stringify(params.operation)}`, "BAD_REQUEST");
  }
}
