/**
 * The `state_graph` runtime (docs/state-graphs.md): walks a graph tool's nodes in the graph's own process, runs each
 * node's action through the engine (the same verified executor chain as `rye execute`), checks every action against
 * the caller's capabilities before it runs, and persists the run's signed state after every completed step and
 * every completed foreach item, so a killed run resumes where it stood without running a completed step again.
 *
 * Entered from `runners/state-graph.mjs` (through `ryeos/sdk/v1` → `graphs.runGraphTool`); the graph file is read
 * again here and verified from the bytes that are parsed.
 */
import { stat } from "node:fs/promises";
import { relative, resolve, sep } from "node:path";
import type { GraphAction, GraphDefinition, GraphNode } from "@rye/core";
import { checkCapability, computeContentHash, MAX_FOREACH_ITEMS, parseGraph, parseTool, RyeError } from "@rye/core";
import { Engine } from "../engine/engine.ts";
import { importVerifiedModule, readVerifiedItem } from "../sdk/runtime.ts";
import { readParentContext } from "../sdk/threads.ts";
import type { GraphRunState } from "./store.ts";
import { withFileLock } from "../threads/lock.ts";
import { GRAPH_ENV } from "./env.ts";
import { assertRunId, newRunId, readRun, RunStore, valueHash } from "./store.ts";

/** Variables `rye graph run/resume` hands the runtime (never passed on to the tools a graph runs). */
export { GRAPH_ENV };

type Evaluate = (condition: unknown, doc: unknown) => boolean;
type Interpolate = (value: unknown, context: unknown) => unknown;

export interface RunGraphOptions {
  graphPath: string;
  params: Record<string, unknown>;
  projectPath: string;
  env: NodeJS.ProcessEnv;
}

export interface GraphRunResult {
  success: boolean;
  run_id: string;
  graph: string;
  status: GraphRunState["status"];
  steps: number;
  result?: unknown;
  state: Record<string, unknown>;
  error?: GraphRunState["error"];
  resumed?: boolean;
}

class Refused extends Error {
  constructor(
    readonly required: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

class StepFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === "object" && !Array.isArray(v);

/** The item id of a tool file: its path under the `tools/` folder of the space that holds it. */
async function graphItemId(engine: Engine, graphPath: string): Promise<string> {
  const abs = resolve(graphPath);
  for (const space of engine.ctx.spaces) {
    const rel = relative(resolve(space.root, "tools"), abs);
    if (rel && !rel.startsWith("..") && !rel.startsWith(sep)) return rel.split(sep).join("/").replace(/\.(yaml|yml)$/, "");
  }
  throw new RyeError("VALIDATION_FAILED", `${graphPath} is in no space's tools folder`, { hint: "Run graphs through the executor: rye graph run <graph id> or rye execute tool <graph id>." });
}

function errorInfo(err: unknown): { code: string; message: string; hint?: string } {
  const e = (err ?? {}) as { code?: unknown; message?: unknown; hint?: unknown };
  return { code: typeof e.code === "string" ? e.code : "INTERNAL", message: typeof e.message === "string" ? e.message : String(err), ...(typeof e.hint === "string" ? { hint: e.hint } : {}) };
}

export async function runGraphTool(options: RunGraphOptions): Promise<GraphRunResult> {
  const { env, projectPath } = options;
  const toolEnv: NodeJS.ProcessEnv = { ...env };
  for (const name of Object.values(GRAPH_ENV)) delete toolEnv[name];
  const engine = await Engine.open({ projectPath, env: toolEnv });
  const itemId = await graphItemId(engine, options.graphPath);
  const item = await readVerifiedItem(engine, "tool", itemId);
  if (resolve(item.path) !== resolve(options.graphPath)) throw new RyeError("CONFLICT", `${options.graphPath} is shadowed by ${item.path}`, { hint: "Run the graph by its id." });
  const graph = parseGraph(parseTool(item.content, item.path), itemId);
  const hash = computeContentHash(item.content, "tool");
  const caller = await readParentContext(env, projectPath);
  const conditions = (await importVerifiedModule(engine, "rye/agent/threads/conditions")).module as { evaluate: Evaluate; interpolate: Interpolate };
  const walker = new Walker(engine, graph, hash, caller, env.RYE_THREAD_PARENT, conditions.evaluate, conditions.interpolate);
  return walker.start(options.params, env);
}

class Walker {
  private readonly store: RunStore;
  private run!: GraphRunState;
  private saving: Promise<void> = Promise.resolve();
  /** SIGTERM/SIGINT (a Ctrl-C'd `rye graph run`, the primitive's timeout): running tools are stopped, the run ends CANCELLED. */
  private readonly abort = new AbortController();

  constructor(
    private readonly engine: Engine,
    private readonly graph: GraphDefinition,
    private readonly hash: string,
    private readonly caller: { thread_id: string; capabilities: string[]; generation?: number } | null,
    private readonly threadParent: string | undefined,
    private readonly evaluate: Evaluate,
    private readonly interpolate: Interpolate,
  ) {
    this.store = new RunStore(engine.ctx);
  }

  /** One process works on a run at a time: the run's lock (`<run id>.lock`, heartbeat, taken over when its holder died). */
  async start(params: Record<string, unknown>, env: NodeJS.ProcessEnv): Promise<GraphRunResult> {
    const resumeId = env[GRAPH_ENV.resume];
    const requested = env[GRAPH_ENV.runId];
    if (requested) assertRunId(requested);
    const runId = resumeId || requested || newRunId(this.graph.id);
    const paths = this.store.paths(this.graph.id, runId);
    return withFileLock(paths.lock, () => this.startLocked(runId, Boolean(resumeId), params, env), {
      timeoutMs: 1000,
      onTimeout: (holder) => new RyeError("CONFLICT", `Run ${runId} is being run by another process${holder ? ` (pid ${holder.pid})` : ""}`, { hint: "Wait for it to end (rye graph status), or stop that process first." }),
    });
  }

  private async startLocked(runId: string, resume: boolean, params: Record<string, unknown>, env: NodeJS.ProcessEnv): Promise<GraphRunResult> {
    const resumeId = resume ? runId : undefined;
    let resumed = false;
    if (resumeId) {
      const { run } = await readRun(this.engine.ctx, resumeId);
      if (run.graph.id !== this.graph.id) throw new RyeError("CONFLICT", `Run ${resumeId} belongs to graph ${run.graph.id}, not ${this.graph.id}`);
      if (run.status === "completed") return this.outcome(run, false);
      if (run.graph.hash !== this.hash && env[GRAPH_ENV.force] !== "1") {
        throw new RyeError("CONFLICT", `GRAPH_CHANGED: graph ${this.graph.id} changed since run ${resumeId} started (version ${run.graph.version} → ${this.graph.version})`, {
          hint: `Resume it with the graph it started with, or pass --force to continue with the changed graph (rye graph resume ${resumeId} --force).`,
          details: { reason: "GRAPH_CHANGED", recorded_hash: run.graph.hash, current_hash: this.hash },
        });
      }
      this.run = run;
      run.status = "running";
      run.error = null;
      run.pid = process.pid;
      run.resumes = (run.resumes ?? 0) + 1;
      run.graph = { id: this.graph.id, version: this.graph.version, hash: this.hash };
      resumed = true;
      await this.save();
      await this.emit("graph_resumed", { node: run.current, steps_done: run.steps, foreach_items_done: run.foreach ? Object.keys(run.foreach.done).length : 0 });
    } else {
      if (await stat(this.store.paths(this.graph.id, runId).state).then(() => true, () => false)) {
        throw new RyeError("CONFLICT", `A run ${runId} of ${this.graph.id} exists already`, { hint: `Continue it with \`rye graph resume ${runId}\`, or choose another --run-id.` });
      }
      const now = new Date().toISOString();
      this.run = {
        format: "rye-graph-run/1",
        run_id: runId,
        graph: { id: this.graph.id, version: this.graph.version, hash: this.hash },
        status: "running",
        current: this.graph.start,
        steps: 0,
        inputs: params,
        state: {},
        foreach: null,
        log: [],
        error: null,
        caller: this.caller ? { thread_id: this.caller.thread_id } : null,
        pid: process.pid,
        started_at: now,
        updated_at: now,
        resumes: 0,
      };
      await this.save();
      await this.emit("graph_started", { inputs: params, caller: this.run.caller });
    }
    const stop = () => this.abort.abort();
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    try {
      await this.loop();
    } finally {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
    }
    return this.outcome(this.run, resumed);
  }

  private outcome(run: GraphRunState, resumed: boolean): GraphRunResult {
    return {
      success: run.status === "completed",
      run_id: run.run_id,
      graph: run.graph.id,
      status: run.status,
      steps: run.steps,
      ...(run.status === "completed" ? { result: run.result } : {}),
      state: run.state,
      ...(run.error ? { error: run.error } : {}),
      resumed,
    };
  }

  /** Saves are serialised (foreach items finish concurrently); each writes the whole state, signed, atomically. */
  private save(): Promise<void> {
    this.saving = this.saving.then(() => this.store.save(this.run));
    return this.saving;
  }

  private async emit(event: string, payload: Record<string, unknown>): Promise<void> {
    await this.store.event(this.run, event, payload);
    for (const hook of this.graph.hooks) {
      if (hook.event !== event) continue;
      const context = { event, run_id: this.run.run_id, graph: this.graph.id, state: this.run.state, inputs: this.run.inputs, ...payload };
      if (hook.if !== undefined && !this.evaluate(hook.if, context)) continue;
      try {
        const action = this.resolveAction(hook.action, context);
        await this.perform(action);
        await this.store.event(this.run, "hook_completed", { event, item_id: action.item_id });
      } catch (err) {
        const e = err instanceof Refused ? { code: "FORBIDDEN", message: err.reason, required_capability: err.required } : errorInfo(err);
        await this.store.event(this.run, "hook_failed", { event, error: e });
      }
    }
  }

  private context(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { inputs: this.run.inputs, state: this.run.state, error: this.run.state.last_error ?? null, run: { id: this.run.run_id, steps: this.run.steps }, ...extra };
  }

  /** The action with its placeholders filled, checked against the caller's and the graph's capabilities. */
  private resolveAction(action: GraphAction, context: Record<string, unknown>): GraphAction {
    const itemId = String(this.interpolate(action.item_id, context) ?? "");
    const params = this.interpolate(action.params, context);
    const resolved: GraphAction = { ...action, item_id: itemId, params: isRecord(params) ? params : {} };
    const id = action.primary === "search" ? undefined : itemId;
    if (this.caller) {
      const d = checkCapability(this.caller.capabilities, action.primary, action.item_type, id);
      if (!d.allowed) throw new Refused(d.required, `the caller (thread ${this.caller.thread_id}) lacks ${d.required}: ${d.reason ?? "not granted"}`);
    }
    if (this.graph.permissions) {
      const d = checkCapability(this.graph.permissions, action.primary, action.item_type, id);
      if (!d.allowed) throw new Refused(d.required, `the graph's own permissions do not grant ${d.required}`);
    }
    return resolved;
  }

  /** Runs one (resolved, allowed) action; a failure throws StepFailure. */
  private async perform(action: GraphAction): Promise<unknown> {
    const params = action.params as Record<string, unknown>;
    let out: Record<string, unknown>;
    try {
      if (action.primary === "search") {
        out = (await this.engine.search({ query: String(params.query ?? ""), item_type: action.item_type, scope: "local", ...(typeof params.limit === "number" ? { limit: params.limit } : {}) })) as unknown as Record<string, unknown>;
        return out.results;
      }
      if (action.primary === "load") {
        out = (await this.engine.load({ item_type: action.item_type, item_id: action.item_id })) as unknown as Record<string, unknown>;
        return out;
      }
      // The caller's context goes to the engine; the executor hands it on only to the runtime's own tools (a child
      // thread, the orchestrator, a nested graph: receivesThreadContext), so they stay within the caller's capabilities.
      const passParent = this.threadParent !== undefined && this.caller !== null && action.item_type === "tool";
      // Each node passes the security gate at the calling thread's generation (the graph acts for that thread).
      out = (await this.engine.execute({
        item_type: action.item_type,
        item_id: action.item_id,
        parameters: params,
        signal: this.abort.signal,
        ...(passParent ? { thread_parent: this.threadParent } : {}),
        ...(this.caller ? { thread_generation: this.caller.generation ?? 0 } : {}),
      })) as Record<string, unknown>;
    } catch (err) {
      const e = errorInfo(err);
      throw new StepFailure(e.code, e.message);
    }
    if (out.status === "error") {
      const data = isRecord(out.data) ? out.data : {};
      const error = isRecord(data.error) ? data.error : {};
      const message = typeof error.message === "string" ? error.message : typeof data.error === "string" ? data.error : typeof data.stderr === "string" && data.stderr ? data.stderr.slice(-2000) : `${action.item_id} failed`;
      throw new StepFailure(typeof error.code === "string" ? error.code : typeof data.error_code === "string" ? data.error_code : "STEP_FAILED", message);
    }
    return out.data;
  }

  private async loop(): Promise<void> {
    while (this.run.status === "running" && this.run.current !== null) {
      if (this.abort.signal.aborted) return this.cancelled();
      const node = this.graph.nodes.get(this.run.current);
      if (!node) return this.fail({ code: "GRAPH_CHANGED", message: `The run stands at node ${this.run.current}, which the graph no longer has` });
      if (this.run.steps >= this.graph.max_steps) {
        return this.fail({ code: "MAX_STEPS_EXCEEDED", message: `The run reached max_steps (${this.graph.max_steps}) at node ${node.name}`, node: node.name, hint: "Raise config.max_steps in the graph, or fix the loop in its edges." });
      }
      let result: unknown;
      try {
        result = await this.runNode(node);
      } catch (err) {
        if (this.abort.signal.aborted) return this.cancelled();
        if (err instanceof Refused) {
          return this.fail({ code: "FORBIDDEN", message: `Node ${node.name} was refused: ${err.reason}`, node: node.name, required_capability: err.required, hint: "Grant the capability to the caller (the directive's permissions) or the graph's permissions; a refusal is never routed to on_error." });
        }
        const e = err instanceof StepFailure ? { code: err.code, message: err.message } : errorInfo(err);
        await this.stepFailed(node, e);
        continue;
      }
      await this.stepCompleted(node, result);
    }
  }

  private async runNode(node: GraphNode): Promise<unknown> {
    if (node.action) {
      const action = this.resolveAction(node.action, this.context());
      return this.perform(action);
    }
    if (node.foreach) return this.runForeach(node);
    return null;
  }

  private async runForeach(node: GraphNode): Promise<unknown[]> {
    const f = node.foreach!;
    const items = this.interpolate(f.over, this.context());
    if (!Array.isArray(items)) throw new StepFailure("VALIDATION_FAILED", `foreach.over of node ${node.name} is not a list`);
    if (items.length > MAX_FOREACH_ITEMS) throw new StepFailure("VALIDATION_FAILED", `foreach of node ${node.name} has ${items.length} items (at most ${MAX_FOREACH_ITEMS})`);
    // Every item's action is resolved and checked before any runs: a refusal stops the node before it starts.
    const actions = items.map((item, index) => this.resolveAction(f.action, this.context({ [f.as]: item, index })));
    if (!this.run.foreach || this.run.foreach.node !== node.name) this.run.foreach = { node: node.name, done: {} };
    const progress = this.run.foreach;
    const results: unknown[] = new Array(items.length);
    const todo: number[] = [];
    for (let i = 0; i < items.length; i++) {
      if (Object.hasOwn(progress.done, String(i))) results[i] = progress.done[String(i)];
      else todo.push(i);
    }
    let failure: StepFailure | null = null;
    let next = 0;
    const worker = async () => {
      while (failure === null && next < todo.length && !this.abort.signal.aborted) {
        const i = todo[next++]!;
        try {
          results[i] = await this.perform(actions[i]!);
        } catch (err) {
          failure ??= err instanceof StepFailure ? new StepFailure(err.code, `item ${i}: ${err.message}`) : new StepFailure("INTERNAL", String(err));
          return;
        }
        progress.done[String(i)] = results[i];
        await this.save();
      }
    };
    await Promise.all(Array.from({ length: Math.min(f.max_parallel, todo.length) }, worker));
    if (failure) throw failure;
    if (this.abort.signal.aborted) throw new StepFailure("CANCELLED", "the run was stopped");
    return results;
  }

  private async stepCompleted(node: GraphNode, result: unknown): Promise<void> {
    const run = this.run;
    const ctx = this.context({ result });
    if (node.foreach?.collect) run.state[node.foreach.collect] = result;
    for (const [key, value] of Object.entries(node.assign ?? {})) run.state[key] = this.interpolate(value, ctx);
    const after = this.context({ result });
    let next: string | null = null;
    let ended = false;
    if (node.hasReturn) {
      run.result = this.interpolate(node.return, after);
      ended = true;
    } else if (typeof node.next === "string") next = node.next;
    else if (Array.isArray(node.next)) {
      const edge = node.next.find((e) => e.if === undefined || this.evaluate(e.if, after));
      if (!edge) {
        run.log.push({ step: run.steps + 1, node: node.name, status: "ok", result_hash: valueHash(result), at: new Date().toISOString() });
        run.steps++;
        return this.fail({ code: "NO_MATCHING_EDGE", message: `No edge of node ${node.name} matched and it has no default ({to: <node>} without if)`, node: node.name });
      }
      next = edge.to;
    } else {
      run.result = run.state;
      ended = true;
    }
    run.steps++;
    run.log.push({ step: run.steps, node: node.name, status: "ok", result_hash: valueHash(result), at: new Date().toISOString(), ...(node.foreach && Array.isArray(result) ? { items: result.length } : {}) });
    run.foreach = null;
    run.current = next;
    if (ended) run.status = "completed";
    await this.save();
    await this.emit("step_completed", { node: node.name, next, result_hash: valueHash(result) });
    if (ended) await this.emit("graph_completed", { steps: run.steps, result_hash: valueHash(run.result) });
  }

  private async stepFailed(node: GraphNode, error: { code: string; message: string }): Promise<void> {
    const run = this.run;
    run.log.push({ step: run.steps + 1, node: node.name, status: "error", result_hash: valueHash(error), at: new Date().toISOString() });
    if (node.on_error) {
      run.steps++;
      run.state.last_error = { node: node.name, ...error };
      run.foreach = null;
      run.current = node.on_error;
      await this.save();
      await this.emit("step_failed", { node: node.name, error, routed_to: node.on_error });
      return;
    }
    await this.emit("step_failed", { node: node.name, error, routed_to: null });
    // The run stops at the failed node (kept as current: a resume retries it; completed foreach items are kept).
    await this.fail({ code: "STEP_FAILED", message: `Node ${node.name} failed: [${error.code}] ${error.message}`, node: node.name, hint: "Fix the cause, then `rye graph resume <run id>` retries this node." });
  }

  /** Stopped by a signal: the current step did not complete (it runs again on resume); completed items are kept. */
  private cancelled(): Promise<void> {
    const node = this.run.current ?? undefined;
    return this.fail({ code: "CANCELLED", message: `The run was stopped${node ? ` at node ${node}` : ""}`, ...(node ? { node } : {}), hint: `Continue it with \`rye graph resume ${this.run.run_id}\`.` });
  }

  private async fail(error: NonNullable<GraphRunState["error"]>): Promise<void> {
    this.run.status = "error";
    this.run.error = error;
    await this.save();
    await this.emit("graph_error", { error });
  }
}
