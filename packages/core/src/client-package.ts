/**
 * How users get the rye client: the npm package `ryeos` (the name `rye` on npm belongs to an unrelated
 * project), whose command is still `rye`. Every snippet that tells someone what to run — the website's copy
 * buttons, `rye init`, the README — is built from these, so they cannot drift apart.
 */
export const CLIENT_PACKAGE = "ryeos";
export const CLIENT_BIN = "rye";

/** A command anyone can run from any directory: `npx ryeos <args>` (npx fetches the package when needed). */
export function clientCommand(args: string): string {
  return `npx ${CLIENT_PACKAGE} ${args}`;
}

/** The MCP server entry for Claude Desktop / Cursor (`mcpServers.rye`): `npx -y ryeos mcp`. */
export function mcpServerEntry(cwd: string, env?: Record<string, string>): { command: string; args: string[]; cwd: string; env?: Record<string, string> } {
  return { command: "npx", args: ["-y", CLIENT_PACKAGE, "mcp"], cwd, ...(env ? { env } : {}) };
}
