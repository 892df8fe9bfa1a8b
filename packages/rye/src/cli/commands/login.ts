import type { Command } from "commander";
import { RyeError } from "@rye/core";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export function registerLogin(program: Command, ctx: CliContext): void {
  program
    .command("login")
    .description("sign in to a registry (device code by default; --web for a browser redirect; --token-stdin for a token)")
    .option("--registry <url>", "registry URL (default $RYE_REGISTRY_URL or http://localhost:3000)")
    .option("--web", "sign in through a browser redirect to this machine (authorization code + PKCE)")
    .option("--token-stdin", "read a personal or CI token from standard input")
    .option("--no-browser", "do not try to open a browser")
    .option("--no-qr", "do not print a QR code of the sign-in link (it is printed only when stdout is a terminal)")
    .option("--json", "print JSON")
    .action(async (opts: { registry?: string; web?: boolean; tokenStdin?: boolean; browser?: boolean; qr?: boolean; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const registryUrl = (await import("../../registry/registry-url.ts")).resolveRegistryUrl(opts.registry, ctx.env);
        const controller = new AbortController();
        const cancel = () => controller.abort();
        process.once("SIGINT", cancel);
        try {
          const options = {
            registryUrl,
            env: ctx.env,
            io: { info: (text: string) => ctx.io.stderr(text) },
            signal: controller.signal,
            qr: (await import("../../registry/qr.ts")).wantsQr({ qrFlag: opts.qr, stdoutIsTty: process.stdout.isTTY === true, json: opts.json === true }),
            ...(opts.browser === false ? { openBrowser: () => false } : {}),
          };
          const me = opts.tokenStdin ? await (await import("../../registry/login.ts")).loginWithToken(options, await readStdin()) : opts.web ? await (await import("../../registry/login.ts")).loginWithBrowser(options) : await (await import("../../registry/login.ts")).loginWithDevice(options);
          if (opts.json) return ctx.json({ status: "signed_in", registry: registryUrl, username: me.username });
          ctx.io.stdout(`Signed in to ${registryUrl} as ${me.username}.`);
        } catch (err) {
          if (controller.signal.aborted) {
            ctx.io.stderr("Login cancelled.");
            return 130;
          }
          throw err;
        } finally {
          process.off("SIGINT", cancel);
        }
      }),
    );

  program
    .command("logout")
    .description("sign out of a registry (revokes the session and forgets the stored token)")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (opts: { registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const registryUrl = (await import("../../registry/registry-url.ts")).resolveRegistryUrl(opts.registry, ctx.env);
        const removed = await (await import("../../registry/login.ts")).logout(registryUrl, ctx.env);
        if (opts.json) return ctx.json({ status: removed ? "signed_out" : "not_signed_in", registry: registryUrl });
        ctx.io.stdout(removed ? `Signed out of ${registryUrl}.` : `You were not signed in to ${registryUrl}.`);
        if (ctx.env.RYE_TOKEN) ctx.io.stderr("note: RYE_TOKEN is set in the environment and still authenticates.");
      }),
    );

  program
    .command("whoami")
    .description("show who you are signed in as")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (opts: { registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const registryUrl = (await import("../../registry/registry-url.ts")).resolveRegistryUrl(opts.registry, ctx.env);
        const token = await (await import("../../registry/session.ts")).accessTokenFor(registryUrl, ctx.env);
        if (!token) throw new RyeError("UNAUTHORIZED", `Not signed in to ${registryUrl}`, { hint: `Run: rye login --registry ${registryUrl}` });
        const me = await (await import("../../registry/login.ts")).whoAmI(registryUrl, token);
        const stored = await new (await import("../../registry/credentials.ts")).CredentialStore(ctx.env).get(registryUrl);
        const source = ctx.env.RYE_TOKEN ? "env" : (stored?.method ?? "unknown");
        if (opts.json) return ctx.json({ registry: registryUrl, username: me.username, scopes: me.scopes ?? null, source });
        ctx.io.stdout(`${me.username} @ ${registryUrl} (${source === "env" ? "RYE_TOKEN" : `signed in with ${source}`})`);
        return EXIT.OK;
      }),
    );
}
