import { homedir } from "node:os";
import { join } from "node:path";
import { expandHome } from "../fs/platform.ts";

/** Base of the user space: `$USER_SPACE` (with `~` expanded) or the home directory. `.ai` is appended by callers. */
export function userSpaceBase(env: NodeJS.ProcessEnv = process.env): string {
  const raw = env.USER_SPACE?.trim();
  if (!raw) return homedir();
  return expandHome(raw, homedir());
}

export function userAiDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(userSpaceBase(env), ".ai");
}
