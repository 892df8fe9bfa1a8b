import { stat } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import type { Command } from "commander";
import { userAiDir } from "../../spaces/paths.ts";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";
import { readItemFile, resolveItemType } from "../item-file.ts";

export function registerVerify(program: Command, ctx: CliContext): void {
  program
    .command("verify <file>")
    .description("check an item's signature (or a skill folder's signed manifest and every file) against your trusted keys, or the registry key pinned for it in .ai/rye.lock (exit 0 only when valid)")
    .option("--type <type>", "directive | tool | knowledge (default: inferred from the path or content)")
    .option("-p, --project <dir>", "project whose .ai/rye.lock pins registry items (default: current directory)")
    .option("--json", 'print {"ok","code","contentHash","embeddedHash","fingerprint"}')
    .action(async (file: string, opts: { type?: string; project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        if (await stat(resolve(ctx.cwd, file)).then((s) => s.isDirectory(), () => false)) {
          const dir = resolve(ctx.cwd, file);
          // An agent's copy of an installed skill has no manifest: it is checked against what the lock pinned.
          const hasManifest = await stat(resolve(dir, ".rye", "manifest.yaml")).then(() => true, () => false);
          const installed = hasManifest ? null : await (await import("../../skills/install.ts")).checkInstalledFolder(dir, { projectPath: resolve(opts.project ?? ctx.cwd), env: ctx.env });
          if (installed) {
            const { entry } = installed;
            const how = entry.verified === "signature" ? `signed by ${entry.signer}` : entry.verified === "digest" ? "checked against the index's digest, unsigned" : "unsigned";
            const code = installed.ok ? "OK" : "INTEGRITY_MISMATCH";
            if (opts.json) ctx.json({ ok: installed.ok, code, type: "skill", installed: true, verified: entry.verified, fingerprint: entry.signer, missing: installed.missing, changed: installed.changed, added: installed.added });
            else if (installed.ok) ctx.io.stdout(`OK ${file} (installed skill ${entry.name}${entry.version ? `@${entry.version}` : ""}): every file is the pinned one; at install it was ${how}`);
            else ctx.io.stderr(`INTEGRITY_MISMATCH ${file} (installed skill ${entry.name}): changed since install (${[...installed.changed.map((p) => `changed ${p}`), ...installed.missing.map((p) => `missing ${p}`), ...installed.added.map((p) => `added ${p}`)].join(", ")})`);
            return installed.ok ? EXIT.OK : EXIT.FAILURE;
          }
          const result = await (await import("../../skills/folder.ts")).verifySkillFolder(dir, new (await import("../../trust/store.ts")).TrustStore({ env: ctx.env }));
          if (opts.json) {
            ctx.json({ ok: result.ok, code: result.code, type: "skill", fingerprint: result.signature.fingerprint ?? null, missing: result.missing, changed: result.changed, added: result.added });
          } else if (result.ok) {
            ctx.io.stdout(`OK ${file} (skill): signed by ${result.signature.fingerprint}; ${result.message}`);
          } else {
            ctx.io.stderr(`${result.code} ${file} (skill): ${result.message}`);
          }
          return result.ok ? EXIT.OK : EXIT.FAILURE;
        }
        const content = await readItemFile(file);
        const type = resolveItemType(file, content, opts.type);
        // Your trusted keys, plus registry items the project lock pins (the engine's own verifier).
        const engine = await (await import("../../engine/context.ts")).createEngineContext({ projectPath: resolve(opts.project ?? ctx.cwd), env: ctx.env });
        const inUser = relative(userAiDir(ctx.env), resolve(ctx.cwd, file));
        const inUserSpace = inUser !== "" && !inUser.startsWith("..") && !isAbsolute(inUser);
        const result = await engine.verifier.verify(content, type, inUserSpace ? "user" : "project");
        // A registry item the lock pins: the publish log's proof kept at pull time, checked again offline.
        const log = result.ok ? await lockedLogCheck(resolve(opts.project ?? ctx.cwd), content, type, ctx.env) : null;
        if (opts.json) {
          ctx.json({
            ok: result.ok,
            code: result.code,
            contentHash: result.contentHash ?? null,
            embeddedHash: result.embeddedHash ?? null,
            fingerprint: result.fingerprint ?? null,
            ...(log ? { log } : {}),
          });
        } else if (result.ok) {
          ctx.io.stdout(`OK ${file} (${type}): signed by ${result.fingerprint}, hash ${result.contentHash?.slice(0, 16)}… (${result.message})`);
          if (log?.status === "verified") ctx.io.stdout(`   in the registry's signed log: entry ${log.index} of ${log.tree_size}`);
          else if (log) ctx.io.stdout(`   publish log not checked: ${log.reason}`);
        } else {
          ctx.io.stderr(`${result.code} ${file} (${type}): ${result.message}`);
        }
        return result.ok ? EXIT.OK : EXIT.FAILURE;
      }),
    );
}

/** The lock entry pinning these exact bytes, and the check of its kept log proof (null: not a locked registry item). */
async function lockedLogCheck(projectPath: string, content: string, type: string, env: NodeJS.ProcessEnv) {
  const { sha256Hex, extractSignature } = await import("@rye/core");
  const { readProjectLock } = await import("../../registry/project-lock.ts");
  const { checkLockedLogProof } = await import("../../registry/log-proof.ts");
  const sha = sha256Hex(content);
  const entry = (await readProjectLock(projectPath)).items.find((e) => e.type === type && e.file_sha256 === sha);
  if (!entry) return null;
  const sig = extractSignature(content, entry.type);
  const publisher = sig.status === "signed" && sig.signature.provider === "rye-registry" ? sig.signature.username : undefined;
  if (!publisher) return { status: "none" as const, reason: "the file carries no registry provenance" };
  return checkLockedLogProof(entry, publisher, env);
}
