/** `rye update [id[@version]…]`: the command; the work is in update-run.ts, loaded when the command runs. */
import { resolve } from "node:path";
import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";
import { parseItemType } from "./common.ts";
import type { UpdateItemResult } from "./update-run.ts";

function describe(item: UpdateItemResult): string {
  const notes: string[] = [];
  if (item.status === "would-update") notes.push("dry run");
  if (item.downgrade) notes.push("downgrade");
  if (item.content_changed) notes.push(item.status === "updated" ? "re-pinned: the registry changed this version's content" : "the registry changed this version's content");
  if (item.status === "up-to-date") notes.push("up to date");
  if (item.note) notes.push(item.note);
  const versions = item.status === "up-to-date" ? item.to : `${item.from} → ${item.to}`;
  return `${versions}${notes.length ? ` (${notes.join("; ")})` : ""}`;
}

export function registerUpdate(program: Command, ctx: CliContext): void {
  program
    .command("update [item_ids...]")
    .description("move the project lock's registry pins forward: every pinned item, or the ones named (id or id@version)")
    .option("--type <type>", "directive | tool | knowledge (when an id is pinned as two types; alone: only that type)")
    .option("--allow-downgrade", "allow id@version to pin a version older than the pinned one")
    .option("--dry-run", "only report what would change (nothing is pulled or written)")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (ids: string[], opts: { type?: string; allowDowngrade?: boolean; dryRun?: boolean; project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const type = opts.type !== undefined ? parseItemType(opts.type) : undefined;
        const { runUpdate } = await import("./update-run.ts");
        const result = await runUpdate({
          projectPath: resolve(ctx.cwd, opts.project ?? "."),
          env: ctx.env,
          refs: ids,
          type,
          dryRun: Boolean(opts.dryRun),
          allowDowngrade: Boolean(opts.allowDowngrade),
        });
        const failed = result.items.filter((i) => i.status === "failed");
        if (opts.json) {
          ctx.json(result);
          return failed.length ? EXIT.FAILURE : EXIT.OK;
        }
        if (result.registry_notice) for (const line of result.registry_notice.split("\n")) ctx.io.stderr(`notice: ${line}`);
        for (const w of result.warnings) ctx.io.stderr(`warning: ${w}`);
        if (result.items.length === 0) {
          ctx.io.stdout(`Nothing to update: ${result.lock} pins no registry items${type ? ` of type ${type}` : ""}.`);
          return EXIT.OK;
        }
        const ambiguous = new Set(result.items.filter((i, n) => result.items.findIndex((j) => j.item_id === i.item_id) !== n).map((i) => i.item_id));
        const label = (i: UpdateItemResult) => (ambiguous.has(i.item_id) ? `${i.item_id} (${i.item_type})` : i.item_id);
        const width = Math.max(...result.items.map((i) => label(i).length));
        for (const item of result.items) {
          if (item.status === "failed") {
            ctx.io.stderr(`${label(item).padEnd(width)}  error[${item.error!.code}]: ${item.error!.message}`);
            if (item.error!.hint) ctx.io.stderr(`${" ".repeat(width)}  hint: ${item.error!.hint}`);
          } else {
            ctx.io.stdout(`${label(item).padEnd(width)}  ${describe(item)}`);
          }
        }
        if (failed.length) {
          ctx.io.stderr(`${failed.length} of ${result.items.length} item(s) could not be updated; their pins are unchanged.`);
          return EXIT.FAILURE;
        }
        return EXIT.OK;
      }),
    );
}
