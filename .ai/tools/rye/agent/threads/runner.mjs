// rye:signed:2026-11-25T12:36:23Z:c274b6d0ecac6b1936930a8327e5d6e6090b565ad41473d4232c416d9528de6f:-0tadWia4kUKqfI4q2SI5mmBKYlV7I4JjcseTgTY-R_5Ana5bK_so4uNih7qelNZdHaQDdmtUBl9QuRpziZ-Bg==:d0cfc94e6739114a
// @ts-check
/**
 * A thread, start to end: resolve the directive, capabilities, limits, model and budget; write the record;
 * run the loop (limits → cancellation → LLM call → tool calls through the dispatcher → after_step hooks);
 * settle the budget and write the final record. See docs/agent-runtime.md.
 *
 * Runtime file: imports nothing (the module loader imports the exact bytes it verified). Everything it uses
 * arrives in `rt` (built by thread_directive.mjs from the SDK and the other runtime modules).
 */
export const __version__ = "1.0.0";
export const __tool_type__ = "library";
export const __executor_id__ = null;
export const __category__ = "rye/agent/threads";
export const __tool_description__ = "Agent runtime: the thread loop (limits, LLM calls, tool dispatch, hooks, budget)";

/**
 * @typedef {{ turns: number, input_tokens: number, output_tokens: number, spend: number, elapsed_seconds: number }} Cost
 * @typedef {{ thread_id: string, project_path: string, depth: number, limits: Record<string, number>, capabilities: string[] }} ParentContext
 * @typedef {{ directive_name: string, inputs?: Record<string, unknown>, model?: string, async_exec?: boolean, limit_overrides?: Record<string, unknown> }} ThreadParams
 */

/** A failure that ends the thread with a code (a limit, a refused start). */
export class ThreadStop extends Error {
  /** @param {string} code @param {string} message @param {Record<string, unknown>} [extra] */
  constructor(code, message, extra = {}) {
    super(message);
    this.code = code;
    this.extra = extra;
  }
}

/** @param {number} ms @param {AbortSignal} [signal] */
function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(undefined);
    }, { once: true });
  });
}

/** @param {unknown} v @returns {Record<string, any>} */
const obj = (v) => (v && typeof v === "object" && !Array.isArray(v) ? /** @type {Record<string, any>} */ (v) : {});

/**
 * The secrets a transcript must never contain: the values of environment variables that look like keys.
 * @param {Record<string, string | undefined>} env
 */
function secretValues(env) {
  return Object.entries(env)
    .filter(([k, v]) => typeof v === "string" && v.length >= 8 && /(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)/i.test(k))
    .map(([, v]) => /** @type {string} */ (v));
}

/**
 * Picks the provider and model: `model` is a tier or a model id; a provider named by the directive wins; among
 * the others the first (project > user > system, then by name) whose API key is set.
 * @param {any[]} providers
 * @param {string} model
 * @param {string | undefined} preferred
 */
export function selectProvider(providers, model, preferred) {
  const candidates = providers.filter((p) => p.resolveModel(model) && (!preferred || p.id === preferred));
  if (candidates.length === 0) {
    const tiers = [...new Set(providers.flatMap((p) => Object.keys(p.tiers ?? {})))].sort();
    throw new ThreadStop("MODEL_NOT_FOUND", `No provider serves the model or tier ${JSON.stringify(model)}${preferred ? ` (provider ${preferred})` : ""}`, { hint: `Tiers: ${tiers.join(", ") || "none"}; or a model id listed by a provider in .ai/tools/rye/agent/providers/.` });
  }
  const ready = candidates.find((p) => p.apiKeyPresent());
  if (!ready) {
    throw new ThreadStop("PROVIDER_UNAVAILABLE", `No provider for ${JSON.stringify(model)} has its API key set`, { hint: `Set the key of one of: ${candidates.map((p) => `${p.id} (${p.keyVariable ?? "see its YAML"})`).join(", ")}.` });
  }
  return { provider: ready, model: /** @type {string} */ (ready.resolveModel(model)) };
}

/**
 * Runs one thread to its end and returns its result. Throws only for a refused start before the thread
 * exists (bad parameters, a missing directive); every later failure ends in the record and the result.
 * @param {any} rt
 * @param {{ params: ThreadParams, parent: ParentContext | null, threadId?: string, onStarted?: (record: any) => void | Promise<void> }} request
 */
export async function runThread(rt, { params, parent, threadId, onStarted }) {
  const { sdk, engine, modules, projectPath, env } = rt;
  const { conditions, config, prompt, harness: harnessModule, dispatcher: dispatcherModule } = modules;
  const configs = rt.configs;
  const resilience = obj(configs.resilience);

  // 1. The directive: verified, inputs validated and applied (the engine's `execute` of a directive).
  const executed = await engine.execute({ item_type: "directive", item_id: params.directive_name, parameters: { inputs: params.inputs ?? {} } });
  const directive = obj(executed.data);
  const itemId = String(executed.item_id ?? params.directive_name);
  const inputs = obj(executed.inputs);

  // 2. Capabilities (never wider than the parent's), limits (capped by the parent's), hooks.
  const own = Array.isArray(directive.capabilities) ? directive.capabilities.map(String) : [];
  const capabilities = parent ? rt.capabilityFns.intersectCapabilities(own, parent.capabilities) : own;
  const { limits, error: limitError } = config.resolveLimits(obj(obj(resilience.limits).defaults), obj(directive.limits), obj(params.limit_overrides), parent ? parent.limits : null);
  const hooks = [
    ...(Array.isArray(directive.hook_rules) ? directive.hook_rules : []),
    ...(Array.isArray(obj(configs.hook_conditions).builtin_hooks) ? obj(configs.hook_conditions).builtin_hooks : []),
  ];

  // 3. Provider and model.
  const modelSpec = obj(directive.model);
  const wanted = params.model ?? modelSpec.id ?? modelSpec.tier ?? modelSpec.content ?? "general";
  const { provider, model } = selectProvider(rt.providers, String(wanted), typeof modelSpec.provider === "string" ? modelSpec.provider : undefined);

  // 4. The record, the transcript and the budget.
  const id = threadId ?? (await rt.threads.allocateThreadId(projectPath, itemId));
  const started = Date.now();
  const now = () => new Date().toISOString();
  /** @type {Cost} */
  const cost = { turns: 0, input_tokens: 0, output_tokens: 0, spend: 0, elapsed_seconds: 0 };
  const record = rt.threads.newThreadRecord({
    thread_id: id,
    directive: itemId,
    status: "running",
    model,
    provider: provider.id,
    pid: process.pid,
    parent_thread_id: parent?.thread_id ?? null,
    depth: Math.max(0, limits.depth),
    limits,
    capabilities,
    cost: { ...cost },
  });
  await rt.threads.writeThread(projectPath, record);
  const transcript = new rt.threads.TranscriptWriter(projectPath, id, { secrets: secretValues(env) });
  const events = obj(obj(configs.events).event_types);
  /**
   * Critical events are awaited (a failed write stops the thread); droppable ones (deltas) are not.
   * @param {string} type @param {Record<string, unknown>} payload
   */
  const emit = async (type, payload) => {
    const written = transcript.append(type, payload);
    if (obj(events[type]).criticality === "droppable") written.catch(() => undefined);
    else await written;
  };
  await emit("thread_started", { directive: itemId, model, provider: provider.id, limits, capabilities, parent_thread_id: parent?.thread_id ?? null, depth: limits.depth });
  if (onStarted) await onStarted(record);

  const controller = new AbortController();
  const onSignal = () => controller.abort(new ThreadStop("killed", "The thread was stopped by a signal"));
  process.once("SIGTERM", onSignal);
  /** @type {{ status: string, error?: { code: string, message: string }, result?: string, escalation?: unknown }} */
  let outcome = { status: "error", error: { code: "INTERNAL", message: "the thread ended unexpectedly" } };
  let reserved = false;
  try {
    if (limitError) throw new ThreadStop(limitError, `No depth left below the parent (its depth is ${parent?.depth})`);
    // A child takes its spend limit from what its parent has left, never more (and may be given less); the
    // ledger checks the parent's spawn limit first and clamps the amount in one locked step.
    try {
      const entry = await rt.threads.reserve(projectPath, { threadId: id, amount: limits.spend, parentId: parent?.thread_id, maxSpawns: parent ? parent.limits.spawns : undefined, upTo: Boolean(parent) });
      reserved = true;
      limits.spend = entry.reserved_spend;
    } catch (err) {
      const details = obj(obj(err).details);
      const code = typeof details.limit_code === "string" ? details.limit_code : "spend_exceeded";
      const message = code === "spend_exceeded" && parent ? `No budget left: the parent thread ${parent.thread_id} has nothing left to give` : obj(err).message ?? String(err);
      throw new ThreadStop(code, message, details);
    }
    await rt.threads.updateThread(projectPath, id, (/** @type {any} */ r) => ({ ...r, limits: { ...limits } }));

    const harness = harnessModule.createHarness({ capabilities, limits, hooks, capabilityFns: rt.capabilityFns, evaluate: conditions.evaluate });
    const threadParent = () => JSON.stringify({ thread_id: id, project_path: projectPath, depth: limits.depth, limits, capabilities });
    const dispatcher = dispatcherModule.createDispatcher({
      engine,
      harness,
      maxResultBytes: Number(obj(resilience.llm).tool_result_max_bytes ?? 32768),
      threadParent,
      signal: controller.signal,
    });

    /** Runs the primary action of a hook through the dispatcher (capability-checked); control actions are returned. */
    const runHook = async (/** @type {any} */ hook, /** @type {Record<string, unknown>} */ context) => {
      const action = obj(conditions.interpolate(hook.action, context));
      await emit("hook_fired", { hook_id: hook.id, event: hook.event, action: action.control ?? `${action.primary} ${action.item_type} ${action.item_id ?? action.query ?? ""}`.trim() });
      if (typeof action.control === "string") return { control: action };
      // The original's control tool id runs as a control action here, never as a tool.
      if (action.item_id === "rye/agent/threads/internal/control") return { control: { ...obj(action.params), control: obj(action.params).action } };
      /** @type {Record<string, unknown>} */
      const input = { item_type: action.item_type, ...(action.item_id ? { item_id: action.item_id } : {}), ...(action.query ? { query: action.query } : {}) };
      if (action.primary === "execute") input.parameters = obj(action.params);
      return { result: await dispatcher.dispatch({ id: `hook:${hook.id}`, name: `rye_${action.primary}`, input }) };
    };

    // 5. The first message: thread_started hooks give context, then the directive.
    /** @type {{ id: string, text: string }[]} */
    const context = [];
    for (const hook of harness.hooksFor("thread_started", { directive: itemId, model, limits, inputs })) {
      const ran = await runHook(hook, { directive: itemId, model, limits, inputs });
      if (!ran.result) continue;
      if (ran.result.isError) throw new ThreadStop("HOOK_FAILED", `The thread_started hook ${hook.id} failed: ${ran.result.content.slice(0, 500)}`);
      const data = obj(ran.result.data);
      const body = data.content ?? obj(data.data).body ?? obj(data.data).raw ?? ran.result.content;
      context.push({ id: hook.action?.item_id ?? hook.id, text: String(body) });
      await emit("context_loaded", { hook_id: hook.id, item_id: hook.action?.item_id ?? null, bytes: String(body).length });
    }
    const prompts = obj(configs.prompts);
    const first = prompt.firstMessage({ directive, itemId, inputs, context, directiveKey: String(prompts.directive_key ?? "") });
    /** @type {any[]} */
    const messages = [{ role: "user", content: first }];
    await emit("cognition_in", { role: "user", text: first });

    const system = String(prompts.system ?? "");
    const maxTokens = Number(obj(resilience.llm).max_tokens ?? 4096);
    const maxRetries = Number(obj(resilience.retry).max_retries ?? 3);
    const errorConfig = obj(configs.error_classification);
    const deadline = setTimeout(() => controller.abort(new ThreadStop("duration_seconds_exceeded", `The thread ran past its duration limit of ${limits.duration_seconds} s`, { limit_code: "duration_seconds_exceeded", current_value: limits.duration_seconds, current_max: limits.duration_seconds })), limits.duration_seconds * 1000);
    const cancelWatch = setInterval(() => {
      rt.threads.isCancelRequested(projectPath, id).then((/** @type {boolean} */ yes) => {
        if (yes) controller.abort(new ThreadStop("cancelled", "Cancelled on request"));
      }, () => undefined);
    }, 250);
    const tick = () => {
      cost.elapsed_seconds = Math.round((Date.now() - started) / 10) / 100;
    };
    /** A limit hit: the limit hooks may escalate (the thread stops as suspended); it always stops. */
    const stopForLimit = async (/** @type {{ limit_code: string, current_value: number, current_max: number }} */ hit) => {
      await emit("limit_exceeded", hit);
      for (const hook of harness.hooksFor("limit", hit)) {
        const ran = await runHook(hook, hit);
        if (ran.control?.control === "escalate") throw new ThreadStop("suspended", `${hit.limit_code}: escalated for approval`, { escalation: hit });
      }
      throw new ThreadStop(hit.limit_code, `The thread reached its ${hit.limit_code.replace(/_exceeded$/, "")} limit (${hit.current_value} of ${hit.current_max})`, { limit: hit });
    };
    const spentWithChildren = async () => {
      const entry = await rt.threads.getEntry(projectPath, id);
      return entry ? entry.actual_spend : cost.spend;
    };

    try {
      for (;;) {
        tick();
        const before = harness.exceeded(cost, { before: true, spentIncludingChildren: await spentWithChildren() });
        if (before) await stopForLimit(before);
        if (controller.signal.aborted) throw controller.signal.reason;
        cost.turns += 1;

        // The LLM call, retried on retryable errors as the classification and the error hooks say.
        let response;
        for (let attempt = 0; ; attempt++) {
          try {
            response = await provider.complete({
              model,
              system,
              messages,
              tools: prompt.PRIMARY_TOOLS,
              maxTokens,
              signal: controller.signal,
              onDelta: (/** @type {{ type: string, text?: string }} */ d) => {
                if (d.type === "text" && d.text) emit("cognition_out_delta", { text: d.text });
              },
            });
            break;
          } catch (err) {
            if (controller.signal.aborted) throw controller.signal.reason;
            const e = obj(err);
            const errorContext = { status_code: e.status ?? null, headers: obj(e.headers), error: { type: e.type ?? e.name ?? "Error", message: e.message ?? String(err), code: e.code ?? null } };
            const classification = config.classifyError(errorConfig, errorContext, conditions.evaluate);
            await emit("error_classified", { error_code: classification.code ?? null, category: classification.category, retryable: classification.retryable, status_code: errorContext.status_code, message: errorContext.error.message });
            const hookContext = { ...errorContext, classification, attempt };
            let control = null;
            for (const hook of harness.hooksFor("error", hookContext)) {
              const ran = await runHook(hook, hookContext);
              if (ran.control) {
                control = ran.control;
                break;
              }
            }
            const action = control?.control;
            if (action === "retry" && classification.retryable && attempt < maxRetries) {
              const policy = classification.retry_policy ?? obj(obj(obj(resilience.retry).policies).exponential);
              const delay = Math.max(e.retryAfterMs ?? 0, config.retryDelayMs(policy, attempt, obj(e.headers)) ?? 0);
              await emit("llm_retry", { attempt: attempt + 1, delay_ms: delay, category: classification.category });
              await sleep(Math.min(delay, 120_000), controller.signal);
              if (controller.signal.aborted) throw controller.signal.reason;
              continue;
            }
            if (action === "abort") throw new ThreadStop("cancelled", errorContext.error.message);
            throw new ThreadStop(classification.code ? `llm_${classification.code}` : "llm_error", `The LLM call failed: ${errorContext.error.message}`, { category: classification.category, status_code: errorContext.status_code });
          }
        }

        cost.input_tokens += response.usage.input ?? 0;
        cost.output_tokens += response.usage.output ?? 0;
        cost.spend = Math.round((cost.spend + response.spend) * 1e9) / 1e9;
        if (response.spend > 0) await rt.threads.report(projectPath, id, response.spend);
        tick();
        await emit("cognition_out", { text: response.text, model: response.model ?? model, stop_reason: response.stopReason, usage: response.usage, spend: response.spend });
        await rt.threads.updateThread(projectPath, id, (/** @type {any} */ r) => ({ ...r, cost: { ...cost }, updated_at: now() }));

        const after = harness.exceeded(cost, { spentIncludingChildren: await spentWithChildren() });
        if (response.toolCalls.length === 0) {
          outcome = { status: "completed", result: response.text };
          break;
        }
        if (after) await stopForLimit(after);
        messages.push({ role: "assistant", content: response.text, tool_calls: response.toolCalls });

        // The calls of one reply are independent (the APIs' parallel tool use): up to `parallel_tool_calls` run
        // at once; every call passes the same capability check; results go back in the order of the calls.
        const width = Math.max(1, Math.floor(Number(obj(resilience.llm).parallel_tool_calls ?? 1)));
        /** @type {any[]} */
        const results = new Array(response.toolCalls.length);
        let next = 0;
        const worker = async () => {
          while (next < response.toolCalls.length) {
            const index = next++;
            const call = response.toolCalls[index];
            await emit("tool_call_start", { tool: call.name, call_id: call.id, input: call.input });
            const startedCall = Date.now();
            const result = await dispatcher.dispatch(call);
            if (result.denied) await emit("tool_call_denied", { tool: call.name, call_id: call.id, required_capability: result.denied.required, reason: result.denied.reason });
            if (result.childThreadId) await emit("child_thread_started", { child_thread_id: result.childThreadId });
            await emit("tool_call_result", { call_id: call.id, output: result.content, error: result.isError, duration_ms: Date.now() - startedCall });
            results[index] = result;
          }
        };
        await Promise.all(Array.from({ length: Math.min(width, response.toolCalls.length) }, worker));
        response.toolCalls.forEach((/** @type {any} */ call, /** @type {number} */ index) => {
          messages.push({ role: "tool", tool_call_id: call.id, content: results[index].content, is_error: results[index].isError });
        });
        if (controller.signal.aborted) throw controller.signal.reason;
        tick();
        for (const hook of harness.hooksFor("after_step", { cost, thread_id: id })) {
          const ran = await runHook(hook, { cost, thread_id: id });
          if (ran.control?.control === "abort" || ran.control?.control === "fail") throw new ThreadStop("HOOK_STOPPED", `The after_step hook ${hook.id} stopped the thread`);
        }
        if (await rt.threads.isCancelRequested(projectPath, id)) throw new ThreadStop("cancelled", "Cancelled on request");
      }
    } finally {
      clearTimeout(deadline);
      clearInterval(cancelWatch);
    }
  } catch (err) {
    const e = /** @type {any} */ (err);
    if (e instanceof ThreadStop || (e && typeof e.code === "string" && "extra" in e)) {
      // A limit that interrupted a call (the duration timer) is recorded like the others.
      if (e.code === "duration_seconds_exceeded") await emit("limit_exceeded", { limit_code: e.code, current_value: e.extra.current_value, current_max: e.extra.current_max }).catch(() => undefined);
      if (e.code === "cancelled") outcome = { status: "cancelled", error: { code: "cancelled", message: e.message } };
      else if (e.code === "killed") outcome = { status: "killed", error: { code: "killed", message: e.message } };
      else if (e.code === "suspended") outcome = { status: "suspended", error: { code: String(e.extra.escalation?.limit_code ?? "escalated"), message: e.message }, escalation: e.extra.escalation };
      else outcome = { status: "error", error: { code: e.code, message: e.message } };
    } else {
      outcome = { status: "error", error: { code: typeof e?.code === "string" ? e.code : "INTERNAL", message: e?.message ?? String(err) } };
    }
  } finally {
    process.removeListener("SIGTERM", onSignal);
  }

  // The child policy: a cancelled or killed thread asks its running descendants to stop too.
  if ((outcome.status === "cancelled" || outcome.status === "killed") && obj(resilience.child_policy).on_parent_cancel === "cascade_cancel") {
    const asked = await rt.threads.cancelDescendants(projectPath, id, `parent ${id} was ${outcome.status}`).catch(() => []);
    if (asked.length > 0) await emit("children_cancelled", { thread_ids: asked }).catch(() => undefined);
  }

  // 6. Settle: spend stays reported; the reservation is released (cascading actual spend to the parent).
  cost.elapsed_seconds = Math.round((Date.now() - started) / 10) / 100;
  if (reserved) await rt.threads.release(projectPath, id);
  const closing = outcome.status === "completed" ? "thread_completed" : outcome.status === "cancelled" ? "thread_cancelled" : outcome.status === "killed" ? "thread_killed" : outcome.status === "suspended" ? "thread_suspended" : "thread_error";
  await emit(closing, { cost: { ...cost }, ...(outcome.error ? { error: outcome.error } : {}), ...(outcome.result !== undefined ? { result: outcome.result } : {}) });
  const final = await rt.threads
    .finishThread(projectPath, id, outcome.status, {
      cost: { ...cost },
      ...(outcome.result !== undefined ? { result: outcome.result } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
      ...(outcome.escalation ? { escalation: outcome.escalation } : {}),
    })
    .catch((/** @type {any} */ err) => (err?.code === "CONFLICT" ? rt.threads.readThread(projectPath, id) : Promise.reject(err)));
  await transcript.close();
  return {
    success: outcome.status === "completed",
    status: outcome.status,
    thread_id: id,
    directive: itemId,
    model,
    provider: provider.id,
    cost: { ...cost },
    ...(outcome.result !== undefined ? { result: outcome.result } : {}),
    ...(outcome.error ? { error: outcome.error.message, error_code: outcome.error.code } : {}),
    ...(outcome.escalation ? { escalation: outcome.escalation } : {}),
    ...(final?.parent_thread_id ? { parent_thread_id: final.parent_thread_id } : {}),
  };
}
