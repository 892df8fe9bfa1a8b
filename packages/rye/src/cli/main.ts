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

type Registrar = (program: Command, ctx: CliContext) => void;

/**
 * Each command module with the top-level commands it defines (a test checks this table against what each
 * module registers). A run that names one of them registers only that module: a cold `rye search` does not
 * build the options of every other command.
 */
export const COMMAND_MODULES: readonly { names: readonly string[]; register: Registrar }[] = [
  { names: ["search"], register: registerSearch },
  { names: ["load"], register: registerLoad },
  { names: ["execute"], register: registerExecute },
  { names: ["sign"], register: registerSign },
  { names: ["verify"], register: registerVerify },
  { names: ["skill"], register: registerSkill },
  { names: ["keygen"], register: registerKeygen },
  { names: ["trust"], register: registerTrust },
  { names: ["bundle"], register: registerBundle },
  { names: ["login", "logout", "whoami"], register: registerLogin },
  { names: ["org"], register: registerOrg },
  { names: ["registry"], register: registerRegistry },
  { names: ["webhook"], register: registerWebhook },
  { names: ["push", "pull", "publish", "unpublish", "yank", "unyank", "deprecate", "delete"], register: registerPublish },
  { names: ["update"], register: registerUpdate },
  { names: ["init"], register: registerInit },
  { names: ["mcp"], register: registerMcp },
  { names: ["thread"], register: (program, ctx) => registerThreadCommands(program, ctx, [registerThreadRun, registerThreadWorker]) },
  { names: ["graph"], register: registerGraph },
];

/** The program; with `argv`, only the module of the command it names when it names one (else every command, for help and errors). */
export function buildProgram(ctx: CliContext, argv?: readonly string[]): Command {
  const program = new Command("rye")
    .description("rye: signed directives, tools and knowledge for AI agents")
    .version(RYE_VERSION)
    .showHelpAfterError()
    // Subcommand options such as `bundle create --version` must not be taken for the root --version.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({ writeOut: (s) => ctx.io.stdout(s), writeErr: (s) => ctx.io.stderr(s) });
  const named = argv?.[0];
  const only = named === undefined ? undefined : COMMAND_MODULES.find((m) => m.names.includes(named));
  for (const module of only ? [only] : COMMAND_MODULES) module.register(program, ctx);
  return program;
}

/** Runs the CLI and resolves to the exit code (never calls process.exit itself). */
export async function runCli(argv: string[], options: { io?: Io; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<number> {
  const ctx = new CliContext(options.io ?? processIo, options.env ?? process.env, options.cwd ?? process.cwd());
  const program = buildProgram(ctx, argv);
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
