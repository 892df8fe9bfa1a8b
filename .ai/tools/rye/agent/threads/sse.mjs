// rye:signed:2026-11-29T13:41:57Z:c515cb95db7da3adae5db4e82035ba0b61d354b85a0a51b10e03be40a70bedab:FCO-Yaw-TbphSJ2X9vSZE7bPORTNWs5StB90XI-AvIbkIhh94m7RKx27Z1K0DWV5kYo1vkV60--zuor-XdGbDw==:334f126a02990a0c
// @ts-check
/**
 * Server-sent events: a push parser for the `text/event-stream` format (WHATWG HTML, "Parsing an event
 * stream"), used by the provider adapter for streamed LLM replies. Feed it decoded text in pieces of any
 * size; it returns the events completed so far, in order.
 *
 * - Lines end with CRLF, LF or CR (a CRLF split across two pieces is one line end); a leading BOM is dropped.
 * - `event:` names the event (default "message"), `data:` lines are joined with "\n", `id:` is remembered,
 *   lines starting with ":" are comments (keep-alives), other fields are ignored; one space after the colon is
 *   dropped. A blank line dispatches the event; an event without data is not dispatched.
 * - At the end of the stream (`end()`) an unfinished event is discarded, and `end()` says whether there was one.
 * - One event (its data plus the unfinished line) may not exceed `maxEventBytes`, counted in UTF-16 code units
 *   (never more than its UTF-8 bytes): a stream that never ends a line cannot grow memory without bound.
 *
 * Runtime file: imports nothing (the module loader imports the exact bytes it verified).
 */
export const __version__ = "1.0.0";
export const __tool_type__ = "library";
export const __executor_id__ = null;
export const __category__ = "rye/agent/threads";
export const __tool_description__ = "Agent runtime: server-sent events (text/event-stream) parser with a per-event size cap, used by the provider adapter";

export const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;

/** @typedef {{ event: string, data: string, id: string | undefined }} SseEvent */

/** A stream that breaks the format's limits. */
export class SseError extends Error {
  /** @param {"event_too_large"} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = "SseError";
    this.code = code;
  }
}

const LF = 10;
const CR = 13;

/**
 * @param {{ maxEventBytes?: number }} [options]
 * @returns {{ feed(text: string): SseEvent[], end(): { events: SseEvent[], unfinished: boolean } }}
 */
export function createSseParser(options = {}) {
  const maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  let pending = ""; // text after the last line end
  let started = false;
  let eventName = "";
  /** @type {string[]} */
  let data = [];
  let dataSize = 0;
  /** @type {string | undefined} */
  let lastId;

  /** @param {string} line @param {SseEvent[]} out */
  function processLine(line, out) {
    if (line === "") {
      if (data.length > 0) out.push({ event: eventName || "message", data: data.join("\n"), id: lastId });
      eventName = "";
      data = [];
      dataSize = 0;
      return;
    }
    if (line.charCodeAt(0) === 58 /* ":" */) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* " " */) value = value.slice(1);
    if (field === "event") eventName = value;
    else if (field === "data") {
      data.push(value);
      dataSize += value.length + 1;
    } else if (field === "id" && !value.includes("\0")) lastId = value;
  }

  /** @param {number} extra */
  function checkSize(extra) {
    if (dataSize + extra > maxEventBytes) {
      throw new SseError("event_too_large", `A server-sent event is larger than ${maxEventBytes} bytes`);
    }
  }

  return {
    feed(text) {
      // `pending` holds no line end except perhaps a final CR, so the scan starts there.
      const scanFrom = Math.max(0, pending.length - 1);
      let input = pending + text;
      if (!started && input.length > 0) {
        started = true;
        if (input.charCodeAt(0) === 0xfeff) input = input.slice(1);
      }
      /** @type {SseEvent[]} */
      const out = [];
      let lineStart = 0;
      for (let i = scanFrom; i < input.length; i++) {
        const c = input.charCodeAt(i);
        if (c !== LF && c !== CR) continue;
        // A CR at the very end may be the first half of a CRLF: wait for the next piece.
        if (c === CR && i === input.length - 1) break;
        checkSize(i - lineStart);
        processLine(input.slice(lineStart, i), out);
        if (c === CR && input.charCodeAt(i + 1) === LF) i++;
        lineStart = i + 1;
      }
      pending = input.slice(lineStart);
      checkSize(pending.length);
      return out;
    },
    end() {
      /** @type {SseEvent[]} */
      const out = [];
      // A CR held back as a possible CRLF is a line end after all.
      if (pending.endsWith("\r")) {
        processLine(pending.slice(0, -1), out);
        pending = "";
      }
      const unfinished = data.length > 0 || pending !== "";
      pending = "";
      data = [];
      dataSize = 0;
      eventName = "";
      return { events: out, unfinished };
    },
  };
}
