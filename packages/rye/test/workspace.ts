/** A throwaway project + user space with a signing key, for engine tests that touch real files. */
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ItemType, KeyPair } from "@rye/core";
import { generateKeyPair, signItem, TYPE_FOLDERS } from "@rye/core";
import { Engine } from "../src/engine/engine.ts";
import { KeyStore } from "../src/keys/keystore.ts";

export interface Workspace {
  root: string;
  projectDir: string;
  userBase: string;
  env: NodeJS.ProcessEnv;
  key: KeyPair;
  /** Writes an item under `<space>/.ai/<type folder>/<relPath>`, signed with `signer` (default: the user's key). */
  write(type: ItemType, relPath: string, content: string, options?: { space?: "project" | "user"; signer?: KeyPair | null }): Promise<string>;
  engine(): Promise<Engine>;
}

export async function createWorkspace(): Promise<Workspace> {
  const root = await mkdtemp(join(tmpdir(), "rye-ws-"));
  const projectDir = join(root, "project");
  const userBase = join(root, "home");
  await mkdir(join(projectDir, ".ai"), { recursive: true });
  await mkdir(userBase, { recursive: true });
  // Hermetic by default: no registry lookups unless a test opts in (remove RYE_OFFLINE, set RYE_REGISTRY_URL).
  const env: NodeJS.ProcessEnv = { ...process.env, USER_SPACE: userBase, RYE_SYSTEM_SPACE: "", RYE_OFFLINE: "1" };
  delete env.RYE_SYSTEM_SPACE;
  const key = await new KeyStore({ env }).create();
  return {
    root,
    projectDir,
    userBase,
    env,
    key,
    async write(type, relPath, content, options = {}) {
      const base = options.space === "user" ? userBase : projectDir;
      const path = join(base, ".ai", TYPE_FOLDERS[type], relPath);
      await mkdir(dirname(path), { recursive: true });
      const signer = options.signer === undefined ? key : options.signer;
      await writeFile(path, signer ? (await signItem(content, type, signer, { path })).content : content);
      return path;
    },
    engine: () => Engine.open({ projectPath: projectDir, env }),
  };
}

export async function strangerKey(): Promise<KeyPair> {
  return generateKeyPair();
}

export const nodeTool = (category: string, body: string, schema = "{}") => `export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __category__ = "${category}";
export const __tool_description__ = "test tool";
export const CONFIG_SCHEMA = ${schema};
${body}
`;

export const yamlRuntime = (category: string, executor: string, extra = "") => `version: "1.0.0"
tool_type: runtime
executor_id: ${executor}
category: ${category}
description: "test runtime"
${extra}`;
