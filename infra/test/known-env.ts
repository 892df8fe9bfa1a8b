/**
 * The environment variables the registry's code reads, found in its source: keys of the zod schemas of
 * apps/api/src/config.ts and apps/api/src/auth/upstream/config.ts, and every `env.NAME` / `env["NAME"]` read in
 * the server code (API, one-origin server, database package). A manifest that sets another name configures
 * nothing (a typo, or a setting that was renamed).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const SERVER_SOURCES = ["apps/api/src", "apps/web/server", "apps/web/lib", "packages/db/src", "packages/db/scripts", "packages/core/src"];
const CONFIG_SCHEMAS = ["apps/api/src/config.ts", "apps/api/src/auth/upstream/config.ts"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = join(dir, entry);
    if (entry === "node_modules" || entry === "dist" || entry === "generated") return [];
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry) && !/\.test\.tsx?$/.test(entry) ? [full] : [];
  });
}

export function knownEnvNames(root: string): Set<string> {
  const names = new Set<string>();
  for (const file of CONFIG_SCHEMAS) {
    for (const m of readFileSync(join(root, file), "utf8").matchAll(/^\s+([A-Z][A-Z0-9_]+):\s*(?:int\(|z\b)/gm)) names.add(m[1]!);
  }
  for (const dir of SERVER_SOURCES) {
    for (const file of sourceFiles(join(root, dir))) {
      for (const m of readFileSync(file, "utf8").matchAll(/\benv(?:\.|\[["'])([A-Z][A-Z0-9_]+)\b/g)) names.add(m[1]!);
    }
  }
  return names;
}
