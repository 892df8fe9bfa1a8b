import { resolve } from "node:path";
import type { Command } from "commander";
import type { CliContext } from "../context.ts";

interface DirOption {
  dir?: string;
  json?: boolean;
}

export function registerWitness(program: Command, ctx: CliContext): void {
  const witness = program.command("witness").description("run a transparency-log witness (C2SP tlog-witness): it cosigns a registry's checkpoints after checking they extend what it saw");
  const dirOf = async (opts: DirOption) => (opts.dir ? resolve(ctx.cwd, opts.dir) : (await import("../../witness/identity.ts")).defaultWitnessDir(ctx.env));
  witness
    .command("keygen")
    .description("create the witness's Ed25519 key and name (in --dir, default $USER_SPACE/.ai/witness) and print its verifier key")
    .requiredOption("--name <name>", "the witness's name, a schema-less URL (e.g. witness.example.com/w1)")
    .option("--dir <dir>", "the witness directory")
    .option("--force", "replace an existing witness key (a new key is a new witness to everyone who trusts it)")
    .option("--json", "print JSON")
    .action(async (opts: DirOption & { name: string; force?: boolean }) =>
      ctx.run(opts.json, async () => {
        const dir = await dirOf(opts);
        const identity = await (await import("../../witness/identity.ts")).createWitnessIdentity(dir, opts.name, { force: Boolean(opts.force) });
        if (opts.json) return ctx.json({ name: identity.name, verifier_key: identity.verifierKey, dir });
        ctx.io.stdout(identity.verifierKey);
      }),
    );
  witness
    .command("key")
    .description("print the witness's verifier key (what registries list in RYE_WITNESSES and clients give `rye trust witness add`)")
    .option("--dir <dir>", "the witness directory")
    .option("--json", "print JSON")
    .action(async (opts: DirOption) =>
      ctx.run(opts.json, async () => {
        const identity = await (await import("../../witness/identity.ts")).loadWitnessIdentity(await dirOf(opts));
        if (opts.json) return ctx.json({ name: identity.name, verifier_key: identity.verifierKey });
        ctx.io.stdout(identity.verifierKey);
      }),
    );
  witness
    .command("serve")
    .description("serve POST /add-checkpoint until stopped (SIGINT/SIGTERM); prints `listening on <url>`")
    .option("--dir <dir>", "the witness directory")
    .option("--log <verifier-key>", "a log to witness, by its checkpoint verifier key (GET /v1/tlog/info); repeatable", (v: string, all: string[]) => [...all, v], [] as string[])
    .option("--config <file>", 'a JSON file {"logs": [{"origin": …, "keys": [<verifier key>…]}]}')
    .option("--host <host>", "the address to listen on", "127.0.0.1")
    .option("--port <port>", "the port (0: any free port)", "8080")
    .option("--json", "print JSON")
    .action(async (opts: DirOption & { log: string[]; config?: string; host: string; port: string }) =>
      ctx.run(opts.json, async () => {
        const { RyeError } = await import("@rye/core");
        const port = Number(opts.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RyeError("BAD_REQUEST", `--port ${opts.port} is not a TCP port`);
        const { loadWitnessIdentity, loadWitnessedLogs } = await import("../../witness/identity.ts");
        const dir = await dirOf(opts);
        const identity = await loadWitnessIdentity(dir);
        const logs = await loadWitnessedLogs({ logKeys: opts.log, configPath: opts.config ? resolve(ctx.cwd, opts.config) : undefined });
        const { startWitnessServer } = await import("../../witness/server.ts");
        const running = await startWitnessServer({ dir, identity, logs, host: opts.host, port, log: (line) => ctx.io.stderr(line) });
        if (opts.json) ctx.json({ url: running.url, name: identity.name, verifier_key: identity.verifierKey, logs: logs.map((l) => l.origin) });
        else ctx.io.stdout(`listening on ${running.url}\nwitness ${identity.verifierKey}\nlogs: ${logs.map((l) => l.origin).join(", ")}`);
        await new Promise<void>((done) => {
          const stop = () => done();
          process.once("SIGINT", stop);
          process.once("SIGTERM", stop);
        });
        await running.close();
      }),
    );
}
