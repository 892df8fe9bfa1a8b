// rye:signed:2026-11-29T13:41:57Z:4e2e3f5e11476b325dbba59ea03a5aa8d911c4831ab7490474eb195d4effc678:xFyCjSq8ibu1dIBgSd-Z7qRkCN9fpY2t-Yl_J6HWx31gp6RXbakD__wd1NLZPcAfesMG9EIQF3tZ42Xg_49qDg==:334f126a02990a0c
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
 * @typedef {{ thread_id: string, project_path: string, depth: number, limits: Record<string, number>, capabilities: string[], token_chain: string[], generation?: number }} ParentContext
 * @typedef {{ directive_name: string, inputs?: Record<string, unknown>, model?: string, async_exec?: boolean, limit_overrides?: Record<string, unknown>, resume_from?: string, message?: string }} ThreadParams
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

/**
 * The security gate's decision on an executed tool call (docs/security.md), from its result: the metadata of a call
 * that ran, or the error of one the gate refused. null for anything else (search, load, a capability denial).
 * @param {{ data?: unknown, content: string, isError: boolean }} result
 */
function securityDecision(result) {
  const ran = obj(obj(obj(result.data).metadata).security);
  if (typeof ran.decision === "string") return { tool: String(obj(result.data).item_id ?? ""), tier: ran.tier, effective_tier: ran.effective_tier, decision: ran.decision };
  if (!result.isError) return null;
  let error = {};
  try {
    error = obj(obj(JSON.parse(result.content)).error);
  } catch {
    return null;
  }
  const e = /** @type {Record<string, any>} */ (error);
  if (e.code !== "SECURITY_DENIED" && e.code !== "APPROVAL_REQUIRED") return null;
  const details = obj(e.details);
  return {
    tool: details.tool ?? null,
    tier: details.tier ?? null,
    effective_tier: details.effective_tier ?? null,
    decision: e.code === "SECURITY_DENIED" ? "deny" : "approval_refused",
    ...(Array.isArray(details.matches) ? { rules: details.matches.map((/** @type {any} */ m) => m.rule) } : {}),
  };
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
 * The cost of the turns a transcript records (the model's replies, replayed ones excluded): what a thread continued
 * after its worker died has spent already.
 * @param {any[]} events
 * @returns {Cost}
 */
export function costFromTranscript(events) {
  /** @type {Cost} */
  const cost = { turns: 0, input_tokens: 0, output_tokens: 0, spend: 0, elapsed_seconds: 0 };
  for (const e of events) {
    if (e.event_type !== "cognition_out" || e.payload?.replayed) continue;
    cost.turns += 1;
    cost.input_tokens += Number(e.payload?.usage?.input ?? 0);
    cost.output_tokens += Number(e.payload?.usage?.output ?? 0);
    cost.spend = Math.round((cost.spend + Number(e.payload?.spend ?? 0)) * 1e9) / 1e9;
  }
  return cost;
}

/**
 * The final answer a transcript ends with, if the thread had it before it died: its last event of the conversation is
 * a reply of the model without tool calls.
 * @param {any[]} events
 * @returns {string | undefined}
 */
export function finalAnswerOf(events) {
  const last = [...events].reverse().find((e) => ["cognition_in", "cognition_out", "tool_call_start", "tool_call_result"].includes(e.event_type));
  if (!last || last.event_type !== "cognition_out" || last.payload?.replayed) return undefined;
  const calls = last.payload?.tool_calls;
  const final = typeof calls === "number" ? calls === 0 : last.payload?.stop_reason !== "tools";
  return final ? String(last.payload?.text ?? "") : undefined;
}

/**
 * Runs one thread to its end and returns its result. Throws only for a refused start before the thread
 * exists (bad parameters, a missing directive); every later failure ends in the record and the result.
 * @param {any} rt
 * `seed` starts a continuation (a handoff) from ready messages; `params.resume_from` continues a stopped thread.
 * @param {{ params: ThreadParams, parent: ParentContext | null, threadId?: string, onStarted?: (record: any) => void | Promise<void>, seed?: { from: string, messages: any[], summarized: boolean } }} request
 */
export async function runThread(rt, { params, parent, threadId, onStarted, seed }) {
  const { sdk, engine, modules, projectPath, env } = rt;
  const { conditions, config, prompt, harness: harnessModule, dispatcher: dispatcherModule, continuation } = modules;
  const continuationConfig = obj(obj(rt.configs.resilience).continuation);
  const configs = rt.configs;
  const resilience = obj(configs.resilience);

  // 1. The directive: verified, inputs validated and applied (the engine's `execute` of a directive).
  const executed = await engine.execute({ item_type: "directive", item_id: params.directive_name, parameters: { inputs: params.inputs ?? {} } });
  const directive = obj(executed.data);
  const itemId = String(executed.item_id ?? params.directive_name);
  const inputs = obj(executed.inputs);

  // resume_thread: the thread continued must have stopped, run this directive, and (for a calling thread) be
  // one of its descendants; its transcript is read now, before anything is written.
  /** @type {{ from: string, events: any[], message: string } | null} */
  let resume = null;
  if (params.resume_from !== undefined && !seed) {
    const from = String(params.resume_from);
    const old = await rt.threads.readThread(projectPath, from).catch(() => null);
    if (!old) throw new ThreadStop("ITEM_NOT_FOUND", `There is no thread ${from} to resume`);
    if (old.status === "running" || old.status === "created") throw new ThreadStop("CONFLICT", `Thread ${from} is ${old.status}: only a stopped thread can be resumed`, { hint: "Wait for it (wait_threads) or cancel it first." });
    if (old.directive !== itemId) throw new ThreadStop("BAD_REQUEST", `Thread ${from} ran ${old.directive}, not ${itemId}`);
    if (old.continued_by) throw new ThreadStop("CONFLICT", `Thread ${from} was already continued by ${old.continued_by}: resume that one`);
    if (parent && !(await rt.threads.descendantIds(projectPath, parent.thread_id)).includes(from)) throw new ThreadStop("FORBIDDEN", `A thread may resume only threads it started (directly or below): ${from} is not among them`);
    resume = { from, events: await rt.threads.readTranscript(projectPath, from), message: String(params.message ?? "").trim() };
  }

  // A durable thread (docs/agent-runtime.md §13) whose worker died, continued by another worker: the same thread id
  // and ledger entry, the conversation rebuilt from its own transcript, so no turn it recorded is asked again.
  /** @type {{ record: any, events: any[] } | null} */
  let recovered = null;
  const prior = threadId && !seed ? await rt.threads.readThread(projectPath, threadId).catch(() => null) : null;
  if (threadId && !seed && env.RYE_THREAD_RECOVER === "1" && prior) {
    if (["completed", "error", "cancelled", "killed", "suspended"].includes(prior.status)) throw new ThreadStop("CONFLICT", `Thread ${threadId} already ended (${prior.status})`);
    await rt.threads.dropPartialTail(projectPath, threadId);
    recovered = { record: prior, events: await rt.threads.readTranscript(projectPath, threadId) };
  }

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

  // 4. The capability token, the record, the transcript and the budget.
  const id = threadId ?? (await rt.threads.allocateThreadId(projectPath, itemId));
  // Signed with the user's key, attenuating the parent's token: the capabilities every dispatch checks are the
  // verified token's, not what any file or variable says (docs/agent-runtime.md §11).
  const tokenGrace = Number(obj(resilience.capability_tokens).expiry_grace_seconds ?? 300);
  const { chain: tokenChain, token } = await rt.threads.mintCapabilityToken(
    { caps: capabilities, directiveId: itemId, threadId: id, expiresInSeconds: limits.duration_seconds + tokenGrace, ...(parent ? { parentChain: parent.token_chain } : {}) },
    env,
  );
  capabilities.splice(0, capabilities.length, ...token.caps);
  // Generations below the root thread (the security gate is stricter for each); a handoff continuation is the
  // same generation as the thread it continues.
  const generation = parent ? Number(parent.generation ?? 0) + (seed ? 0 : 1) : 0;
  // A recovered thread's limits count from its first start: its duration, turns, tokens and spend so far.
  const started = recovered ? Date.parse(recovered.record.created_at) : Date.now();
  const now = () => new Date().toISOString();
  /** @type {Cost} */
  const cost = recovered ? costFromTranscript(recovered.events) : { turns: 0, input_tokens: 0, output_tokens: 0, spend: 0, elapsed_seconds: 0 };
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
    capability_token: token.token_id,
    cost: { ...cost },
    ...(seed || resume ? { continues: seed ? seed.from : resume?.from } : {}),
    ...(recovered ? { created_at: recovered.record.created_at } : {}),
    ...(prior?.durable_job ? { durable_job: prior.durable_job, host: rt.threads.hostname() } : {}),
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
  if (recovered) await emit("thread_recovered", { host: rt.threads.hostname(), pid: process.pid, events: recovered.events.length, turns_done: cost.turns, spend_so_far: cost.spend });
  else await emit("thread_started", { directive: itemId, model, provider: provider.id, limits, capabilities, parent_thread_id: parent?.thread_id ?? null, depth: limits.depth, ...(seed || resume ? { continues: seed ? seed.from : resume?.from } : {}) });
  // The thread continued points to its continuation (so waits and chains can follow it).
  if (resume) await rt.threads.updateThread(projectPath, resume.from, (/** @type {any} */ r) => ({ ...r, continued_by: id }));
  if (onStarted) await onStarted(record);

  const controller = new AbortController();
  const onSignal = () => controller.abort(new ThreadStop("killed", "The thread was stopped by a signal"));
  process.once("SIGTERM", onSignal);
  /** @type {{ status: string, error?: { code: string, message: string }, result?: string, escalation?: unknown }} */
  let outcome = { status: "error", error: { code: "INTERNAL", message: "the thread ended unexpectedly" } };
  let reserved = false;
  const cancelledBeforeStart = () => new ThreadStop("cancelled", "Cancelled on request before the thread started");
  try {
    if (limitError) throw new ThreadStop(limitError, `No depth left below the parent (its depth is ${parent?.depth})`);
    // A parent cancelled while this thread was starting asked it to stop, then released the budget it would draw on.
    if (await rt.threads.isCancelRequested(projectPath, id)) throw cancelledBeforeStart();
    // A recovered thread keeps the reservation it made when it first started (its spend so far is in it).
    const held = recovered ? await rt.threads.getEntry(projectPath, id) : undefined;
    if (held?.status === "released") throw new ThreadStop("recovery_failed", `Thread ${id} had released its budget before its worker died: it had ended, and how was lost with the worker`);
    if (held) {
      reserved = true;
      limits.spend = held.reserved_spend;
    } else {
      // A child takes its spend limit from what its parent has left, never more (and may be given less); the
      // ledger checks the parent's spawn limit first and clamps the amount in one locked step.
      try {
        const maxThreads = obj(resilience.concurrency).max_threads;
        const request = {
          threadId: id,
          amount: limits.spend,
          parentId: parent?.thread_id,
          maxSpawns: parent && !seed ? parent.limits.spawns : undefined,
          upTo: Boolean(parent),
          ...(typeof maxThreads === "number" ? { maxActive: maxThreads } : {}),
        };
        // At the cap, threads whose process died still hold reservations: mark them orphaned, then try once more.
        const entry = await rt.threads.reserve(projectPath, request).catch(async (/** @type {any} */ err) => {
          if (err?.details?.limit_code !== "threads_exceeded" || (await rt.threads.reapOrphans(projectPath)).length === 0) throw err;
          return rt.threads.reserve(projectPath, request);
        });
        reserved = true;
        limits.spend = entry.reserved_spend;
      } catch (err) {
        // The cancel marker is written before a cancelled parent releases its budget: a refusal that races with it is a cancellation.
        if (await rt.threads.isCancelRequested(projectPath, id)) throw cancelledBeforeStart();
        const details = obj(obj(err).details);
        const code = typeof details.limit_code === "string" ? details.limit_code : "spend_exceeded";
        const message = code === "spend_exceeded" && parent ? `No budget left: the parent thread ${parent.thread_id} has nothing left to give` : obj(err).message ?? String(err);
        throw new ThreadStop(code, message, details);
      }
    }
    await rt.threads.updateThread(projectPath, id, (/** @type {any} */ r) => ({ ...r, limits: { ...limits } }));

    const harness = harnessModule.createHarness({ capabilities, limits, hooks, capabilityFns: rt.capabilityFns, evaluate: conditions.evaluate });
    const threadParent = () => JSON.stringify({ thread_id: id, project_path: projectPath, depth: limits.depth, limits, capabilities, token_chain: tokenChain, generation });
    const dispatcher = dispatcherModule.createDispatcher({
      engine,
      harness,
      authorize: () => rt.threads.verifyCapabilityChain(tokenChain, id, env),
      generation,
      maxResultBytes: Number(obj(resilience.llm).tool_result_max_bytes ?? 32768),
      threadParent,
      // A call the security gate says needs a person: the request is written, the thread waits for
      // `rye thread approve|deny` (a decision signed with the user's key) or the policy's timeout.
      approve: async (/** @type {any} */ call, /** @type {Record<string, any>} */ details, /** @type {string} */ message) => {
        const requestId = rt.threads.requestIdFor(String(call.id));
        const timeoutSeconds = Number(details.approval_timeout_seconds ?? 60);
        const requestedAt = new Date();
        await rt.threads.writeApprovalRequest(projectPath, {
          request_id: requestId,
          thread_id: id,
          tool: String(details.tool ?? call.input?.item_id ?? call.name),
          tier: String(details.tier ?? "?"),
          effective_tier: String(details.effective_tier ?? "?"),
          reason: message,
          parameters: JSON.stringify(call.input?.parameters ?? {}).slice(0, 2000),
          requested_at: requestedAt.toISOString(),
          expires_at: new Date(requestedAt.getTime() + timeoutSeconds * 1000).toISOString(),
        });
        await emit("approval_requested", { request_id: requestId, call_id: call.id, tool: details.tool ?? null, effective_tier: details.effective_tier ?? null, reason: message, timeout_seconds: timeoutSeconds });
        await rt.threads.updateThread(projectPath, id, (/** @type {any} */ r) => ({ ...r, awaiting_approval: { request_id: requestId, tool: details.tool ?? null, since: requestedAt.toISOString() } }));
        const answer = await rt.threads.awaitApproval(projectPath, id, requestId, { timeoutMs: timeoutSeconds * 1000, signal: controller.signal, env });
        await rt.threads.updateThread(projectPath, id, (/** @type {any} */ r) => {
          const { awaiting_approval: _done, ...rest } = r;
          return rest;
        });
        await emit("approval_decided", { request_id: requestId, decision: answer.decision, ...(answer.by ? { by: answer.by } : {}), ...(answer.reason ? { reason: answer.reason } : {}) });
        return answer;
      },
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

    const prompts = obj(configs.prompts);
    const system = String(prompts.system ?? "");
    const ceiling = Number(continuationConfig.resume_ceiling_tokens ?? 16000);
    /**
     * The summary of `older` by the summary directive (a system directive; a project overrides it): one LLM call
     * without tools, on the summary model of this thread's provider, charged to this thread.
     * @param {any[]} older
     */
    const summarize = async (older) => {
      const summaryId = String(continuationConfig.summary_directive ?? "rye/agent/threads/thread_summary");
      const conversation = continuation.renderConversation(older, Number(continuationConfig.summary_input_max_chars ?? 400000));
      const loaded = await engine.execute({ item_type: "directive", item_id: summaryId, parameters: { inputs: { conversation } } });
      const ask = prompt.firstMessage({ directive: obj(loaded.data), itemId: summaryId, inputs: {}, context: [], directiveKey: "" });
      const summaryModel = provider.resolveModel(String(continuationConfig.summary_model ?? "fast")) ?? model;
      const reply = await provider.complete({ model: summaryModel, system, messages: [{ role: "user", content: ask }], maxTokens: Number(continuationConfig.summary_max_tokens ?? 4000), signal: controller.signal });
      cost.input_tokens += reply.usage.input ?? 0;
      cost.output_tokens += reply.usage.output ?? 0;
      cost.spend = Math.round((cost.spend + reply.spend) * 1e9) / 1e9;
      if (reply.spend > 0) await rt.threads.report(projectPath, id, reply.spend);
      await emit("summary_written", { directive: summaryId, model: summaryModel, messages_summarised: older.length, text: reply.text, usage: reply.usage });
      return String(reply.text ?? "");
    };
    /**
     * The messages a continuation starts from: the whole conversation when it fits the ceiling, else the task,
     * a summary of the older turns and the trailing turns that fit half the ceiling.
     * @param {any[]} conversationSoFar @param {string} fromThread @param {string} [message] @param {boolean} [forceSummary]
     */
    const compress = async (conversationSoFar, fromThread, message, forceSummary = false) => {
      if (!forceSummary && continuation.estimateTokens(conversationSoFar) <= ceiling) {
        const all = conversationSoFar.slice(1);
        return { summarized: false, messages: continuation.continuationMessages({ task: String(conversationSoFar[0]?.content ?? ""), summary: null, trailing: all, ...(message ? { message } : {}), fromThread }) };
      }
      const trailing = continuation.trailingTurns(conversationSoFar.slice(1), Math.floor(ceiling / 2));
      const older = conversationSoFar.slice(0, conversationSoFar.length - trailing.length);
      const summary = await summarize(older);
      return { summarized: true, messages: continuation.continuationMessages({ task: String(conversationSoFar[0]?.content ?? ""), summary, trailing, ...(message ? { message } : {}), fromThread }) };
    };
    /** Writes seeded messages to the transcript as events, so this thread's own transcript rebuilds the same conversation. */
    const replay = async (/** @type {any[]} */ seeded) => {
      for (const m of seeded) {
        if (m.role === "user") await emit("cognition_in", { role: "user", text: m.content, replayed: true });
        else if (m.role === "assistant") {
          await emit("cognition_out", { text: m.content, replayed: true });
          for (const call of m.tool_calls ?? []) await emit("tool_call_start", { tool: call.name, call_id: call.id, input: call.input, replayed: true });
        } else await emit("tool_call_result", { call_id: m.tool_call_id, output: m.content, error: m.is_error, replayed: true });
      }
    };

    // 5. The first message: thread_started hooks give context, then the directive; a continuation starts from
    // the conversation it continues instead.
    /** @type {any[]} */
    let messages;
    if (recovered && continuation.rebuildMessages(recovered.events).length > 0) {
      messages = continuation.rebuildMessages(recovered.events);
      // The model's last reply asked for tools whose calls were never recorded: it decides again.
      if (messages[messages.length - 1]?.role === "assistant" && finalAnswerOf(recovered.events) === undefined) messages.push({ role: "user", content: "Continue the task." });
    } else if (seed || resume) {
      const continued = seed
        ? { summarized: seed.summarized, messages: seed.messages }
        : await compress(continuation.rebuildMessages(resume?.events ?? []), String(resume?.from), resume?.message, false);
      messages = continued.messages;
      await emit("thread_continued", { from: seed ? seed.from : resume?.from, kind: seed ? "handoff" : "resume", summarized: continued.summarized, messages: messages.length, estimated_tokens: continuation.estimateTokens(messages) });
      await replay(messages);
    } else {
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
    const first = prompt.firstMessage({ directive, itemId, inputs, context, directiveKey: String(prompts.directive_key ?? "") });
    messages = [{ role: "user", content: first }];
    await emit("cognition_in", { role: "user", text: first });
    }

    const maxTokens = Number(obj(resilience.llm).max_tokens ?? 4096);
    const maxRetries = Number(obj(resilience.retry).max_retries ?? 3);
    const errorConfig = obj(configs.error_classification);
    const deadline = setTimeout(() => controller.abort(new ThreadStop("duration_seconds_exceeded", `The thread ran past its duration limit of ${limits.duration_seconds} s`, { limit_code: "duration_seconds_exceeded", current_value: limits.duration_seconds, current_max: limits.duration_seconds })), Math.max(0, limits.duration_seconds * 1000 - (Date.now() - started)));
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
    /** @typedef {{ reason: string, context_tokens: number, context_window: number, threshold: number }} HandoffReason */
    /** @type {HandoffReason | null} */
    let handoff = null;
    /**
     * The handoff: the conversation compressed (a summary of the older turns, the trailing turns under the
     * ceiling), then a continuation thread (this thread's child, same directive, same depth, what is left of
     * every limit) runs to its end in this process; its outcome is this thread's.
     * @param {HandoffReason} why
     */
    const handOver = async (why) => {
      const compressed = await compress(messages, id, undefined, true);
      tick();
      const left = Math.max(0, limits.spend - (await spentWithChildren()));
      const overrides = {
        turns: Math.max(1, limits.turns - cost.turns),
        tokens: Math.max(1, limits.tokens - cost.input_tokens - cost.output_tokens),
        spend: left,
        spawns: limits.spawns,
        depth: limits.depth,
        duration_seconds: Math.max(1, Math.floor(limits.duration_seconds - cost.elapsed_seconds)),
      };
      const self = { thread_id: id, project_path: projectPath, depth: limits.depth + 1, limits: { ...limits, ...overrides, depth: limits.depth + 1 }, capabilities, token_chain: tokenChain, generation };
      const nextId = await rt.threads.allocateThreadId(projectPath, itemId);
      await emit("thread_handoff", { ...why, continuation_thread_id: nextId, summarized: compressed.summarized, messages: compressed.messages.length });
      await rt.threads.updateThread(projectPath, id, (/** @type {any} */ r) => ({ ...r, continued_by: nextId }));
      const result = await runThread(rt, { params: { ...params, resume_from: undefined, limit_overrides: overrides }, parent: self, threadId: nextId, seed: { from: id, messages: compressed.messages, summarized: compressed.summarized } });
      const status = String(result.status);
      return {
        outcome: status === "completed"
          ? { status: "completed", result: result.result }
          : { status, error: { code: String(result.error_code ?? status), message: `The continuation ${nextId} ended ${status}: ${result.error ?? ""}`.trim() } },
      };
    };

    // A recovered thread that had its final answer before its worker died ends with it (no LLM call).
    const answered = recovered ? finalAnswerOf(recovered.events) : undefined;
    try {
      if (answered !== undefined) outcome = { status: "completed", result: answered };
      else for (;;) {
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
        await emit("cognition_out", { text: response.text, model: response.model ?? model, stop_reason: response.stopReason, tool_calls: response.toolCalls.length, usage: response.usage, spend: response.spend });
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
            const decision = securityDecision(result);
            if (decision) await emit("security_decision", { call_id: call.id, ...decision });
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

        // Near the model's context window (or asked to: handoff_thread), hand over to a continuation thread.
        const windows = obj(continuationConfig.context_windows);
        const window = Number(windows[model] ?? continuationConfig.default_context_window ?? 200000);
        const contextTokens = (response.usage.input ?? 0) + (response.usage.cache_read ?? 0) + (response.usage.cache_write ?? 0) + (response.usage.output ?? 0);
        const threshold = Number(continuationConfig.trigger_threshold ?? 0.9);
        const asked = await rt.threads.isHandoffRequested(projectPath, id);
        if (asked || contextTokens >= threshold * window) {
          handoff = { reason: asked ? "requested" : "context_window", context_tokens: contextTokens, context_window: window, threshold };
          break;
        }
      }
      if (handoff !== null) {
        const next = await handOver(/** @type {HandoffReason} */ (handoff));
        outcome = next.outcome;
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
