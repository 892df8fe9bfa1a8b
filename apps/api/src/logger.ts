/** Structured JSON logs, one object per line. Never pass secrets (tokens, keys, Authorization headers). */
export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
}

export function jsonLogger(level: LogLevel | "silent", write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Logger {
  return {
    log(lvl, msg, fields = {}) {
      if (ORDER[lvl] < ORDER[level]) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }));
    },
  };
}

export const silentLogger: Logger = { log() {} };
