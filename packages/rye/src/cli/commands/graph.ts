/**
 * `rye graph run|resume|status|list`: state graphs (docs/state-graphs.md). `run` and `resume` execute the graph tool
 * through the verified executor chain (graph → rye/core/runtimes/state_graph → subprocess), exactly as
 * `rye execute tool <graph>` does; `resume` first verifies the run's signed state and hands its id to the runtime.
 */
import type { Command } from "commander";
import { isErrorCode, RyeError } from "@rye/core";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";
import { GRAPH_ENV } from "../../graphs/env.ts";
import { parseInputs } from "./thread-run.ts";

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function graphEnv(env: NodeJS.ProcessEnv, extra: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of Object.values(GRAPH_ENV)) delete out[name];
  return { ...out, ...extra };
}

/** The walker's answer from the tool result; a refusal before the run started becomes the error it was. */
function runOutcome(result: Record<string, unknown>, graphId: string): Record<string, unknown> {
  const data = (result.data && typeof result.data === "object" ? result.data : {}) as Record<string, unknown>;
  if (typeof data.run_id === "string") return data;
  const error = (data.error && typeof data.error === "object" ? data.error : {}) as { code?: string; message?: string; hint?: string };
  if (typeof error.message === "string") {
    throw new RyeError(isErrorCode(error.code) ? error.code : "PROCESS_FAILED", error.message, error.hint ? { hint: error.hint } : {});
  }
  const stderr = typeof data.stderr === "string" ? data.stderr.trim().split("\n").slice(-5).join("\n") : "";
  throw new RyeError("PROCESS_FAILED", `The graph ${graphId} did not report a result (exit code ${String(data.return_code ?? "?")})${stderr ? `: ${stderr}` : ""}`, {
    hint: "If the run had started, `rye graph list` shows it and `rye graph resume <run id>` continues it.",
  });
}

/** Ctrl-C stops the graph's process (SIGTERM to its group): it stops its running tools and records CANCELLED. */
async function interruptible(run: (signal: AbortSignal) => Promise<unknown>): Promise<Record<string, unknown>> {
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    return (await run(controller.signal)) as Record<string, unknown>;
  } catch (err) {
    if (!controller.signal.aborted) throw err;
    throw new RyeError("PROCESS_FAILED", "The graph run was stopped; it recorded CANCELLED at the step it was running", {
      hint: "`rye graph list` shows the run; `rye graph resume <run id>` continues it (completed steps do not run again).",
    });
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

function report(ctx: CliContext, json: boolean | undefined, out: Record<string, unknown>): number {
  if (json) ctx.json(out);
  else {
    const error = (out.error ?? null) as { code?: string; message?: string; hint?: string; required_capability?: string } | null;
    ctx.io.stdout(`graph ${String(out.graph)} run ${String(out.run_id)}: ${String(out.status)} after ${String(out.steps)} steps${out.resumed ? " (resumed)" : ""}`);
    if (out.status === "completed") ctx.io.stdout(JSON.stringify(out.result ?? null, null, 2));
    if (error) {
      ctx.io.stderr(`error[${String(error.code)}]: ${String(error.message)}`);
      if (error.hint) ctx.io.stderr(`hint: ${error.hint}`);
    }
  }
  return out.status === "completed" ? EXIT.OK : EXIT.FAILURE;
}

export function registerGraph(program: Command, ctx: CliContext): void {
  const graph = program.command("graph").description("run declarative state graphs (tool_type: graph); see docs/state-graphs.md");

  graph
    .command("run <graph>")
    .description("run a graph tool: its nodes' actions through the executor chain, state signed after every step")
    .option("-i, --input <key=value>", "a graph input (repeatable; JSON values keep their type)", collect, [])
    .option("--inputs <json>", "all inputs as a JSON object")
    .option("--run-id <id>", "the run's id (default: <graph name>-<time>-<random>)")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (graphId: string, opts: { input: string[]; inputs?: string; runId?: string; project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const inputs = parseInputs(opts.input, opts.inputs);
        const engine = await (await import("../../engine/engine.ts")).Engine.open({ projectPath: opts.project ?? ctx.cwd, env: graphEnv(ctx.env, opts.runId ? { [(await import("../../graphs/walker.ts")).GRAPH_ENV.runId]: opts.runId } : {}) });
        const loaded = await engine.load({ item_type: "tool", item_id: graphId });
        if (loaded.metadata.toolType !== "graph") {
          throw new RyeError("BAD_REQUEST", `${graphId} is not a graph (its tool_type is ${JSON.stringify(loaded.metadata.toolType)})`, { hint: `Run other tools with: rye execute tool ${graphId}` });
        }
        const result = await interruptible((signal) => engine.execute({ item_type: "tool", item_id: graphId, parameters: inputs, signal }));
        return report(ctx, opts.json, runOutcome(result, graphId));
      }),
    );

  graph
    .command("resume <run_id>")
    .description("continue a run that was interrupted (or failed) from its last completed step; completed steps never run again")
    .option("--force", "continue even though the graph changed since the run started")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (runId: string, opts: { force?: boolean; project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const projectPath = opts.project ?? ctx.cwd;
        const check = await (await import("../../engine/engine.ts")).Engine.open({ projectPath, env: graphEnv(ctx.env, {}) });
        const { run } = await (await import("../../graphs/store.ts")).readRun(check.ctx, runId);
        const engine = await (await import("../../engine/engine.ts")).Engine.open({ projectPath, env: graphEnv(ctx.env, { [(await import("../../graphs/walker.ts")).GRAPH_ENV.resume]: runId, ...(opts.force ? { [(await import("../../graphs/walker.ts")).GRAPH_ENV.force]: "1" } : {}) }) });
        const result = await interruptible((signal) => engine.execute({ item_type: "tool", item_id: run.graph.id, parameters: run.inputs, signal }));
        return report(ctx, opts.json, runOutcome(result, run.graph.id));
      }),
    );

  graph
    .command("status <run_id>")
    .description("a run's verified state: status, current node, steps, step log, error")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (runId: string, opts: { project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const engine = await (await import("../../engine/engine.ts")).Engine.open({ projectPath: opts.project ?? ctx.cwd, env: ctx.env });
        const { run, path } = await (await import("../../graphs/store.ts")).readRun(engine.ctx, runId);
        const paths = (await import("../../graphs/store.ts")).runPaths(engine.ctx.projectPath, run.graph.id, run.run_id);
        // A "running" run whose process is gone crashed (or was killed): resume it.
        const crashed = run.status === "running" && !(await import("../../graphs/store.ts")).processAlive(run.pid);
        if (opts.json) ctx.json({ ...run, path, events: paths.events, ...(run.status === "running" ? { process_alive: !crashed } : {}) });
        else {
          ctx.io.stdout(`run ${run.run_id} of ${run.graph.id}@${run.graph.version}: ${run.status}${crashed ? " (its process is gone: rye graph resume continues it)" : ""}, ${run.steps} steps, ${run.current ? `at node ${run.current}` : "ended"}`);
          for (const entry of run.log) ctx.io.stdout(`  ${String(entry.step).padStart(4)} ${entry.status === "ok" ? "✓" : "✗"} ${entry.node}${entry.items !== undefined ? ` (${entry.items} items)` : ""}  ${entry.at}`);
          if (run.foreach) ctx.io.stdout(`  foreach ${run.foreach.node}: ${Object.keys(run.foreach.done).length} items done`);
          if (run.error) ctx.io.stdout(`error[${run.error.code}]: ${run.error.message}`);
          ctx.io.stdout(`state: ${path}\nevents: ${paths.events}`);
        }
        return EXIT.OK;
      }),
    );

  graph
    .command("list")
    .description("the project's graph runs, newest first")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (opts: { project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const engine = await (await import("../../engine/engine.ts")).Engine.open({ projectPath: opts.project ?? ctx.cwd, env: ctx.env });
        const runs = await (await import("../../graphs/store.ts")).listRuns(engine.ctx.projectPath);
        if (opts.json) ctx.json({ runs });
        else if (runs.length === 0) ctx.io.stdout("No graph runs.");
        else for (const r of runs) ctx.io.stdout(`${r.run_id}  ${r.graph}  ${r.status}  ${r.steps} steps${r.current ? `  at ${r.current}` : ""}  ${r.updated_at}`);
        return EXIT.OK;
      }),
    );
}
