import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { RyeError } from "@rye/core";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";

export function registerTrust(program: Command, ctx: CliContext): void {
  const trust = program.command("trust").description("manage the public keys you trust for signed items");
  trust
    .command("list")
    .description("list trusted keys (and the rye release key, trusted for the system space only)")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const entries = await new (await import("../../trust/store.ts")).TrustStore({ env: ctx.env }).list();
        const release = (await import("../../engine/release-key.ts")).releasePublicKey();
        const result = { keys: entries, release_key: { fingerprint: release.fingerprint, scope: "system space only" } };
        if (opts.json) return ctx.json(result);
        if (entries.length === 0) ctx.io.stdout("No trusted keys yet (`rye keygen` trusts your own).");
        for (const e of entries) ctx.io.stdout(`${e.fingerprint}  ${e.valid ? "" : "(ignored: the PEM does not match its name)  "}${e.path}`);
        ctx.io.stdout(`${release.fingerprint}  rye release key (system space only)`);
      }),
    );
  trust
    .command("add <pem_file>")
    .description("trust a public key (SPKI PEM file; '-' reads standard input)")
    .option("--json", "print JSON")
    .action(async (file: string, opts: { json?: boolean }) =>
      ctx.run(opts.json, async () => {
        let pem: string;
        try {
          pem = file === "-" ? await readStdin() : await readFile(file, "utf8");
        } catch {
          throw new RyeError("KEY_NOT_FOUND", `Cannot read ${file}`);
        }
        const key = await new (await import("../../trust/store.ts")).TrustStore({ env: ctx.env }).add(pem);
        if (opts.json) return ctx.json({ status: "trusted", fingerprint: key.fingerprint });
        ctx.io.stdout(`Trusted key ${key.fingerprint}`);
      }),
    );
  trust
    .command("remove <fingerprint>")
    .description("stop trusting a key")
    .option("--json", "print JSON")
    .action(async (fingerprint: string, opts: { json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const removed = await new (await import("../../trust/store.ts")).TrustStore({ env: ctx.env }).remove(fingerprint);
        if (opts.json) ctx.json({ status: removed ? "removed" : "not_found", fingerprint });
        else ctx.io.stdout(removed ? `Removed ${fingerprint}` : `${fingerprint} was not trusted`);
        return removed ? EXIT.OK : EXIT.FAILURE;
      }),
    );
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
