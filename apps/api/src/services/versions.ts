import { maxSemver, parseSemver, RyeError } from "@rye/core";

export function semverColumns(version: string): { major: number; minor: number; patch: number; prerelease: string } {
  const v = parseSemver(version);
  if (!v) throw new RyeError("INVALID_VERSION", `${JSON.stringify(version)} is not a semantic version`);
  return { major: v.major, minor: v.minor, patch: v.patch, prerelease: v.prerelease.join(".") };
}

/** The version "latest" resolves to: the highest non-yanked version, stable releases first. */
export function latestOf(versions: { version: string; yanked: boolean }[]): string | null {
  return maxSemver(versions.filter((v) => !v.yanked).map((v) => v.version)) ?? null;
}
