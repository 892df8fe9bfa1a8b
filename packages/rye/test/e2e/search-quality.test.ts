/**
 * End to end: `rye search --min-quality N` and `--sort quality` against the real registry API on a loopback port,
 * through the real `rye` binary. A tool pushed by `rye push` (signed, its key registered) outscores one pushed
 * unsigned; the flags reach the registry as `min_quality` and `sort`, and bad values are refused before any request.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { runRye } from "../cli.ts";
import type { TestRegistry } from "../registry-server.ts";
import { startTestRegistry } from "../registry-server.ts";
import { createWorkspace, nodeTool } from "../workspace.ts";

type Json = Record<string, any>;

let reg: TestRegistry;
let token: string;

const documented = (name: string) =>
  nodeTool("tools", `/** Shouts ${name}: upper-cases the text it is given and adds an exclamation mark. */\nexport function main(p) { return { out: p.text.toUpperCase() + "!" }; }`, '{ type: "object", properties: { text: { type: "string", description: "What to shout" } } }');

before(async () => {
  reg = await startTestRegistry();
  const signup = await fetch(`${reg.url}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "alice", email: "alice@example.test", password: "correct horse battery staple" }),
  });
  assert.equal(signup.status, 201);
  const session = { cookie: signup.headers.get("set-cookie")!.split(";")[0]!, csrf: ((await signup.json()) as Json).csrf_token as string };
  const created = await fetch(`${reg.url}/v1/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: session.cookie, "x-csrf-token": session.csrf },
    body: JSON.stringify({ name: "cli", scopes: ["items:read", "items:write"] }),
  });
  token = ((await created.json()) as Json).token as string;

  // Signed by `rye push` (which registers the key).
  const ws = await createWorkspace();
  const env: NodeJS.ProcessEnv = { ...ws.env, RYE_TOKEN: token };
  delete env.RYE_OFFLINE;
  const file = ".ai/tools/tools/shout_signed.mjs";
  await mkdir(dirname(join(ws.projectDir, file)), { recursive: true });
  await writeFile(join(ws.projectDir, file), documented("signed"));
  const pushed = await runRye(["push", file, "--registry", reg.url, "--yes", "--json"], { env, cwd: ws.projectDir });
  assert.equal(pushed.code, 0, pushed.stdout + pushed.stderr);

  // Unsigned and undocumented, straight through the API.
  const unsigned = await fetch(`${reg.url}/v1/push`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ item_type: "tool", item_id: "alice/tools/shout_plain", content: nodeTool("tools", "export function main() { return {}; }"), version: "1.0.0", file_extension: ".mjs" }),
  });
  assert.equal(unsigned.status, 201, await unsigned.text());
});
after(() => reg.close());

async function search(args: string[]): Promise<{ code: number; body: Json; stderr: string }> {
  const ws = await createWorkspace();
  const env: NodeJS.ProcessEnv = { ...ws.env, RYE_REGISTRY_URL: reg.url };
  delete env.RYE_OFFLINE;
  delete env.RYE_TOKEN;
  const run = await runRye(["search", ...args, "--json"], { env, cwd: ws.projectDir });
  return { code: run.code, body: JSON.parse(run.stdout || run.stderr) as Json, stderr: run.stderr };
}

test("--min-quality keeps the well-kept tool; --sort quality puts it first; the scores come back", async () => {
  const requests = reg.requests.length;
  const good = await search(["shout", "--min-quality", "80"]);
  assert.equal(good.code, 0, good.stderr);
  assert.deepEqual(good.body.results.map((h: Json) => [h.id, h.space]), [["alice/tools/shout_signed", "registry"]]);
  assert.ok(good.body.results[0].quality_score >= 80);
  assert.ok(reg.requests.slice(requests).some((r) => r.path.startsWith("/v1/search") && r.path.includes("min_quality=80")));

  const sorted = await search(["shout", "--sort", "quality"]);
  assert.equal(sorted.code, 0, sorted.stderr);
  assert.deepEqual(sorted.body.results.map((h: Json) => h.id), ["alice/tools/shout_signed", "alice/tools/shout_plain"]);
  const [first, second] = sorted.body.results.map((h: Json) => h.quality_score as number);
  assert.ok(first! > second!, `${first} > ${second}`);
});

test("quality flags are refused for local-only searches and out of range, with a code", async () => {
  const requests = reg.requests.length;
  for (const args of [["shout", "--min-quality", "101"], ["shout", "--min-quality", "x"], ["shout", "--sort", "stars"], ["shout", "--local", "--min-quality", "50"]]) {
    const r = await search(args);
    assert.notEqual(r.code, 0, args.join(" "));
    assert.equal(r.body.error.code, "BAD_REQUEST", args.join(" "));
  }
  assert.equal(reg.requests.slice(requests).filter((r) => r.path.startsWith("/v1/search")).length, 0);
});
