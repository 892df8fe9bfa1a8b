/**
 * MCP server management (docs/mcp-servers.md): rye connects to another MCP server (stdio command or Streamable
 * HTTP URL), discovers its tools and writes one signed stub per tool, `.ai/tools/mcp/<server>/<tool>.yaml`, run by
 * the `mcp_stdio` / `mcp_http` runtime with the tool's input schema as its `config_schema`. Each stub pins the digest
 * of that schema; the runtime refuses a call when the server's tool no longer matches (rug-pull protection), and
 * `refresh` shows what changed before anything is re-signed. Credentials stay `${VAR}` references in the stubs.
 */
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseYaml, stringify as toYaml } from "yaml";
import { canonicalJson, RyeError, sha256Hex, signItem } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { expandEnvVars as expand } from "../execute/templating.ts";
import { KeyStore } from "../keys/keystore.ts";

export const SERVER_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export type ServerSpec =
  | { name: string; transport: "stdio"; command: string; args: string[]; env: Record<string, string> }
  | { name: string; transport: "http"; url: string; headers: Record<string, string> };

export interface DiscoveredTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean };
}

export interface StubPlan {
  added: DiscoveredTool[];
  removed: string[];
  changed: { tool: DiscoveredTool; before: string; after: string }[];
  unchanged: string[];
}

/** The digest a stub pins: SHA-256 of the canonical JSON of the tool's input schema. */
export const schemaDigest = (schema: unknown): string => sha256Hex(canonicalJson(schema ?? {}));

export function assertServerName(name: string): string {
  if (!SERVER_NAME.test(name)) throw new RyeError("BAD_REQUEST", `Not a server name: ${JSON.stringify(name)}`, { hint: "Use lower-case letters, digits, '-' and '_' (at most 64), e.g. github or local-files." });
  return name;
}

/** Connects, lists every tool (following pagination, at most 1 000), and disconnects. */
export async function discoverTools(spec: ServerSpec, env: NodeJS.ProcessEnv, options: { timeoutMs?: number } = {}): Promise<DiscoveredTool[]> {
  // The MCP client (~250 kB of bundle) loads here only: the SDK re-exports this module, and every thread process
  // imports the SDK without ever discovering a server.
  const [{ Client }, { StdioClientTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]);
  const transport =
    spec.transport === "stdio"
      ? new StdioClientTransport({ command: spec.command, args: spec.args, env: { ...(Object.fromEntries(Object.entries(env).filter(([k]) => ["PATH", "HOME", "USER", "LANG", "TMPDIR", "SYSTEMROOT"].includes(k))) as Record<string, string>), ...Object.fromEntries(Object.entries(spec.env).map(([k, v]) => [k, expand(v, env)])) }, stderr: "ignore" })
      : new StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers: Object.fromEntries(Object.entries(spec.headers).map(([k, v]) => [k, expand(v, env)])) } });
  const client = new Client({ name: "rye-mcp-manager", version: "1.0.0" });
  const timeout = options.timeoutMs ?? 30_000;
  try {
    await client.connect(transport, { timeout });
    const tools: DiscoveredTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout });
      for (const t of page.tools) {
        tools.push({ name: t.name, description: t.description ?? "", inputSchema: (t.inputSchema ?? { type: "object" }) as Record<string, unknown>, annotations: (t.annotations ?? {}) as DiscoveredTool["annotations"] });
      }
      cursor = page.nextCursor;
    } while (cursor && tools.length < 1000);
    return tools;
  } catch (err) {
    throw new RyeError("UNAVAILABLE", `Cannot list the tools of MCP server ${spec.name}: ${(err as Error).message}`, {
      hint: spec.transport === "stdio" ? "Check the command and its arguments (run it yourself: it should wait for MCP on stdin)." : "Check the URL and the headers (an Authorization header can be given as ${TOKEN})."
    });
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** A tool name as a file name: lower case, `[a-z0-9_-]`, unique within the server. */
export function stubName(tool: string, taken: Set<string>): string {
  const base = tool.toLowerCase().replace(/[^a-z0-9_-]+/g, "_").replace(/^[_-]+/, "").slice(0, 64) || "tool";
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

/** The security tier a tool gets from its MCP annotations: read-only T1, anything else T3 (undeclared). */
export const tierOf = (tool: DiscoveredTool): "T1" | "T3" => (tool.annotations.readOnlyHint === true && tool.annotations.destructiveHint !== true ? "T1" : "T3");

export function stubYaml(spec: ServerSpec, tool: DiscoveredTool, version = "1.0.0"): string {
  const server = spec.transport === "stdio" ? { command: spec.command, args: spec.args, ...(Object.keys(spec.env).length ? { env: spec.env } : {}) } : { url: spec.url, ...(Object.keys(spec.headers).length ? { headers: spec.headers } : {}) };
  const description = (tool.description.trim() || `The ${tool.name} tool of MCP server ${spec.name}`).replace(/\s+/g, " ").slice(0, 1000);
  const doc = {
    version,
    tool_type: "mcp",
    executor_id: spec.transport === "stdio" ? "rye/core/runtimes/mcp_stdio" : "rye/core/runtimes/mcp_http",
    category: `mcp/${spec.name}`,
    description,
    tier: tierOf(tool),
    mcp_server: spec.name,
    config_schema: tool.inputSchema,
    config: { server, tool_name: tool.name, expect: { schema_sha256: schemaDigest(tool.inputSchema) } },
  };
  return `# Stub of the tool ${JSON.stringify(tool.name)} of MCP server ${spec.name}, written by rye mcp add/refresh.\n${toYaml(doc, { lineWidth: 0 })}`;
}

export interface Placement {
  /** The `.ai` folder of the space the stubs go to. */
  aiDir: string;
}

const serversDir = (p: Placement) => join(p.aiDir, "mcp", "servers");
const stubsDir = (p: Placement, server: string) => join(p.aiDir, "tools", "mcp", server);

export async function readServer(p: Placement, name: string): Promise<ServerSpec | undefined> {
  try {
    return JSON.parse(await readFile(join(serversDir(p), `${assertServerName(name)}.json`), "utf8")) as ServerSpec;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new RyeError("VALIDATION_FAILED", `The record of MCP server ${name} is damaged: ${(err as Error).message}`, { hint: `Remove it with rye mcp remove ${name} and add it again.` });
  }
}

export async function listServers(p: Placement): Promise<ServerSpec[]> {
  const names = (await readdir(serversDir(p)).catch(() => [] as string[])).filter((n) => n.endsWith(".json")).map((n) => n.slice(0, -5)).sort();
  const out: ServerSpec[] = [];
  for (const name of names) {
    const spec = await readServer(p, name).catch(() => undefined);
    if (spec) out.push(spec);
  }
  return out;
}

/** The stubs of a server on disk: file name → { tool name, pinned digest }. */
export async function readStubs(p: Placement, server: string): Promise<Map<string, { tool: string; digest: string; version: string }>> {
  const dir = stubsDir(p, server);
  const out = new Map<string, { tool: string; digest: string; version: string }>();
  for (const file of (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith(".yaml")).sort()) {
    type Stub = { version?: unknown; config?: { tool_name?: unknown; expect?: { schema_sha256?: unknown } } } | null;
    const doc = (await readFile(join(dir, file), "utf8").then((text) => parseYaml(text) as Stub, () => null).catch(() => null)) as Stub;
    const tool = doc?.config?.tool_name;
    const digest = doc?.config?.expect?.schema_sha256;
    if (typeof tool === "string" && typeof digest === "string") out.set(file.slice(0, -5), { tool, digest, version: typeof doc?.version === "string" ? doc.version : "1.0.0" });
  }
  return out;
}

/** What writing the discovered tools would change against the stubs on disk. */
export function planStubs(existing: Map<string, { tool: string; digest: string; version?: string }>, discovered: DiscoveredTool[]): StubPlan {
  const byTool = new Map([...existing.values()].map((s) => [s.tool, s.digest]));
  const plan: StubPlan = { added: [], removed: [], changed: [], unchanged: [] };
  for (const tool of discovered) {
    const before = byTool.get(tool.name);
    const after = schemaDigest(tool.inputSchema);
    if (before === undefined) plan.added.push(tool);
    else if (before !== after) plan.changed.push({ tool, before, after });
    else plan.unchanged.push(tool.name);
  }
  const names = new Set(discovered.map((t) => t.name));
  plan.removed = [...byTool.keys()].filter((t) => !names.has(t)).sort();
  return plan;
}

/**
 * Writes (atomically) and signs with the user's key the stubs of `tools`, deletes the stubs of `removed`, and
 * records the server. Returns the written stub files.
 */
export async function writeStubs(p: Placement, spec: ServerSpec, tools: DiscoveredTool[], removed: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const { key } = await new KeyStore({ env }).loadOrCreate();
  const dir = stubsDir(p, spec.name);
  await mkdir(dir, { recursive: true });
  const existing = await readStubs(p, spec.name);
  const fileOf = new Map([...existing.entries()].map(([file, s]) => [s.tool, file]));
  // A stub whose tool changed is a new version (1.0.0 → 1.1.0): its lockfiles and pins stay those of the old one.
  const bumped = (version: string) => {
    const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
    return m ? `${m[1]}.${Number(m[2]) + 1}.0` : "1.0.0";
  };
  const taken = new Set(existing.keys());
  const written: string[] = [];
  for (const tool of tools) {
    const file = fileOf.get(tool.name) ?? stubName(tool.name, taken);
    const path = join(dir, `${file}.yaml`);
    const previous = existing.get(file);
    await writeFileAtomic(path, (await signItem(stubYaml(spec, tool, previous ? bumped(previous.version) : "1.0.0"), "tool", key, { path: ".yaml" })).content);
    written.push(path);
  }
  for (const tool of removed) {
    const file = fileOf.get(tool);
    if (file) await rm(join(dir, `${file}.yaml`), { force: true });
  }
  await mkdir(serversDir(p), { recursive: true });
  await writeFileAtomic(join(serversDir(p), `${spec.name}.json`), `${JSON.stringify(spec, null, 2)}\n`);
  return written;
}

/** Deletes a server's stubs and record. */
export async function removeServer(p: Placement, name: string): Promise<number> {
  const stubs = await readStubs(p, assertServerName(name));
  await rm(stubsDir(p, name), { recursive: true, force: true });
  await rm(join(serversDir(p), `${name}.json`), { force: true });
  return stubs.size;
}
