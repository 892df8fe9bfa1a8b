import type { Command } from "commander";
import { verifyItem } from "@rye/core";
import { TrustStore } from "../../trust/store.ts";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";
import { readItemFile, resolveItemType } from "../item-file.ts";

export function registerVerify(program: Command, ctx: CliContext): void {
  program
    .command("verify <file>")
    .description("check an item's signature against its content and your trusted keys (exit 0 only when valid)")
    .option("--type <type>", "directive | tool | knowledge (default: inferred from the path or content)")
    .option("--json", 'print {"ok","code","contentHash","embeddedHash","fingerprint"}')
    .action(async (file: string, opts: { type?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const content = await readItemFile(file);
        const type = resolveItemType(file, content, opts.type);
        const result = await verifyItem(content, type, new TrustStore({ env: ctx.env }));
        if (opts.json) {
          ctx.json({
            ok: result.ok,
            code: result.code,
            contentHash: result.contentHash ?? null,
            embeddedHash: result.embeddedHash ?? null,
            fingerprint: result.fingerprint ?? null,
          });
        } else if (result.ok) {
          ctx.io.stdout(`OK ${file} (${type}): signed by ${result.fingerprint}, hash ${result.contentHash?.slice(0, 16)}…`);
        } else {
          ctx.io.stderr(`${result.code} ${file} (${type}): ${result.message}`);
        }
        return result.ok ? EXIT.OK : EXIT.FAILURE;
      }),
    );
}
