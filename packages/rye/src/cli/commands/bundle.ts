import { resolve } from "node:path";
import type { Command } from "commander";
import { createBundle, inspectBundle, listBundles, verifyBundleAt } from "../../bundles/bundles.ts";
import type { BundleInspection, BundleVerifyReport, ListedBundle } from "../../bundles/bundles.ts";
import { KeyStore } from "../../keys/keystore.ts";
import { userSpaceBase } from "../../spaces/paths.ts";
import { resolveSpaces } from "../../spaces/spaces.ts";
import { TrustStore } from "../../trust/store.ts";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";

interface SpaceOpts {
  user?: boolean;
  json?: boolean;
}

interface CreateOpts extends SpaceOpts {
  version?: string;
  description?: string;
  entrypoint?: string;
  package?: boolean;
}

/** The directory holding `.ai`: the project (current directory) or, with --user, the user-space base. */
function rootOf(ctx: CliContext, opts: SpaceOpts): { space: "project" | "user"; root: string } {
  return opts.user ? { space: "user", root: userSpaceBase(ctx.env) } : { space: "project", root: resolve(ctx.cwd) };
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function verifyJson(space: string, r: BundleVerifyReport) {
  return {
    ok: r.ok,
    code: r.code,
    message: r.message,
    bundleId: r.bundleId,
    space,
    manifestPath: r.manifestPath,
    manifestSignature: { ok: r.manifestSignature.ok, code: r.manifestSignature.code, fingerprint: r.manifestSignature.fingerprint ?? null },
    files_ok: r.files_ok,
    files_missing: r.files_missing,
    files_tampered: r.files_tampered,
    files_unlisted: r.files_unlisted,
    warnings: r.warnings,
  };
}

function printVerify(ctx: CliContext, r: BundleVerifyReport): void {
  if (r.ok) ctx.io.stdout(`OK ${r.message}`);
  else {
    ctx.io.stderr(`${r.code} ${r.message}`);
    for (const path of r.files_missing) ctx.io.stderr(`  missing:  ${path}`);
    for (const { path, reason } of r.files_tampered) ctx.io.stderr(`  tampered: ${path} (${reason})`);
  }
  for (const path of r.files_unlisted) ctx.io.stderr(`warning: ${path} is in the bundle's folders but not in its manifest (not covered by the signature)`);
  for (const w of r.warnings) ctx.io.stderr(`warning: ${w}`);
}

function printInspection(ctx: CliContext, space: string, i: BundleInspection): void {
  const { bundle, counts } = i;
  const lines = [
    `Bundle ${bundle.id} ${bundle.version}${bundle.type ? ` (${bundle.type})` : ""} in the ${space} space`,
    `  manifest:    ${i.manifestPath}`,
    `  description: ${bundle.description || "-"}`,
    `  entrypoint:  ${bundle.entrypoint || "-"}`,
    `  created:     ${bundle.created_at}`,
    `  signature:   ${i.signature.status === "signed" ? `key ${i.signature.fingerprint} at ${i.signature.timestamp} (not verified; run \`rye bundle verify\`)` : i.signature.status}`,
    `  files:       ${counts.total} (${counts.directive} directives, ${counts.tool} tools, ${counts.knowledge} knowledge, ${counts.other} other), ${formatBytes(i.totalBytes)} on disk${i.filesAbsent ? `, ${i.filesAbsent} absent` : ""}`,
    ...i.files.map((f) => `    ${f.path}  ${f.size === null ? "absent" : formatBytes(f.size)}${f.inline_signed ? "  inline-signed" : ""}`),
  ];
  ctx.io.stdout(lines.join("\n"));
}

function printList(ctx: CliContext, bundles: ListedBundle[]): void {
  if (bundles.length === 0) {
    ctx.io.stdout("No bundles found. Create one with `rye bundle create <bundle_id>`.");
    return;
  }
  for (const b of bundles) {
    if (b.error) ctx.io.stdout(`${b.space.padEnd(8)} ${b.bundleId}  (unreadable: ${b.error})`);
    else ctx.io.stdout(`${b.space.padEnd(8)} ${b.bundleId} ${b.version}${b.type ? ` (${b.type})` : ""}  ${b.fileCount} files${b.description ? `  ${b.description}` : ""}`);
  }
}

export function registerBundle(program: Command, ctx: CliContext): void {
  const bundle = program.command("bundle").description("create, verify, inspect and list signed bundle manifests");

  bundle
    .command("create <bundle_id>")
    .description("sign a manifest of every file under .ai/{directives,tools,knowledge}/<bundle_id>/ (creates your key on first use)")
    .option("--version <version>", "bundle version, a semantic version (default: 0.1.0)")
    .option("--description <text>", "bundle description")
    .option("--entrypoint <directive_id>", "the directive to start with")
    .option("--package", "mark the manifest as a package bundle (type: package)")
    .option("--user", "bundle the user space ($USER_SPACE/.ai) instead of the project")
    .option("--json", "print JSON")
    .action(async (bundleId: string, opts: CreateOpts) =>
      ctx.run(opts.json, async () => {
        const { space, root } = rootOf(ctx, opts);
        let keyCreated = false;
        const result = await createBundle({
          root,
          bundleId,
          version: opts.version,
          description: opts.description,
          entrypoint: opts.entrypoint,
          package: opts.package,
          key: async () => {
            const loaded = await new KeyStore({ env: ctx.env }).loadOrCreate();
            keyCreated = loaded.created;
            return loaded.key;
          },
        });
        const { manifest, manifestPath, fileCount, totalBytes, skipped, fingerprint } = result;
        if (opts.json) return ctx.json({ status: "created", space, bundleId, manifestPath, fileCount, totalBytes, fingerprint, keyCreated, skipped, manifest });
        if (keyCreated) ctx.io.stderr(`Created your signing key ${fingerprint} (trusted automatically).`);
        ctx.io.stdout(
          `Created bundle ${bundleId} ${manifest.bundle.version}${manifest.bundle.type ? ` (${manifest.bundle.type})` : ""}: ${fileCount} files, ${formatBytes(totalBytes)}, signed with key ${fingerprint}\n  manifest: ${manifestPath}`,
        );
        for (const s of skipped) ctx.io.stderr(`warning: skipped ${s.path}: ${s.reason}`);
      }),
    );

  bundle
    .command("verify <bundle_id>")
    .description("check the manifest signature and every listed file against your trusted keys (exit 0 only when all pass)")
    .option("--user", "verify a bundle of the user space")
    .option("--json", "print JSON")
    .action(async (bundleId: string, opts: SpaceOpts) =>
      ctx.run(opts.json, async () => {
        const { space, root } = rootOf(ctx, opts);
        const report = await verifyBundleAt({ root, bundleId, keys: new TrustStore({ env: ctx.env }) });
        if (opts.json) ctx.json(verifyJson(space, report));
        else printVerify(ctx, report);
        return report.ok ? EXIT.OK : EXIT.FAILURE;
      }),
    );

  bundle
    .command("inspect <bundle_id>")
    .description("show a bundle's manifest, file counts per item type and sizes (does not verify)")
    .option("--user", "inspect a bundle of the user space")
    .option("--json", "print JSON")
    .action(async (bundleId: string, opts: SpaceOpts) =>
      ctx.run(opts.json, async () => {
        const { space, root } = rootOf(ctx, opts);
        const inspection = await inspectBundle({ root, bundleId });
        if (opts.json) ctx.json({ space, ...inspection });
        else printInspection(ctx, space, inspection);
      }),
    );

  bundle
    .command("list")
    .description("list the bundles of the project, user and system spaces (does not verify)")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const bundles = await listBundles(await resolveSpaces({ projectPath: ctx.cwd, env: ctx.env }));
        if (opts.json) ctx.json({ bundles });
        else printList(ctx, bundles);
      }),
    );
}
