/**
 * `rye registry add|list|remove|reset-key|keys`: configured registries and their pinned signing keys.
 * `rye registry pending|approve|reject`: versions a registry holds for approval (RYE_REGISTRY_APPROVAL).
 */
import type { Command } from "commander";
import { RyeError } from "@rye/core";
import { resolve } from "node:path";
import type { CliContext } from "../context.ts";
import { parseRegistryItemType } from "./common.ts";
import { registerChanges } from "./webhook.ts";

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerRegistry(program: Command, ctx: CliContext): void {
  const registry = program.command("registry").description("configure registries (routing by namespace) and their pinned signing keys");

  registry
    .command("add <name> <url>")
    .description("add a registry to the user configuration")
    .option("--scope <namespace>", "route items of this namespace here (repeatable)", collect, [] as string[])
    .option("--default", "make it the default registry")
    .option("--json", "print JSON")
    .action(async (name: string, url: string, opts: { scope: string[]; default?: boolean; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const entry = await (await import("../../registry/registries.ts")).addRegistry({ name, url: (await import("../../registry/registry-url.ts")).normalizeRegistryUrl(url), scopes: opts.scope }, { env: ctx.env, makeDefault: Boolean(opts.default) });
        if (opts.json) return ctx.json({ status: "added", ...entry, default: Boolean(opts.default) });
        ctx.io.stdout(`Added registry ${entry.name} (${entry.url})${entry.scopes.length ? ` for ${entry.scopes.join(", ")}` : ""}${opts.default ? ", default" : ""}.`);
      }),
    );

  registry
    .command("list")
    .description("list configured registries, the default and pinned key fingerprints")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const config = await (await import("../../registry/registries.ts")).loadRegistries({ env: ctx.env, projectPath: ctx.cwd });
        const pins = await (await import("../../registry/key-pinning.ts")).readRegistryPins(ctx.env);
        const def = (await import("../../registry/registries.ts")).routeRegistry(config, undefined, ctx.env);
        const rows = config.registries.map((r) => ({ ...r, default: r.url === def.url, pinned_key: pins[r.url]?.fingerprint ?? null }));
        const unnamed = Object.keys(pins)
          .filter((url) => !config.registries.some((r) => r.url === url))
          .map((url) => ({ url, pinned_key: pins[url]!.fingerprint }));
        if (opts.json) return ctx.json({ default: { url: def.url, source: def.source, pinned_key: pins[def.url]?.fingerprint ?? null }, registries: rows, other_pins: unnamed });
        if (rows.length === 0) ctx.io.stdout("No registries configured (add one with `rye registry add <name> <url>`).");
        for (const r of rows) {
          const flags = [r.default ? "default" : "", r.origin === "project" ? `from ${(await import("../../registry/registries.ts")).projectRegistriesPath(ctx.cwd)}` : ""].filter(Boolean);
          ctx.io.stdout(
            `${r.name}  ${r.url}  scopes: ${r.scopes.length ? r.scopes.join(", ") : "-"}  key: ${r.pinned_key ?? "not pinned"}${flags.length ? `  (${flags.join("; ")})` : ""}`,
          );
        }
        if (!rows.some((r) => r.default)) ctx.io.stdout(`default: ${def.url} (${def.source})  key: ${pins[def.url]?.fingerprint ?? "not pinned"}`);
        for (const p of unnamed.filter((p) => p.url !== def.url)) ctx.io.stdout(`pinned: ${p.url}  key: ${p.pinned_key}`);
      }),
    );

  registry
    .command("remove <name>")
    .description("remove a registry from the user configuration (its pinned key is kept)")
    .option("--json", "print JSON")
    .action(async (name: string, opts: { json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const removed = await (await import("../../registry/registries.ts")).removeRegistry(name, { env: ctx.env });
        if (!removed) {
          const effective = await (await import("../../registry/registries.ts")).loadRegistries({ env: ctx.env, projectPath: ctx.cwd });
          const fromProject = effective.registries.find((r) => r.name === name && r.origin === "project");
          throw new RyeError("NOT_FOUND", `No registry named "${name}" in your user configuration`, {
            hint: fromProject ? `It comes from ${(await import("../../registry/registries.ts")).projectRegistriesPath(ctx.cwd)}, which rye does not edit.` : "See `rye registry list`.",
          });
        }
        if (opts.json) return ctx.json({ status: "removed", ...removed });
        ctx.io.stdout(`Removed registry ${removed.name} (${removed.url}).`);
      }),
    );

  registry
    .command("reset-key <registry>")
    .description("forget the pinned signing key of a registry (name or URL); the next contact trusts its key again")
    .option("--force", "confirm: you verified the registry's new key out of band")
    .option("--json", "print JSON")
    .action(async (target: string, opts: { force?: boolean; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const { url, name } = (await import("../../registry/registries.ts")).findRegistry(await (await import("../../registry/registries.ts")).loadRegistries({ env: ctx.env, projectPath: ctx.cwd }), target);
        if (!opts.force) {
          throw new RyeError("BAD_REQUEST", `Not resetting the pinned key of ${url} without --force`, {
            hint:
              "Resetting drops the key rye pinned for this registry; the next contact trusts whatever key it presents (trust on first use). " +
              "A key change without a rotation statement can mean an impersonated registry: confirm the new fingerprint with its operators, " +
              `then run: rye registry reset-key ${name ?? url} --force`,
          });
        }
        const removed = await (await import("../../registry/key-pinning.ts")).resetRegistryPin(url, ctx.env);
        if (opts.json) return ctx.json({ status: removed ? "reset" : "not_pinned", registry: url, previous_key: removed?.fingerprint ?? null });
        ctx.io.stdout(removed ? `Forgot the pinned key ${removed.fingerprint} of ${url}; the next contact pins its current key.` : `No key was pinned for ${url}.`);
      }),
    );

  registry
    .command("keys [registry]")
    .description("fetch a registry's published keys, reconcile them with the pinned key and show them")
    .option("--json", "print JSON")
    .action(async (target: string | undefined, opts: { json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const config = await (await import("../../registry/registries.ts")).loadRegistries({ env: ctx.env, projectPath: ctx.cwd });
        const { url, name } = target ? (await import("../../registry/registries.ts")).findRegistry(config, target) : (await import("../../registry/registries.ts")).routeRegistry(config, undefined, ctx.env);
        const result = await (await import("../../registry/key-pinning.ts")).registryKeyFor(url, { env: ctx.env, name });
        for (const w of result.warnings) ctx.io.stderr(`warning: ${w}`);
        if (result.notice) ctx.io.stderr(result.notice);
        if (opts.json) {
          return ctx.json({
            registry: url,
            name: name ?? null,
            status: result.status,
            pinned: result.pin,
            rotations: result.rotations,
            keys: result.keys?.keys.map((k) => ({ fingerprint: k.fingerprint, active: k.fingerprint === result.keys?.active, valid_from: k.valid_from ?? null, valid_until: k.valid_until ?? null, revoked_at: k.revoked_at ?? null, previous_fingerprint: k.previous_fingerprint ?? null })) ?? null,
          });
        }
        ctx.io.stdout(`${name ? `${name} ` : ""}${url}: pinned key ${result.pin.fingerprint} (${result.status})`);
        if (result.pin.history.length) ctx.io.stdout(`  previously: ${result.pin.history.join(", ")}`);
        const retired = result.pin.retired_keys ?? [];
        if (retired.length) ctx.io.stdout(`  still trusted for items signed before a rotation: ${retired.map((k) => k.fingerprint).join(", ")}`);
        const revoked = result.pin.revoked ?? [];
        if (revoked.length) ctx.io.stdout(`  revoked, never trusted again: ${revoked.map((k) => `${k.fingerprint} (${k.revoked_at}${k.reason ? `, ${k.reason}` : ""})`).join(", ")}`);
        for (const k of result.keys?.keys ?? []) {
          const state = k.revoked_at ? `revoked ${k.revoked_at}` : k.fingerprint === result.keys?.active ? "active" : k.valid_until ? `retired ${k.valid_until}` : "published";
          ctx.io.stdout(`  ${k.fingerprint}  ${state}${k.previous_fingerprint ? `  (rotated from ${k.previous_fingerprint})` : ""}`);
        }
      }),
    );

  const publishContext = () => ({ projectPath: resolve(ctx.cwd), env: ctx.env, info: (text: string) => ctx.io.stderr(text) });
  registerChanges(registry, ctx);

  registry
    .command("pending [namespace]")
    .description("list versions held for approval in the namespaces you review (owner/admin of an organization; every namespace for a registry admin)")
    .option("--rejected", "list rejected versions instead")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (namespace: string | undefined, opts: { rejected?: boolean; registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const result = await (await import("../../registry/publish.ts")).listHeld({ namespace, rejected: opts.rejected, registryUrl: opts.registry }, publishContext());
        if (opts.json) return ctx.json(result);
        const what = opts.rejected ? "rejected" : "held for approval";
        if (result.versions.length === 0) {
          ctx.io.stdout(`No versions ${what}${namespace ? ` in ${namespace}` : ""} at ${result.registry} (approval: ${result.mode}${result.mode === "flagged" ? `, from ${result.risk} risk` : ""}).`);
          return;
        }
        for (const v of result.versions) {
          const review = v.review?.risk ? `review: ${v.review.risk}${Array.isArray(v.review.findings) ? ` (${v.review.findings.length} finding${v.review.findings.length === 1 ? "" : "s"})` : ""}` : "no review";
          const decided = v.decided_by ? `  ${v.status} by ${v.decided_by}${v.reason ? `: ${v.reason}` : ""}` : "";
          const may = v.status === "pending" ? (v.can_approve ? "  you may approve" : "  awaiting another reviewer") : "";
          ctx.io.stdout(`${v.item_type} ${v.item_id}@${v.version}  by ${v.publisher}  ${v.created_at}  ${v.held_reason ?? ""}  ${review}${decided}${may}`);
        }
        if (result.truncated) ctx.io.stdout("(more not shown: narrow with a namespace)");
      }),
    );

  for (const decision of ["approve", "reject"] as const) {
    registry
      .command(`${decision} <type> <item_id>`)
      .description(
        decision === "approve"
          ? "approve a held version (<item_id>@<version>): it becomes visible, and latest when it is the newest"
          : "reject a held version (<item_id>@<version>) with --reason: it stays invisible and its version number stays taken",
      )
      .option("--reason <text>", decision === "approve" ? "why (recorded in the audit log)" : "why (required; recorded in the audit log)")
      .option("--registry <url>", "registry URL")
      .option("--json", "print JSON")
      .action(async (typeArg: string, ref: string, opts: { reason?: string; registry?: string; json?: boolean }) =>
        ctx.run(opts.json, async () => {
          const type = parseRegistryItemType(typeArg);
          const { id, version } = (await import("../../registry/publish.ts")).splitVersion(ref);
          if (!version) throw new RyeError("BAD_REQUEST", `${decision} needs a version: <item_id>@<version>`, { hint: "rye registry pending lists the held versions." });
          const result = await (await import("../../registry/publish.ts")).decideHeld({ decision, type, id, version, reason: opts.reason, registryUrl: opts.registry }, publishContext());
          if (opts.json) return ctx.json(result);
          ctx.io.stdout(
            decision === "approve"
              ? `Approved ${type} ${id}@${version}: it is visible now${result.latest_version === version ? " (latest)" : ""}. (${String(result.registry)})`
              : `Rejected ${type} ${id}@${version}: it stays invisible. (${String(result.registry)})`,
          );
        }),
      );
  }
}
