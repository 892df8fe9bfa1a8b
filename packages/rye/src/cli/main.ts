/** The `rye` command line. */
import "@rye/core/node";
import { Command, CommanderError } from "commander";
import packageJson from "../../package.json" with { type: "json" };
import { CliContext } from "./context.ts";
import type { Io } from "./output.ts";
import { EXIT, processIo } from "./output.ts";

/** The client version: the package's own (bundled into the build). */
export const RYE_VERSION: string = packageJson.version;

type Registrar = (program: Command, ctx: CliContext) => void;

/**
 * Each command module with the top-level commands it defines (a test checks this table against what each
 * module registers). A run that names one of them imports and registers only that module: a cold `rye search`
 * neither loads nor builds the options of every other command (nor the parsers and schemas they import).
 */
export const COMMAND_MODULES: readonly { names: readonly string[]; load: () => Promise<Registrar> }[] = [
  { names: ["search"], load: async () => (await import("./commands/search.ts")).registerSearch },
  { names: ["load"], load: async () => (await import("./commands/load.ts")).registerLoad },
  { names: ["execute"], load: async () => (await import("./commands/execute.ts")).registerExecute },
  { names: ["sign"], load: async () => (await import("./commands/sign.ts")).registerSign },
  { names: ["verify"], load: async () => (await import("./commands/verify.ts")).registerVerify },
  { names: ["skill"], load: async () => (await import("./commands/skill.ts")).registerSkill },
  { names: ["keygen"], load: async () => (await import("./commands/keygen.ts")).registerKeygen },
  { names: ["trust"], load: async () => (await import("./commands/trust.ts")).registerTrust },
  { names: ["witness"], load: async () => (await import("./commands/witness.ts")).registerWitness },
  { names: ["bundle"], load: async () => (await import("./commands/bundle.ts")).registerBundle },
  { names: ["login", "logout", "whoami"], load: async () => (await import("./commands/login.ts")).registerLogin },
  { names: ["org"], load: async () => (await import("./commands/org.ts")).registerOrg },
  { names: ["registry"], load: async () => (await import("./commands/registry.ts")).registerRegistry },
  { names: ["webhook"], load: async () => (await import("./commands/webhook.ts")).registerWebhook },
  { names: ["log"], load: async () => (await import("./commands/log.ts")).registerLog },
  { names: ["push", "pull", "publish", "unpublish", "yank", "unyank", "deprecate", "delete"], load: async () => (await import("./commands/publish.ts")).registerPublish },
  { names: ["update"], load: async () => (await import("./commands/update.ts")).registerUpdate },
  { names: ["init"], load: async () => (await import("./commands/init.ts")).registerInit },
  { names: ["mcp"], load: async () => (await import("./commands/mcp.ts")).registerMcp },
  {
    names: ["thread"],
    load: async () => {
      const [{ registerThreadCommands }, { registerThreadRun }, { registerThreadWorker }] = await Promise.all([import("./commands/thread.ts"), import("./commands/thread-run.ts"), import("./commands/thread-worker.ts")]);
      return (program, ctx) => registerThreadCommands(program, ctx, [registerThreadRun, registerThreadWorker]);
    },
  },
  { names: ["graph"], load: async () => (await import("./commands/graph.ts")).registerGraph },
  { names: ["search-daemon"], load: async () => (await import("./commands/search-daemon.ts")).registerSearchDaemon },
];

/** The program; with `argv`, only the module of the command it names when it names one (else every command, for help and errors). */
export async function buildProgram(ctx: CliContext, argv?: readonly string[], terminal?: Terminal): Promise<Command> {
  const program = new Command("rye")
    .description("rye: signed directives, tools and knowledge for AI agents")
    .version(RYE_VERSION)
    .showHelpAfterError()
    // Subcommand options such as `bundle create --version` must not be taken for the root --version.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.io.stdout(s),
      writeErr: (s) => ctx.io.stderr(s),
      // Run for another process (the search daemon): help is wrapped to that process's terminal, not this one's.
      // (undefined, as commander's own default gives when not a terminal: its typings say number only.)
      ...(terminal ? { getOutHelpWidth: () => terminal.outColumns as number, getErrHelpWidth: () => terminal.errColumns as number } : {}),
    });
  const named = argv?.[0];
  const only = named === undefined ? undefined : COMMAND_MODULES.find((m) => m.names.includes(named));
  const modules = only ? [only] : COMMAND_MODULES;
  // Imported together, registered in table order (the order help lists them in).
  const registrars = await Promise.all(modules.map((module) => module.load()));
  for (const register of registrars) register(program, ctx);
  return program;
}

/** The terminal of the process a run prints for, when that is not this one: its columns (undefined: not a terminal). */
export interface Terminal {
  outColumns: number | undefined;
  errColumns: number | undefined;
}

export interface RunOptions {
  io?: Io;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The process serves many runs (the search daemon): search watches the spaces instead of re-scanning them. */
  longLived?: boolean;
  terminal?: Terminal;
}

/** Runs the CLI and resolves to the exit code (never calls process.exit itself). */
export async function runCli(argv: string[], options: RunOptions = {}): Promise<number> {
  const ctx = new CliContext(options.io ?? processIo, options.env ?? process.env, options.cwd ?? process.cwd(), options.longLived ?? false);
  const program = await buildProgram(ctx, argv, options.terminal);
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
