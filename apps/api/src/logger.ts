/** Structured JSON logs, one object per line. Never pass secrets (tokens, keys, Authorization headers). */
export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
}

/** `base` fields go on every line (the process's pid and role, so the lines of several processes can be told apart). */
export function jsonLogger(level: LogLevel | "silent", write: (line: string) => void = (l) => process.stdout.write(`${l}\n`), base: Record<string, unknown> = {}): Logger {
  return {
    log(lvl, msg, fields = {}) {
      if (ORDER[lvl] < ORDER[level]) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...base, ...fields }));
    },
  };
}

export const silentLogger: Logger = { log() {} };
