/**
 * The few places where Windows and POSIX differ for the client, as pure functions of a `Platform` so that both
 * sides are unit-tested on any machine (`platform.test.ts` runs the Windows rules with `node:path`'s win32
 * implementation):
 *
 * - containment checks (`..\\`, another drive letter, case-insensitive comparison: path.win32.relative);
 * - `~` expansion (`~/` and `~\\`);
 * - looking up executables: `PATH` is `Path` on Windows (environment names are case-insensitive there, but a
 *   copied env object is not) and programs carry a PATHEXT extension (`bash.exe`, `tsx.cmd`);
 * - where a virtualenv keeps its interpreter (`.venv/bin/python` vs `.venv\\Scripts\\python.exe`).
 */
import nodePath from "node:path";

export interface Platform {
  name: NodeJS.Platform;
  path: nodePath.PlatformPath;
}

export const CURRENT_PLATFORM: Platform = { name: process.platform, path: nodePath };
export const WINDOWS: Platform = { name: "win32", path: nodePath.win32 };
export const POSIX: Platform = { name: "linux", path: nodePath.posix };

export const isWindows = (platform: Platform = CURRENT_PLATFORM): boolean => platform.name === "win32";

/** True when `child` is `parent` or below it (no `..` step, no other drive or root). */
export function isPathInside(parent: string, child: string, platform: Platform = CURRENT_PLATFORM): boolean {
  const { path } = platform;
  const rel = path.relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** `~`, `~/x` (and `~\x` on Windows) against `home`; anything else resolved as a path. */
export function expandHome(raw: string, home: string, platform: Platform = CURRENT_PLATFORM): string {
  const { path } = platform;
  if (raw === "~") return home;
  if (raw.startsWith("~/") || (isWindows(platform) && raw.startsWith("~\\"))) return path.join(home, raw.slice(2));
  return path.resolve(raw);
}

/** The value of PATH in `env` (on Windows whatever its case: `Path` is the usual spelling there). */
export function pathFromEnv(env: Record<string, string | undefined>, platform: Platform = CURRENT_PLATFORM): string | undefined {
  if (!isWindows(platform)) return env.PATH;
  const key = Object.keys(env).find((k) => k.toUpperCase() === "PATH");
  return key === undefined ? undefined : env[key];
}

/** True when `binary` names a path (has a separator) rather than a program to look up on PATH. */
export function hasPathSeparator(binary: string, platform: Platform = CURRENT_PLATFORM): boolean {
  return binary.includes("/") || (isWindows(platform) && binary.includes("\\"));
}

/**
 * The file names to try for `binary` in one directory: the name itself on POSIX; on Windows the name with each
 * PATHEXT extension first (`bash.EXE`, …; a name that already has one of them is tried as is).
 */
export function executableNames(binary: string, env: Record<string, string | undefined>, platform: Platform = CURRENT_PLATFORM): string[] {
  if (!isWindows(platform)) return [binary];
  const key = Object.keys(env).find((k) => k.toUpperCase() === "PATHEXT");
  const extensions = ((key ? env[key] : undefined) ?? ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean);
  const lower = binary.toLowerCase();
  if (extensions.some((ext) => lower.endsWith(ext.toLowerCase()))) return [binary];
  return [...extensions.map((ext) => `${binary}${ext.toLowerCase()}`), binary];
}

/** Every candidate file for `binary` on `pathValue`, in search order (relative PATH entries are skipped). */
export function pathCandidates(binary: string, pathValue: string | undefined, env: Record<string, string | undefined>, platform: Platform = CURRENT_PLATFORM): string[] {
  const { path } = platform;
  const dirs = (pathValue ?? "").split(path.delimiter).filter((dir) => dir && path.isAbsolute(dir));
  return dirs.flatMap((dir) => executableNames(binary, env, platform).map((name) => path.join(dir, name)));
}

/** The interpreters of a virtualenv at `venvDir`, in preference order. */
export function venvPythonCandidates(venvDir: string, platform: Platform = CURRENT_PLATFORM): string[] {
  const { path } = platform;
  return isWindows(platform) ? [path.join(venvDir, "Scripts", "python.exe")] : [path.join(venvDir, "bin", "python"), path.join(venvDir, "bin", "python3")];
}

/** An item id (always `/`-separated) from a path relative to a type folder. */
export function toItemPath(relativePath: string, platform: Platform = CURRENT_PLATFORM): string {
  return relativePath.split(platform.path.sep).join("/");
}
