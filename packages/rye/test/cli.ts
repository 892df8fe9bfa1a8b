/** Runs the real `rye` binary as a child process. */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

export const RYE_BIN = fileURLToPath(new URL("../bin/rye.mjs", import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runRye(args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string; input?: string; nodeArgs?: string[] }): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [...(options.nodeArgs ?? []), RYE_BIN, ...args], { env: options.env, cwd: options.cwd, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
