// rye:signed:2026-11-29T13:41:57Z:566acffbbe1560aeade6078510e839050bcf258ee93e68e3721dca00416145de:JnzxM3o6dzTd-sWVK1Wjr4FCSkMfVWPuaTkNgG_YdWaCsOpo07P6tB4GCkVSLUmZ_sowOEQSFSd_YmmQZQZaDw==:334f126a02990a0c
// @ts-check
/**
 * Continuing a thread in a new one (docs/agent-runtime.md §12): the conversation rebuilt from a transcript, its
 * size estimated, the trailing turns that fit a token ceiling, and the summary of the rest written by the LLM
 * under the summary directive. Used by a handoff (a thread near its model's context window hands over to a
 * continuation thread) and by resume_thread (a stopped thread continued with a new message).
 *
 * Runtime file: imports nothing (the module loader imports the exact bytes it verified).
 */
export const __version__ = "1.0.0";
export const __tool_type__ = "library";
export const __executor_id__ = null;
export const __category__ = "rye/agent/threads";
export const __tool_description__ = "Agent runtime: conversations rebuilt from transcripts, trailing turns under a ceiling, summaries for handoff and resume";

/**
 * @typedef {{ role: "user", content: string } | { role: "assistant", content: string, tool_calls?: { id: string, name: string, input: unknown }[] } | { role: "tool", tool_call_id: string, content: string, is_error: boolean }} Message
 * @typedef {{ event_type: string, payload: any }} Event
 */

/** The answer a tool call gets when its thread stopped before the call returned. */
export const INTERRUPTED = "The thread stopped before this tool call returned; its result is unknown.";

/**
 * The conversation a transcript records, as the runtime's messages: what the model was told (cognition_in), what it
 * answered (cognition_out) with its tool calls (tool_call_start), and each call's result (tool_call_result). A call
 * without a recorded result gets an error result saying so, so the conversation stays valid for every provider.
 * @param {Event[]} events
 * @returns {Message[]}
 */
export function rebuildMessages(events) {
  /** @type {Message[]} */
  const messages = [];
  /** @type {Map<string, { content: string, is_error: boolean }>} */
  const results = new Map();
  for (const e of events) if (e.event_type === "tool_call_result") results.set(String(e.payload?.call_id), { content: String(e.payload?.output ?? ""), is_error: e.payload?.error === true });
  /** @type {{ id: string, name: string, input: unknown }[] | null} */
  let pendingCalls = null;
  const flushResults = () => {
    if (!pendingCalls) return;
    for (const call of pendingCalls) {
      const result = results.get(call.id) ?? { content: INTERRUPTED, is_error: true };
      messages.push({ role: "tool", tool_call_id: call.id, content: result.content, is_error: result.is_error });
    }
    pendingCalls = null;
  };
  for (const e of events) {
    const p = e.payload ?? {};
    if (e.event_type === "cognition_in") {
      flushResults();
      messages.push({ role: "user", content: String(p.text ?? "") });
    } else if (e.event_type === "cognition_out") {
      flushResults();
      messages.push({ role: "assistant", content: String(p.text ?? "") });
    } else if (e.event_type === "tool_call_start") {
      const last = messages[messages.length - 1];
      if (!last || last.role !== "assistant") continue;
      const call = { id: String(p.call_id), name: String(p.tool), input: p.input ?? {} };
      last.tool_calls = [...(last.tool_calls ?? []), call];
      pendingCalls = [...(pendingCalls ?? []), call];
    }
  }
  flushResults();
  return messages;
}

/** A rough token count (4 characters a token), enough to keep a continuation under its ceiling. @param {Message[]} messages */
export function estimateTokens(messages) {
  let chars = 0;
  for (const m of messages) {
    chars += m.content.length + 8;
    if (m.role === "assistant" && m.tool_calls) chars += JSON.stringify(m.tool_calls).length;
  }
  return Math.ceil(chars / 4);
}

/**
 * The longest tail of `messages` under `maxTokens` that starts with an assistant message (so it follows a user
 * message, and every tool result stays after its call). The last turn (the last assistant message and what
 * follows it) is kept even when it alone is larger: the work in progress is never summarised away.
 * @param {Message[]} messages @param {number} maxTokens
 */
export function trailingTurns(messages, maxTokens) {
  let best = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role !== "assistant") continue;
    if (best !== messages.length && estimateTokens(messages.slice(i)) > maxTokens) break;
    best = i;
  }
  return messages.slice(best);
}

/**
 * The conversation as text for the summary, the oldest part cut first when it is longer than `maxChars`.
 * @param {Message[]} messages @param {number} maxChars
 */
export function renderConversation(messages, maxChars) {
  const lines = messages.map((m) => {
    if (m.role === "user") return `## User\n\n${m.content}`;
    if (m.role === "tool") return `## Tool result (${m.tool_call_id})${m.is_error ? " — error" : ""}\n\n${m.content}`;
    const calls = (m.tool_calls ?? []).map((c) => `- call ${c.name} ${JSON.stringify(c.input)}`).join("\n");
    return `## Assistant\n\n${m.content}${calls ? `\n\n${calls}` : ""}`;
  });
  const text = lines.join("\n\n");
  return text.length <= maxChars ? text : `[… the first ${text.length - maxChars} characters are left out]\n\n${text.slice(text.length - maxChars)}`;
}

/**
 * The messages a continuation starts from: one user message (the original task, the summary of what happened,
 * and the new message if any), then the trailing turns.
 * @param {{ task: string, summary: string | null, trailing: Message[], message?: string, fromThread: string }} parts
 * @returns {Message[]}
 */
export function continuationMessages({ task, summary, trailing, message, fromThread }) {
  const parts = [task.trim()];
  if (summary !== null) parts.push(`## Earlier in this task (thread ${fromThread}, summarised)\n\n${summary.trim()}`);
  if (trailing.length > 0) parts.push(`The latest turns of thread ${fromThread} follow unchanged.`);
  /** @type {Message[]} */
  const out = [{ role: "user", content: parts.join("\n\n") }, ...trailing];
  if (message) {
    const last = out[out.length - 1];
    if (last && last.role === "user") last.content = `${last.content}\n\n${message}`;
    else out.push({ role: "user", content: message });
  } else if (out[out.length - 1]?.role === "assistant") {
    // A conversation sent to a model must not end with its own reply.
    out.push({ role: "user", content: "Continue the task." });
  }
  return out;
}
