import type { Command } from "commander";
import { RyeError } from "@rye/core";
import type { CliContext } from "../context.ts";
import { askDaemon, type DaemonAnswer, unsafeSocket } from "../search-daemon/client.ts";
import { DEFAULT_IDLE_SECONDS, socketPath } from "../search-daemon/protocol.ts";
import { parseInteger } from "./common.ts";

/** How long `start` waits for the daemon it spawned to answer. */
const START_WAIT_MS = 10_000;

/** The daemon's answer to `op`, or null when none answers on a socket of this user's. */
async function ask(env: NodeJS.ProcessEnv, op: "status" | "stop", timeoutMs: number): Promise<DaemonAnswer | null> {
  const path = socketPath(env);
  if (unsafeSocket(path)) return null;
  return askDaemon(path, { op }, timeoutMs).catch(() => null);
}

async function status(env: NodeJS.ProcessEnv): Promise<Record<string, unknown> | null> {
  const answer = await ask(env, "status", 2000);
  return answer?.ok && answer.status ? answer.status : null;
}

export function registerSearchDaemon(program: Command, ctx: CliContext): void {
  const daemon = program.command("search-daemon").description("opt-in resident process that answers `rye search --local` when RYE_SEARCH_DAEMON=1 (docs/client.md)");
  daemon
    .command("start")
    .description("start this user's search daemon in the background (it exits after --idle-timeout seconds without a search)")
    .option("--idle-timeout <seconds>", `exit after this many seconds without a request (1-86400, default ${DEFAULT_IDLE_SECONDS})`)
    .option("--foreground", "run in this process until stopped (what the background daemon runs)")
    .option("--json", "print JSON")
    .action(async (opts: { idleTimeout?: string; foreground?: boolean; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const idleSeconds = parseInteger("idle-timeout", opts.idleTimeout, 1, 86_400) ?? DEFAULT_IDLE_SECONDS;
        if (opts.foreground) {
          const { SearchDaemon } = await import("../search-daemon/server.ts");
          const server = new SearchDaemon({ env: ctx.env, idleSeconds });
          await server.listen();
          const stop = () => server.close();
          process.once("SIGTERM", stop);
          process.once("SIGINT", stop);
          ctx.io.stderr(`search daemon ${process.pid} listening on ${server.path} (idle timeout ${idleSeconds} s)`);
          await server.done;
          process.off("SIGTERM", stop);
          process.off("SIGINT", stop);
          return;
        }
        const running = await status(ctx.env);
        if (running) throw new RyeError("CONFLICT", `A search daemon already runs (pid ${String(running.pid)})`, { hint: "rye search-daemon stop" });
        const { spawn } = await import("node:child_process");
        // The entry script this process runs (bin/rye.mjs), so the daemon is this very build.
        const child = spawn(process.execPath, [process.argv[1]!, "search-daemon", "start", "--foreground", "--idle-timeout", String(idleSeconds)], { env: ctx.env, cwd: ctx.cwd, detached: true, stdio: "ignore" });
        child.unref();
        const deadline = Date.now() + START_WAIT_MS;
        let started: Record<string, unknown> | null = null;
        while (!started && Date.now() < deadline && child.exitCode === null) {
          await new Promise((r) => setTimeout(r, 50));
          started = await status(ctx.env);
        }
        if (!started) throw new RyeError("UNAVAILABLE", `The search daemon did not start within ${START_WAIT_MS / 1000} s`, { hint: "Run `rye search-daemon start --foreground` to see why." });
        if (opts.json) return ctx.json(started);
        ctx.io.stdout(`search daemon started: pid ${String(started.pid)}, socket ${String(started.socket)}, idle timeout ${idleSeconds} s\nSet RYE_SEARCH_DAEMON=1 for \`rye search --local\` (or RYE_OFFLINE=1) to use it.`);
      }),
    );
  daemon
    .command("stop")
    .description("stop this user's search daemon")
    .action(async () =>
      ctx.run(false, async () => {
        const answer = await ask(ctx.env, "stop", 5000);
        if (!answer?.ok) {
          ctx.io.stdout("no search daemon runs");
          return;
        }
        ctx.io.stdout(`search daemon ${String(answer.status?.pid)} stopped`);
      }),
    );
  daemon
    .command("status")
    .description("whether this user's search daemon runs (exit code 1 when not)")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const running = await status(ctx.env);
        if (opts.json) ctx.json(running ? { running: true, ...running } : { running: false, socket: socketPath(ctx.env) });
        else if (running) ctx.io.stdout(`search daemon runs: pid ${String(running.pid)}, rye ${String(running.version)}, socket ${String(running.socket)}, up ${String(running.uptime_s)} s, ${String(running.searches)} searches, idle timeout ${String(running.idle_timeout_s)} s`);
        else ctx.io.stdout(`no search daemon runs (socket ${socketPath(ctx.env)})`);
        return running ? 0 : 1;
      }),
    );
}
