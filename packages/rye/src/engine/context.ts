/** What every engine operation needs: the spaces in precedence order and the verifier. */
import { resolve } from "node:path";
import type { PublicKey } from "@rye/core";
import type { Space, SpaceName } from "../spaces/spaces.ts";
import { resolveSpaces } from "../spaces/spaces.ts";
import { userSpaceBase } from "../spaces/paths.ts";
import { withRegistryTrust } from "../registry/registry-trust.ts";
import type { Verifier } from "./verification.ts";
import { createVerifier } from "./verification.ts";

export interface EngineOptions {
  /** Project directory (default: the current directory). */
  projectPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Override of the system `.ai` directory (tests). */
  systemRoot?: string;
  /** Extra keys trusted for the system space (tests). */
  extraSystemKeys?: PublicKey[];
  /** The caller runs for long (the MCP server): search watches the spaces instead of re-scanning them. */
  longLived?: boolean;
}

export interface EngineContext {
  projectPath: string;
  env: NodeJS.ProcessEnv;
  spaces: Space[];
  verifier: Verifier;
  userBase: string;
  longLived: boolean;
  space(name: SpaceName): Space;
}

export async function createEngineContext(options: EngineOptions = {}): Promise<EngineContext> {
  const env = options.env ?? process.env;
  const projectPath = resolve(options.projectPath ?? process.cwd());
  const spaces = await resolveSpaces({ projectPath, env, ...(options.systemRoot ? { systemRoot: options.systemRoot } : {}) });
  // Registry-pulled items in the user space verify with their registry's pinned key (project lock).
  const verifier = withRegistryTrust(createVerifier({ env, ...(options.extraSystemKeys ? { extraSystemKeys: options.extraSystemKeys } : {}) }), { projectPath, env });
  return {
    projectPath,
    env,
    spaces,
    verifier,
    userBase: userSpaceBase(env),
    longLived: options.longLived ?? false,
    space(name) {
      // When the project is the user's home, the two are one space (kept under the name "project").
      return spaces.find((s) => s.name === name) ?? spaces.find((s) => s.name !== "system")!;
    },
  };
}
