import { resolve } from "node:path";
import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { RyeError } from "@rye/core";
// Static: this module is imported only to run a search (main.ts), which always needs the engine; one module graph loads instead of two in turn.
import { Engine } from "../../engine/engine.ts";
import { parseInteger, parseItemType, parseSpace } from "./common.ts";

function parseSort(value: string): "relevance" | "quality" {
  if (value === "relevance" || value === "quality") return value;
  throw new RyeError("BAD_REQUEST", `--sort takes relevance or quality, not ${JSON.stringify(value)}`, { hint: "rye search --sort quality --min-quality 80 <words>" });
}

export function registerSearch(program: Command, ctx: CliContext): void {
  program
    .command("search [query...]")
    .description('search items across spaces (AND/OR/NOT, "phrases", wild*, field:value, fuzzy~, "near words"~3)')
    .option("-t, --type <type>", "directive | tool | knowledge")
    .option("-s, --source <space>", "project | user | system | all (default all)")
    .option("-c, --category <prefix>", "category prefix, e.g. rye/core")
    .option("-n, --limit <n>", "results per page (1-100, default 10)")
    .option("--offset <n>", "results to skip")
    .option("--fuzzy [distance]", "match every word within an edit distance (default 1)")
    .option("--local", "search only this machine's spaces (no registry)")
    .option("--registry-only", "search only the registries (the default one and those with scopes)")
    .option("--min-quality <score>", "registry items with a quality score of at least this (0-100); searches the registries only")
    .option("--sort <order>", "relevance (default) | quality (highest quality score first; registries only)")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (words: string[], opts: Record<string, string | boolean | undefined>) =>
      ctx.run(Boolean(opts.json), async () => {
        // Resolved against the run's cwd, not the process's: the search daemon runs searches for other processes.
        const engine = await Engine.open({ projectPath: resolve(ctx.cwd, (opts.project as string | undefined) ?? "."), env: ctx.env, longLived: ctx.longLived });
        const fuzzy = opts.fuzzy === undefined ? undefined : { enabled: true, max_distance: opts.fuzzy === true ? 1 : parseInteger("fuzzy", opts.fuzzy as string, 1, 3)! };
        const limit = parseInteger("limit", opts.limit as string | undefined, 1, 100);
        const offset = parseInteger("offset", opts.offset as string | undefined, 0, 100000);
        const minQuality = parseInteger("min-quality", opts.minQuality as string | undefined, 0, 100);
        const sort = opts.sort === undefined ? undefined : parseSort(opts.sort as string);
        const source = opts.source === "all" ? "all" : parseSpace(opts.source as string | undefined, ["project", "user", "system"]);
        const result = await engine.search({
          query: words.join(" "),
          ...(opts.type ? { item_type: parseItemType(opts.type as string) } : {}),
          ...(source ? { source } : {}),
          ...(opts.category ? { category: opts.category as string } : {}),
          ...(limit !== undefined ? { limit } : {}),
          ...(offset !== undefined ? { offset } : {}),
          ...(fuzzy ? { fuzzy } : {}),
          ...(opts.registryOnly ? { scope: "registry" as const } : opts.local ? { scope: "local" as const } : {}),
          ...(minQuality !== undefined ? { min_quality: minQuality } : {}),
          ...(sort ? { sort } : {}),
        });
        if (opts.json) return ctx.json(result);
        for (const warning of result.warnings ?? []) ctx.io.stderr(`warning: ${warning}`);
        if (result.results.length === 0) {
          ctx.io.stdout("No items found.");
          return;
        }
        for (const hit of result.results) {
          if (hit.space === "registry") {
            const quality = hit.quality_score !== undefined ? `, quality ${hit.quality_score}` : "";
            ctx.io.stdout(`⇣ ${hit.type.padEnd(9)} ${hit.id}${hit.version ? `@${hit.version}` : ""}  [registry${quality}${hit.deprecated ? ", deprecated" : ""}]`);
          } else {
            const badge = hit.verified === true ? "✓" : hit.signed ? "!" : "·";
            ctx.io.stdout(`${badge} ${hit.type.padEnd(9)} ${hit.id}${hit.version ? `@${hit.version}` : ""}  [${hit.space}${hit.shadowed ? ", shadowed" : ""}]  ${hit.score.toFixed(2)}`);
          }
          if (hit.description) ctx.io.stdout(`    ${hit.description.slice(0, 160)}`);
        }
        const shown = result.offset + result.results.length;
        ctx.io.stdout(`\n${shown} of ${result.total} (✓ verified, ! signature fails, · unsigned${result.registry ? ", ⇣ in the registry: rye load <type> <id> pulls and verifies it" : ""})`);
      }),
    );
}
