import { maxSemver, parseSemver, RyeError } from "@rye/core";

export function semverColumns(version: string): { major: number; minor: number; patch: number; prerelease: string } {
  const v = parseSemver(version);
  if (!v) throw new RyeError("INVALID_VERSION", `${JSON.stringify(version)} is not a semantic version`);
  return { major: v.major, minor: v.minor, patch: v.patch, prerelease: v.prerelease.join(".") };
}

/** The version "latest" resolves to: the highest non-yanked published version (never one held for approval), stable releases first. */
export function latestOf(versions: { version: string; yanked: boolean; status?: string }[]): string | null {
  return maxSemver(versions.filter((v) => !v.yanked && (v.status === undefined || v.status === "published")).map((v) => v.version)) ?? null;
}
