/**
 * Progress of a long engine call (registry downloads, a tool's own steps), for whoever asked to hear it (the MCP
 * server when its client passed a progress token). The listener is ambient for the call (AsyncLocalStorage), so the
 * code that moves bytes reports without every signature in between carrying a callback; with no listener,
 * reporting costs one lookup.
 *
 * A report names its phase (`key`): bytes of one download, steps of a tool. Within a phase `done` only grows.
 */
import { CallStorage } from "./call-storage.ts";

export interface ProgressReport {
  /** The phase: e.g. `download <url>` or `tool`. */
  key: string;
  done: number;
  total?: number | undefined;
  message?: string | undefined;
}

export type ProgressListener = (report: ProgressReport) => void;

const listeners = new CallStorage<ProgressListener>();

/** Runs `body` with `listener` hearing every progress report made inside it. */
export function withProgress<T>(listener: ProgressListener | undefined, body: () => Promise<T>): Promise<T> {
  return listener ? listeners.run(listener, body) : body();
}

/** The listener of the running call, if any (to decide whether progress is worth gathering at all). */
export function progressListener(): ProgressListener | undefined {
  return listeners.getStore();
}

export function reportProgress(report: ProgressReport): void {
  const listener = listeners.getStore();
  if (!listener) return;
  try {
    listener(report);
  } catch {
    // Progress is advisory: a failing listener never fails the work it describes.
  }
}
