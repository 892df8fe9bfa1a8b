/** `rye skill init|validate`: Agent Skills (SKILL.md folders). Signing and verifying are `rye sign|verify <dir>`. */
import { mkdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { RyeError, skillNameProblem, SKILL_FILE } from "@rye/core";
import { writeFileAtomic } from "../../fs/atomic.ts";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";
import { AGENTS } from "../../skills/agents.ts";

/** A SKILL.md that passes `rye skill validate` and `skills-ref validate`, with the sections a good skill has. */
export function skillSkeleton(name: string): string {
  const title = name
    .split("-")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(" ");
  return `---
name: ${name}
description: Say what this skill does and when an agent should use it (the agent reads this to decide). Replace this text.
metadata:
  version: "0.1.0"
---

# ${title}

## When to use

Describe the requests or situations this skill is for.

## Instructions

1. The first step.
2. The next step. Put long reference material in references/ and scripts in scripts/, and say here when to read or run them.
`;
}

export function registerSkill(program: Command, ctx: CliContext): void {
  const skill = program.command("skill").description("Agent Skills: SKILL.md folders that agents load (sign with `rye sign <dir>`, check with `rye verify <dir>`)");

  skill
    .command("init <name>")
    .description("create <name>/SKILL.md, a valid skill skeleton")
    .option("-d, --dir <parent>", "create the folder inside this directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (name: string, opts: { dir?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const problem = skillNameProblem(name);
        if (problem) {
          throw new RyeError("VALIDATION_FAILED", `Skill name ${JSON.stringify(name)} ${problem}`, { hint: "Use 1-64 lowercase letters, digits and single hyphens, e.g. pdf-tools." });
        }
        const folder = resolve(ctx.cwd, opts.dir ?? ".", name);
        if (await stat(folder).then(() => true, () => false)) {
          throw new RyeError("ITEM_EXISTS", `${folder} already exists; nothing was written`, { hint: "Pick another name, or edit the existing skill." });
        }
        await mkdir(folder, { recursive: true });
        const path = join(folder, SKILL_FILE);
        await writeFileAtomic(path, skillSkeleton(name));
        if (opts.json) return ctx.json({ status: "created", name, path });
        ctx.io.stdout(`Created ${path}`);
        ctx.io.stdout(`Next: edit it, then \`rye skill validate ${name}\` and \`rye sign ${name}\`.`);
      }),
    );

  skill
    .command("validate <dir>")
    .description("check a skill folder against the Agent Skills specification and rye's limits (exit 0 only when valid)")
    .option("--json", "print JSON")
    .action(async (dir: string, opts: { json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const check = await (await import("../../skills/folder.ts")).validateSkillFolder(resolve(ctx.cwd, dir));
        if (opts.json) {
          ctx.json({ ok: check.ok, name: check.frontmatter?.name ?? null, files: check.fileCount, bytes: check.totalBytes, issues: check.issues });
        } else if (check.ok) {
          ctx.io.stdout(`OK ${dir}: skill ${check.frontmatter!.name}, ${check.fileCount} file${check.fileCount === 1 ? "" : "s"}, ${check.totalBytes} bytes`);
        } else {
          ctx.io.stderr(`${dir} is not a valid skill:`);
          for (const issue of check.issues) ctx.io.stderr(`  ✗ ${issue.field}: ${issue.message}`);
        }
        return check.ok ? EXIT.OK : EXIT.FAILURE;
      }),
    );

  const collect = (value: string, previous: string[]) => [...previous, value];
  skill
    .command("add <source>")
    .description("install skills into your agents' skill folders from a registry (namespace/name[@version]), a skill folder, or any https host serving /.well-known/agent-skills/index.json; verified first, pinned in .ai/rye.lock")
    .option("-s, --skill <name>", "a skill of a multi-skill source (repeatable)", collect, [])
    .option("--all", "every skill the source lists")
    .option("-a, --agent <agent>", `where to install (repeatable; default universal = .agents/skills): ${AGENTS.map((a) => a.id).join(", ")}`, collect, [])
    .option("-g, --global", "install into your user folders instead of the project")
    .option("-f, --force", "replace an installed copy that differs")
    .option("--dry-run", "fetch, verify and review, write nothing")
    .option("--accept-risk", "install even when the static review flags high-risk content")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (source: string, opts: { skill: string[]; all?: boolean; agent: string[]; global?: boolean; force?: boolean; dryRun?: boolean; acceptRisk?: boolean; project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const added = await (await import("../../skills/install.ts")).addSkills(
          { source, skills: opts.skill, ...(opts.all ? { all: true } : {}), agents: opts.agent, ...(opts.global ? { global: true } : {}), ...(opts.force ? { force: true } : {}), ...(opts.dryRun ? { dryRun: true } : {}), ...(opts.acceptRisk ? { acceptRisk: true } : {}) },
          { projectPath: resolve(ctx.cwd, opts.project ?? "."), env: ctx.env, info: (text) => ctx.io.stderr(`notice: ${text}`) },
        );
        if (opts.json) return ctx.json({ skills: added });
        for (const s of added) {
          const how = s.verified === "signature" ? `signed by ${s.signer}` : s.verified === "digest" ? "digest checked, unsigned" : "unsigned";
          ctx.io.stdout(`${s.status === "checked" ? "Checked" : s.status === "unchanged" ? "Already installed" : s.status === "replaced" ? "Replaced" : "Installed"} ${s.name}${s.version ? `@${s.version}` : ""} (${how}; review: ${s.review.risk === "none" ? "nothing flagged" : `${s.review.risk} risk`})${s.paths.length ? `: ${s.paths.join(", ")}` : ""}`);
        }
      }),
    );

  skill
    .command("list")
    .description("the skills installed in this project (or --global), where, and whether their files are still the pinned ones")
    .option("-g, --global", "your user-level installs")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (opts: { global?: boolean; project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const skills = await (await import("../../skills/install.ts")).listSkills({ projectPath: resolve(ctx.cwd, opts.project ?? "."), env: ctx.env }, opts.global);
        if (opts.json) return ctx.json({ skills });
        if (skills.length === 0) return ctx.io.stdout(`No skills installed${opts.global ? " globally" : " in this project"}. Install one with \`rye skill add <source>\`.`);
        for (const s of skills) {
          ctx.io.stdout(`${s.name}${s.version ? `@${s.version}` : ""}  ${s.verified === "signature" ? `signed by ${s.signer}` : s.verified === "digest" ? "unsigned (digest)" : "unsigned"}  from ${s.source.location}`);
          for (const st of s.state) ctx.io.stdout(`  ${st.status === "intact" ? "✓" : "✗"} ${st.path} (${st.status})`);
        }
      }),
    );

  skill
    .command("remove <name>")
    .description("remove an installed skill from every agent folder it was installed to (refused when its files changed, unless --force)")
    .option("-g, --global", "a user-level install")
    .option("-f, --force", "remove even when the files changed since install")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (name: string, opts: { global?: boolean; force?: boolean; project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const removed = await (await import("../../skills/install.ts")).removeSkill(name, { projectPath: resolve(ctx.cwd, opts.project ?? "."), env: ctx.env }, { ...(opts.global ? { global: true } : {}), ...(opts.force ? { force: true } : {}) });
        if (opts.json) return ctx.json(removed);
        ctx.io.stdout(`Removed ${name}${removed.removed.length ? `: ${removed.removed.join(", ")}` : " (its folders were already gone)"}`);
      }),
    );

  skill
    .command("update [names...]")
    .description("fetch installed skills again from their source and install what is there now (every check of add; changed files refused unless --force)")
    .option("-g, --global", "your user-level installs")
    .option("-f, --force", "replace installs whose files changed on disk")
    .option("--accept-risk", "install even when the static review flags high-risk content")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (names: string[], opts: { global?: boolean; force?: boolean; acceptRisk?: boolean; project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const updated = await (await import("../../skills/install.ts")).updateSkills(
          names,
          { projectPath: resolve(ctx.cwd, opts.project ?? "."), env: ctx.env, info: (text) => ctx.io.stderr(`notice: ${text}`) },
          { ...(opts.global ? { global: true } : {}), ...(opts.force ? { force: true } : {}), ...(opts.acceptRisk ? { acceptRisk: true } : {}) },
        );
        if (opts.json) return ctx.json({ skills: updated });
        if (updated.length === 0) return ctx.io.stdout("No skills installed.");
        for (const s of updated) ctx.io.stdout(`${s.status === "unchanged" ? "Up to date" : "Updated"} ${s.name}${s.version ? `@${s.version}` : ""}`);
      }),
    );
}
