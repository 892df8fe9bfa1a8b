import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { parseItemType, parseSpace } from "./common.ts";

export function registerLoad(program: Command, ctx: CliContext): void {
  program
    .command("load <type> <item_id>")
    .description("print a verified item (or copy it into the project or user space with --to)")
    .option("-s, --source <space>", "only look in project | user | system")
    .option("--to <space>", "copy into project | user, keeping the folder path")
    .option("--force", "overwrite an existing copy")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (type: string, itemId: string, opts: Record<string, string | boolean | undefined>) =>
      ctx.run(Boolean(opts.json), async () => {
        const engine = await (await import("../../engine/engine.ts")).Engine.open({ projectPath: (opts.project as string | undefined) ?? ctx.cwd, env: ctx.env });
        const source = parseSpace(opts.source as string | undefined, ["project", "user", "system"]);
        const destination = parseSpace(opts.to as string | undefined, ["project", "user"]) as "project" | "user" | undefined;
        const result = await engine.load({
          item_type: parseItemType(type),
          item_id: itemId,
          ...(source ? { source } : {}),
          ...(destination ? { destination } : {}),
          ...(opts.force ? { overwrite: true } : {}),
        });
        if (opts.json) return ctx.json(result);
        for (const line of registryNoticeLines(result.registry_notice)) ctx.io.stderr(`notice: ${line}`);
        if (result.destination_path) {
          ctx.io.stdout(`Copied ${result.item_id} from ${result.source} to ${result.destination_path}`);
          if (result.note) ctx.io.stderr(`note: ${result.note}`);
          return;
        }
        ctx.io.stderr(`${result.item_type} ${result.item_id} (${result.source}) · verified by ${result.verification.fingerprint} · ${result.path}`);
        ctx.io.stdout(result.content);
      }),
    );
}

/** Registry notices (first-use key pin, key rotation) for stderr, one per line. */
function registryNoticeLines(notice: unknown): string[] {
  return typeof notice === "string" && notice ? notice.split("\n") : [];
}
