/**
 * A thread's transcript: `.ai/threads/<id>/transcript.jsonl` (one event per line, the record of truth) and
 * `transcript.md` (the same, for people). Each `append` writes its line with one write call on a file opened for
 * appending — no buffering, so `tail -f` and `followTranscript` see every event as it happens — then its markdown.
 *
 * Secrets: a writer is constructed with the secret values in scope (API keys); every occurrence of one in a payload
 * (strings and object keys, at any depth) becomes `[redacted]` before anything is written.
 *
 * Event line: `{"timestamp": <unix seconds, float>, "thread_id", "event_type", "payload"}`. Payloads `renderEvent`
 * knows (other fields are kept in the jsonl; unknown event types render as their JSON):
 *
 * | event_type | payload |
 * |---|---|
 * | thread_started | `{directive, model?, provider?, parent_thread_id?, inputs?}` |
 * | cognition_in | `{text}` (the user/harness message) |
 * | cognition_out | `{text}` (the assistant's reply) |
 * | cognition_out_delta | `{text}` (streamed piece; jsonl only) |
 * | tool_call_start | `{call_id?, tool, input}` |
 * | tool_call_result | `{call_id?, tool?, output?, is_error?, error?}` |
 * | tool_call_denied | `{call_id?, tool, reason?, capability?}` |
 * | limit_exceeded | `{limit_code, current_value?, current_max?}` |
 * | hook_fired | `{hook_id, event?, action?, result?}` |
 * | thread_completed, thread_error, thread_cancelled, thread_killed, thread_suspended | `{status, cost?, result?, error?, escalation?}` |
 */
import { mkdir, open, readFile, stat, truncate } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { watch } from "node:fs";
import type { FSWatcher } from "node:fs";
import { RyeError } from "@rye/core";
import { threadProcessAlive } from "./processes.ts";
import { isTerminal, readThread } from "./record.ts";
import { assertThreadId, threadDir, threadFile } from "./paths.ts";

export interface TranscriptEvent {
  /** Unix time in seconds (fractional). */
  timestamp: number;
  thread_id: string;
  event_type: string;
  payload: unknown;
}

export const REDACTED = "[redacted]";
export const CLOSING_EVENTS = ["thread_completed", "thread_error", "thread_cancelled", "thread_killed", "thread_suspended"] as const;

/** A JSON-safe deep copy of `value` with every secret replaced (cycles become "[circular]", bigints strings). */
export function redact(value: unknown, secrets: readonly string[]): unknown {
  const list = [...new Set(secrets.filter((s) => typeof s === "string" && s.length > 0))].sort((a, b) => b.length - a.length);
  const scrub = (s: string): string => {
    for (const secret of list) if (s.includes(secret)) s = s.split(secret).join(REDACTED);
    return s;
  };
  const seen = new WeakSet<object>();
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return scrub(v);
    if (typeof v === "bigint") return scrub(v.toString());
    if (typeof v === "number") return Number.isFinite(v) ? v : null;
    if (v === null || typeof v === "boolean") return v;
    if (typeof v !== "object") return undefined; // functions, symbols, undefined
    if (seen.has(v)) return "[circular]";
    seen.add(v);
    try {
      if (v instanceof Error) return { name: scrub(v.name), message: scrub(v.message) };
      if (Array.isArray(v)) return v.map((x) => walk(x) ?? null);
      const json = (v as { toJSON?: () => unknown }).toJSON;
      if (typeof json === "function") return walk(json.call(v));
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const w = walk(x);
        if (w !== undefined) out[scrub(k)] = w;
      }
      return out;
    } finally {
      seen.delete(v);
    }
  };
  return walk(value) ?? null;
}

/** Appends events of one thread; appends are written in call order even when not awaited. */
export class TranscriptWriter {
  readonly threadId: string;
  private readonly secrets: readonly string[];
  private readonly jsonlPath: string;
  private readonly mdPath: string;
  private files: Promise<{ jsonl: FileHandle; md: FileHandle }> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    readonly projectPath: string,
    threadId: string,
    options: { secrets?: readonly string[] } = {},
  ) {
    this.threadId = assertThreadId(threadId);
    this.secrets = [...(options.secrets ?? [])];
    this.jsonlPath = threadFile(projectPath, threadId, "transcript");
    this.mdPath = threadFile(projectPath, threadId, "markdown");
  }

  private openFiles(): Promise<{ jsonl: FileHandle; md: FileHandle }> {
    this.files ??= (async () => {
      await mkdir(threadDir(this.projectPath, this.threadId), { recursive: true });
      const jsonl = await open(this.jsonlPath, "a");
      try {
        return { jsonl, md: await open(this.mdPath, "a") };
      } catch (err) {
        await jsonl.close();
        throw err;
      }
    })();
    return this.files;
  }

  /** Writes one event (redacted) to transcript.jsonl, then its rendering to transcript.md; resolves to the event. */
  append(eventType: string, payload: unknown = {}): Promise<TranscriptEvent> {
    if (this.closed) return Promise.reject(new RyeError("CONFLICT", `The transcript writer of ${this.threadId} is closed`, { hint: "A bug in the caller." }));
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(eventType)) {
      return Promise.reject(new RyeError("BAD_REQUEST", `Invalid transcript event type ${JSON.stringify(eventType)}`, { hint: "Event types are snake_case names." }));
    }
    const event: TranscriptEvent = { timestamp: Date.now() / 1000, thread_id: this.threadId, event_type: eventType, payload: redact(payload, this.secrets) };
    const run = this.queue.then(async () => {
      const files = await this.openFiles();
      await files.jsonl.write(`${JSON.stringify(event)}\n`);
      const md = renderEvent(event);
      if (md !== "") await files.md.write(`${md}\n`);
      return event;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Waits for pending appends and closes the files. */
  async close(): Promise<void> {
    this.closed = true;
    await this.queue;
    if (!this.files) return;
    const { jsonl, md } = await this.files.catch(() => ({ jsonl: undefined, md: undefined }));
    await jsonl?.close();
    await md?.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Markdown

function fence(text: string, lang = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const bar = "`".repeat(longest + 1);
  return `${bar}${lang}\n${text}${text.endsWith("\n") ? "" : "\n"}${bar}`;
}

function asText(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function jsonBlock(value: unknown): string {
  return fence(JSON.stringify(value ?? null, null, 2), "json");
}

function textOrJson(value: unknown): string {
  return typeof value === "string" ? fence(value) : jsonBlock(value);
}

function record(payload: unknown): Record<string, unknown> {
  return payload && typeof payload === "object" && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {};
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** `turns 3, tokens 1200 in / 340 out, spend $0.004512, 12.3 s`. */
export function formatCost(cost: unknown): string {
  const c = record(cost);
  return `turns ${num(c.turns)}, tokens ${num(c.input_tokens)} in / ${num(c.output_tokens)} out, spend $${num(c.spend).toFixed(6)}, ${num(c.elapsed_seconds).toFixed(1)} s`;
}

const toolName = (p: Record<string, unknown>) => asText(p.tool) ?? asText(p.name) ?? "?";
const callId = (p: Record<string, unknown>) => (asText(p.call_id) ? ` \`${asText(p.call_id)}\`` : "");

/** The markdown of one event ("" for events that have none, e.g. cognition_out_delta). Ends with a newline. */
export function renderEvent(event: TranscriptEvent): string {
  const p = record(event.payload);
  switch (event.event_type) {
    case "thread_started": {
      const model = [asText(p.model), asText(p.provider) ? `(${asText(p.provider)})` : undefined].filter(Boolean).join(" ");
      const lines = [`# ${asText(p.directive) ?? "thread"}`, "", `- thread: \`${event.thread_id}\``];
      if (model) lines.push(`- model: ${model}`);
      if (asText(p.parent_thread_id)) lines.push(`- parent: \`${asText(p.parent_thread_id)}\``);
      lines.push(`- started: ${new Date(event.timestamp * 1000).toISOString()}`);
      if (p.inputs !== undefined) lines.push("", "Inputs:", "", jsonBlock(p.inputs));
      return `${lines.join("\n")}\n`;
    }
    case "cognition_in":
      return `## User\n\n${asText(p.text) ?? asText(p.content) ?? jsonBlock(p)}\n`;
    case "cognition_out":
      return `## Assistant\n\n${asText(p.text) ?? asText(p.content) ?? jsonBlock(p)}\n`;
    case "cognition_out_delta":
      return "";
    case "tool_call_start":
      return `### Tool call: ${toolName(p)}${callId(p)}\n\n${jsonBlock(p.input ?? p.arguments ?? {})}\n`;
    case "tool_call_result": {
      const failed = p.is_error === true || p.error !== undefined;
      const body = p.output !== undefined ? textOrJson(p.output) : p.error !== undefined ? textOrJson(p.error) : "";
      return `### ${failed ? "**Error**" : "Result"}${p.tool !== undefined ? `: ${toolName(p)}` : ""}${callId(p)}\n\n${body}${body ? "\n" : ""}`;
    }
    case "tool_call_denied":
      return `### Denied: ${toolName(p)}${callId(p)}\n\n${asText(p.reason) ?? "not permitted"}${asText(p.capability) ? ` (requires \`${asText(p.capability)}\`)` : ""}\n`;
    case "limit_exceeded": {
      const values = p.current_value !== undefined || p.current_max !== undefined ? ` (${String(p.current_value ?? "?")} of ${String(p.current_max ?? "?")})` : "";
      return `### Limit exceeded: ${asText(p.limit_code) ?? "?"}${values}\n`;
    }
    case "hook_fired":
      return `### Hook ${asText(p.hook_id) ?? "?"}${asText(p.event) ? ` on ${asText(p.event)}` : ""}${asText(p.action) ? ` → ${asText(p.action)}` : ""}\n${p.result !== undefined ? `\n${textOrJson(p.result)}\n` : ""}`;
    default:
      if ((CLOSING_EVENTS as readonly string[]).includes(event.event_type)) {
        const status = asText(p.status) ?? event.event_type.slice("thread_".length);
        const lines = ["---", "", `**Status:** ${status}`, "", `**Cost:** ${formatCost(p.cost)}`];
        if (p.result !== undefined) lines.push("", "**Result:**", "", asText(p.result) ?? jsonBlock(p.result));
        const error = record(p.error);
        if (p.error !== undefined) lines.push("", `**Error:** ${asText(error.code) ? `${asText(error.code)}: ` : ""}${asText(error.message) ?? asText(p.error) ?? JSON.stringify(p.error)}`);
        if (p.escalation !== undefined) lines.push("", "**Escalation:**", "", jsonBlock(p.escalation));
        return `${lines.join("\n")}\n`;
      }
      return `### ${event.event_type}\n\n${jsonBlock(event.payload)}\n`;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading

function parseLine(line: string, lineNo: number, path: string): TranscriptEvent {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    value = undefined;
  }
  const v = value as Partial<TranscriptEvent> | undefined;
  if (!v || typeof v !== "object" || typeof v.timestamp !== "number" || typeof v.thread_id !== "string" || typeof v.event_type !== "string" || !("payload" in v)) {
    throw new RyeError("VALIDATION_FAILED", `${path} line ${lineNo} is not a transcript event`, {
      hint: "The transcript was damaged or edited; the lines before it are intact.",
      details: { line: lineNo, text: line.length > 200 ? `${line.slice(0, 200)}…` : line },
    });
  }
  return v as TranscriptEvent;
}

/** Splits complete lines off `text`; returns them and the unfinished rest (an event still being written). */
function splitLines(text: string): { lines: string[]; rest: string } {
  const end = text.lastIndexOf("\n");
  if (end < 0) return { lines: [], rest: text };
  return { lines: text.slice(0, end).split("\n"), rest: text.slice(end + 1) };
}

/**
 * Cuts a transcript back to its last complete line: what a writer killed mid-line left (readers ignore it, but an
 * append would glue the next event to it). Returns the bytes dropped. For a thread continued after a crash.
 */
export async function dropPartialTail(projectPath: string, id: string): Promise<number> {
  const path = threadFile(projectPath, id, "transcript");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw err;
  }
  const keep = text.lastIndexOf("\n") + 1;
  if (keep === text.length) return 0;
  const bytes = Buffer.byteLength(text.slice(0, keep));
  await truncate(path, bytes);
  return Buffer.byteLength(text) - bytes;
}

/** Every event written so far ([] before the first). A damaged line is VALIDATION_FAILED naming the line. */
export async function readTranscript(projectPath: string, id: string): Promise<TranscriptEvent[]> {
  const path = threadFile(projectPath, id, "transcript");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const { lines } = splitLines(text);
  const events: TranscriptEvent[] = [];
  lines.forEach((line, i) => {
    if (line.trim() !== "") events.push(parseLine(line, i + 1, path));
  });
  return events;
}

export interface FollowOptions {
  signal?: AbortSignal;
  /** Poll interval when file-system events are missed or unavailable. Default 250 ms. */
  pollMs?: number;
  /** Use fs.watch (default true); false polls only (e.g. on network file systems that deliver no events). */
  watch?: boolean;
}

/**
 * The thread's events from the first, then each as it is appended, until the thread record has a terminal status
 * (or its process is gone) and the file is drained; ends quietly when `signal` aborts. ITEM_NOT_FOUND when the
 * thread has no record. Uses fs.watch on the thread's directory, and polls as a fallback.
 */
export async function* followTranscript(projectPath: string, id: string, options: FollowOptions = {}): AsyncGenerator<TranscriptEvent> {
  const pollMs = options.pollMs ?? 250;
  const dir = threadDir(projectPath, id);
  const path = threadFile(projectPath, id, "transcript");
  await readThread(projectPath, id);
  const signal = options.signal;

  let wake: (() => void) | undefined;
  let changed = false;
  const poke = () => {
    changed = true;
    wake?.();
  };
  let watcher: FSWatcher | undefined;
  if (options.watch !== false) {
    try {
      watcher = watch(dir, { persistent: false }, poke);
      watcher.on("error", () => {
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      watcher = undefined; // polling only
    }
  }
  signal?.addEventListener("abort", poke, { once: true });

  let offset = 0;
  let lineNo = 0;
  const drain = async function* (): AsyncGenerator<TranscriptEvent> {
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    if (size <= offset) return;
    const handle = await open(path, "r");
    try {
      const buffer = Buffer.alloc(size - offset);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
      offset += bytesRead;
      // Cut at the last newline in bytes, so a multi-byte character split across reads is never decoded half.
      const chunk = buffer.subarray(0, bytesRead);
      const cut = chunk.lastIndexOf(0x0a);
      offset -= bytesRead - (cut + 1);
      const { lines } = splitLines(cut < 0 ? "" : chunk.subarray(0, cut + 1).toString("utf8"));
      for (const line of lines) {
        lineNo++;
        if (line.trim() !== "") yield parseLine(line, lineNo, path);
      }
    } finally {
      await handle.close();
    }
  };

  try {
    for (;;) {
      if (signal?.aborted) return;
      changed = false;
      yield* drain();
      if (signal?.aborted) return;
      const record = await readThread(projectPath, id).catch(() => undefined);
      if (record && (isTerminal(record.status) || (record.pid !== undefined && !threadProcessAlive(record)))) {
        yield* drain(); // the closing event is written before the final status
        return;
      }
      if (changed) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    watcher?.close();
    signal?.removeEventListener("abort", poke);
  }
}
