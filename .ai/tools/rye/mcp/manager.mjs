// rye:signed:2026-11-29T13:41:57Z:d9d60f1c1a50d038fafe633921df9bd55667e88067712f2ff3437bcff26eced7:-1pbVIr1u9X7XJr8nNzDf4CapK0qU7B0L7VDzLTln6UbRC45KYMSWerTEer_-kbK7q5H2aaHhoTwOh6KSl1FCw==:334f126a02990a0c
// @ts-check
/**
 * MCP servers managed by rye (docs/mcp-servers.md), for MCP clients and threads: `list` the servers added to the
 * project (or the user space) with their stubs, and `review` one: connect, list its tools and say what changed
 * against the signed stubs (new, changed input schema, removed) without writing anything.
 *
 * Adding, refreshing and removing sign or delete stubs with the user's key after the user confirms, so they stay
 * with the CLI (`rye mcp add|refresh|remove`): a model cannot approve its own new tools.
 */
export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __tier__ = "T1";
export const __category__ = "rye/mcp";
export const __tool_description__ =
  "MCP servers managed by rye: list them and their tool stubs, or review one (its tools now vs. the signed stubs: new, changed, removed); adding and re-signing is done by the user with rye mcp add|refresh";

export const CONFIG = { timeout: 120 };

export const CONFIG_SCHEMA = {
  type: "object",
  properties: {
    action: { type: "string", enum: ["list", "review"], description: "list the servers, or review one against its stubs" },
    server: { type: "string", pattern: "^[a-z0-9][a-z0-9_-]{0,63}$", description: "review: the server's name" },
    space: { type: "string", enum: ["project", "user"], default: "project", description: "where the servers were added" },
  },
  required: ["action"],
  additionalProperties: false,
};

/**
 * @param {Record<string, any>} params
 * @param {{ projectPath?: string, loadSdk?: () => Promise<any> }} context
 */
export async function main(params, context) {
  if (!context.loadSdk) throw new Error("rye/mcp/manager must run through rye's node runtime (it provides the SDK)");
  const sdk = await context.loadSdk();
  const m = sdk.mcpServers;
  const projectPath = context.projectPath ?? process.cwd();
  const userBase = process.env.USER_SPACE || (await import("node:os")).homedir();
  const { join } = await import("node:path");
  const place = { aiDir: params.space === "user" ? join(userBase, ".ai") : join(projectPath, ".ai") };

  if (params.action === "list") {
    const servers = [];
    for (const spec of await m.listServers(place)) {
      const stubs = await m.readStubs(place, spec.name);
      servers.push({ name: spec.name, transport: spec.transport, ...(spec.transport === "stdio" ? { command: spec.command, args: spec.args } : { url: spec.url }), tools: [...stubs.entries()].map(([file, s]) => ({ item_id: `mcp/${spec.name}/${file}`, tool: s.tool, version: s.version })) });
    }
    return { success: true, servers };
  }
  if (!params.server) return { success: false, error: { code: "BAD_REQUEST", message: "review needs server" } };
  const spec = await m.readServer(place, params.server);
  if (!spec) return { success: false, error: { code: "NOT_FOUND", message: `No MCP server ${params.server} here`, hint: "list shows the servers; the user adds one with rye mcp add" } };
  const plan = m.planStubs(await m.readStubs(place, spec.name), await m.discoverTools(spec, process.env));
  const pending = plan.added.length + plan.changed.length + plan.removed.length;
  return {
    success: true,
    server: spec.name,
    added: plan.added.map((/** @type {any} */ t) => ({ name: t.name, tier: m.tierOf(t), description: t.description })),
    changed: plan.changed.map((/** @type {any} */ c) => ({ name: c.tool.name, before: c.before, after: c.after })),
    removed: plan.removed,
    unchanged: plan.unchanged,
    ...(pending > 0 ? { next: `Changed tools are refused until re-signed: ask the user to review and run rye mcp refresh ${spec.name}` } : {}),
  };
}
