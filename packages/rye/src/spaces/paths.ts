import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Base of the user space: `$USER_SPACE` (with `~` expanded) or the home directory. `.ai` is appended by callers. */
export function userSpaceBase(env: NodeJS.ProcessEnv = process.env): string {
  const raw = env.USER_SPACE?.trim();
  if (!raw) return homedir();
  if (raw === "~") return homedir();
  if (raw.startsWith("~/")) return join(homedir(), raw.slice(2));
  return resolve(raw);
}

export function userAiDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(userSpaceBase(env), ".ai");
}
