import { mkdir, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { mcpServerEntry, TYPE_FOLDERS } from "@rye/core";
import type { CliContext } from "../context.ts";

const AI_README = `# .ai — this project's rye items

- directives/  instructions for an LLM (markdown with an \`\`\`xml block)
- tools/       executables run through a verified runtime chain
- knowledge/   reference documents
- lockfiles/   pinned executor chains (commit them)

Items are signed: create them with the rye directives create_directive / create_tool /
create_knowledge, or write them by hand and run \`rye sign <file>\`. See \`rye load knowledge rye/core/item-formats\`.
`;

export function mcpConfigSnippet(projectDir: string): string {
  return JSON.stringify({ mcpServers: { rye: mcpServerEntry(projectDir) } }, null, 2);
}

export function registerInit(program: Command, ctx: CliContext): void {
  program
    .command("init [dir]")
    .description("scaffold .ai/ (directives, tools, knowledge, lockfiles) in a project")
    .option("--json", "print JSON")
    .action(async (dir: string | undefined, opts: { json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const projectDir = resolve(ctx.cwd, dir ?? ".");
        const ai = join(projectDir, ".ai");
        const created: string[] = [];
        for (const sub of [...Object.values(TYPE_FOLDERS), "lockfiles"]) {
          const path = join(ai, sub);
          const existed = await stat(path).then(() => true, () => false);
          await mkdir(path, { recursive: true });
          if (!existed) created.push(path);
        }
        const readme = join(ai, "README.md");
        if (!(await stat(readme).then(() => true, () => false))) {
          await writeFile(readme, AI_README);
          created.push(readme);
        }
        if (opts.json) return ctx.json({ status: "initialized", project: projectDir, created, mcp_config: JSON.parse(mcpConfigSnippet(projectDir)) });
        ctx.io.stdout(created.length ? `Initialized ${ai}` : `${ai} already exists; nothing to do`);
        ctx.io.stdout(`\nAdd rye to your MCP client:\n${mcpConfigSnippet(projectDir)}`);
      }),
    );
}
