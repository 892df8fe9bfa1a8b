/**
 * Where a state graph run lives and how its state is kept: one knowledge item per run,
 * `<project>/.ai/knowledge/graph-runs/<graph id>/<run id>.md`, whose body is the run's state as JSON, signed with
 * the user's key and replaced atomically after every completed step (and every completed foreach item); its
 * event log `<run id>.events.jsonl` sits beside it (append-only, one JSON object a line, so `tail -f` works).
 */
import { randomBytes } from "node:crypto";
import { appendFile, mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { KeyPair } from "@rye/core";
import { assertItemId, RyeError, sha256Hex, signItem, utf8Decode } from "@rye/core";
import type { EngineContext } from "../engine/context.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { KeyStore } from "../keys/keystore.ts";

export const RUNS_CATEGORY = "graph-runs";
export const RUN_ID = /^[a-z0-9][a-z0-9_-]{0,127}$/;

export type RunStatus = "running" | "completed" | "error";

export interface StepLogEntry {
  step: number;
  node: string;
  status: "ok" | "error";
  result_hash: string;
  at: string;
  /** For a foreach node: how many items it ran (resumed items included). */
  items?: number;
}

export interface ForeachProgress {
  node: string;
  /** Results of the items completed so far, by index. */
  done: Record<string, unknown>;
}

export interface GraphRunState {
  format: "rye-graph-run/1";
  run_id: string;
  graph: { id: string; version: string; hash: string };
  status: RunStatus;
  /** The node to run next (null when the run ended). */
  current: string | null;
  /** Steps completed so far (a step is one node). */
  steps: number;
  inputs: Record<string, unknown>;
  state: Record<string, unknown>;
  foreach: ForeachProgress | null;
  log: StepLogEntry[];
  result?: unknown;
  error?: { code: string; message: string; node?: string; hint?: string; required_capability?: string } | null;
  /** The thread that called the graph (null: run by the user). */
  caller: { thread_id: string } | null;
  pid: number;
  started_at: string;
  updated_at: string;
  resumes: number;
}

export function newRunId(graphId: string, now = new Date()): string {
  const name = (graphId.split("/").pop() ?? "graph").toLowerCase().replace(/[^a-z0-9_-]/g, "-").slice(0, 48) || "graph";
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "").toLowerCase();
  return `${name}-${stamp}-${randomBytes(4).toString("hex")}`;
}

export function assertRunId(runId: string): void {
  if (!RUN_ID.test(runId)) throw new RyeError("BAD_REQUEST", `Not a graph run id: ${JSON.stringify(runId)}`, { hint: "Run ids look like <graph name>-<yyyymmddThhmmss>-<8 hex>; list them with `rye graph list`." });
}

export function runsRoot(projectPath: string): string {
  return join(projectPath, ".ai", "knowledge", RUNS_CATEGORY);
}

export function runPaths(projectPath: string, graphId: string, runId: string): { state: string; events: string; lock: string; itemId: string } {
  assertItemId(graphId);
  assertRunId(runId);
  const dir = join(runsRoot(projectPath), ...graphId.split("/"));
  return { state: join(dir, `${runId}.md`), events: join(dir, `${runId}.events.jsonl`), lock: join(dir, `${runId}.lock`), itemId: `${RUNS_CATEGORY}/${graphId}/${runId}` };
}

/** Stable hash of a JSON value (a step's result, for the audit log). */
export function valueHash(value: unknown): string {
  return sha256Hex(JSON.stringify(value ?? null));
}

const FENCE_OPEN = "```json\n";
const FENCE_CLOSE = "\n```";

export function renderRun(run: GraphRunState): string {
  const frontmatter = [
    "---",
    `id: ${run.run_id}`,
    `title: ${JSON.stringify(`State graph run ${run.run_id} of ${run.graph.id}`)}`,
    "version: 1.0.0",
    "entry_type: graph_run",
    `category: ${RUNS_CATEGORY}/${run.graph.id}`,
    "tags: [graph-run]",
    "---",
  ].join("\n");
  return `${frontmatter}\n\n${FENCE_OPEN}${JSON.stringify(run, null, 1)}${FENCE_CLOSE}\n`;
}

export function parseRun(content: string, path: string): GraphRunState {
  const start = content.indexOf(FENCE_OPEN);
  const end = content.lastIndexOf(FENCE_CLOSE);
  let run: GraphRunState | undefined;
  if (start >= 0 && end > start) {
    try {
      run = JSON.parse(content.slice(start + FENCE_OPEN.length, end)) as GraphRunState;
    } catch {
      run = undefined;
    }
  }
  if (!run || run.format !== "rye-graph-run/1" || typeof run.run_id !== "string" || typeof run.graph?.id !== "string") {
    throw new RyeError("PARSE_FAILED", `${path} is not a graph run state`, { hint: "The file was damaged: restore it, or start the graph again (rye graph run)." });
  }
  return run;
}

/** Writes and signs a run's state; one writer per run (calls are serialised by the caller). */
export class RunStore {
  private key: KeyPair | undefined;

  constructor(private readonly ctx: EngineContext) {}

  paths(graphId: string, runId: string) {
    return runPaths(this.ctx.projectPath, graphId, runId);
  }

  async save(run: GraphRunState): Promise<void> {
    this.key ??= (await new KeyStore({ env: this.ctx.env }).loadOrCreate()).key;
    run.updated_at = new Date().toISOString();
    const { state } = this.paths(run.graph.id, run.run_id);
    const signed = await signItem(renderRun(run), "knowledge", this.key, { path: state });
    await writeFileAtomic(state, signed.content);
  }

  async event(run: GraphRunState, type: string, payload: Record<string, unknown> = {}): Promise<void> {
    const { events } = this.paths(run.graph.id, run.run_id);
    await mkdir(join(events, ".."), { recursive: true });
    await appendFile(events, `${JSON.stringify({ ts: new Date().toISOString(), run_id: run.run_id, event_type: type, step: run.steps, ...payload })}\n`);
  }
}

/** Finds a run's state file by its id alone (ids are unique across graphs). */
export async function findRunPath(projectPath: string, runId: string): Promise<string> {
  assertRunId(runId);
  const target = `${runId}.md`;
  async function walk(dir: string, depth: number): Promise<string | undefined> {
    if (depth > 16) return undefined;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return undefined;
    }
    for (const e of entries) if (e.isFile() && e.name === target) return join(dir, e.name);
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith(".")) continue;
      const found = await walk(join(dir, e.name), depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  const found = await walk(runsRoot(projectPath), 0);
  if (!found) throw new RyeError("ITEM_NOT_FOUND", `No graph run ${runId} in ${runsRoot(projectPath)}`, { hint: "List the runs with `rye graph list`." });
  return found;
}

/** A run's state, its signature verified with the project's trust (the user's own key is trusted). */
export async function readRun(ctx: EngineContext, runId: string): Promise<{ run: GraphRunState; path: string }> {
  const path = await findRunPath(ctx.projectPath, runId);
  const content = utf8Decode(await readFile(path));
  const v = await ctx.verifier.verify(content, "knowledge", "project");
  if (!v.ok) {
    throw new RyeError(v.code === "OK" ? "INTEGRITY_MISMATCH" : v.code, `The state of graph run ${runId} does not verify (${path}): ${v.message}`, {
      hint: "The state was changed outside rye or signed by an untrusted key; it cannot be resumed. Start the graph again with `rye graph run`.",
      details: { path, code: v.code },
    });
  }
  const run = parseRun(content, path);
  if (run.run_id !== runId) throw new RyeError("INTEGRITY_MISMATCH", `${path} holds run ${run.run_id}, not ${runId}`);
  return { run, path };
}

/** Every run of the project (newest first), unverified summaries for listing. */
export async function listRuns(projectPath: string): Promise<{ run_id: string; graph: string; status: string; steps: number; current: string | null; updated_at: string }[]> {
  const out: { run_id: string; graph: string; status: string; steps: number; current: string | null; updated_at: string }[] = [];
  async function walk(dir: string, depth: number): Promise<void> {
    if (depth > 16 || out.length >= 1000) return;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory() && !e.name.startsWith(".")) await walk(path, depth + 1);
      else if (e.isFile() && e.name.endsWith(".md")) {
        try {
          const run = parseRun(await readFile(path, "utf8"), path);
          out.push({ run_id: run.run_id, graph: run.graph.id, status: run.status, steps: run.steps, current: run.current, updated_at: run.updated_at });
        } catch {
          // not a run state: skipped
        }
      }
    }
  }
  await walk(runsRoot(projectPath), 0);
  return out.sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
}

/** Whether the process that ran a run is still alive (a zombie is not): a running run whose process is gone crashed. */
export { isAlive as processAlive } from "../threads/processes.ts";
