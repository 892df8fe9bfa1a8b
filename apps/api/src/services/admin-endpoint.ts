/**
 * The running server's admin endpoint for the operator CLI: a random secret written with mode 0600 to
 * `<data dir>/admin.json` together with the local URL. Only callers that can read that file (the
 * operator on this machine) and connect from loopback can use it.
 */
import { randomBytes } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
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

export async function removeAdminFile(dataDir: string): Promise<void> {
  await rm(join(dataDir, ADMIN_FILE), { force: true });
}
