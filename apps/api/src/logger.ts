/** Structured JSON logs, one object per line. Never pass secrets (tokens, keys, Authorization headers). */
export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
}

/**
 * Lines written during one turn of the event loop leave in one write to `out` (one system call for the access
 * lines of every request answered in that turn, instead of one each), at the end of the turn; and at once when
 * the process exits.
 */
export function batchedLineWriter(out: { write(text: string): unknown } = process.stdout): (line: string) => void {
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = `${pending.join("\n")}\n`;
    pending = [];
    out.write(text);
  };
  process.once("exit", flush);
  return (line) => {
    if (pending.push(line) === 1) setImmediate(flush);
  };
}

/** The time in ISO 8601, formatted once per millisecond: under load many lines share one, and formatting is most of a line's cost. */
let formattedAt = Number.NaN;
let formatted = "";
function isoNow(): string {
  const now = Date.now();
  if (now !== formattedAt) {
    formattedAt = now;
    formatted = new Date(now).toISOString();
  }
  return formatted;
}

/** `base` fields go on every line (the process's pid and role, so the lines of several processes can be told apart). */
export function jsonLogger(level: LogLevel | "silent", write: (line: string) => void = batchedLineWriter(), base: Record<string, unknown> = {}): Logger {
  // The base fields' JSON is made once; a line whose fields repeat a base name is built whole, the field winning.
  const baseKeys = Object.keys(base);
  const baseJson = baseKeys.length > 0 ? `,${JSON.stringify(base).slice(1, -1)}` : "";
  return {
    log(lvl, msg, fields = {}) {
      if (ORDER[lvl] < ORDER[level]) return;
      const time = isoNow();
      if (baseKeys.some((k) => k in fields) || "time" in fields || "level" in fields || "msg" in fields) {
        write(JSON.stringify({ time, level: lvl, msg, ...base, ...fields }));
        return;
      }
      const rest = JSON.stringify(fields);
      write(`{"time":"${time}","level":"${lvl}","msg":${JSON.stringify(msg)}${baseJson}${rest.length > 2 ? `,${rest.slice(1)}` : "}"}`);
    },
  };
}

export const silentLogger: Logger = { log() {} };
