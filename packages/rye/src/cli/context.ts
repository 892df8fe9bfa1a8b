import type { Io } from "./output.ts";
import { EXIT, printJson, reportError } from "./output.ts";

/** What every command gets: I/O, environment, and a runner that maps errors to exit codes. */
export class CliContext {
  exitCode: number = EXIT.OK;

  constructor(
    readonly io: Io,
    readonly env: NodeJS.ProcessEnv,
    readonly cwd: string,
    /** The process serves many runs (the search daemon): the engine watches the spaces (EngineOptions.longLived). */
    readonly longLived = false,
  ) {}

  json(value: unknown): void {
    printJson(this.io, value);
  }

  /** Runs a command body; a returned number is the exit code, a thrown error is reported. */
  async run(json: boolean | undefined, body: () => Promise<number | void>): Promise<void> {
    try {
      const code = await body();
      this.exitCode = typeof code === "number" ? code : EXIT.OK;
    } catch (err) {
      this.exitCode = reportError(this.io, err, Boolean(json));
    }
  }
}
