/**
 * The dangerous-pattern rules the registry's safety reports apply: the signed system item
 * `rye/security/dangerous_patterns` of the system bundle the registry seeds from — the same file the client's
 * security gate loads — verified against the rye release key before use (an altered file is refused, not used).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { CompiledRule } from "@rye/core";
import { dangerRulesFromConfig, keyResolverFrom, RyeError, safetyRulesVersion, verifyItem } from "@rye/core";
// As seed.ts: the system bundle and the release key are the client package's own files.
import { releasePublicKey } from "../../../../packages/rye/src/engine/release-key.ts";
import { repoSystemAiDir } from "../../../../packages/rye/src/spaces/spaces.ts";

export const DANGEROUS_PATTERNS_PATH = join("tools", "rye", "security", "dangerous_patterns.yaml");

export interface SafetyRules {
  rules: CompiledRule[];
  /** What reports made with these rules carry (`safetyRulesVersion`). */
  version: string;
}

/** Reads and verifies the rules of a system bundle (default: the one the registry seeds from). */
export async function loadSafetyRules(systemAiDir: string = repoSystemAiDir()): Promise<SafetyRules> {
  const path = join(systemAiDir, DANGEROUS_PATTERNS_PATH);
  let content: string;
  try {
    content = await readFile(path, "utf8");
  } catch (err) {
    throw new RyeError("INTERNAL", `The security gate's rules could not be read from ${path}: ${(err as Error).message}`, {
      hint: "The registry needs rye's system bundle (.ai/) beside it, as for seeding.",
    });
  }
  const verified = await verifyItem(content, "tool", keyResolverFrom([releasePublicKey()]));
  if (!verified.ok) {
    throw new RyeError("BAD_SIGNATURE", `The security gate's rules at ${path} do not verify against the rye release key: ${verified.message}`, {
      hint: "Restore the file, or re-sign the system bundle (npm run sign:system).",
    });
  }
  const rules = dangerRulesFromConfig(content, path);
  return { rules, version: safetyRulesVersion(rules) };
}

let shared: Promise<SafetyRules> | undefined;

/** The system bundle's rules, read once per process (a failed read is tried again next time). */
export function systemSafetyRules(): Promise<SafetyRules> {
  if (!shared) {
    shared = loadSafetyRules();
    shared.catch(() => (shared = undefined));
  }
  return shared;
}
