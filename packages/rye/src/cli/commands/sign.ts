import type { Command } from "commander";
import { extensionOf, parseItem, RyeError, signItem } from "@rye/core";
import { writeFileAtomic } from "../../fs/atomic.ts";
import { KeyStore } from "../../keys/keystore.ts";
import type { CliContext } from "../context.ts";
import { readItemFile, resolveItemType } from "../item-file.ts";

export function registerSign(program: Command, ctx: CliContext): void {
  program
    .command("sign <file>")
    .description("validate an item file and sign it with your key (creates the key on first use)")
    .option("--type <type>", "directive | tool | knowledge (default: inferred from the path or content)")
    .option("--json", "print JSON")
    .action(async (file: string, opts: { type?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const content = await readItemFile(file);
        const type = resolveItemType(file, content, opts.type);
        const parsed = parseItem(content, type, { path: file });
        if (parsed.issues.length > 0) {
          throw new RyeError("VALIDATION_FAILED", `${file} is not a valid ${type}; nothing was signed`, { details: parsed.issues });
        }
        const { key, created } = await new KeyStore({ env: ctx.env }).loadOrCreate();
        const signed = await signItem(content, type, key, { path: extensionOf(file) || file });
        await writeFileAtomic(file, signed.content);
        const result = { status: "signed", path: file, type, keyCreated: created, signature: signed.signature, warnings: parsed.warnings };
        if (opts.json) return ctx.json(result);
        if (created) ctx.io.stderr(`Created your signing key ${key.publicKey.fingerprint} (trusted automatically).`);
        ctx.io.stdout(`Signed ${file} (${type}) with key ${signed.signature.fingerprint}, hash ${signed.signature.hash.slice(0, 16)}…`);
        for (const w of parsed.warnings) ctx.io.stderr(`warning: ${w}`);
      }),
    );
}
