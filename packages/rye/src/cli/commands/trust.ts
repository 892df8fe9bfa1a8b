import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { RyeError } from "@rye/core";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";

export function registerTrust(program: Command, ctx: CliContext): void {
  const trust = program.command("trust").description("manage the public keys you trust for signed items, and the witnesses registry checkpoints must carry");
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
  registerTrustWitness(trust, ctx);
}

interface PolicyOptions {
  project?: boolean;
  json?: boolean;
}

/** `rye trust witness …`: the k-of-n witness policy (registry/witness-policy.ts), user file or, with --project, the project's. */
function registerTrustWitness(trust: Command, ctx: CliContext): void {
  const witness = trust.command("witness").description("require registry checkpoints to be cosigned by k of your named witnesses (C2SP tlog-witness)");
  const policy = () => import("../../registry/witness-policy.ts");
  const pathOf = async (opts: PolicyOptions) => (opts.project ? (await policy()).projectWitnessPolicyPath(resolve(ctx.cwd)) : (await policy()).userWitnessPolicyPath(ctx.env));
  const projectFlag = "write the project's policy (<project>/.ai/config/witnesses.json, committed with it) instead of yours";
  witness
    .command("add <name> <verifier-key>")
    .description("trust a witness (its verifier key, as `rye witness key` prints it); replaces one of the same name")
    .option("--registry <url>", "count it for this registry only (default: every registry)")
    .option("--project", projectFlag)
    .option("--json", "print JSON")
    .action(async (name: string, key: string, opts: PolicyOptions & { registry?: string }) =>
      ctx.run(opts.json, async () => {
        const { parseCosignerVerifierKey } = await import("@rye/core");
        const verifier = parseCosignerVerifierKey(key);
        if (!verifier) throw new RyeError("INVALID_KEY", `Not a witness verifier key: ${JSON.stringify(key.slice(0, 200))}`, { hint: "A witness key is <name>+<hex key id>+<base64(0x04 ‖ Ed25519 key)> (`rye witness key` prints it); get it from the witness's operator." });
        if (verifier.name !== name) throw new RyeError("INVALID_KEY", `The key is ${verifier.name}'s, not ${name}'s`, { hint: "The name is the first field of the verifier key." });
        const { readWitnessPolicyFile, writeWitnessPolicyFile } = await policy();
        const { normalizeRegistryUrl } = await import("../../registry/registry-url.ts");
        const path = await pathOf(opts);
        const file = await readWitnessPolicyFile(path);
        const entry = { name, key, ...(opts.registry ? { registry: normalizeRegistryUrl(opts.registry) } : {}) };
        file.witnesses = [...file.witnesses.filter((w) => w.name !== name), entry];
        await writeWitnessPolicyFile(path, file);
        if (opts.json) return ctx.json({ status: "added", ...entry, file: path });
        ctx.io.stdout(`Added witness ${name}${entry.registry ? ` for ${entry.registry}` : ""} (${path})`);
      }),
    );
  witness
    .command("remove <name>")
    .description("stop counting a witness")
    .option("--project", projectFlag)
    .option("--json", "print JSON")
    .action(async (name: string, opts: PolicyOptions) =>
      ctx.run(opts.json, async () => {
        const { readWitnessPolicyFile, writeWitnessPolicyFile } = await policy();
        const path = await pathOf(opts);
        const file = await readWitnessPolicyFile(path);
        const kept = file.witnesses.filter((w) => w.name !== name);
        const removed = kept.length !== file.witnesses.length;
        if (removed) await writeWitnessPolicyFile(path, { ...file, witnesses: kept });
        if (opts.json) ctx.json({ status: removed ? "removed" : "not_found", name, file: path });
        else ctx.io.stdout(removed ? `Removed witness ${name} (${path})` : `${name} is not a witness in ${path}`);
        return removed ? EXIT.OK : EXIT.FAILURE;
      }),
    );
  witness
    .command("require <k>")
    .description("require k cosignatures from your witnesses (0 removes the requirement of that file)")
    .option("--registry <url>", "for this registry only (default: every registry without its own k)")
    .option("--project", projectFlag)
    .option("--json", "print JSON")
    .action(async (k: string, opts: PolicyOptions & { registry?: string }) =>
      ctx.run(opts.json, async () => {
        const { ANY_REGISTRY, MAX_POLICY_WITNESSES, readWitnessPolicyFile, writeWitnessPolicyFile } = await policy();
        const { parseInteger } = await import("./common.ts");
        const count = parseInteger("k", k, 0, MAX_POLICY_WITNESSES)!;
        const { normalizeRegistryUrl } = await import("../../registry/registry-url.ts");
        const registry = opts.registry ? normalizeRegistryUrl(opts.registry) : ANY_REGISTRY;
        const path = await pathOf(opts);
        const file = await readWitnessPolicyFile(path);
        if (count === 0) delete file.required[registry];
        else file.required[registry] = count;
        await writeWitnessPolicyFile(path, file);
        const known = file.witnesses.filter((w) => w.registry === undefined || registry === ANY_REGISTRY || w.registry === registry).length;
        if (opts.json) return ctx.json({ status: "set", registry, required: count, file: path });
        ctx.io.stdout(`${registry === ANY_REGISTRY ? "Every registry" : registry} now needs ${count} witness cosignature${count === 1 ? "" : "s"} (${path})`);
        if (count > known) ctx.io.stderr(`note: only ${known} witness${known === 1 ? " is" : "es are"} listed for it in this file; checkpoints are refused until ${count} can cosign (\`rye trust witness add\`).`);
      }),
    );
  witness
    .command("list")
    .description("the witnesses and requirements in force here (yours and the project's)")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const all = await (await policy()).loadWitnessPolicies({ env: ctx.env, projectPath: resolve(ctx.cwd) });
        const witnesses = all.witnesses.map((w) => ({ name: w.name, key: w.key, registry: w.registry ?? null, origin: w.origin }));
        if (opts.json) return ctx.json({ witnesses, required: all.required });
        if (witnesses.length === 0 && all.required.length === 0) ctx.io.stdout("No witness policy: checkpoints are trusted on the registry's signature alone.");
        for (const w of witnesses) ctx.io.stdout(`${w.key}  ${w.registry ?? "every registry"}  (${w.origin})`);
        for (const r of all.required) ctx.io.stdout(`require ${r.k} for ${r.registry === "*" ? "every registry" : r.registry}  (${r.origin})`);
      }),
    );
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
