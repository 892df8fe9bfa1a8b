/**
 * `rye thread run <directive> [--input k=v…] [--model <tier|id>] [--async]`: executes the system tool
 * `rye/agent/threads/thread_directive` through the verified executor chain (the same path as MCP `execute`),
 * so the thread runs in its own process with the runtime files of the spaces.
 */
import type { Command } from "commander";
import { RyeError } from "@rye/core";
import { resolve } from "node:path";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";

export const THREAD_TOOL = "rye/agent/threads/thread_directive";

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `key=value` pairs: a value that parses as JSON keeps its type (`n=3`, `flag=true`, `list=[1,2]`). */
export function parseInputs(pairs: string[], json?: string): Record<string, unknown> {
  let inputs: Record<string, unknown> = {};
  if (json !== undefined) {
    try {
      const parsed = JSON.parse(json) as unknown;
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
      inputs = parsed as Record<string, unknown>;
    } catch {
      throw new RyeError("BAD_REQUEST", "--inputs must be a JSON object", { hint: `Example: --inputs '{"ticket": "T-42"}'` });
    }
  }
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new RyeError("BAD_REQUEST", `--input ${JSON.stringify(pair)} is not key=value`, { hint: "Example: --input ticket=T-42" });
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // plain text
    }
    inputs[key] = value;
  }
  return inputs;
}

function parseLimits(pairs: string[]): Record<string, number> | undefined {
  if (pairs.length === 0) return undefined;
  const limits: Record<string, number> = {};
  for (const pair of pairs) {
    const [key, raw] = pair.split("=");
    const value = Number(raw);
    if (!key || raw === undefined || !Number.isFinite(value) || value < 0) {
      throw new RyeError("BAD_REQUEST", `--limit ${JSON.stringify(pair)} is not name=number`, { hint: "Example: --limit turns=10 --limit spend=0.25" });
    }
    limits[key] = value;
  }
  return limits;
}

export function registerThreadRun(thread: Command, ctx: CliContext): void {
  thread
    .command("run <directive>")
    .description("run a directive as an agent thread with an LLM (see docs/agent-runtime.md)")
    .option("-i, --input <key=value>", "a directive input (repeatable; JSON values keep their type)", collect, [])
    .option("--inputs <json>", "all inputs as a JSON object")
    .option("-m, --model <tier|id>", "fast | general | reasoning, or a model id")
    .option("--limit <name=value>", "override a limit: turns, tokens, spend, spawns, depth, duration_seconds (repeatable)", collect, [])
    .option("--async", "start the thread in the background and print its id")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (directive: string, opts: { input: string[]; inputs?: string; model?: string; limit: string[]; async?: boolean; project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const limits = parseLimits(opts.limit);
        const parameters = {
          directive_name: directive,
          inputs: parseInputs(opts.input, opts.inputs),
          ...(opts.model ? { model: opts.model } : {}),
          ...(opts.async ? { async_exec: true } : {}),
          ...(limits ? { limit_overrides: limits } : {}),
        };
        return runThreadTool(ctx, opts, parameters);
      }),
    );

  thread
    .command("resume <id>")
    .description("continue a stopped thread in a new one (same directive) from its transcript, with new instructions")
    .requiredOption("--message <text>", "the new instructions the continuation starts with")
    .option("-m, --model <tier|id>", "fast | general | reasoning, or a model id")
    .option("--async", "start the continuation in the background and print its id")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (id: string, opts: { message: string; model?: string; async?: boolean; project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const record = await (await import("../../threads/record.ts")).readThread(resolve(opts.project ?? ctx.cwd), id);
        const parameters = {
          directive_name: record.directive,
          resume_from: id,
          message: opts.message,
          ...(opts.model ? { model: opts.model } : {}),
          ...(opts.async ? { async_exec: true } : {}),
        };
        return runThreadTool(ctx, opts, parameters);
      }),
    );
}

/** Executes thread_directive with `parameters` and prints its outcome (the result, or the thread id when async). */
async function runThreadTool(ctx: CliContext, opts: { project?: string; json?: boolean }, parameters: Record<string, unknown>): Promise<number> {
  const engine = await (await import("../../engine/engine.ts")).Engine.open({ projectPath: opts.project ?? ctx.cwd, env: ctx.env });
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  let result: Record<string, unknown>;
  try {
    result = (await engine.execute({ item_type: "tool", item_id: THREAD_TOOL, parameters, signal: controller.signal })) as Record<string, unknown>;
  } finally {
    process.off("SIGINT", onSignal);
  }
  const data = (result.data && typeof result.data === "object" ? result.data : {}) as Record<string, unknown>;
  if (opts.json) {
    ctx.json(data);
  } else if (data.status === "running") {
    ctx.io.stdout(`Started thread ${String(data.thread_id)} in the background (pid ${String(data.pid)}).`);
    ctx.io.stdout(`Follow it with: rye thread tail ${String(data.thread_id)} --follow`);
  } else {
    const cost = (data.cost ?? {}) as Record<string, number>;
    if (typeof data.result === "string") ctx.io.stdout(data.result);
    const summary = `thread ${String(data.thread_id ?? "?")} ${String(data.status ?? result.status)}: ${cost.turns ?? 0} turns, ${(cost.input_tokens ?? 0) + (cost.output_tokens ?? 0)} tokens, $${(cost.spend ?? 0).toFixed(6)} (${String(data.provider ?? "?")} ${String(data.model ?? "")})`;
    if (data.thread_id) ctx.io.stderr(summary);
    if (data.status !== "completed") {
      const error = (typeof data.error === "object" && data.error ? data.error : {}) as { message?: string; code?: string; hint?: string };
      const message = typeof data.error === "string" ? data.error : (error.message ?? JSON.stringify(data.error ?? result.error ?? data));
      ctx.io.stderr(`error[${String(data.error_code ?? error.code ?? "THREAD_FAILED")}]: ${message}`);
      if (error.hint) ctx.io.stderr(`hint: ${error.hint}`);
    }
  }
  return data.status === "completed" || data.status === "running" ? EXIT.OK : EXIT.FAILURE;
}
