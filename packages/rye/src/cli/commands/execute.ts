import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";
import { RyeError } from "@rye/core";
import { canPrompt, collect, parseItemType, parseParameters, ttyPrompt } from "./common.ts";

export function registerExecute(program: Command, ctx: CliContext): void {
  program
    .command("execute <type> <item_id>")
    .alias("exec")
    .description("run a tool through its verified chain, or resolve a directive/knowledge item for an LLM")
    .option("--params <json>", "parameters as a JSON object")
    .option("--param <key=value>", "one parameter (repeatable; JSON values accepted)", collect)
    .option("--dry-run", "resolve, verify and validate without running")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (type: string, itemId: string, opts: { params?: string; param?: string[]; dryRun?: boolean; project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const engine = await (await import("../../engine/engine.ts")).Engine.open({ projectPath: opts.project ?? ctx.cwd, env: ctx.env });
        const controller = new AbortController();
        const onSignal = () => controller.abort();
        process.once("SIGINT", onSignal);
        try {
          const request = {
            item_type: parseItemType(type),
            item_id: itemId,
            parameters: parseParameters(opts.params, opts.param),
            ...(opts.dryRun ? { dry_run: true } : {}),
            signal: controller.signal,
          };
          let result: Record<string, unknown>;
          try {
            result = (await engine.execute(request)) as Record<string, unknown>;
          } catch (err) {
            // The security gate wants a person: on a terminal, ask (denied without an answer in time).
            if (!(err instanceof RyeError) || err.code !== "APPROVAL_REQUIRED" || !canPrompt()) throw err;
            const details = (err.details ?? {}) as { approval_timeout_seconds?: number };
            const seconds = details.approval_timeout_seconds ?? 60;
            ctx.io.stderr(err.message);
            if (!(await ttyPrompt(`Run it? (${seconds} s to answer)`, { timeoutMs: seconds * 1000 }))) {
              throw new RyeError("APPROVAL_REQUIRED", `Not approved at the prompt: ${err.message}`, { hint: "Nothing ran.", details: err.details });
            }
            result = (await engine.execute({ ...request, approved: true })) as Record<string, unknown>;
          }
          if (!opts.json) for (const line of registryNoticeLines(result.registry_notice)) ctx.io.stderr(`notice: ${line}`);
          if (opts.json) ctx.json(result);
          else if (result.status === "validation_passed") ctx.io.stdout(`OK (dry run): ${itemId} is valid${Array.isArray(result.chain) ? `; chain ${(result.chain as { item_id: string }[]).map((c) => c.item_id).join(" → ")}` : ""}`);
          else if ("data" in result) ctx.io.stdout(typeof result.data === "string" ? result.data : JSON.stringify(result.data, null, 2));
          return result.status === "error" ? EXIT.FAILURE : EXIT.OK;
        } finally {
          process.off("SIGINT", onSignal);
        }
      }),
    );
}

/** Registry notices (first-use key pin, key rotation) for stderr, one per line. */
function registryNoticeLines(notice: unknown): string[] {
  return typeof notice === "string" && notice ? notice.split("\n") : [];
}
