/**
 * Where agents read skills from: a project folder (relative to the project) and a user folder. The paths are the
 * ones the `skills` CLI (1.7.4) installs to, so a skill installed by either tool lands in the same place.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { RyeError } from "@rye/core";

export interface AgentTarget {
  id: string;
  displayName: string;
  /** Relative to the project. */
  projectDir: string;
  /** Absolute, for `--global`. */
  globalDir: (env: NodeJS.ProcessEnv) => string;
}

const home = (env: NodeJS.ProcessEnv) => env.HOME?.trim() || homedir();
const configHome = (env: NodeJS.ProcessEnv) => env.XDG_CONFIG_HOME?.trim() || join(home(env), ".config");
const at = (...parts: string[]) => (env: NodeJS.ProcessEnv) => join(home(env), ...parts);
const inConfig = (...parts: string[]) => (env: NodeJS.ProcessEnv) => join(configHome(env), ...parts);

const agent = (id: string, displayName: string, projectDir: string, globalDir: (env: NodeJS.ProcessEnv) => string): AgentTarget => ({ id, displayName, projectDir, globalDir });

export const AGENTS: readonly AgentTarget[] = [
  agent("universal", "Agents (.agents/skills: Codex, Cursor, Copilot, Gemini CLI, OpenCode, Amp, Cline, …)", ".agents/skills", inConfig("agents", "skills")),
  agent("claude-code", "Claude Code", ".claude/skills", (env) => join(env.CLAUDE_CONFIG_DIR?.trim() || join(home(env), ".claude"), "skills")),
  agent("codex", "Codex", ".agents/skills", at(".agents", "skills")),
  agent("cursor", "Cursor", ".agents/skills", at(".cursor", "skills")),
  agent("github-copilot", "GitHub Copilot", ".agents/skills", at(".copilot", "skills")),
  agent("gemini-cli", "Gemini CLI", ".agents/skills", at(".gemini", "skills")),
  agent("opencode", "OpenCode", ".agents/skills", inConfig("opencode", "skills")),
  agent("amp", "Amp", ".agents/skills", inConfig("agents", "skills")),
  agent("cline", "Cline", ".agents/skills", at(".agents", "skills")),
  agent("goose", "Goose", ".goose/skills", inConfig("goose", "skills")),
  agent("windsurf", "Windsurf", ".windsurf/skills", at(".codeium", "windsurf", "skills")),
  agent("roo", "Roo Code", ".roo/skills", at(".roo", "skills")),
  agent("kiro-cli", "Kiro CLI", ".kiro/skills", at(".kiro", "skills")),
  agent("qwen-code", "Qwen Code", ".qwen/skills", at(".qwen", "skills")),
  agent("continue", "Continue", ".continue/skills", at(".continue", "skills")),
  agent("junie", "Junie", ".junie/skills", at(".junie", "skills")),
  agent("augment", "Augment", ".augment/skills", at(".augment", "skills")),
  agent("trae", "Trae", ".trae/skills", at(".trae", "skills")),
];

export function agentById(id: string): AgentTarget {
  const found = AGENTS.find((a) => a.id === id);
  if (!found) {
    throw new RyeError("BAD_REQUEST", `Unknown agent ${JSON.stringify(id)}`, { hint: `Use one of: ${AGENTS.map((a) => a.id).join(", ")}.` });
  }
  return found;
}
