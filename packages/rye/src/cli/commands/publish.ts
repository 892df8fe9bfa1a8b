/**
 * Publishing from the client: `rye push`, `rye pull`, and the registry's management verbs
 * (`publish`, `unpublish`, `yank`, `unyank`, `deprecate`, `delete`).
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { RyeError } from "@rye/core";
import type { InstallTarget } from "../../registry/install.ts";
import type { ManageAction, PublishContext, PushApproval, PushReview } from "../../registry/publish.ts";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";
import { parseItemType, parseRegistryItemType, parseTo, parseVisibility, ttyPrompt } from "./common.ts";

export interface PublishCliOptions {
  /** Asks a yes/no question; defaults to a prompt on an interactive terminal, else "no". */
  prompt?: (question: string) => Promise<boolean>;
}

/** What `rye push` prints about the publish-time review: the risk, then findings with file and line (see registry/publish.ts). */
function reviewLines(review: PushReview | null): string[] {
  if (!review) return [];
  if (review.findings.length === 0) return [`Review: ${review.risk === "none" ? "nothing flagged" : `${review.risk} risk`}.`];
  const limit = 10;
  const count = review.findings.length;
  const lines = [`Review: ${review.risk} risk, ${count}${review.truncated ? "+" : ""} finding${count === 1 ? "" : "s"}:`];
  for (const f of review.findings.slice(0, limit)) lines.push(`  ${f.risk.padEnd(6)} ${f.path}:${f.line}  ${f.message}${f.family ? ` [${f.family}]` : ""}${f.excerpt ? `: ${f.excerpt}` : ""}`);
  if (count > limit || review.truncated) lines.push(`  … ${review.truncated ? "more" : count - limit} more on the version's page (or: rye registry pending)`);
  return lines;
}

/** What `rye push` prints when the registry holds the version for approval. */
export function heldNotice(type: string, id: string, version: string, approval: PushApproval | null): string {
  const why = approval?.reason ? ` (${approval.reason}${approval.review ? `; review: ${approval.review.risk} risk, ${approval.review.findings} finding${approval.review.findings === 1 ? "" : "s"}` : ""})` : "";
  return `${id}@${version} is held for approval${why}: it is invisible until an owner or admin of the namespace (or a registry admin) approves it. See: rye registry pending; rye registry approve ${type} ${id}@${version}`;
}

/** `rye pull --with-deps`: the item's closure (registry/pull-closure.ts), one line per item, warnings on stderr. */
async function pullWithDeps(ctx: CliContext, args: { id: string; version: string | undefined; to: InstallTarget | undefined; opts: { type?: string; registry?: string; project?: string; force?: boolean; allowDowngrade?: boolean; json?: boolean } }): Promise<number | void> {
  const { opts } = args;
  const { isSemver } = await import("@rye/core");
  if (args.version !== undefined && !isSemver(args.version)) throw new RyeError("INVALID_VERSION", `Invalid version ${JSON.stringify(args.version)}`, { hint: "Use <id>@MAJOR.MINOR.PATCH, e.g. alice/flows/triage@1.1.0." });
  const { splitRegistryId } = await import("../../registry/publish.ts");
  splitRegistryId(args.id);
  const { normalizeRegistryUrl } = await import("../../registry/registry-url.ts");
  const result = await (await import("../../registry/pull-closure.ts")).pullClosure(
    { id: args.id, version: args.version, type: opts.type !== undefined ? parseItemType(opts.type) : undefined, to: args.to ?? "project", force: opts.force, allowDowngrade: opts.allowDowngrade },
    { projectPath: resolve(ctx.cwd, opts.project ?? "."), env: ctx.env, registryUrl: opts.registry ? normalizeRegistryUrl(opts.registry) : undefined },
  );
  if (opts.json) return ctx.json(result);
  for (const notice of result.notices) ctx.io.stderr(`notice: ${notice}`);
  for (const item of result.items) {
    const verb = item.status === "unchanged" ? "Already up to date:" : "Pulled";
    ctx.io.stdout(`${verb} ${item.item_type} ${item.item_id}@${item.version} → ${item.path}${item.used_by.length ? ` (used by ${item.used_by.join(", ")})` : ""}`);
  }
  if (result.provided_by_system.length) ctx.io.stdout(`From the system space (not pulled): ${result.provided_by_system.join(", ")}`);
  ctx.io.stdout(`${result.items.length} item${result.items.length === 1 ? "" : "s"} verified with ${result.registry_fingerprint} and pinned in ${result.lock}.`);
  for (const w of result.warnings) ctx.io.stderr(`warning: ${w}`);
}

export function registerPublish(program: Command, ctx: CliContext, options: PublishCliOptions = {}): void {
  const base = (opts: { project?: string }, confirm?: PublishContext["confirm"]): PublishContext => ({
    projectPath: resolve(ctx.cwd, opts.project ?? "."),
    env: ctx.env,
    info: (text) => ctx.io.stderr(text),
    ...(confirm ? { confirm } : {}),
  });

  program
    .command("push <file_or_item_id>")
    .description("sign an item with your key and push it to a registry; the file is rewritten with the registry's signature. A folder with SKILL.md is pushed as an Agent Skill (namespace/name; the folder is left untouched)")
    .option("--type <type>", "directive | tool | knowledge (required for item ids; inferred for files)")
    .option("--visibility <visibility>", "public | unlisted | private")
    .option("--namespace <ns>", "publish under this namespace (e.g. an organization) instead of your username")
    .option("--changelog <text>", "what changed in this version")
    .option("--version <semver>", "skill folders: the version of a skill whose SKILL.md declares none (or none readable as MAJOR.MINOR[.PATCH]); sent beside the files, which are not changed")
    .option("--registry <url>", "registry URL")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("-y, --yes", "register your public key with the registry without asking")
    .option("--json", "print JSON")
    .action(async (target: string, opts: { type?: string; visibility?: string; namespace?: string; changelog?: string; version?: string; registry?: string; project?: string; yes?: boolean; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const type = opts.type !== undefined ? parseItemType(opts.type) : undefined;
        const visibility = parseVisibility(opts.visibility);
        const prompt = options.prompt ?? ttyPrompt;
        const confirm = async (question: string) => {
          if (opts.yes) {
            ctx.io.stderr(`${question} yes (--yes)`);
            return true;
          }
          return opts.json && !options.prompt ? false : prompt(question);
        };
        const context = base(opts, confirm);
        const file = resolve(ctx.cwd, target);
        const isDir = await stat(file).then((s) => s.isDirectory(), () => false);
        if (isDir && !type && (await (await import("../../skills/folder.ts")).isSkillFolder(file))) {
          const skill = await (await import("../../registry/push-skill.ts")).pushSkill(
            { dir: file, ...(visibility ? { visibility } : {}), ...(opts.namespace ? { namespace: opts.namespace } : {}), ...(opts.registry ? { registryUrl: opts.registry } : {}), ...(opts.version !== undefined ? { version: opts.version } : {}) },
            context,
          );
          if (opts.json) return ctx.json(skill);
          if (skill.key_registration === "registered") ctx.io.stderr(`Registered your public key ${skill.author_fingerprint} with ${skill.registry}.`);
          ctx.io.stdout(`Pushed skill ${skill.item_id}@${skill.version} (${skill.files} file${skill.files === 1 ? "" : "s"}) to ${skill.registry}; the registry signed its manifest (${skill.registry_fingerprint}).`);
          if (skill.version_note) ctx.io.stdout(`${skill.version_note}.`);
          for (const line of reviewLines(skill.review)) ctx.io.stdout(line);
          if (skill.held) ctx.io.stdout(heldNotice("skill", skill.item_id, skill.version, skill.approval));
          return;
        }
        if (opts.version !== undefined) {
          throw new RyeError("BAD_REQUEST", "--version applies to Agent Skill folders only", {
            hint: "A directive, tool or knowledge item declares its version in its own metadata: change it there, sign and push.",
          });
        }
        const isFile = await stat(file).then((s) => s.isFile(), () => false);
        if (!isFile && !type) {
          throw new RyeError("BAD_REQUEST", `${target} is not a file${isDir ? " nor a skill folder (no SKILL.md)" : ""}; to push an item by id pass --type`, {
            hint: isDir ? "A skill folder holds SKILL.md (rye skill init <name> creates one); for an item pass its file." : "Example: rye push tools/deploy --type directive",
          });
        }
        const result = await (await import("../../registry/publish.ts")).pushItem(
          {
            ...(isFile ? { path: file } : { itemId: target }),
            ...(type ? { type } : {}),
            ...(visibility ? { visibility } : {}),
            ...(opts.namespace ? { namespace: opts.namespace } : {}),
            ...(opts.changelog ? { changelog: opts.changelog } : {}),
            ...(opts.registry ? { registryUrl: opts.registry } : {}),
          },
          context,
        );
        if (opts.json) return ctx.json(result);
        if (result.key_registration === "registered") ctx.io.stderr(`Registered your public key ${result.author_fingerprint} with ${result.registry}.`);
        ctx.io.stdout(`Pushed ${result.item_type} ${result.item_id}@${result.version} to ${result.registry}; ${result.path} now carries the registry signature (${result.registry_fingerprint}).`);
        for (const line of reviewLines(result.review)) ctx.io.stdout(line);
        if (result.held) ctx.io.stdout(heldNotice(result.item_type, result.item_id, result.version, result.approval));
      }),
    );

  program
    .command("pull <item_id>")
    .description("download an item (<namespace>/<category>/<name>[@version]), verify it with the pinned registry key, write it to .ai/ and pin it in .ai/rye.lock")
    .option("--type <type>", "directive | tool | knowledge (default: whichever exists)")
    .option("--to <space>", "project | user (default project)")
    .option("--registry <url>", "registry URL")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--force", "replace a local copy that differs")
    .option("--allow-downgrade", "pull an explicit version older than the pinned one")
    .option("--with-deps", "also pull everything the item uses (tools with their executor chains, knowledge, child directives), all verified and pinned in one step, or nothing")
    .option("--json", "print JSON")
    .action(async (ref: string, opts: { type?: string; to?: string; registry?: string; project?: string; force?: boolean; allowDowngrade?: boolean; withDeps?: boolean; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const { id, version } = (await import("../../registry/publish.ts")).splitVersion(ref);
        const to = parseTo(opts.to);
        if (opts.withDeps) return pullWithDeps(ctx, { id, version, opts, to });
        // Registry notices (first-use key pin, rotation): `notice:` lines on stderr, or a field with --json.
        const notices: string[] = [];
        const context: PublishContext = {
          ...base(opts),
          info: (text) => {
            if (text.startsWith("warning: ")) ctx.io.stderr(text);
            else if (opts.json) notices.push(text);
            else ctx.io.stderr(`notice: ${text}`);
          },
        };
        const result = await (await import("../../registry/pull-command.ts")).pullCommand(
          {
            id,
            version,
            type: opts.type !== undefined ? parseItemType(opts.type) : undefined,
            to,
            registryUrl: opts.registry,
            force: opts.force,
            allowDowngrade: opts.allowDowngrade,
          },
          context,
        );
        if (opts.json) return ctx.json(notices.length ? { ...result, registry_notice: notices.join("\n") } : result);
        const verb = result.status === "unchanged" ? "Already up to date:" : "Pulled";
        ctx.io.stdout(`${verb} ${result.item_type} ${result.item_id}@${result.version} → ${result.path} (verified with ${result.registry_fingerprint}).`);
        if (result.yanked) ctx.io.stderr(`warning: ${result.item_id}@${result.version} is yanked.`);
        if (result.deprecated) ctx.io.stderr(`warning: ${result.item_id} is deprecated${result.deprecation_message ? `: ${result.deprecation_message}` : ""}.`);
      }),
    );

  const manage = (action: ManageAction, description: string, configure: (cmd: Command) => Command, extra: (opts: Record<string, unknown>, version: string | undefined) => Record<string, unknown>) =>
    configure(program.command(`${action} <type> <item_id>`).description(description))
      .option("--registry <url>", "registry URL")
      .option("--json", "print JSON")
      .action(async (typeArg: string, ref: string, opts: Record<string, unknown>) =>
        ctx.run(opts.json as boolean | undefined, async () => {
          const type = parseRegistryItemType(typeArg);
          const { id, version } = (await import("../../registry/publish.ts")).splitVersion(ref);
          const result = await (await import("../../registry/publish.ts")).manageItem(
            { action, type, id, ...extra(opts, version), ...(typeof opts.registry === "string" ? { registryUrl: opts.registry } : {}) },
            base({}),
          );
          if (opts.json) return ctx.json(result);
          const what = `${type} ${id}${version ? `@${version}` : ""}`;
          const done: Record<ManageAction, string> = {
            publish: `Published ${what} (public).`,
            unpublish: `Unpublished ${what} (private).`,
            yank: `Yanked ${what}.`,
            unyank: `Restored ${what}.`,
            deprecate: opts.undo ? `${what} is no longer deprecated.` : `Deprecated ${what}.`,
            delete: `Deleted ${what}.`,
          };
          ctx.io.stdout(`${done[action]} (${String(result.registry)})`);
          return EXIT.OK;
        }),
      );

  const noVersion = (action: string) => (_opts: Record<string, unknown>, version: string | undefined) => {
    if (version) throw new RyeError("BAD_REQUEST", `${action} applies to the whole item, not a version`, { hint: `Drop @${version}.` });
    return {};
  };
  const needVersion = (action: string) => (version: string | undefined) => {
    if (!version) throw new RyeError("BAD_REQUEST", `${action} needs a version: <item_id>@<version>`);
    return version;
  };

  manage("publish", "make an item public", (c) => c, noVersion("publish"));
  manage("unpublish", "make an item private", (c) => c, noVersion("unpublish"));
  manage("yank", "yank a version (<item_id>@<version>): it stays pullable by version but is no longer installed by default", (c) => c.option("--reason <text>", "why"), (opts, version) => ({
    version: needVersion("yank")(version),
    ...(typeof opts.reason === "string" ? { reason: opts.reason } : {}),
  }));
  manage("unyank", "undo a yank (<item_id>@<version>)", (c) => c, (_opts, version) => ({ version: needVersion("unyank")(version) }));
  manage("deprecate", "mark an item deprecated (--message) or lift it (--undo)", (c) => c.option("--message <text>", "what to use instead").option("--undo", "lift the deprecation"), (opts, version) => {
    noVersion("deprecate")(opts, version);
    if (!opts.undo && typeof opts.message !== "string") throw new RyeError("BAD_REQUEST", "deprecate needs --message <text> (or --undo)");
    return opts.undo ? { undo: true } : { message: opts.message };
  });
  manage("delete", "delete an item, or one version with <item_id>@<version>", (c) => c.option("--force", "bypass the deletion policy (registry administrators only)"), (opts, version) => ({
    ...(version ? { version } : {}),
    ...(opts.force ? { force: true } : {}),
  }));
}
