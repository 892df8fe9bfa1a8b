import type { Command } from "commander";
import type { CliContext } from "../context.ts";

export function registerKeygen(program: Command, ctx: CliContext): void {
  program
    .command("keygen")
    .description("create your Ed25519 signing key pair (in $USER_SPACE/.ai/keys) and trust it")
    .option("--force", "replace an existing key pair (the old one is kept as a .bak file)")
    .option("--json", "print JSON")
    .action(async (opts: { force?: boolean; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const store = new (await import("../../keys/keystore.ts")).KeyStore({ env: ctx.env });
        const existing = opts.force ? undefined : await store.load();
        const key = existing ?? (await store.create({ replace: Boolean(opts.force) }));
        const result = {
          created: !existing,
          fingerprint: key.publicKey.fingerprint,
          publicKeyPath: store.publicKeyPath,
          privateKeyPath: store.privateKeyPath,
          publicKeyPem: key.publicKey.pem,
        };
        if (opts.json) return ctx.json(result);
        ctx.io.stdout(existing ? `Key pair already exists (use --force to replace it).` : `Created a new key pair.`);
        ctx.io.stdout(`fingerprint: ${result.fingerprint}\npublic key:  ${result.publicKeyPath}\nprivate key: ${result.privateKeyPath}`);
      }),
    );
}
