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

/**
 * Where local search keeps its indexes between processes: `$RYE_SEARCH_INDEX_DIR`, else
 * `$XDG_CACHE_HOME/rye/search-index`, else `.cache/rye/search-index` under the user space base (the home
 * directory by default). null when `RYE_SEARCH_INDEX=0` turns the stored index off.
 */
export function searchIndexDir(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.RYE_SEARCH_INDEX === "0") return null;
  const explicit = env.RYE_SEARCH_INDEX_DIR?.trim();
  if (explicit) return expandHome(explicit, homedir());
  const cache = env.XDG_CACHE_HOME?.trim();
  return join(cache || join(userSpaceBase(env), ".cache"), "rye", "search-index");
}
