/** The `rye` command line. */
import "@rye/core/node";
import { Command, CommanderError } from "commander";
import packageJson from "../../package.json" with { type: "json" };
import { registerBundle } from "./commands/bundle.ts";
import { registerExecute } from "./commands/execute.ts";
import { registerGraph } from "./commands/graph.ts";
import { registerInit } from "./commands/init.ts";
import { registerKeygen } from "./commands/keygen.ts";
import { registerLoad } from "./commands/load.ts";
import { registerLogin } from "./commands/login.ts";
import { registerMcp } from "./commands/mcp.ts";
import { registerOrg } from "./commands/org.ts";
import { registerPublish } from "./commands/publish.ts";
import { registerRegistry } from "./commands/registry.ts";
import { registerWebhook } from "./commands/webhook.ts";
import { registerSearch } from "./commands/search.ts";
import { registerSign } from "./commands/sign.ts";
import { registerSkill } from "./commands/skill.ts";
import { registerThreadCommands } from "./commands/thread.ts";
import { registerThreadRun } from "./commands/thread-run.ts";
import { registerThreadWorker } from "./commands/thread-worker.ts";
import { registerTrust } from "./commands/trust.ts";
import { registerUpdate } from "./commands/update.ts";
import { registerVerify } from "./commands/verify.ts";
import { CliContext } from "./context.ts";
import type { Io } from "./output.ts";
import { EXIT, processIo } from "./output.ts";

/** The client version: the package's own (bundled into the build). */
export const RYE_VERSION: string = packageJson.version;

export function buildProgram(ctx: CliContext): Command {
  const program = new Command("rye")
    .description("rye: signed directives, tools and knowledge for AI agents")
    .version(RYE_VERSION)
    .showHelpAfterError()
    // Subcommand options such as `bundle create --version` must not be taken for the root --version.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({ writeOut: (s) => ctx.io.stdout(s), writeErr: (s) => ctx.io.stderr(s) });
  registerSearch(program, ctx);
  registerLoad(program, ctx);
  registerExecute(program, ctx);
  registerSign(program, ctx);
  registerVerify(program, ctx);
  registerSkill(program, ctx);
  registerKeygen(program, ctx);
  registerTrust(program, ctx);
  registerBundle(program, ctx);
  registerLogin(program, ctx);
  registerOrg(program, ctx);
  registerRegistry(program, ctx);
  registerWebhook(program, ctx);
  registerPublish(program, ctx);
  registerUpdate(program, ctx);
  registerInit(program, ctx);
  registerMcp(program, ctx);
  registerThreadCommands(program, ctx, [registerThreadRun, registerThreadWorker]);
  registerGraph(program, ctx);
  return program;
}

/** Runs the CLI and resolves to the exit code (never calls process.exit itself). */
export async function runCli(argv: string[], options: { io?: Io; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<number> {
  const ctx = new CliContext(options.io ?? processIo, options.env ?? process.env, options.cwd ?? process.cwd());
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    throw err;
  }
  return ctx.exitCode;
}
