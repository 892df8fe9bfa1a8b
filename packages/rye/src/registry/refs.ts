/** Item and bundle references with a version (`id@1.2.3`): pure parsing, free of the registry client's HTTP code. */
import { isSemver, RyeError } from "@rye/core";

/** `id@1.2.3` → id and version. */
export function splitVersion(ref: string): { id: string; version?: string } {
  const at = ref.lastIndexOf("@");
  if (at <= 0) return { id: ref };
  const version = ref.slice(at + 1);
  if (!version) throw new RyeError("BAD_REQUEST", `Missing version after @ in ${JSON.stringify(ref)}`);
  return { id: ref.slice(0, at), version };
}

/** `acme/kit@1.2.0` → id and version (bundle ids never contain `@`). */
export function splitBundleRef(ref: string): { bundleId: string; version?: string } {
  const at = ref.indexOf("@");
  if (at < 0) return { bundleId: ref };
  const version = ref.slice(at + 1);
  if (!isSemver(version)) throw new RyeError("INVALID_VERSION", `Invalid version ${JSON.stringify(version)} in ${JSON.stringify(ref)}`, { hint: "Use <bundle_id>@MAJOR.MINOR.PATCH." });
  return { bundleId: ref.slice(0, at), version };
}
