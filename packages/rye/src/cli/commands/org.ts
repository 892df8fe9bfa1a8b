/**
 * `rye org verify start|check|status|remove|transfer`: prove that an organization owns a DNS domain (a TXT record at
 * `_rye.<domain>`) or a GitHub organization, for the verified badge on its namespace (docs/namespace-verification.md).
 */
import { resolve } from "node:path";
import type { Command } from "commander";
import type { Verification } from "@rye/core";
import type { CliContext } from "../context.ts";

/** Loaded on use: every other command starts without the registry client. */
const orgVerify = () => import("../../registry/org-verify.ts");

function instructionLines(v: Verification, registryUrl: string | undefined): string[] {
  const i = v.instructions;
  if (!i) return [];
  if (i.record_name) {
    return [
      `Add this DNS record at your DNS provider, then run \`rye org verify check ${v.org} ${v.subject}\`:`,
      `  name:  ${i.record_name}`,
      `  type:  TXT`,
      `  value: ${i.record_value}`,
      `The challenge can be proven until ${v.challenge_expires_at}.`,
    ];
  }
  return [`Open ${registryUrl ?? ""}${i.authorize_path} in a browser where you are signed in to the registry, and sign in at GitHub as an owner of ${v.subject}.`];
}

const claimLine = (v: Verification) =>
  `${v.label.padEnd(32)} ${v.status.padEnd(9)}${v.verified_at ? ` since ${v.verified_at}` : ""}${v.last_error ? `  last check: ${v.last_error}` : ""}  (${v.id})`;

export function registerOrg(program: Command, ctx: CliContext): void {
  const context = () => ({ projectPath: resolve(ctx.cwd), env: ctx.env, info: (text: string) => ctx.io.stderr(text) });
  const org = program.command("org").description("organizations");
  const verify = org.command("verify").description("verified domains and GitHub organizations of an organization (owners and admins)");

  verify
    .command("start <org> <subject>")
    .description("claim a domain (acme.com) or a GitHub organization (github.com/acme, or --github acme); prints how to prove it")
    .option("--github", "the subject is a GitHub organization")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (name: string, subject: string, opts: { github?: boolean; registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const v = await (await orgVerify()).startVerification({ org: name, registryUrl: opts.registry }, (await orgVerify()).parseSubject(subject, opts.github === true), context());
        if (opts.json) return ctx.json(v);
        ctx.io.stdout(`${v.label} for ${v.org}: ${v.status}.`);
        for (const line of instructionLines(v, opts.registry ?? ctx.env.RYE_REGISTRY_URL)) ctx.io.stdout(line);
      }),
    );

  verify
    .command("check <org> <subject>")
    .description("look the DNS record up now: verifies a pending claim, re-verifies a verified one")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (name: string, subject: string, opts: { registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const v = await (await orgVerify()).checkVerification({ org: name, registryUrl: opts.registry }, subject, context());
        if (opts.json) return ctx.json(v);
        ctx.io.stdout(`Verified: ${v.label} belongs to ${v.org}.`);
      }),
    );

  verify
    .command("status <org>")
    .description("list the organization's claims and what each needs")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (name: string, opts: { registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const claims = await (await orgVerify()).listVerifications({ org: name, registryUrl: opts.registry }, context());
        if (opts.json) return ctx.json({ org: name.toLowerCase(), verifications: claims });
        if (claims.length === 0) ctx.io.stdout(`${name} has no verification claims (start one with \`rye org verify start ${name} <domain>\`).`);
        for (const v of claims) {
          ctx.io.stdout(claimLine(v));
          for (const line of instructionLines(v, opts.registry ?? ctx.env.RYE_REGISTRY_URL)) ctx.io.stdout(`    ${line}`);
        }
      }),
    );

  verify
    .command("remove <org> <subject>")
    .description("drop a claim (a verified name loses its badge)")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (name: string, subject: string, opts: { registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const v = await (await orgVerify()).removeVerification({ org: name, registryUrl: opts.registry }, subject, context());
        if (opts.json) return ctx.json({ removed: true, id: v.id });
        ctx.io.stdout(`Removed the claim on ${v.label} from ${v.org}.`);
      }),
    );

  verify
    .command("transfer <org> <subject>")
    .description("hand a verified name to another organization (you must own this one and administer the other)")
    .requiredOption("--to <org>", "the receiving organization")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (name: string, subject: string, opts: { to: string; registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const v = await (await orgVerify()).transferVerification({ org: name, registryUrl: opts.registry }, subject, opts.to, context());
        if (opts.json) return ctx.json(v);
        ctx.io.stdout(`${v.label} now belongs to ${v.org}.`);
      }),
    );
}
