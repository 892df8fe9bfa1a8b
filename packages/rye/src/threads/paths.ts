/**
 * Where a project's threads live: `<project>/.ai/threads/<id>/` (thread.json, transcript.jsonl, transcript.md,
 * cancel, .lock) and the shared `<project>/.ai/threads/ledger.json` (+ `.ledger.lock`).
 *
 * A thread id is validated before any path is built from it: `^[a-z0-9][a-z0-9_.-]{0,159}$` and no `..`. Ids are
 * lower case only, so two ids never name the same directory on a case-insensitive file system (macOS, Windows).
 */
import { join, resolve } from "node:path";
import { RyeError } from "@rye/core";

export const THREAD_ID_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,159}$/;

const ID_HINT = "Thread ids are lower-case letters, digits, '_', '-' and '.' (at most 160, starting with a letter or digit); copy one from `rye thread list`.";

export function isValidThreadId(id: unknown): id is string {
  return typeof id === "string" && THREAD_ID_PATTERN.test(id) && !id.includes("..");
}

/** Returns `id` when it is a valid thread id; PATH_TRAVERSAL for `..`, BAD_REQUEST for anything else. */
export function assertThreadId(id: unknown): string {
  if (typeof id === "string" && id.includes("..")) {
    throw new RyeError("PATH_TRAVERSAL", `Thread id ${JSON.stringify(id)} contains '..'`, { hint: ID_HINT });
  }
  if (!isValidThreadId(id)) {
    const shown = typeof id === "string" ? JSON.stringify(id.length > 200 ? `${id.slice(0, 200)}…` : id) : String(id);
    throw new RyeError("BAD_REQUEST", `Invalid thread id ${shown}`, { hint: ID_HINT });
  }
  return id;
}

/** `<project>/.ai/threads`. */
export function threadsDir(projectPath: string): string {
  return join(resolve(projectPath), ".ai", "threads");
}

/** `<project>/.ai/threads/<id>`, after validating `id`. */
export function threadDir(projectPath: string, id: string): string {
  return join(threadsDir(projectPath), assertThreadId(id));
}

/** The files of one thread. */
export const THREAD_FILES = {
  record: "thread.json",
  transcript: "transcript.jsonl",
  markdown: "transcript.md",
  cancel: "cancel",
  handoff: "handoff",
  lock: ".lock",
} as const;

export function threadFile(projectPath: string, id: string, file: keyof typeof THREAD_FILES): string {
  return join(threadDir(projectPath, id), THREAD_FILES[file]);
}

export function ledgerPath(projectPath: string): string {
  return join(threadsDir(projectPath), "ledger.json");
}

export function ledgerLockPath(projectPath: string): string {
  return join(threadsDir(projectPath), ".ledger.lock");
}
