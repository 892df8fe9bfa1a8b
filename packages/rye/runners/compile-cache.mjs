// V8's compile cache (Node ≥ 22.1) in a folder only this user can write: `$XDG_CACHE_HOME/rye/compile-cache`, else
// `.cache/rye/compile-cache` under the user space base (`$USER_SPACE`, else the home directory), as the search index.
// Used by bin/rye.mjs (the CLI's bundle) and node-runner.mjs (the SDK, and the runtime modules a thread imports from
// the bytes it verified). Not Node's default folder (the OS temp folder, shared by every user of the machine):
// Node accepts a cache entry whose header names the source's length and CRC-32, and V8 then runs the cached code
// without comparing it with the source, so whoever can write the folder chooses what a verified module runs
// (src/sdk/verified-modules.test.ts forges one). In the user's own folder, that takes write access to the user's
// files, which already gives the user space's items and trust store. A folder that this user does not own, or that
// others can write, gets no cache. NODE_COMPILE_CACHE (Node enables that folder itself) and
// NODE_DISABLE_COMPILE_CACHE=1 are the user's choice and left alone.
import { mkdirSync, statSync } from "node:fs";
import module from "node:module";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** The folder the compile cache goes to (see above). */
export function compileCacheDir(env = process.env) {
  const cache = env.XDG_CACHE_HOME?.trim();
  if (cache && isAbsolute(cache)) return join(cache, "rye", "compile-cache");
  const raw = env.USER_SPACE?.trim();
  const base = !raw ? homedir() : raw === "~" ? homedir() : raw.startsWith("~/") ? join(homedir(), raw.slice(2)) : resolve(raw);
  return join(base, ".cache", "rye", "compile-cache");
}

/** True when `dir` and the two folders above it belong to this user (or root) and no one else can write them. */
export function privateToUser(dir) {
  if (typeof process.getuid !== "function") return true; // Windows: the profile's folders are the user's by their ACLs
  const uid = process.getuid();
  for (let d = dir, i = 0; i < 3; i++, d = dirname(d)) {
    const st = statSync(d);
    if (!st.isDirectory() || (st.uid !== uid && st.uid !== 0) || (st.mode & 0o022) !== 0) return false;
  }
  return true;
}

/** Enables the compile cache in the user's folder; returns that folder, or null when it is not enabled there. */
export function enablePrivateCompileCache(env = process.env) {
  if (typeof module.enableCompileCache !== "function" || env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE) return null;
  const dir = compileCacheDir(env);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!privateToUser(dir)) return null;
  } catch {
    return null; // no home, a read-only one: start without a cache
  }
  const { status } = module.enableCompileCache(dir);
  return status === module.constants?.compileCacheStatus?.ENABLED ? dir : null;
}
