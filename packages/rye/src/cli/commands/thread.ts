/**
 * `rye thread list | status | tail | cancel | kill`: inspect and control the agent threads of a project
 * (`.ai/threads/`, see docs/agent-runtime.md). `rye thread run` is registered by the runtime through the `extra`
 * parameter of `registerThreadCommands`.
 */
import { resolve } from "node:path";
import type { Command } from "commander";
import { RyeError } from "@rye/core";
import type { LedgerEntry } from "../../threads/ledger.ts";
import type { ChainNode } from "../../threads/orchestrate.ts";
import type { ThreadRecord } from "../../threads/record.ts";
import type { TranscriptEvent } from "../../threads/transcript.ts";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";
import { parseInteger } from "./common.ts";

/** Adds a subcommand to `rye thread` (the runtime adds `run` this way). */
export type ThreadSubcommand = (thread: Command, ctx: CliContext) => void;

/** How many finished threads `rye thread list` shows without --all (running ones are always shown). */
export const LIST_RECENT = 20;
/** Default grace period of `rye thread kill` between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 3_000;

interface ProjectOpts {
  project?: string;
  json?: boolean;
}

/** The thread modules, loaded when a thread command runs (every other command starts without them). */
async function threadModules() {
  const [cancel, approvals, budget, paths, control, orchestrate, record, transcript] = await Promise.all([
    import("../../threads/cancel.ts"),
    import("../../threads/approvals.ts"),
    import("../../threads/budget.ts"),
    import("../../threads/paths.ts"),
    import("../../threads/control.ts"),
    import("../../threads/orchestrate.ts"),
    import("../../threads/record.ts"),
    import("../../threads/transcript.ts"),
  ]);
  return { ...cancel, ...approvals, ...budget, ...paths, ...control, ...orchestrate, ...record, ...transcript };
}
type ThreadModules = Awaited<ReturnType<typeof threadModules>>;

function projectOf(ctx: CliContext, opts: ProjectOpts): string {
  return resolve(ctx.cwd, opts.project ?? ".");
}

function statusLabel(t: ThreadModules, record: ThreadRecord): string {
  return t.isOrphaned(record) ? `${record.status} (orphaned)` : record.status;
}

/** Seconds the thread ran (finished) or has been running. */
function durationSeconds(t: ThreadModules, record: ThreadRecord, now = Date.now()): number {
  const started = Date.parse(record.created_at);
  if (!t.isTerminal(record.status)) return Math.max(0, (now - started) / 1000);
  if (record.cost.elapsed_seconds > 0) return record.cost.elapsed_seconds;
  return Math.max(0, (Date.parse(record.ended_at ?? record.updated_at) - started) / 1000);
}

export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

function formatTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 19).replace("T", " ")}Z`;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ").trimEnd());
}

export function registerThreadCommands(program: Command, ctx: CliContext, extra: ThreadSubcommand[] = []): Command {
  const thread = program.command("thread").description("run, inspect and control agent threads (.ai/threads/ of the project)");
  for (const add of extra) add(thread, ctx);

  thread
    .command("list")
    .description(`list threads, newest first: the running ones and the ${LIST_RECENT} most recent others`)
    .option("--all", "list every thread")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (opts: ProjectOpts & { all?: boolean }) =>
      ctx.run(opts.json, async () => {
        const m = await threadModules();
        const project = projectOf(ctx, opts);
        const { threads, damaged } = await m.listThreads(project);
        let shown = threads;
        if (!opts.all) {
          let others = 0;
          shown = threads.filter((t) => !m.isTerminal(t.status) || ++others <= LIST_RECENT);
        }
        const omitted = threads.length - shown.length;
        if (opts.json) {
          return ctx.json({ threads: shown.map((t) => ({ ...t, orphaned: m.isOrphaned(t) })), omitted, damaged });
        }
        for (const d of damaged) ctx.io.stderr(`warning: thread ${d.thread_id} is unreadable: error[${d.error.code}]: ${d.error.message}`);
        if (threads.length === 0) {
          ctx.io.stdout(`No threads in ${project}/.ai/threads.`);
          return;
        }
        const rows = [["ID", "DIRECTIVE", "STATUS", "MODEL", "TURNS", "TOKENS", "SPEND", "STARTED", "DURATION"]];
        for (const t of shown) {
          rows.push([
            t.thread_id,
            t.directive,
            statusLabel(m, t),
            t.model ?? "-",
            String(t.cost.turns),
            String(t.cost.input_tokens + t.cost.output_tokens),
            `$${t.cost.spend.toFixed(4)}`,
            formatTime(t.created_at),
            formatDuration(durationSeconds(m, t)),
          ]);
        }
        for (const line of table(rows)) ctx.io.stdout(line);
        if (omitted > 0) ctx.io.stdout(`(${omitted} older thread${omitted === 1 ? "" : "s"} not shown: rye thread list --all)`);
      }),
    );

  thread
    .command("status <id>")
    .description("show a thread: its record, budget ledger entry and transcript size")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (id: string, opts: ProjectOpts) =>
      ctx.run(opts.json, async () => {
        const m = await threadModules();
        const project = projectOf(ctx, opts);
        const record = await m.readThread(project, id);
        const orphaned = m.isOrphaned(record);
        const cancel = await m.readCancelRequest(project, id);
        let ledger: LedgerEntry | null = null;
        let ledgerError: { code: string; message: string } | undefined;
        try {
          ledger = (await m.getEntry(project, id, { timeoutMs: 3_000 })) ?? null;
        } catch (err) {
          const e = err instanceof RyeError ? err : new RyeError("INTERNAL", String(err));
          ledgerError = { code: e.code, message: e.message };
        }
        let events: number | null = null;
        let transcriptError: { code: string; message: string } | undefined;
        try {
          events = (await m.readTranscript(project, id)).length;
        } catch (err) {
          const e = err instanceof RyeError ? err : new RyeError("INTERNAL", String(err));
          transcriptError = { code: e.code, message: e.message };
        }
        const transcriptPath = m.threadFile(project, id, "transcript");
        if (opts.json) {
          return ctx.json({
            thread: record,
            orphaned,
            cancel_requested: cancel ?? null,
            ledger,
            ...(ledgerError ? { ledger_error: ledgerError } : {}),
            transcript: { path: transcriptPath, events, ...(transcriptError ? { error: transcriptError } : {}) },
          });
        }
        const lines: [string, string][] = [
          ["thread", record.thread_id],
          ["directive", record.directive],
          ["status", orphaned ? `${record.status} — orphaned: its process ${record.pid} is gone (rye thread kill ${id} marks it killed)` : record.status],
          ["model", [record.model, record.provider ? `(${record.provider})` : undefined].filter(Boolean).join(" ") || "-"],
          ["pid", record.pid === undefined ? "-" : String(record.pid)],
          ["parent", record.parent_thread_id ?? "-"],
          ["depth", String(record.depth)],
          ["started", formatTime(record.created_at)],
          ["updated", formatTime(record.updated_at)],
        ];
        if (record.ended_at) lines.push(["ended", formatTime(record.ended_at)]);
        lines.push(["duration", formatDuration(durationSeconds(m, record))]);
        lines.push(["cost", m.formatCost(record.cost)]);
        lines.push(["limits", Object.entries(record.limits).map(([k, v]) => `${k}=${v}`).join(" ") || "-"]);
        lines.push(["capabilities", record.capabilities.join(" ") || "(none)"]);
        if (cancel) lines.push(["cancel", `requested${cancel.requested_at ? ` at ${formatTime(cancel.requested_at)}` : ""}`]);
        if (ledger) {
          lines.push([
            "budget",
            `reserved $${ledger.reserved_spend.toFixed(6)}, spent $${ledger.actual_spend.toFixed(6)}, ${ledger.spawned} children started, ${ledger.status}`,
          ]);
        } else lines.push(["budget", ledgerError ? `unreadable: error[${ledgerError.code}]: ${ledgerError.message}` : "no ledger entry"]);
        lines.push(["transcript", transcriptError ? `damaged: ${transcriptError.message}` : `${events} events (${transcriptPath})`]);
        if (record.error) lines.push(["error", `${record.error.code}: ${record.error.message}`]);
        if (record.escalation) lines.push(["escalation", `${record.escalation.limit_code}: ${record.escalation.current_value} of ${record.escalation.current_max}`]);
        const width = Math.max(...lines.map(([k]) => k.length));
        for (const [k, v] of lines) ctx.io.stdout(`${k.padEnd(width)}  ${v}`);
        if (record.result !== undefined) ctx.io.stdout(`\nresult:\n${record.result}`);
      }),
    );

  thread
    .command("tail <id>")
    .description("print a thread's transcript (markdown, or JSON lines with --json)")
    .option("-f, --follow", "keep printing events as they come, until the thread ends")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print one JSON event per line")
    .action(async (id: string, opts: ProjectOpts & { follow?: boolean }) =>
      ctx.run(opts.json, async () => {
        const m = await threadModules();
        const project = projectOf(ctx, opts);
        await m.readThread(project, id);
        const print = (event: TranscriptEvent) => {
          if (opts.json) ctx.io.stdout(JSON.stringify(event));
          else {
            const md = m.renderEvent(event);
            if (md !== "") ctx.io.stdout(`${md}\n`);
          }
        };
        if (!opts.follow) {
          for (const event of await m.readTranscript(project, id)) print(event);
          return;
        }
        const controller = new AbortController();
        const stop = () => controller.abort();
        process.once("SIGINT", stop);
        try {
          for await (const event of m.followTranscript(project, id, { signal: controller.signal })) print(event);
        } finally {
          process.removeListener("SIGINT", stop);
        }
      }),
    );

  for (const decision of ["approve", "deny"] as const) {
    thread
      .command(`${decision} <id>`)
      .description(`${decision} a tool call thread <id> is waiting on (the security gate asked for a person; signed with your key)`)
      .option("--request <request_id>", "which request, when the thread has several (see rye thread approvals <id>)")
      .option("--reason <text>", "why (recorded in the transcript)")
      .option("-p, --project <dir>", "project directory (default: current directory)")
      .option("--json", "print JSON")
      .action(async (id: string, opts: ProjectOpts & { request?: string; reason?: string }) =>
        ctx.run(opts.json, async () => {
        const m = await threadModules();
          const project = projectOf(ctx, opts);
          await m.readThread(project, id);
          const decided = await m.decideApproval(project, id, decision, { env: ctx.env, ...(opts.request ? { requestId: opts.request } : {}), ...(opts.reason ? { reason: opts.reason } : {}) });
          if (opts.json) return ctx.json({ thread_id: id, request_id: decided.request_id, decision: decided.decision, decided_at: decided.decided_at });
          ctx.io.stdout(`${decision === "approve" ? "Approved" : "Denied"} ${decided.request_id} of thread ${id}.`);
        }),
      );
  }

  thread
    .command("approvals <id>")
    .description("the tool calls thread <id> is waiting on a person for")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (id: string, opts: ProjectOpts) =>
      ctx.run(opts.json, async () => {
        const m = await threadModules();
        const project = projectOf(ctx, opts);
        await m.readThread(project, id);
        const pending = await m.pendingApprovals(project, id);
        if (opts.json) return ctx.json({ thread_id: id, pending });
        if (pending.length === 0) return ctx.io.stdout(`Thread ${id} is waiting on no approval.`);
        for (const p of pending) {
          ctx.io.stdout(`${p.request_id}  ${p.tool} (${p.effective_tier}) until ${p.expires_at}`);
          ctx.io.stdout(`  ${p.reason}`);
          ctx.io.stdout(`  parameters: ${p.parameters}`);
        }
        ctx.io.stdout(`Decide with: rye thread approve ${id} [--request <id>]  or  rye thread deny ${id}`);
      }),
    );

  thread
    .command("handoff <id>")
    .description("ask a running thread to hand over to a continuation thread (summary + trailing turns) after its current turn")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (id: string, opts: ProjectOpts) =>
      ctx.run(opts.json, async () => {
        const m = await threadModules();
        const project = projectOf(ctx, opts);
        const record = await m.readThread(project, id);
        if (m.isTerminal(record.status)) {
          throw new RyeError("CONFLICT", `Thread ${id} already ended (${record.status}): nothing to hand over`, { hint: `Continue it with: rye thread resume ${id} --message "…"` });
        }
        const request = await m.requestHandoff(project, id, { reason: "rye thread handoff" });
        if (opts.json) return ctx.json({ thread_id: id, status: "handoff_requested", requested_at: request.requested_at });
        ctx.io.stdout(`Handoff requested for ${id}: after its current turn it hands over to a continuation thread (see rye thread chain ${id}).`);
      }),
    );

  thread
    .command("cancel <id>")
    .description("ask a running thread to stop at its next check (cooperative; `rye thread kill` stops it at once)")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (id: string, opts: ProjectOpts) =>
      ctx.run(opts.json, async () => {
        const m = await threadModules();
        const project = projectOf(ctx, opts);
        const record = await m.readThread(project, id);
        if (m.isTerminal(record.status)) {
          throw new RyeError("CONFLICT", `Thread ${id} already ended (${record.status}): nothing to cancel`, {
            hint: `See how it ended: rye thread status ${id}`,
            details: { thread_id: id, status: record.status },
          });
        }
        const request = await m.requestCancel(project, id);
        const orphaned = m.isOrphaned(record);
        if (opts.json) return ctx.json({ thread_id: id, status: "cancel_requested", requested_at: request.requested_at, orphaned });
        ctx.io.stdout(`Cancellation requested for ${id}: the thread stops before its next model or tool call and ends as cancelled.`);
        if (orphaned) ctx.io.stderr(`warning: its process ${record.pid} is gone, so nothing will act on the request: rye thread kill ${id} marks it killed.`);
        else ctx.io.stdout(`To stop it at once: rye thread kill ${id}`);
      }),
    );

  thread
    .command("kill <id>")
    .description("stop a thread now: end its process tree, mark it killed, release its budget reservation")
    .option("--grace-ms <ms>", `time between SIGTERM and SIGKILL (default ${KILL_GRACE_MS})`)
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (id: string, opts: ProjectOpts & { graceMs?: string }) =>
      ctx.run(opts.json, async () => {
        const m = await threadModules();
        const project = projectOf(ctx, opts);
        const graceMs = parseInteger("grace-ms", opts.graceMs, 0, 600_000) ?? KILL_GRACE_MS;
        const before = await m.readThread(project, id);
        await m.cancelDescendants(project, id, `parent ${id} was killed`);
        const { record: final, endedByItself: endedItself, process: killed, ledger } = await m.killThread(project, id, { graceMs, by: "rye thread kill" });
        const record = before;
        const survived = killed !== null && !killed.exited;
        if (opts.json) {
          ctx.json({
            thread_id: id,
            status: final.status,
            ended_by_itself: endedItself,
            ended_at: final.ended_at ?? final.updated_at,
            process: record.pid === undefined ? null : { pid: record.pid, was_alive: killed?.wasAlive ?? false, forced: killed?.forced ?? false, exited: killed?.exited ?? true },
            ledger,
          });
        } else {
          const how = killed === null || !killed.wasAlive
            ? record.pid === undefined ? "it had no process" : `its process ${record.pid} was already gone`
            : `process group ${record.pid} ${killed.forced ? `ignored SIGTERM for ${graceMs} ms and got SIGKILL` : "ended on SIGTERM"}`;
          ctx.io.stdout(endedItself ? `Thread ${id} ended by itself as ${final.status} while being killed (${how}).` : `Killed thread ${id} at ${formatTime(final.ended_at ?? final.updated_at)}: ${how}.`);
          if (ledger) {
            ctx.io.stdout(`Budget released: spent $${ledger.actual_spend.toFixed(6)} of $${ledger.reserved_spend.toFixed(6)} reserved${ledger.parent_thread_id ? `, added to parent ${ledger.parent_thread_id}` : ""}.`);
          }
          if (survived) ctx.io.stderr(`warning: processes of group ${record.pid} are still there after SIGKILL (stuck in the kernel?)`);
        }
        return survived ? EXIT.FAILURE : EXIT.OK;
      }),
    );

  thread
    .command("wait <ids...>")
    .description("wait until the threads end (file-system events, no polling); crashed ones are marked orphaned")
    .option("--timeout <seconds>", "give up after this long (default 300, at most 3600)")
    .option("--any", "return when the first one ends")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (ids: string[], opts: ProjectOpts & { timeout?: string; any?: boolean }) =>
      ctx.run(opts.json, async () => {
        const m = await threadModules();
        const result = await m.waitThreads(projectOf(ctx, opts), ids, { timeoutSeconds: parseInteger("timeout", opts.timeout, 0, 3600) ?? 300, any: opts.any === true });
        if (opts.json) ctx.json(result);
        else {
          for (const t of result.threads) ctx.io.stdout(`${t.thread_id}  ${t.status}${t.error ? ` (${t.error.code})` : ""}`);
          if (result.timed_out) ctx.io.stderr(`Timed out after ${Math.round(result.waited_ms / 1000)} s; wait again with: rye thread wait ${ids.join(" ")}`);
        }
        return result.timed_out ? EXIT.FAILURE : EXIT.OK;
      }),
    );

  thread
    .command("chain <id>")
    .description("the tree of threads the thread belongs to, from its root")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (id: string, opts: ProjectOpts) =>
      ctx.run(opts.json, async () => {
        const m = await threadModules();
        const chain = await m.getChain(projectOf(ctx, opts), id);
        if (opts.json) return ctx.json(chain);
        const print = (node: ChainNode) => {
          ctx.io.stdout(`${"  ".repeat(node.depth_in_tree)}${node.thread_id}  ${node.directive}  ${node.status}`);
          for (const child of node.children) print(child);
        };
        print(chain);
      }),
    );

  thread
    .command("search <id> <pattern>")
    .description("a regular expression over every transcript of the thread's tree")
    .option("-i, --ignore-case", "case-insensitive")
    .option("--limit <n>", "matches to show (default 50, at most 500)")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (id: string, pattern: string, opts: ProjectOpts & { ignoreCase?: boolean; limit?: string }) =>
      ctx.run(opts.json, async () => {
        const m = await threadModules();
        const found = await m.chainSearch(projectOf(ctx, opts), id, pattern, { ignoreCase: opts.ignoreCase === true, limit: parseInteger("limit", opts.limit, 1, 500) ?? 50 });
        if (opts.json) return ctx.json(found);
        for (const m of found.matches) ctx.io.stdout(`${m.thread_id} #${m.event_index} ${m.event_type}: ${m.excerpt}`);
        ctx.io.stderr(`${found.matches.length} match${found.matches.length === 1 ? "" : "es"} in ${found.searched_threads} thread${found.searched_threads === 1 ? "" : "s"}${found.truncated ? " (limit reached)" : ""}`);
        return found.matches.length > 0 ? EXIT.OK : EXIT.FAILURE;
      }),
    );

  return thread;
}
