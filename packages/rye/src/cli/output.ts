/** How the CLI talks: human text by default, JSON with --json; errors in the shared envelope. */
import { RyeError, toErrorEnvelope } from "@rye/core";

/** Exit codes (documented in the README). */
export const EXIT = {
  OK: 0,
  /** The operation ran and said no: verification failed, validation issues, not found… */
  FAILURE: 1,
  /** The command line itself is wrong. */
  USAGE: 2,
} as const;

export class CliExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const processIo: Io = {
  stdout: (text) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
  stderr: (text) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
};

export function printJson(io: Io, value: unknown): void {
  io.stdout(JSON.stringify(value, null, 2));
}

/** Prints an error as `error[CODE]: message` + hint (or the JSON envelope) and returns the exit code. */
export function reportError(io: Io, err: unknown, json: boolean): number {
  const envelope = toErrorEnvelope(err);
  if (json) io.stdout(JSON.stringify(envelope, null, 2));
  else {
    io.stderr(`error[${envelope.error.code}]: ${envelope.error.message}`);
    if (envelope.error.hint) io.stderr(`hint: ${envelope.error.hint}`);
    if (Array.isArray(envelope.error.details)) {
      for (const d of envelope.error.details as { field?: string; message?: string }[]) {
        io.stderr(`  - ${d.field ? `${d.field}: ` : ""}${d.message ?? JSON.stringify(d)}`);
      }
    }
  }
  if (err instanceof RyeError && err.code === "BAD_REQUEST") return EXIT.USAGE;
  return EXIT.FAILURE;
}
