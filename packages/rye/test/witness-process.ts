/** `rye witness serve` as a real child process: started, its URL read from stdout, stopped with SIGTERM. */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { RYE_BIN } from "./cli.ts";

export interface WitnessProcess {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<void>;
}

export async function startWitnessProcess(args: string[], env: NodeJS.ProcessEnv): Promise<WitnessProcess> {
  const child = spawn(process.execPath, [RYE_BIN, "witness", "serve", "--port", "0", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rye witness serve did not start: ${err}`)), 60_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`rye witness serve exited with ${code}: ${err}`));
    });
  });
  return {
    url,
    child,
    stderr: () => err,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}
