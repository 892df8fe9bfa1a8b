/**
 * Agent-thread tests: a workspace (project + user space, signing key), a fake LLM provider speaking a real wire
 * protocol (fake-llm.ts) that the system providers point at through their base-URL variables, helpers to write
 * signed directives, knowledge and tools, and a scripted model that answers per directive and turn.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { FakeLlm, Protocol, RecordedLlmRequest, Reply } from "./fake-llm.ts";
import { startFakeLlm } from "./fake-llm.ts";
import { runRye } from "./cli.ts";
import type { Workspace } from "./workspace.ts";
import { createWorkspace, nodeTool } from "./workspace.ts";

export interface DirectiveSpec {
  name: string;
  category: string;
  description?: string;
  permissions?: string;
  limits?: string;
  hooks?: string;
  model?: string;
  inputs?: string;
  body?: string;
  steps?: string;
}

/** A directive file: markdown with the XML block. */
export function directive(spec: DirectiveSpec): string {
  return `# ${spec.name}

${spec.body ?? `Directive ${spec.name} for the thread tests.`}

\`\`\`xml
<directive name="${spec.name}" version="1.0.0">
  <metadata>
    <description>${spec.description ?? `Run ${spec.name}`}</description>
    <category>${spec.category}</category>
    <author>tests</author>
    ${spec.model ?? ""}
    ${spec.limits ?? ""}
    ${spec.permissions === undefined ? "" : `<permissions>${spec.permissions}</permissions>`}
    ${spec.hooks ? `<hooks>${spec.hooks}</hooks>` : ""}
  </metadata>
  ${spec.inputs ? `<inputs>${spec.inputs}</inputs>` : ""}
  <process>
    ${spec.steps ?? `<step name="work">Do the work of ${spec.name}.</step>`}
  </process>
</directive>
\`\`\`
`;
}

export const knowledge = (id: string, category: string, body: string) =>
  `---\nid: ${id}\ntitle: ${id}\nversion: 1.0.0\nentry_type: reference\ncategory: ${category}\n---\n\n${body}\n`;

/** The directive a request of the fake LLM belongs to (the `# name` heading of the first message) and its turn. */
export function requestInfo(request: RecordedLlmRequest): { directive: string; turn: number; toolResults: string[] } {
  const messages = (request.body.messages ?? []) as { role: string; content: unknown }[];
  const first = messages.find((m) => m.role === "user");
  const text = typeof first?.content === "string" ? first.content : JSON.stringify(first?.content ?? "");
  const directive = /^# (\S+)/m.exec(text)?.[1] ?? "?";
  const turn = messages.filter((m) => m.role === "assistant").length;
  const toolResults: string[] = [];
  for (const m of messages) {
    if (m.role === "tool" && typeof m.content === "string") toolResults.push(m.content);
    if (m.role === "user" && Array.isArray(m.content)) {
      for (const block of m.content as { type?: string; content?: unknown }[]) if (block.type === "tool_result") toolResults.push(typeof block.content === "string" ? block.content : JSON.stringify(block.content));
    }
  }
  return { directive, turn, toolResults };
}

export type Script = Record<string, (turn: number, request: RecordedLlmRequest) => Reply | Promise<Reply>>;

export interface ThreadBench {
  ws: Workspace;
  llm: FakeLlm;
  env: Record<string, string>;
  write(type: "directive" | "tool" | "knowledge", rel: string, content: string, options?: { signer?: null }): Promise<string>;
  /** Answers by directive name and turn; an unscripted turn ends the thread with a text. */
  script(script: Script): void;
  rye(args: string[], extraEnv?: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string; json: Record<string, any> }>;
  events(threadId: string): Promise<{ event_type: string; payload: Record<string, any> }[]>;
  record(threadId: string): Promise<Record<string, any>>;
  close(): Promise<void>;
}

export async function threadBench(protocol: Protocol = "anthropic"): Promise<ThreadBench> {
  const ws = await createWorkspace();
  const llm = await startFakeLlm(protocol);
  const base: NodeJS.ProcessEnv = { ...ws.env };
  for (const k of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"]) delete base[k];
  if (protocol === "anthropic") Object.assign(base, { ANTHROPIC_API_KEY: llm.apiKey, ANTHROPIC_BASE_URL: llm.url });
  else Object.assign(base, { OPENAI_API_KEY: llm.apiKey, OPENAI_BASE_URL: `${llm.url}/v1` });
  const env = Object.fromEntries(Object.entries(base).filter((e): e is [string, string] => typeof e[1] === "string"));
  return {
    ws,
    llm,
    env,
    async write(type, rel, content, options = {}) {
      return ws.write(type, rel, content, options.signer === null ? { signer: null } : {});
    },
    script(script) {
      llm.reply = (request) => {
        const info = requestInfo(request);
        const answer = script[info.directive];
        return answer ? answer(info.turn, request) : { text: `done (${info.directive})`, usage: { input: 10, output: 5 } };
      };
    },
    async rye(args, extraEnv = {}) {
      const run = await runRye([...args, "--json"], { env: { ...env, ...extraEnv }, cwd: ws.projectDir });
      let json: Record<string, any> = {};
      try {
        json = JSON.parse(run.stdout) as Record<string, any>;
      } catch {
        json = {};
      }
      return { ...run, json };
    },
    async events(threadId) {
      const text = await readFile(join(ws.projectDir, ".ai", "threads", threadId, "transcript.jsonl"), "utf8");
      return text.trim().split("\n").map((l) => JSON.parse(l) as { event_type: string; payload: Record<string, any> });
    },
    async record(threadId) {
      return JSON.parse(await readFile(join(ws.projectDir, ".ai", "threads", threadId, "thread.json"), "utf8")) as Record<string, any>;
    },
    close: () => llm.close(),
  };
}

/** A node tool in `category` whose main returns `body` (JS expression of `p`, the parameters). */
export const returnsTool = (category: string, expr: string, schema = "{}") => nodeTool(category, `export function main(p) { return ${expr}; }`, schema);
