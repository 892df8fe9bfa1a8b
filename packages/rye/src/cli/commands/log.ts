/**
 * `rye log monitor <namespace>`: follows a registry's transparency log, verifies it, and reports what was published
 * in the namespace with a key, user or credential the publisher does not recognise (docs/transparency.md, "Monitor").
 * Exit codes: 0 nothing to report, 1 findings (or a check failed: the error says which), 2 bad command line.
 */
import { resolve } from "node:path";
import type { Command } from "commander";
import { RyeError } from "@rye/core";
import type { Finding } from "../../registry/log-monitor/findings.ts";
import type { PassResult } from "../../registry/log-monitor/follow.ts";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";

const collect = (value: string, previous: string[]) => [...previous, value];

function nonNegativeInt(value: string, flag: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new RyeError("BAD_REQUEST", `${flag} must be a non-negative integer`, { hint: `Example: ${flag} 100` });
  return n;
}

const credentialText = (c: Record<string, unknown> | null) => (c ? [c.via, c.token_id ?? c.session_id].filter((v) => typeof v === "string").join(":") : "-");

function findingLines(findings: readonly Finding[]): string[] {
  const rows = findings.map((f) => [String(f.index), f.item, f.version ?? "-", f.author_key ?? "(unsigned)", credentialText(f.credential), f.publisher ?? "-", f.reasons.join(",")]);
  const header = ["INDEX", "ITEM", "VERSION", "AUTHOR KEY", "CREDENTIAL", "PUBLISHER", "REASON"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  "));
}

function summary(result: PassResult): string {
  const range = result.checked.from === result.checked.to ? "no new entries" : `entries ${result.checked.from}–${result.checked.to - 1}`;
  const dropped = result.findings_dropped ? ` (${result.findings_dropped} more not listed)` : "";
  return `${result.registry}: log of ${result.tree_size} entries verified (${range}); ${result.findings.length + result.findings_dropped} finding(s) in ${result.namespace}${dropped}.`;
}

export function registerLog(program: Command, ctx: CliContext): void {
  const log = program.command("log").description("a registry's transparency log");
  log
    .command("monitor <namespace>")
    .description("verify the registry's log and report what was published in <namespace> with a key, user or token it does not recognise (exit 1 when it reports any)")
    .option("--registry <url>", "registry URL")
    .option("--since <index>", "first log index to check (default: where the last run left off, else 0)")
    .option("--key <fingerprint>", "an allowed author key, besides those registered when the namespace was first followed (repeatable)", collect, [] as string[])
    .option("--publisher <user>", "an allowed publisher (repeatable; default: not checked)", collect, [] as string[])
    .option("--token <id>", "an allowed credential: a token's id as GET /v1/tokens and the website's token settings list it, or a session id (repeatable; default: not checked)", collect, [] as string[])
    .option("--watch", "keep following: a pass every --interval seconds until interrupted")
    .option("--interval <seconds>", "seconds between passes with --watch (1 to 86400, default 60)")
    .option("--webhook <url>", "with --watch: POST each new finding there as JSON")
    .option("--json", "print JSON (with --watch: one line per pass)")
    .action(
      async (
        namespace: string,
        opts: { registry?: string; since?: string; key: string[]; publisher: string[]; token: string[]; watch?: boolean; interval?: string; webhook?: string; json?: boolean },
      ) =>
        ctx.run(opts.json, async () => {
          const monitor = await import("../../registry/log-monitor/monitor.ts");
          const { registryFor } = await import("../../registry/publish.ts");
          if (!opts.watch && (opts.interval !== undefined || opts.webhook !== undefined)) throw new RyeError("BAD_REQUEST", "--interval and --webhook need --watch");
          const ns = monitor.checkNamespace(namespace);
          const options = {
            registryUrl: await registryFor(ns, opts.registry, { projectPath: resolve(ctx.cwd), env: ctx.env }),
            namespace: ns,
            since: opts.since === undefined ? undefined : nonNegativeInt(opts.since, "--since"),
            keys: opts.key,
            publishers: opts.publisher,
            tokens: opts.token,
            env: ctx.env,
            warn: (text: string) => ctx.io.stderr(text),
          };
          const show = (result: PassResult, oneLine: boolean) => {
            const { state: _state, ...printable } = result;
            if (opts.json) return ctx.io.stdout(oneLine ? JSON.stringify(printable) : JSON.stringify(printable, null, 2));
            if (result.findings.length) for (const line of findingLines(result.findings)) ctx.io.stdout(line);
            ctx.io.stderr(summary(result));
          };
          if (!opts.watch) {
            const result = await monitor.monitorOnce(options);
            show(result, false);
            return result.findings.length + result.findings_dropped > 0 ? EXIT.FAILURE : EXIT.OK;
          }
          const intervalS = monitor.checkInterval(opts.interval === undefined ? monitor.DEFAULT_WATCH_INTERVAL_S : Number(opts.interval));
          const webhook = opts.webhook === undefined ? undefined : monitor.checkWebhookUrl(opts.webhook);
          const stop = new AbortController();
          const onSignal = () => stop.abort();
          process.once("SIGINT", onSignal);
          process.once("SIGTERM", onSignal);
          try {
            const reported = await monitor.watchMonitor(options, {
              intervalS,
              webhook,
              signal: stop.signal,
              onPass: (result) => show(result, true),
              onWebhookFailure: (failure, finding) =>
                ctx.io.stderr(`warning: the webhook ${failure.url} failed ${failure.attempts} times (${failure.error})${finding ? `; finding at index ${finding.index} not delivered` : ""}`),
              onTransientError: (err) => ctx.io.stderr(`warning: this pass failed and will be retried: ${err instanceof Error ? err.message : String(err)}`),
            });
            return reported > 0 ? EXIT.FAILURE : EXIT.OK;
          } finally {
            process.off("SIGINT", onSignal);
            process.off("SIGTERM", onSignal);
          }
        }),
    );
}
