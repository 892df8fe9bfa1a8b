/** `rye skill init|validate`: Agent Skills (SKILL.md folders). Signing and verifying are `rye sign|verify <dir>`. */
import { mkdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { RyeError, skillNameProblem, SKILL_FILE } from "@rye/core";
import { writeFileAtomic } from "../../fs/atomic.ts";
import { validateSkillFolder } from "../../skills/folder.ts";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";

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
        const check = await validateSkillFolder(resolve(ctx.cwd, dir));
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
}
