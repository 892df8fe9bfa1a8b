/**
 * Cooperative cancellation: `requestCancel` writes `.ai/threads/<id>/cancel` (atomically; who asked and when), and
 * the thread loop checks `isCancelRequested` — one stat — before each LLM call and tool call, then stops as
 * `cancelled`. Nothing is killed: `rye thread kill` (processes.ts `killTree`) is the forceful way.
 */
import { readFile, stat } from "node:fs/promises";
import { hostname, userInfo } from "node:os";
import { RyeError } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { threadDir, threadFile } from "./paths.ts";

export interface CancelRequest {
  requested_at: string;
  by: { pid: number; host: string; user: string | null };
  reason?: string;
}

/** The OS user running this process, or null where it cannot be read. */
export function currentUser(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

/** Writes a request marker of thread `id` (ITEM_NOT_FOUND when the thread has no directory); returns what it wrote. */
async function writeMarker(projectPath: string, id: string, file: "cancel" | "handoff", options: { reason?: string }): Promise<CancelRequest> {
  const dir = threadDir(projectPath, id);
  const exists = await stat(dir).then((s) => s.isDirectory(), () => false);
  if (!exists) throw new RyeError("ITEM_NOT_FOUND", `No thread ${id} in ${dir}`, { hint: "List the threads with `rye thread list --all`." });
  const request: CancelRequest = {
    requested_at: new Date().toISOString(),
    by: { pid: process.pid, host: hostname(), user: currentUser() },
    ...(options.reason ? { reason: options.reason } : {}),
  };
  await writeFileAtomic(threadFile(projectPath, id, file), `${JSON.stringify(request, null, 2)}\n`);
  return request;
}

/** Whether a request marker of thread `id` is there (one stat; the id is validated first). */
async function hasMarker(projectPath: string, id: string, file: "cancel" | "handoff"): Promise<boolean> {
  try {
    await stat(threadFile(projectPath, id, file));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}

/** Writes the cancel marker of thread `id` (ITEM_NOT_FOUND when the thread has no directory); returns what it wrote. */
export function requestCancel(projectPath: string, id: string, options: { reason?: string } = {}): Promise<CancelRequest> {
  return writeMarker(projectPath, id, "cancel", options);
}

/** True once a cancellation was requested for thread `id`. */
export function isCancelRequested(projectPath: string, id: string): Promise<boolean> {
  return hasMarker(projectPath, id, "cancel");
}

/** The cancel request of thread `id`, or undefined when there is none (a marker that is not JSON counts as a request). */
export async function readCancelRequest(projectPath: string, id: string): Promise<CancelRequest | { requested_at: null } | undefined> {
  let text: string;
  try {
    text = await readFile(threadFile(projectPath, id, "cancel"), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  try {
    return JSON.parse(text) as CancelRequest;
  } catch {
    return { requested_at: null };
  }
}

/**
 * Asks running thread `id` to hand over to a continuation thread after its current turn (`handoff_thread`):
 * writes `.ai/threads/<id>/handoff` like a cancel request. ITEM_NOT_FOUND when the thread has no directory.
 */
export function requestHandoff(projectPath: string, id: string, options: { reason?: string } = {}): Promise<CancelRequest> {
  return writeMarker(projectPath, id, "handoff", options);
}

/** True once a handoff was requested for thread `id`. */
export function isHandoffRequested(projectPath: string, id: string): Promise<boolean> {
  return hasMarker(projectPath, id, "handoff");
}
