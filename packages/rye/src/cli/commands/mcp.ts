import type { Command } from "commander";
import { RyeError } from "@rye/core";
import { readFile } from "node:fs/promises";
import type { DiscoveredTool, Placement, ServerSpec, StubPlan } from "../../mcp-servers/manage.ts";
import { join, resolve } from "node:path";
import { userAiDir } from "../../spaces/paths.ts";
import type { CliContext } from "../context.ts";
import { canPrompt, collect, ttyPrompt } from "./common.ts";

interface SpaceOpts {
  user?: boolean;
  project?: string;
  json?: boolean;
  yes?: boolean;
}

function placement(ctx: CliContext, opts: SpaceOpts): Placement {
  return { aiDir: opts.user ? userAiDir(ctx.env) : join(resolve(opts.project ?? ctx.cwd), ".ai") };
}

/** `KEY=value` pairs (values may be `${VAR}` references, kept as such in the stubs). */
function pairs(list: string[] | undefined, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw new RyeError("BAD_REQUEST", `--${what} ${JSON.stringify(item)} is not NAME=value`, { hint: `Example: --${what} ${what === "env" ? "API_TOKEN=${API_TOKEN}" : "Authorization=Bearer ${TOKEN}"}` });
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

function describePlan(ctx: CliContext, name: string, plan: StubPlan, tierOf: (tool: DiscoveredTool) => string): void {
  const line = (sign: string, tool: DiscoveredTool | string, extra = "") => {
    const t = typeof tool === "string" ? { name: tool, description: "" } : tool;
    ctx.io.stdout(`  ${sign} ${t.name}${typeof tool === "string" ? "" : ` (${tierOf(tool)})`}${extra}${t.description ? ` — ${t.description.replace(/\s+/g, " ").slice(0, 100)}` : ""}`);
  };
  ctx.io.stdout(`MCP server ${name}: ${plan.added.length} new, ${plan.changed.length} changed, ${plan.removed.length} removed, ${plan.unchanged.length} unchanged`);
  for (const t of plan.added) line("+", t);
  for (const c of plan.changed) line("~", c.tool, ` input schema ${c.before.slice(0, 12)}… → ${c.after.slice(0, 12)}…`);
  for (const t of plan.removed) line("-", t);
}

/** The person confirms (a terminal) or passed --yes; otherwise nothing is signed. */
async function confirmed(ctx: CliContext, opts: SpaceOpts, question: string): Promise<boolean> {
  if (opts.yes) return true;
  if (!canPrompt()) throw new RyeError("BAD_REQUEST", "Signing stubs needs your confirmation", { hint: "Run it on a terminal, or pass --yes after reviewing the tools (rye mcp add|refresh … --dry-run)." });
  return ttyPrompt(question);
}

interface HttpOpts {
  http?: string;
  host?: string;
  tokenFile?: string;
  allowedOrigin?: string[];
  allowedHost?: string[];
}

function httpPort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new RyeError("BAD_REQUEST", `--http ${JSON.stringify(value)} is not a port number`, { hint: "rye mcp --http 8765" });
  return port;
}

/** The bearer token: the file's first line when --token-file is given, else RYE_MCP_TOKEN. */
async function httpToken(ctx: CliContext, opts: HttpOpts): Promise<{ token?: string }> {
  if (opts.tokenFile) {
    const text = await readFile(resolve(ctx.cwd, opts.tokenFile), "utf8").catch(() => {
      throw new RyeError("NOT_FOUND", `Cannot read the token file ${opts.tokenFile}`, { hint: "Write a token of at least 32 characters into it (openssl rand -hex 32 > token)." });
    });
    return { token: text.split(/\r?\n/)[0]!.trim() };
  }
  return ctx.env.RYE_MCP_TOKEN ? { token: ctx.env.RYE_MCP_TOKEN } : {};
}

export function registerMcp(program: Command, ctx: CliContext): void {
  const mcp = program
    .command("mcp")
    .description("run the MCP server on stdio, or on Streamable HTTP with --http (tools: search, load, execute, sign); manage other MCP servers: add, list, refresh, remove")
    .option("--http <port>", "serve Streamable HTTP on this port (endpoint /mcp) instead of stdio; 0 picks a free port")
    .option("--host <address>", "address for --http (default 127.0.0.1; any other address requires a bearer token)")
    .option("--token-file <file>", "--http: the bearer token clients must send (default: RYE_MCP_TOKEN)")
    .option("--allowed-origin <origin>", "--http: a browser Origin allowed besides the server's own (repeatable)", collect)
    .option("--allowed-host <host:port>", "--http: a Host header allowed besides the bound address (repeatable)", collect)
    .action(async (opts: HttpOpts) => {
      if (opts.http === undefined) {
        await (await import("../../mcp/server.ts")).runMcpStdio({ env: ctx.env, cwd: ctx.cwd });
        // Keep the process alive until the client closes stdin.
        await new Promise<void>((resolve) => process.stdin.once("close", resolve));
        return;
      }
      await ctx.run(false, async () => {
        const { startMcpHttp } = await import("../../mcp/http-transport.ts");
        const server = await startMcpHttp({ env: ctx.env, cwd: ctx.cwd, port: httpPort(opts.http!), ...(opts.host ? { host: opts.host } : {}), ...(await httpToken(ctx, opts)), allowedOrigins: opts.allowedOrigin ?? [], allowedHosts: opts.allowedHost ?? [] });
        // The one line a launcher (or a test) waits for; logs go to the clients through MCP logging.
        ctx.io.stdout(`rye MCP server listening on ${server.url}`);
        await new Promise<void>((resolve) => {
          process.once("SIGINT", resolve);
          process.once("SIGTERM", resolve);
        });
        await server.close();
      });
    });

  mcp
    .command("add <name>")
    .description("connect to an MCP server, show its tools, and write one signed stub per tool (.ai/tools/mcp/<name>/)")
    .option("--command <program>", "a stdio server: the program to start")
    .option("--arg <value>", "an argument of the program (repeatable)", collect)
    .option("--env <NAME=value>", "an environment variable of the server (repeatable; ${VAR} references stay references)", collect)
    .option("--url <url>", "a Streamable HTTP server")
    .option("--header <Name=value>", "an HTTP header (repeatable; e.g. Authorization=Bearer ${TOKEN})", collect)
    .option("--user", "write the stubs to the user space (default: the project)")
    .option("--dry-run", "show the tools, write nothing")
    .option("-y, --yes", "sign without asking (after reviewing with --dry-run)")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (name: string, opts: SpaceOpts & { command?: string; arg?: string[]; env?: string[]; url?: string; header?: string[]; dryRun?: boolean }) =>
      ctx.run(opts.json, async () => {
        (await import("../../mcp-servers/manage.ts")).assertServerName(name);
        if (Boolean(opts.command) === Boolean(opts.url)) throw new RyeError("BAD_REQUEST", "Give either --command (a stdio server) or --url (Streamable HTTP)", { hint: "rye mcp add files --command npx --arg -y --arg @modelcontextprotocol/server-filesystem --arg ." });
        const p = placement(ctx, opts);
        if (await (await import("../../mcp-servers/manage.ts")).readServer(p, name)) throw new RyeError("ITEM_EXISTS", `MCP server ${name} is already added`, { hint: `Review its changes with rye mcp refresh ${name}, or remove it first.` });
        const spec: ServerSpec = opts.command
          ? { name, transport: "stdio", command: opts.command, args: opts.arg ?? [], env: pairs(opts.env, "env") }
          : { name, transport: "http", url: String(opts.url), headers: pairs(opts.header, "header") };
        if (spec.transport === "http" && !/^https?:\/\//.test(spec.url)) throw new RyeError("BAD_REQUEST", "--url must be an http(s) URL");
        const { tierOf } = await import("../../mcp-servers/manage.ts");
        const tools = await (await import("../../mcp-servers/manage.ts")).discoverTools(spec, ctx.env);
        const plan = (await import("../../mcp-servers/manage.ts")).planStubs(new Map(), tools);
        if (opts.dryRun) return opts.json ? ctx.json({ server: name, dry_run: true, tools: tools.map((t) => ({ name: t.name, tier: tierOf(t), description: t.description })) }) : describePlan(ctx, name, plan, tierOf);
        if (!opts.json) describePlan(ctx, name, plan, tierOf);
        if (!(await confirmed(ctx, opts, `Sign ${tools.length} stub${tools.length === 1 ? "" : "s"} with your key?`))) {
          ctx.io.stderr("Nothing was written.");
          return 1;
        }
        const written = await (await import("../../mcp-servers/manage.ts")).writeStubs(p, spec, tools, [], ctx.env);
        if (opts.json) return ctx.json({ server: name, written, tools: tools.map((t) => t.name) });
        ctx.io.stdout(`Wrote and signed ${written.length} stubs under ${p.aiDir}/tools/mcp/${name}/ — run them with rye execute tool mcp/${name}/<tool>.`);
      }),
    );

  mcp
    .command("list")
    .description("the MCP servers added to this project (or the user space) and their stubs")
    .option("--user", "the user space")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (opts: SpaceOpts) =>
      ctx.run(opts.json, async () => {
        const p = placement(ctx, opts);
        const servers = [];
        for (const spec of await (await import("../../mcp-servers/manage.ts")).listServers(p)) servers.push({ ...spec, stubs: [...(await (await import("../../mcp-servers/manage.ts")).readStubs(p, spec.name)).keys()] });
        if (opts.json) return ctx.json({ servers });
        if (servers.length === 0) return ctx.io.stdout("No MCP servers added here (rye mcp add <name> --command … | --url …).");
        for (const s of servers) ctx.io.stdout(`${s.name}  ${s.transport === "stdio" ? `${s.command} ${s.args.join(" ")}` : s.url}  (${s.stubs.length} tools: ${s.stubs.join(", ")})`);
      }),
    );

  mcp
    .command("refresh <name>")
    .description("reconnect, show what changed (new, changed, removed tools), and re-sign the stubs after confirmation")
    .option("--user", "the user space")
    .option("--dry-run", "show the changes, write nothing")
    .option("-y, --yes", "sign without asking")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (name: string, opts: SpaceOpts & { dryRun?: boolean }) =>
      ctx.run(opts.json, async () => {
        const p = placement(ctx, opts);
        const spec = await (await import("../../mcp-servers/manage.ts")).readServer(p, (await import("../../mcp-servers/manage.ts")).assertServerName(name));
        if (!spec) throw new RyeError("NOT_FOUND", `No MCP server ${name} here`, { hint: "rye mcp list shows the servers; add one with rye mcp add." });
        const { tierOf } = await import("../../mcp-servers/manage.ts");
        const tools = await (await import("../../mcp-servers/manage.ts")).discoverTools(spec, ctx.env);
        const plan = (await import("../../mcp-servers/manage.ts")).planStubs(await (await import("../../mcp-servers/manage.ts")).readStubs(p, name), tools);
        const summary = { server: name, added: plan.added.map((t) => t.name), changed: plan.changed.map((c) => ({ tool: c.tool.name, before: c.before, after: c.after })), removed: plan.removed, unchanged: plan.unchanged };
        const pending = plan.added.length + plan.changed.length + plan.removed.length;
        if (!opts.json) describePlan(ctx, name, plan, tierOf);
        if (opts.dryRun || pending === 0) return opts.json ? ctx.json({ ...summary, written: [] }) : undefined;
        if (!(await confirmed(ctx, opts, `Re-sign ${plan.added.length + plan.changed.length} stub(s) and delete ${plan.removed.length}?`))) {
          ctx.io.stderr("Nothing was written: the changed tools stay refused until their stubs are re-signed.");
          return 1;
        }
        const written = await (await import("../../mcp-servers/manage.ts")).writeStubs(p, spec, [...plan.added, ...plan.changed.map((c) => c.tool)], plan.removed, ctx.env);
        if (opts.json) return ctx.json({ ...summary, written });
        ctx.io.stdout(`Re-signed ${written.length} stub(s), deleted ${plan.removed.length}.`);
      }),
    );

  mcp
    .command("remove <name>")
    .description("delete an MCP server's stubs and record")
    .option("--user", "the user space")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print JSON")
    .action(async (name: string, opts: SpaceOpts) =>
      ctx.run(opts.json, async () => {
        const p = placement(ctx, opts);
        if (!(await (await import("../../mcp-servers/manage.ts")).readServer(p, (await import("../../mcp-servers/manage.ts")).assertServerName(name)))) throw new RyeError("NOT_FOUND", `No MCP server ${name} here`, { hint: "rye mcp list shows the servers." });
        const removed = await (await import("../../mcp-servers/manage.ts")).removeServer(p, name);
        if (opts.json) return ctx.json({ server: name, removed_stubs: removed });
        ctx.io.stdout(`Removed MCP server ${name} and its ${removed} stubs.`);
      }),
    );
}
