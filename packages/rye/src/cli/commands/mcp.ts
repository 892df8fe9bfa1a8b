import type { Command } from "commander";
import { runMcpStdio } from "../../mcp/server.ts";
import type { CliContext } from "../context.ts";

export function registerMcp(program: Command, ctx: CliContext): void {
  program
    .command("mcp")
    .description("run the MCP server on stdio (tools: search, load, execute, sign)")
    .action(async () => {
      await runMcpStdio({ env: ctx.env, cwd: ctx.cwd });
      // Keep the process alive until the client closes stdin.
      await new Promise<void>((resolve) => process.stdin.once("close", resolve));
    });
}
