import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { RyeError } from "@rye/core";
import type { CliContext } from "../context.ts";
import { readItemFile, resolveItemType } from "../item-file.ts";
import { EXIT } from "../output.ts";
import { parseItemType, parseSpace } from "./common.ts";

async function signFile(ctx: CliContext, file: string, opts: { type?: string; json?: boolean }): Promise<void> {
  const type = resolveItemType(file, await readItemFile(file), opts.type);
  const { signature, warnings, created, fingerprint } = await (await import("../../engine/sign.ts")).signPath(file, type, new (await import("../../keys/keystore.ts")).KeyStore({ env: ctx.env }));
  if (opts.json) return ctx.json({ status: "signed", path: file, type, keyCreated: created, signature, warnings });
  if (created) ctx.io.stderr(`Created your signing key ${fingerprint} (trusted automatically).`);
  ctx.io.stdout(`Signed ${file} (${type}) with key ${signature.fingerprint}, hash ${signature.hash.slice(0, 16)}…`);
  for (const w of warnings) ctx.io.stderr(`warning: ${w}`);
}

async function signSkill(ctx: CliContext, dir: string, opts: { json?: boolean }): Promise<void> {
  const signed = await (await import("../../skills/folder.ts")).signSkillFolder(dir, new (await import("../../keys/keystore.ts")).KeyStore({ env: ctx.env }));
  if (opts.json) return ctx.json({ status: "signed", type: "skill", path: dir, manifest: signed.manifestPath, name: signed.name, version: signed.version, files: signed.files, fingerprint: signed.fingerprint, keyCreated: signed.created });
  if (signed.created) ctx.io.stderr(`Created your signing key ${signed.fingerprint} (trusted automatically).`);
  ctx.io.stdout(`Signed skill ${signed.name}@${signed.version} (${signed.files} file${signed.files === 1 ? "" : "s"}) with key ${signed.fingerprint}: ${signed.manifestPath}`);
}

export function registerSign(program: Command, ctx: CliContext): void {
  program
    .command("sign <file_or_item_id>")
    .description("validate and sign an item file, a skill folder (writes <dir>/.rye/manifest.yaml), or items of a space by id or glob (--type required), with your key")
    .option("--type <type>", "directive | tool | knowledge (default for files: inferred from the path or content)")
    .option("-s, --source <space>", "for item ids: project | user (default project)")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (target: string, opts: { type?: string; source?: string; project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const info = await stat(resolve(ctx.cwd, target)).catch(() => undefined);
        if (info?.isFile()) return signFile(ctx, resolve(ctx.cwd, target), opts);
        if (info?.isDirectory()) {
          if (await (await import("../../skills/folder.ts")).isSkillFolder(resolve(ctx.cwd, target))) return signSkill(ctx, resolve(ctx.cwd, target), opts);
          throw new RyeError("BAD_REQUEST", `${target} is a directory without SKILL.md: only skill folders are signed as a whole`, { hint: "Sign an item file, or create a skill with `rye skill init <name>`." });
        }
        if (!opts.type) {
          throw new RyeError("BAD_REQUEST", `${target} is not a file; to sign items by id or glob pass --type`, { hint: "Example: rye sign 'team/*' --type directive" });
        }
        const engine = await (await import("../../engine/engine.ts")).Engine.open({ projectPath: opts.project ?? ctx.cwd, env: ctx.env });
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
