/**
 * The running server's admin endpoint for the operator CLI: a random secret written with mode 0600 to
 * `<data dir>/admin.json` together with the local URL. Only callers that can read that file (the
 * operator on this machine) and connect from loopback can use it.
 *
 * Several processes on one data directory (PostgreSQL): each has its own secret, the file names the process
 * that started last, and any of them serves every admin action (they share the database and key directory).
 * A process removes the file on shutdown only while it still names that process, so stopping one replica
 * never hides a running one from the operator CLI.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

export const ADMIN_FILE = "admin.json";

export interface AdminEndpointFile {
  url: string;
  secret: string;
  pid: number;
  started_at: string;
}

export function newAdminSecret(): string {
  return randomBytes(32).toString("base64url");
}

export async function writeAdminFile(dataDir: string, info: Omit<AdminEndpointFile, "started_at" | "pid">): Promise<string> {
  const path = join(dataDir, ADMIN_FILE);
  const body: AdminEndpointFile = { ...info, pid: process.pid, started_at: new Date().toISOString() };
  // On PostgreSQL nothing else creates the data directory.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await rm(path, { force: true });
  await writeFile(path, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  return path;
}

export async function readAdminFile(dataDir: string): Promise<AdminEndpointFile | null> {
  try {
    return JSON.parse(await readFile(join(dataDir, ADMIN_FILE), "utf8")) as AdminEndpointFile;
  } catch {
    return null;
  }
}

/** Removes the file if it is this server's (same secret), or unconditionally when no secret is given. */
export async function removeAdminFile(dataDir: string, ownSecret?: string): Promise<void> {
  if (ownSecret !== undefined) {
    const current = await readAdminFile(dataDir);
    if (current && current.secret !== ownSecret) return; // another process started after this one: its file
  }
  await rm(join(dataDir, ADMIN_FILE), { force: true });
}
