/**
 * MCP calls that reach a registry (the real registry API in-process on a loopback port; `rye mcp` a real child
 * process driven by the SDK client): a `load` that pulls, verifies and pins a registry item and an `execute` of
 * the registry tool's bundle_pull both send `notifications/progress` for the client's progress token, and their
 * results validate against the advertised output schemas.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import type { ValidateFunction } from "ajv";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { hashToken, TOKEN_PREFIX } from "../../../../apps/api/src/auth/api-tokens.ts";
import { createBundle } from "../bundles/create.ts";
import type { TestRegistry } from "../../test/registry-server.ts";
import { startTestRegistry } from "../../test/registry-server.ts";
import type { Workspace } from "../../test/workspace.ts";
import { createWorkspace } from "../../test/workspace.ts";

const BIN = fileURLToPath(new URL("../../bin/rye.mjs", import.meta.url));
const REGISTRY_TOOL = "rye/registry/registry";

let registry: TestRegistry;
let token: string;
let consumer: Workspace;
let client: Client;
const validators = new Map<string, ValidateFunction>();

const notes = (id: string, body: string) => `---\nid: ${id}\ntitle: Greeting notes\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n---\n\n${body}\n`;

async function workspace(anonymous = false): Promise<Workspace> {
  const ws = await createWorkspace();
  delete ws.env.RYE_OFFLINE;
  ws.env.RYE_REGISTRY_URL = registry.url;
  if (anonymous) delete ws.env.RYE_TOKEN;
  else ws.env.RYE_TOKEN = token;
  return ws;
}

before(async () => {
  registry = await startTestRegistry();
  const user = await registry.db.prisma.user.create({ data: { username: "alice", email: "alice@example.test" } });
  await registry.db.prisma.namespace.create({ data: { name: "alice", userId: user.id } });
  token = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
  await registry.db.prisma.apiToken.create({ data: { userId: user.id, name: "test", tokenHash: hashToken(token), scopes: ["items:read", "items:write"] } });

  // alice publishes a knowledge item and a bundle (about 200 KiB, so the download comes in several chunks).
  const publisher = await workspace();
  const run = async (parameters: Record<string, unknown>) => {
    const result = (await (await publisher.engine()).execute({ item_type: "tool", item_id: REGISTRY_TOOL, parameters })) as { status: string; data: unknown };
    assert.equal(result.status, "success", JSON.stringify(result.data));
  };
  await publisher.write("knowledge", "notes/greetings.md", notes("greetings", "How to greet people politely."), { signer: null });
  await run({ action: "push", item_path: ".ai/knowledge/notes/greetings.md", yes: true });
  await publisher.write("knowledge", "alice/kit/about.md", notes("about", "Reference text. ".repeat(13_000)), { signer: null });
  await publisher.write("knowledge", "alice/kit/more.md", notes("more", "More reference text. ".repeat(2_000)), { signer: null });
  await createBundle({ root: publisher.projectDir, bundleId: "alice/kit", version: "0.3.0", key: publisher.key });
  await run({ action: "bundle_push", bundle_id: "alice/kit", yes: true });

  consumer = await workspace(true);
  client = new Client({ name: "rye-registry-progress-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], cwd: consumer.projectDir, env: consumer.env as Record<string, string>, stderr: "pipe" }));
  const ajv = new Ajv({ strict: false });
  for (const tool of (await client.listTools()).tools) validators.set(tool.name, ajv.compile(tool.outputSchema as object));
});
after(async () => {
  await client?.close();
  await registry?.close();
});

async function callWithProgress(name: string, args: Record<string, unknown>): Promise<{ body: Record<string, any>; progress: Progress[] }> {
  const progress: Progress[] = [];
  const result = await client.callTool({ name, arguments: args }, undefined, { onprogress: (p) => void progress.push(p) });
  const body = result.structuredContent as Record<string, any>;
  const validate = validators.get(name)!;
  assert.ok(validate(body), `${name}: ${JSON.stringify(validate.errors)}`);
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.progress > progress[i - 1]!.progress, `increasing: ${JSON.stringify(progress)}`);
  return { body, progress };
}

test("load of a registry id pulls, verifies and pins it, reporting the download's bytes", async () => {
  const { body, progress } = await callWithProgress("load", { item_type: "knowledge", item_id: "alice/notes/greetings" });
  assert.equal(body.status, "success", JSON.stringify(body));
  assert.equal(body.verification.ok, true);
  assert.match(body.registry_notice, /Pinned registry key/);
  assert.ok(progress.length >= 1, "at least one progress notification");
  // Downloads, and on a slow machine the wait for the registry (registry/budget.ts) in between.
  assert.ok(progress.every((p) => /^(Downloading an item|Waiting for the registry) (from|at) 127\.0\.0\.1/.test(p.message ?? "")), JSON.stringify(progress));
  const downloads = progress.filter((p) => p.message?.startsWith("Downloading"));
  assert.ok(downloads.length >= 1, JSON.stringify(progress));
  const last = downloads.at(-1)!;
  if (last.total !== undefined) assert.equal(last.progress, last.total, "a download with an announced size ends at its total");
});

test("a bundle pull through execute reports download bytes, then verified and written files", async () => {
  const { body, progress } = await callWithProgress("execute", { item_type: "tool", item_id: REGISTRY_TOOL, parameters: { action: "bundle_pull", bundle_id: "alice/kit@0.3.0" } });
  assert.equal(body.status, "success", JSON.stringify(body));
  assert.equal((body.data as { files_written: string[] }).files_written.length, 2);
  assert.match(await readFile(join(consumer.projectDir, ".ai/knowledge/alice/kit/about.md"), "utf8"), /Reference text/);
  const messages = progress.map((p) => p.message ?? "");
  assert.ok(messages.some((m) => /^bundle_pull alice\/kit: download \d+/.test(m)), JSON.stringify(messages));
  assert.ok(messages.some((m) => /^bundle_pull alice\/kit: (verify|write) \d+\/2 files/.test(m)), JSON.stringify(messages));
  const downloaded = Math.max(...messages.map((m) => Number(/: download (\d+)/.exec(m)?.[1] ?? 0)));
  assert.ok(downloaded > 200_000, `the bundle's bytes were counted: ${downloaded}`);
});
