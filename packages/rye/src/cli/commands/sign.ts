import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { extensionOf, parseItem, RyeError, signItem } from "@rye/core";
import { Engine } from "../../engine/engine.ts";
import { writeFileAtomic } from "../../fs/atomic.ts";
import { KeyStore } from "../../keys/keystore.ts";
import type { CliContext } from "../context.ts";
import { readItemFile, resolveItemType } from "../item-file.ts";
import { EXIT } from "../output.ts";
import { parseItemType, parseSpace } from "./common.ts";

async function signFile(ctx: CliContext, file: string, opts: { type?: string; json?: boolean }): Promise<void> {
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
}

export function registerSign(program: Command, ctx: CliContext): void {
  program
    .command("sign <file_or_item_id>")
    .description("validate and sign an item file, or items of a space by id or glob (--type required), with your key")
    .option("--type <type>", "directive | tool | knowledge (default for files: inferred from the path or content)")
    .option("-s, --source <space>", "for item ids: project | user (default project)")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (target: string, opts: { type?: string; source?: string; project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const isFile = await stat(resolve(ctx.cwd, target)).then((s) => s.isFile(), () => false);
        if (isFile) return signFile(ctx, resolve(ctx.cwd, target), opts);
        if (!opts.type) {
          throw new RyeError("BAD_REQUEST", `${target} is not a file; to sign items by id or glob pass --type`, { hint: "Example: rye sign 'team/*' --type directive" });
        }
        const engine = await Engine.open({ projectPath: opts.project ?? ctx.cwd, env: ctx.env });
        const source = parseSpace(opts.source, ["project", "user"]) as "project" | "user" | undefined;
        const result = await engine.sign({ item_type: parseItemType(opts.type), item_id: target, ...(source ? { source } : {}) });
        if (opts.json) ctx.json(result);
        else if (result.status === "signed") ctx.io.stdout(`${result.message} (${result.path})`);
        else {
          ctx.io.stdout(result.summary);
          for (const f of result.failed) ctx.io.stderr(`  ✗ ${f.item}: ${f.error.code} ${f.error.message}`);
        }
        return result.status === "completed" && result.failed.length > 0 ? EXIT.FAILURE : EXIT.OK;
      }),
    );
}
