import { resolve } from "node:path";
import type { Command } from "commander";
import type { BundleInspection, BundleVerifyReport, ListedBundle } from "../../bundles/bundles.ts";
import type { BundleTransferContext, TransferProgress } from "../../registry/bundle-transfer.ts";
import { userSpaceBase } from "../../spaces/paths.ts";
import { resolveSpaces } from "../../spaces/spaces.ts";
import type { CliContext } from "../context.ts";
import { parseTo, parseVisibility, ttyPrompt } from "./common.ts";
import { EXIT } from "../output.ts";
import type { ProgressStream } from "../progress.ts";
import { ProgressReporter, progressMode } from "../progress.ts";

export interface BundleCliOptions {
  /** Where the progress bar is drawn; default process.stderr (a bar only when it is a terminal). */
  progressStream?: ProgressStream;
  /** Asks a yes/no question (key registration on push); default: a prompt on an interactive terminal, else "no". */
  prompt?: (question: string) => Promise<boolean>;
}

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

type RegistrySigner = { url: string; fingerprint: string; publisher: string } | undefined;

function verifyJson(space: string, r: BundleVerifyReport, registry: RegistrySigner) {
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
    ...(registry ? { registry } : {}),
  };
}

function printVerify(ctx: CliContext, r: BundleVerifyReport, registry: RegistrySigner): void {
  if (r.ok) ctx.io.stdout(`OK ${r.message}${registry && r.manifestSignature.fingerprint === registry.fingerprint ? ` (the pinned key of ${registry.url}, published by ${registry.publisher})` : ""}`);
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

const PHASE_VERBS: Record<TransferProgress["phase"], string> = { read: "pushing", upload: "pushing", download: "pulling", verify: "verifying", write: "writing" };

/** A progress reporter for one transfer: a bar on a terminal, one summary line otherwise, nothing with --json. */
function transferProgress(ctx: CliContext, options: BundleCliOptions, json: boolean | undefined) {
  const stream = options.progressStream ?? process.stderr;
  const reporter = new ProgressReporter({ mode: progressMode({ json, isTTY: stream.isTTY }), stream, plain: (line) => ctx.io.stderr(line) });
  const listener = (p: TransferProgress) =>
    reporter.update({
      label: `${PHASE_VERBS[p.phase]} ${p.bundleId}${p.version ? ` ${p.version}` : ""}`,
      filesDone: p.filesDone,
      filesTotal: p.filesTotal,
      bytesDone: p.bytesDone,
      bytesTotal: p.bytesTotal,
    });
  return { reporter, listener };
}

export function registerBundle(program: Command, ctx: CliContext, options: BundleCliOptions = {}): void {
  const bundle = program.command("bundle").description("create, verify, inspect and list signed bundle manifests; push them to and pull them from a registry");

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
        const result = await (await import("../../bundles/bundles.ts")).createBundle({
          root,
          bundleId,
          version: opts.version,
          description: opts.description,
          entrypoint: opts.entrypoint,
          package: opts.package,
          key: async () => {
            const loaded = await new (await import("../../keys/keystore.ts")).KeyStore({ env: ctx.env }).loadOrCreate();
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
        const { keys, registry } = await (await import("../../registry/bundle-transfer.ts")).bundleVerificationKeys(root, bundleId, ctx.env);
        const report = await (await import("../../bundles/bundles.ts")).verifyBundleAt({ root, bundleId, keys });
        if (opts.json) ctx.json(verifyJson(space, report, registry));
        else printVerify(ctx, report, registry);
        return report.ok ? EXIT.OK : EXIT.FAILURE;
      }),
    );

  bundle
    .command("push <bundle_id>")
    .description("verify a bundle created with `rye bundle create` and upload it to the registry serving its namespace")
    .option("--user", "push a bundle of the user space")
    .option("--visibility <visibility>", "public | unlisted | private (when the bundle is created on the registry)")
    .option("--registry <url>", "registry URL (default: the one serving the bundle's namespace)")
    .option("-y, --yes", "register your public key with the registry without asking")
    .option("--json", "print JSON")
    .action(async (bundleId: string, opts: SpaceOpts & { visibility?: string; registry?: string; yes?: boolean }) => {
      const { reporter, listener } = transferProgress(ctx, options, opts.json);
      return ctx.run(opts.json, async () => {
        const visibility = parseVisibility(opts.visibility);
        const prompt = options.prompt ?? ttyPrompt;
        const context: BundleTransferContext = {
          projectPath: resolve(ctx.cwd),
          env: ctx.env,
          info: (text) => ctx.io.stderr(text),
          onProgress: listener,
          confirm: async (question) => {
            if (opts.yes) {
              ctx.io.stderr(`${question} yes (--yes)`);
              return true;
            }
            return opts.json && !options.prompt ? false : prompt(question);
          },
        };
        let result;
        try {
          result = await (await import("../../registry/bundle-transfer.ts")).pushBundle({ bundleId, ...(opts.user ? { fromUser: true } : {}), ...(visibility ? { visibility } : {}), ...(opts.registry ? { registryUrl: opts.registry } : {}) }, context);
        } catch (err) {
          reporter.fail();
          throw err;
        }
        reporter.finish(`pushed ${result.bundle_id} ${result.version}`);
        if (opts.json) return ctx.json(result);
        if (result.key_registration === "registered") ctx.io.stderr(`Registered your public key ${result.author_fingerprint} with ${result.registry}.`);
        ctx.io.stdout(
          `Pushed bundle ${result.bundle_id}@${result.version} to ${result.registry}: ${result.file_count} files, ${formatBytes(result.total_bytes)}; the registry signed the manifest with ${result.registry_fingerprint}.`,
        );
      });
    });

  bundle
    .command("pull <bundle_ref>")
    .description("download a bundle (<bundle_id>[@version]), verify the registry signature, attestation and every file, then write it atomically")
    .option("--to <space>", "project | user (default project)")
    .option("--registry <url>", "registry URL (default: the one serving the bundle's namespace)")
    .option("--force", "replace local files whose content differs")
    .option("--json", "print JSON")
    .action(async (ref: string, opts: { to?: string; registry?: string; force?: boolean; json?: boolean }) => {
      const { reporter, listener } = transferProgress(ctx, options, opts.json);
      return ctx.run(opts.json, async () => {
        const to = parseTo(opts.to);
        const { bundleId, version } = (await import("../../registry/bundle-transfer.ts")).splitBundleRef(ref);
        const context: BundleTransferContext = { projectPath: resolve(ctx.cwd), env: ctx.env, info: (text) => ctx.io.stderr(text), onProgress: listener };
        let result;
        try {
          result = await (await import("../../registry/bundle-transfer.ts")).pullBundle({ bundleId, version, ...(to ? { to } : {}), ...(opts.force ? { force: true } : {}), ...(opts.registry ? { registryUrl: opts.registry } : {}) }, context);
        } catch (err) {
          reporter.fail();
          throw err;
        }
        reporter.finish(`pulled ${result.bundle_id} ${result.version}`, {
          label: `pulled ${result.bundle_id} ${result.version}`,
          filesDone: result.file_count,
          filesTotal: result.file_count,
          bytesDone: result.total_bytes,
          bytesTotal: result.total_bytes,
        });
        if (opts.json) return ctx.json(result);
        const what = `bundle ${result.bundle_id}@${result.version} (published by ${result.publisher}, verified with ${result.registry_fingerprint})`;
        if (result.status === "unchanged") ctx.io.stdout(`Already up to date: ${what} in ${result.root}.`);
        else ctx.io.stdout(`Pulled ${what} into ${result.root}: ${result.files_written.length} written, ${result.files_unchanged.length} unchanged of ${result.file_count} files.`);
        if (result.yanked) ctx.io.stderr(`warning: ${result.bundle_id}@${result.version} is yanked.`);
      });
    });

  bundle
    .command("inspect <bundle_id>")
    .description("show a bundle's manifest, file counts per item type and sizes (does not verify)")
    .option("--user", "inspect a bundle of the user space")
    .option("--json", "print JSON")
    .action(async (bundleId: string, opts: SpaceOpts) =>
      ctx.run(opts.json, async () => {
        const { space, root } = rootOf(ctx, opts);
        const inspection = await (await import("../../bundles/bundles.ts")).inspectBundle({ root, bundleId });
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
        const bundles = await (await import("../../bundles/bundles.ts")).listBundles(await resolveSpaces({ projectPath: ctx.cwd, env: ctx.env }));
        if (opts.json) ctx.json({ bundles });
        else printList(ctx, bundles);
      }),
    );
}
