/** For the command tests: runs `args` against a program holding only the commands `register` adds, capturing its output. */
import { Command, CommanderError } from "commander";
import { CliContext } from "./context.ts";

export interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCommands(register: (program: Command, ctx: CliContext) => void, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CommandRun> {
  let stdout = "";
  let stderr = "";
  const ctx = new CliContext({ stdout: (t) => void (stdout += `${t}\n`), stderr: (t) => void (stderr += `${t}\n`) }, env, cwd);
  const program = new Command("rye").exitOverride().configureOutput({ writeOut: (s) => void (stdout += s), writeErr: (s) => void (stderr += s) });
  register(program, ctx);
  try {
    await program.parseAsync(args, { from: "user" });
  } catch (err) {
    // A usage error (commander already printed it).
    if (err instanceof CommanderError) return { code: 2, stdout, stderr };
    throw err;
  }
  return { code: ctx.exitCode, stdout, stderr };
}
