/**
 * `rye webhook add|list|update|remove|deliveries|redeliver|ping`: a namespace's webhooks (owners and admins), and
 * `rye registry changes`: the registry's public changes feed (docs/webhooks.md).
 */
import { resolve } from "node:path";
import type { Command } from "commander";
import { RyeError } from "@rye/core";
import type { Webhook, WebhookDelivery } from "../../registry/webhooks.ts";
import type { CliContext } from "../context.ts";

/** Loaded on use: every other command starts without the registry client. */
const webhooks = () => import("../../registry/webhooks.ts");

const EVENTS = ["publish", "yank", "unyank", "deprecate", "undeprecate", "delete", "visibility", "transfer"];
const collect = (value: string, previous: string[]) => [...previous, value];

function checkEvents(events: string[]): string[] {
  const unknown = events.filter((e) => !EVENTS.includes(e));
  if (unknown.length) throw new RyeError("BAD_REQUEST", `Unknown event ${unknown.join(", ")}`, { hint: `Events: ${EVENTS.join(", ")}.` });
  return events;
}

function positiveInt(value: string, what: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new RyeError("BAD_REQUEST", `${what} must be a non-negative integer`, { hint: `Example: --${what} 100` });
  return n;
}

const hookLine = (h: Webhook) => `${h.id}  ${h.active ? "active  " : "disabled"}  ${h.url}  events: ${h.events.join(",")}${h.include_private ? "  +private" : ""}`;
const deliveryLine = (d: WebhookDelivery) =>
  `${d.id}  ${d.event.padEnd(11)} ${d.status.padEnd(9)} attempts ${d.attempts}  ${d.last_status_code ?? "-"}  ${d.created_at}${d.last_error ? `  ${d.last_error}` : ""}${d.redelivery_of ? `  (redelivery of ${d.redelivery_of})` : ""}`;

export function registerWebhook(program: Command, ctx: CliContext): void {
  const publishContext = () => ({ projectPath: resolve(ctx.cwd), env: ctx.env, info: (text: string) => ctx.io.stderr(text) });
  const webhook = program.command("webhook").description("a namespace's webhooks: signed POSTs of its item events (owners and admins)");

  webhook
    .command("add <namespace> <url>")
    .description("create a webhook; prints its signing secret once")
    .option("--event <event>", `an event to deliver (repeatable; default all: ${EVENTS.join(", ")})`, collect, [] as string[])
    .option("--include-private", "also deliver the events of the namespace's private items")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (namespace: string, url: string, opts: { event: string[]; includePrivate?: boolean; registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const hook = await (await webhooks()).addWebhook({ namespace, url, events: checkEvents(opts.event), includePrivate: opts.includePrivate, registryUrl: opts.registry }, publishContext());
        if (opts.json) return ctx.json(hook);
        ctx.io.stdout(`Created webhook ${hook.id} for ${hook.namespace} → ${hook.url} (events: ${hook.events.join(", ")}).`);
        ctx.io.stdout(`Signing secret (shown only now; store it with the receiver): ${hook.secret}`);
      }),
    );

  webhook
    .command("list <namespace>")
    .description("list a namespace's webhooks")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (namespace: string, opts: { registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const result = await (await webhooks()).listWebhooks({ namespace, registryUrl: opts.registry }, publishContext());
        if (opts.json) return ctx.json(result);
        if (result.webhooks.length === 0) ctx.io.stdout(`No webhooks in ${result.namespace} (add one with \`rye webhook add ${result.namespace} <url>\`).`);
        for (const h of result.webhooks) ctx.io.stdout(hookLine(h));
      }),
    );

  webhook
    .command("update <namespace> <webhook>")
    .description("change a webhook's URL or events, or enable / disable it")
    .option("--url <url>", "new URL")
    .option("--event <event>", "replace the events (repeatable)", collect, [] as string[])
    .option("--include-private", "deliver private items' events")
    .option("--no-include-private", "stop delivering private items' events")
    .option("--enable", "deliver again")
    .option("--disable", "stop delivering (pending deliveries fail)")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (namespace: string, id: string, opts: { url?: string; event: string[]; includePrivate?: boolean; enable?: boolean; disable?: boolean; registry?: string; json?: boolean }, command: Command) =>
      ctx.run(opts.json, async () => {
        if (opts.enable && opts.disable) throw new RyeError("BAD_REQUEST", "--enable and --disable contradict each other");
        // commander sets includePrivate to true by default because of --no-include-private: only an explicit flag counts.
        const includePrivate = command.getOptionValueSource("includePrivate") === "cli" ? opts.includePrivate : undefined;
        const active = opts.enable ? true : opts.disable ? false : undefined;
        const hook = await (await webhooks()).updateWebhook({ namespace, id, url: opts.url, events: checkEvents(opts.event), includePrivate, active, registryUrl: opts.registry }, publishContext());
        if (opts.json) return ctx.json(hook);
        ctx.io.stdout(`Updated: ${hookLine(hook)}`);
      }),
    );

  webhook
    .command("remove <namespace> <webhook>")
    .description("delete a webhook and its delivery log")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (namespace: string, id: string, opts: { registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const result = await (await webhooks()).removeWebhook({ namespace, id, registryUrl: opts.registry }, publishContext());
        if (opts.json) return ctx.json(result);
        ctx.io.stdout(`Deleted webhook ${result.id}.`);
      }),
    );

  webhook
    .command("deliveries <namespace> <webhook>")
    .description("a webhook's delivery log, newest first")
    .option("--limit <n>", "how many (at most 100)", "30")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (namespace: string, id: string, opts: { limit: string; registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const result = await (await webhooks()).listDeliveries({ namespace, id, limit: positiveInt(opts.limit, "limit"), registryUrl: opts.registry }, publishContext());
        if (opts.json) return ctx.json(result);
        if (result.deliveries.length === 0) ctx.io.stdout("No deliveries yet.");
        for (const d of result.deliveries) ctx.io.stdout(deliveryLine(d));
      }),
    );

  webhook
    .command("redeliver <namespace> <webhook> <delivery>")
    .description("send a delivery's payload again (as a new delivery)")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (namespace: string, id: string, delivery: string, opts: { registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const result = await (await webhooks()).redeliver({ namespace, id, delivery, registryUrl: opts.registry }, publishContext());
        if (opts.json) return ctx.json(result);
        ctx.io.stdout(`Queued redelivery ${result.id} of ${delivery}.`);
      }),
    );

  webhook
    .command("ping <namespace> <webhook>")
    .description("send a ping event to check the receiver")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (namespace: string, id: string, opts: { registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const result = await (await webhooks()).pingWebhook({ namespace, id, registryUrl: opts.registry }, publishContext());
        if (opts.json) return ctx.json(result);
        ctx.io.stdout(`Queued ping ${result.id}; see \`rye webhook deliveries ${namespace} ${id}\`.`);
      }),
    );
}

/** `rye registry changes`: registered under `rye registry` by registry.ts. */
export function registerChanges(registry: Command, ctx: CliContext): void {
  registry
    .command("changes")
    .description("read the registry's public changes feed (publishes, yanks, deprecations, deletions, visibility, transfers, key events)")
    .option("--since <cursor>", "the cursor (next_since of the previous read)", "0")
    .option("--limit <n>", "log entries to read (at most 1000)", "100")
    .option("--registry <url>", "registry URL")
    .option("--json", "print JSON")
    .action(async (opts: { since: string; limit: string; registry?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        const page = await (await webhooks()).readChanges({ since: positiveInt(opts.since, "since"), limit: positiveInt(opts.limit, "limit"), registryUrl: opts.registry }, { projectPath: resolve(ctx.cwd), env: ctx.env });
        if (opts.json) return ctx.json(page);
        for (const c of page.changes) {
          const s = c.subject;
          const what = s.kind === "registry_key" ? `registry key ${String(s.next_fingerprint ?? s.fingerprint)}` : `${String(s.item_type ?? s.kind)} ${String(s.id)}${s.version ? `@${String(s.version)}` : ""}`;
          ctx.io.stdout(`${c.seq}  ${c.at}  ${c.event.padEnd(11)} ${what}`);
        }
        ctx.io.stdout(page.caught_up ? `(up to date at ${page.next_since})` : `(more: rye registry changes --since ${page.next_since})`);
      }),
    );
}
