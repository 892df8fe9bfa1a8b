// rye:signed:2026-11-29T13:41:57Z:4594a36b451dd986776a05254eaa78301e3cd7799338c4af468049854d052401:w_2QnpoHgDdCQww-Gy_9f_Qv9jWw1HgiWALT3LHYqNsJXRXs5bZPHMwHzAVyw-o4W88SMGW3Ap9FJLa9CD4ZDA==:334f126a02990a0c
// @ts-check
/**
 * The one path every tool call of the model takes: name → primary action, capability check (fail-closed,
 * before anything runs), then the engine's search / load / execute / sign in this process. The result goes
 * back to the model as JSON text, capped in size, with failures and denials flagged as errors.
 *
 * Starting a child thread is `rye_execute` of `rye/agent/threads/thread_directive`: the dispatcher hands the
 * parent's context (with its capability token chain) to the engine (`threadParent`), never taking it from the
 * call's parameters; the executor passes it on only to the runtime's own tools. The orchestrator gets it too, so
 * a thread can wait for, read and stop only its own descendants; so does a graph run by the state_graph runtime.
 *
 * Runtime file: imports nothing (the module loader imports the exact bytes it verified).
 */
export const __version__ = "1.0.0";
export const __tool_type__ = "library";
export const __executor_id__ = null;
export const __category__ = "rye/agent/threads";
export const __tool_description__ = "Agent runtime: dispatch of the model's tool calls through the capability check to the engine";

export const THREAD_TOOL_ID = "rye/agent/threads/thread_directive";
const ITEM_TYPES = new Set(["directive", "tool", "knowledge"]);

/**
 * @typedef {{ id: string, name: string, input: Record<string, unknown> }} ToolCall
 * @typedef {{ content: string, isError: boolean, denied?: { required: string, reason: string }, data?: unknown, childThreadId?: string }} CallResult
 */

/** @param {unknown} value @param {number} max */
export function capText(value, max) {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 1) ?? "null";
  const bytes = Buffer.byteLength(text);
  if (bytes <= max) return text;
  // Cut on a character boundary, then say what was cut.
  const cut = Buffer.from(text).subarray(0, max).toString("utf8").replace(/\uFFFD$/, "");
  return `${cut}\n[… ${bytes - Buffer.byteLength(cut)} more bytes cut: the result is longer than ${max} bytes]`;
}

/** The error of a thrown value, as the model should see it. @param {unknown} err */
function errorOf(err) {
  const e = /** @type {{ code?: string, message?: string, hint?: string, details?: unknown }} */ (err ?? {});
  // The security gate's details (tier, matched rules) tell the model what it may not do and why.
  const gate = e.code === "SECURITY_DENIED" || e.code === "APPROVAL_REQUIRED";
  return { status: "error", error: { code: e.code ?? "INTERNAL", message: e.message ?? String(err), ...(e.hint ? { hint: e.hint } : {}), ...(gate && e.details ? { details: e.details } : {}) } };
}

/**
 * @param {{
 *   engine: { search: Function, load: Function, execute: Function, sign: Function },
 *   harness: { check: (p: string, t: string, id?: string) => { allowed: boolean, required: string, reason?: string }, searchFilter: (t: string) => (id: string) => boolean },
 *   maxResultBytes: number,
 *   threadParent: () => string,
 *   authorize?: () => Promise<unknown>,
 *   generation?: number,
 *   approve?: (call: ToolCall, details: Record<string, unknown>, message: string) => Promise<{ decision: string, reason?: string }>,
 *   signal?: AbortSignal,
 * }} deps
 */
export function createDispatcher({ engine, harness, maxResultBytes, threadParent, authorize, generation, approve, signal }) {
  /** @param {string} required @param {string} reason @returns {CallResult} */
  const deny = (required, reason) => ({
    content: JSON.stringify({ status: "denied", error: { code: "FORBIDDEN", message: `Permission denied: ${reason}`, required_capability: required } }),
    isError: true,
    denied: { required, reason },
  });

  /**
   * @param {ToolCall} call
   * @returns {Promise<CallResult>}
   */
  async function dispatch(call) {
    const input = call.input && typeof call.input === "object" && !Array.isArray(call.input) ? call.input : {};
    const m = /^rye_(search|load|execute|sign)$/.exec(call.name);
    if (!m) return { content: JSON.stringify(errorOf({ code: "BAD_REQUEST", message: `Unknown tool ${call.name}: use rye_search, rye_load, rye_execute or rye_sign` })), isError: true };
    const primary = /** @type {string} */ (m[1]);
    const itemType = typeof input.item_type === "string" && ITEM_TYPES.has(input.item_type) ? input.item_type : undefined;
    if (!itemType) return { content: JSON.stringify(errorOf({ code: "BAD_REQUEST", message: "item_type must be directive, tool or knowledge" })), isError: true };
    const itemId = primary === "search" ? undefined : typeof input.item_id === "string" ? input.item_id : "";

    const decision = harness.check(primary, itemType, itemId);
    if (!decision.allowed) return deny(decision.required, decision.reason ?? decision.required);
    // The thread's capability token chain, verified again at every call (signatures, expiry, audience, links).
    if (authorize) {
      try {
        await authorize();
      } catch (err) {
        const e = /** @type {{ code?: string, message?: string }} */ (err ?? {});
        return {
          content: JSON.stringify({ status: "denied", error: { code: e.code ?? "FORBIDDEN", message: `Permission denied: ${e.message ?? String(err)}`, required_capability: decision.required } }),
          isError: true,
          denied: { required: decision.required, reason: `${e.code ?? "FORBIDDEN"}: ${e.message ?? String(err)}` },
        };
      }
    }

    try {
      switch (primary) {
        case "search": {
          const query = typeof input.query === "string" ? input.query : "";
          const limit = typeof input.limit === "number" ? Math.min(50, Math.max(1, Math.floor(input.limit))) : 10;
          const source = typeof input.source === "string" ? input.source : "all";
          const found = await engine.search({ query, item_type: itemType, source, limit });
          const visible = harness.searchFilter(itemType);
          const results = (found.results ?? []).filter((/** @type {{ id: string }} */ r) => visible(r.id));
          return { content: capText({ status: "success", total: results.length, results }, maxResultBytes), isError: false, data: results };
        }
        case "load": {
          const loaded = await engine.load({ item_type: itemType, item_id: itemId, ...(typeof input.source === "string" ? { source: input.source } : {}) });
          return { content: capText(loaded, maxResultBytes), isError: false, data: loaded };
        }
        case "sign": {
          const signed = await engine.sign({ item_type: itemType, item_id: itemId, source: input.source === "user" ? "user" : "project" });
          return { content: capText(signed, maxResultBytes), isError: false, data: signed };
        }
        default: {
          const parameters = input.parameters && typeof input.parameters === "object" && !Array.isArray(input.parameters) ? input.parameters : {};
          const child = itemType === "tool" && itemId === THREAD_TOOL_ID;
          // The executor hands the context on only to the runtime's own tools (thread_directive, orchestrator,
          // and tools run by the state_graph runtime); every other tool runs without it.
          const withContext = itemType === "tool";
          const run = (/** @type {boolean} */ approved) =>
            engine.execute({
              item_type: itemType,
              item_id: itemId,
              parameters,
              dry_run: input.dry_run === true,
              ...(signal ? { signal } : {}),
              ...(withContext ? { thread_parent: threadParent() } : {}),
              // The security gate is stricter for each generation below the root thread (docs/security.md).
              ...(generation !== undefined ? { thread_generation: generation } : {}),
              ...(approved ? { approved: true } : {}),
            });
          let result;
          try {
            result = await run(false);
          } catch (err) {
            // The gate wants a person: ask (the runtime waits for `rye thread approve|deny`), then run or refuse.
            const e = /** @type {{ code?: string, message?: string, details?: Record<string, unknown> }} */ (err ?? {});
            if (e.code !== "APPROVAL_REQUIRED" || !approve) throw err;
            const answer = await approve(call, e.details ?? {}, e.message ?? "");
            if (answer.decision !== "approve") {
              const message = answer.decision === "deny" ? `A person denied this call${answer.reason ? `: ${answer.reason}` : ""}` : `No one approved this call within ${e.details?.approval_timeout_seconds ?? "the"} seconds`;
              return { content: capText(errorOf({ code: "APPROVAL_REQUIRED", message: `${message} (${e.message})`, hint: "Do without this call, or ask the user to run it.", details: { ...(e.details ?? {}), decision: answer.decision } }), maxResultBytes), isError: true };
            }
            result = await run(true);
          }
          const failed = result?.status === "error";
          const data = /** @type {{ data?: { thread_id?: string } }} */ (result).data;
          return {
            content: capText(result, maxResultBytes),
            isError: failed,
            data: result,
            ...(child && typeof data?.thread_id === "string" ? { childThreadId: data.thread_id } : {}),
          };
        }
      }
    } catch (err) {
      return { content: capText(errorOf(err), maxResultBytes), isError: true };
    }
  }

  return { dispatch };
}
