/**
 * `notifications/progress` for a tool call whose client passed a progress token (`_meta.progressToken`): the
 * engine's progress reports (registry downloads in bytes, a tool's own steps; engine/progress.ts) become MCP
 * progress notifications, and a long execute sends a heartbeat while nothing else moves.
 *
 * The spec wants `progress` to increase with every notification of a token, while the engine's reports come in
 * phases that each count from zero (bytes of one download, then steps of a tool): a new phase continues from the
 * last value sent, and its total is offset the same way. Notifications are rate-limited (one per
 * `minIntervalMs`), except the end of a phase, which always goes out; the latest report withheld by the limit is
 * sent when the interval has passed.
 */
import type { ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import type { ProgressListener } from "../engine/progress.ts";
import { withProgress } from "../engine/progress.ts";

export const PROGRESS_SETTINGS = {
  /** At most one notification per this interval (the end of a phase aside). */
  minIntervalMs: 100,
  /** A running execute reports its elapsed time this often while no other progress arrives. */
  heartbeatMs: 1000,
};

export interface ProgressTarget {
  progressToken: string | number;
  send(notification: ServerNotification): Promise<void>;
}

export interface McpProgress {
  listener: ProgressListener;
  /** Sends the withheld report, if any, and stops the heartbeat. */
  finish(): void;
}

/** The `extra` of an MCP request handler: its progress token (if the client sent one) and its notification sender. */
export interface RequestExtra {
  _meta?: { progressToken?: string | number | undefined } | undefined;
  sendNotification(notification: ServerNotification): Promise<void>;
}

export function progressTarget(extra: RequestExtra): ProgressTarget | undefined {
  const token = extra._meta?.progressToken;
  return token === undefined ? undefined : { progressToken: token, send: (n) => extra.sendNotification(n) };
}

export function createMcpProgress(target: ProgressTarget, options: { heartbeat?: string; settings?: Partial<typeof PROGRESS_SETTINGS>; now?: () => number } = {}): McpProgress {
  const settings = { ...PROGRESS_SETTINGS, ...options.settings };
  const now = options.now ?? (() => performance.now());
  const started = now();
  let phase: string | undefined;
  let base = 0; // where the current phase starts on the token's scale
  let sent = 0; // the last progress value sent
  let lastSentAt = -Infinity;
  let withheld: { progress: number; total?: number; message?: string } | undefined;
  let trailing: NodeJS.Timeout | undefined;

  const send = (n: { progress: number; total?: number; message?: string }) => {
    if (n.progress <= sent) return;
    sent = n.progress;
    lastSentAt = now();
    withheld = undefined;
    target.send({ method: "notifications/progress", params: { progressToken: target.progressToken, ...n } }).catch(() => undefined);
  };
  const flush = () => {
    trailing = undefined;
    if (withheld) send(withheld);
  };

  const listener: ProgressListener = (report) => {
    if (report.key !== phase) {
      phase = report.key;
      base = sent;
    }
    const n = { progress: base + report.done, ...(report.total !== undefined ? { total: base + report.total } : {}), ...(report.message ? { message: report.message } : {}) };
    if (n.progress <= sent) return;
    const phaseEnd = report.total !== undefined && report.done >= report.total;
    if (phaseEnd || now() - lastSentAt >= settings.minIntervalMs) {
      clearTimeout(trailing);
      trailing = undefined;
      send(n);
      return;
    }
    withheld = n;
    trailing ??= setTimeout(flush, Math.max(0, settings.minIntervalMs - (now() - lastSentAt)));
  };

  // The heartbeat: elapsed seconds, as its own phase, only when nothing else was sent for a whole beat.
  const heartbeat = options.heartbeat
    ? setInterval(() => {
        if (now() - lastSentAt < settings.heartbeatMs) return;
        const seconds = Math.round((now() - started) / 1000);
        listener({ key: "heartbeat", done: seconds, message: `${options.heartbeat}: running for ${seconds} s` });
      }, settings.heartbeatMs)
    : undefined;
  heartbeat?.unref();

  return {
    listener,
    finish() {
      clearInterval(heartbeat);
      clearTimeout(trailing);
      flush();
    },
  };
}

/**
 * Runs a tool call's body with MCP progress when the client asked for it (a progress token), else as is.
 * `heartbeat` names the work in the heartbeat's message (long executions); without it there is no heartbeat.
 */
export async function withMcpProgress<T>(extra: RequestExtra, heartbeat: string | undefined, body: () => Promise<T>): Promise<T> {
  const target = progressTarget(extra);
  if (!target) return body();
  const progress = createMcpProgress(target, heartbeat ? { heartbeat } : {});
  try {
    return await withProgress(progress.listener, body);
  } finally {
    progress.finish();
  }
}
