/**
 * A tool's own progress: while the running call has a progress listener (engine/progress.ts), a subprocess gets an
 * extra pipe as file descriptor 3 (`RYE_PROGRESS_FD=3` in its environment) and may write one JSON object per line:
 * `{"progress": 3, "total": 10, "message": "step 3 of 10", "phase": "download"}` (`total`, `message` and `phase`
 * optional). Lines that are too long or not such an object are ignored: progress is advisory and never fails a run.
 */
import type { Readable } from "node:stream";
import { reportProgress } from "../../engine/progress.ts";

export const PROGRESS_FD = 3;
export const PROGRESS_LIMITS = { maxLineBytes: 4096, maxMessageChars: 500, maxPhaseChars: 100 };

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
  phase?: string;
}

/** One line of the channel, or null when it is not a valid report. */
export function parseProgressLine(line: string): ToolProgress | null {
  if (Buffer.byteLength(line) > PROGRESS_LIMITS.maxLineBytes) return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const { progress, total, message, phase } = value as Record<string, unknown>;
  const count = (n: unknown) => typeof n === "number" && Number.isFinite(n) && n >= 0;
  if (!count(progress) || (total !== undefined && !count(total))) return null;
  return {
    progress: progress as number,
    ...(total !== undefined ? { total: total as number } : {}),
    ...(typeof message === "string" ? { message: message.slice(0, PROGRESS_LIMITS.maxMessageChars) } : {}),
    ...(typeof phase === "string" ? { phase: phase.slice(0, PROGRESS_LIMITS.maxPhaseChars) } : {}),
  };
}

/** Reads the channel of a child and reports each valid line to the running call's listener. */
export function forwardProgress(stream: Readable, label: string): void {
  let pending = "";
  let overlong = false;
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (overlong) {
        overlong = false; // the tail of a line already dropped
        continue;
      }
      const report = parseProgressLine(line);
      if (report) reportProgress({ key: `${label} ${report.phase ?? "steps"}`, done: report.progress, total: report.total, message: report.message ?? `${label}: ${report.phase ?? "step"} ${report.progress}${report.total !== undefined ? ` of ${report.total}` : ""}` });
    }
    if (Buffer.byteLength(pending) > PROGRESS_LIMITS.maxLineBytes) {
      pending = "";
      overlong = true;
    }
  });
  stream.on("error", () => {});
}
