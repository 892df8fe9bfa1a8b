/**
 * The agent runtime's security, with real threads (rye thread run → thread process → fake provider): actions
 * outside the capabilities are denied and never run, a thread without permissions can do nothing, a child gets
 * the intersection with its parent, a forged parent context is ignored or refused, tools never see the
 * runtime's variables, tampered runtime files refuse to start the thread, and a project overrides one runtime
 * file only with its owner's signature.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cp, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { signItem } from "@rye/core";
import type { ThreadBench } from "../threads.ts";
import { directive, requestInfo, returnsTool, threadBench } from "../threads.ts";
import { THREADS_DIR } from "../runtime/files.ts";

const exists = (path: string) => stat(path).then(() => true, () => false);
const TOUCH_SCHEMA = `{ type: "object", properties: { name: { type: "string" } }, required: ["name"] }`;

let bench: ThreadBench;
let marker: (name: string) => string;

before(async () => {
  bench = await threadBench("anthropic");
  marker = (name) => join(bench.ws.root, `touched-${name}`);
  // A tool with a visible side effect: it writes a marker file next to the workspace.
  await bench.write("tool", "sec/tools/touch.mjs", returnsTool("sec/tools", `(await import("node:fs")).writeFileSync(${JSON.stringify(join(bench.ws.root, "touched-"))} + p.name, "x") || { touched: p.name }`, TOUCH_SCHEMA).replace("export function main", "export async function main"));
  await bench.write("tool", "sec/tools/safe/env.mjs", returnsTool("sec/tools/safe", "{ parent: process.env.RYE_THREAD_PARENT ?? null, worker: process.env.RYE_THREAD_WORKER ?? null }"));
  await bench.write("knowledge", "sec/notes/n.md", `---\nid: n\ntitle: n\nversion: 1.0.0\nentry_type: reference\ncategory: sec/notes\n---\n\nA note.\n`);
});
after(() => bench?.close());

const touch = (name: string) => ({ name: "rye_execute", input: { item_type: "tool", item_id: "sec/tools/touch", parameters: { name } } });

describe("capabilities are fail-closed", () => {
  test("an action outside the capabilities is denied, recorded, returned as an error, and the tool never runs", async () => {
    await bench.write("directive", "sec/deny/limited.md", directive({ name: "limited", category: "sec/deny", permissions: "<load><knowledge>sec.*</knowledge></load>" }));
    bench.script({
      limited: (turn) =>
        turn === 0
          ? { toolCalls: [touch("limited"), { name: "rye_load", input: { item_type: "knowledge", item_id: "sec/notes/n" } }], usage: { input: 10, output: 5 } }
          : { text: "could not touch", usage: { input: 10, output: 5 } },
    });
    const run = await bench.rye(["thread", "run", "sec/deny/limited"]);
    assert.equal(run.json.status, "completed", run.stdout + run.stderr);
    assert.equal(await exists(marker("limited")), false, "the denied tool never ran");
    const events = await bench.events(run.json.thread_id);
    const denied = events.filter((e) => e.event_type === "tool_call_denied");
    assert.equal(denied.length, 1);
    assert.equal(denied[0]!.payload.required_capability, "rye.execute.tool.sec.tools.touch");
    const results = events.filter((e) => e.event_type === "tool_call_result");
    assert.deepEqual(results.map((r) => r.payload.error), [true, false], "the denial is an error, the allowed load is not");
    const last = bench.llm.requests.at(-1)!;
    const fed = requestInfo(last).toolResults;
    assert.match(fed[0]!, /Permission denied.*rye\.execute\.tool\.sec\.tools\.touch/);
    assert.match(JSON.stringify(last.body.messages), /"is_error":true/, "the model sees the denial as a tool error");
  });

  test("a thread with no permissions can do nothing", async () => {
    await bench.write("directive", "sec/deny/nothing.md", directive({ name: "nothing", category: "sec/deny" }));
    bench.script({
      nothing: (turn) =>
        turn === 0
          ? { toolCalls: [{ name: "rye_search", input: { item_type: "knowledge", query: "note" } }, { name: "rye_load", input: { item_type: "knowledge", item_id: "sec/notes/n" } }, touch("nothing"), { name: "rye_sign", input: { item_type: "knowledge", item_id: "sec/notes/n" } }], usage: { input: 10, output: 5 } }
          : { text: "nothing allowed", usage: { input: 10, output: 5 } },
    });
    const run = await bench.rye(["thread", "run", "sec/deny/nothing"]);
    assert.equal(run.json.status, "completed", run.stdout);
    const denied = (await bench.events(run.json.thread_id)).filter((e) => e.event_type === "tool_call_denied");
    assert.equal(denied.length, 4);
    assert.ok(denied.every((d) => /no capabilities/.test(d.payload.reason)));
    assert.equal(await exists(marker("nothing")), false);
    assert.deepEqual((await bench.record(run.json.thread_id)).capabilities, []);
  });
});

describe("parent and child", () => {
  before(async () => {
    await bench.write(
      "directive",
      "sec/tree/parent.md",
      directive({ name: "parent", category: "sec/tree", permissions: "<execute><tool>rye.agent.threads.thread_directive</tool><tool>sec.tools.safe.*</tool></execute>" }),
    );
    // The child asks for everything.
    await bench.write("directive", "sec/tree/child.md", directive({ name: "child", category: "sec/tree", permissions: "*" }));
  });

  test("a child asking for more than its parent gets the intersection; its tools see no runtime variables", async () => {
    bench.script({
      parent: (turn) =>
        turn === 0
          ? { toolCalls: [{ name: "rye_execute", input: { item_type: "tool", item_id: "rye/agent/threads/thread_directive", parameters: { directive_name: "sec/tree/child" } } }], usage: { input: 10, output: 5 } }
          : { text: "parent done", usage: { input: 10, output: 5 } },
      child: (turn) =>
        turn === 0
          ? { toolCalls: [touch("child"), { name: "rye_execute", input: { item_type: "tool", item_id: "sec/tools/safe/env", parameters: {} } }], usage: { input: 10, output: 5 } }
          : { text: "child done", usage: { input: 10, output: 5 } },
    });
    const run = await bench.rye(["thread", "run", "sec/tree/parent"]);
    assert.equal(run.json.status, "completed", run.stdout + run.stderr);
    const started = (await bench.events(run.json.thread_id)).find((e) => e.event_type === "child_thread_started");
    assert.ok(started, "the parent started a child");
    const childId = started.payload.child_thread_id as string;
    const child = await bench.record(childId);
    assert.equal(child.parent_thread_id, run.json.thread_id);
    assert.equal(child.status, "completed");
    assert.deepEqual(child.capabilities, ["rye.execute.tool.rye.agent.threads.thread_directive", "rye.execute.tool.sec.tools.safe.*", "rye.load.tool.rye.agent.threads.thread_directive", "rye.load.tool.sec.tools.safe.*", "rye.search.tool.rye.agent.threads.thread_directive", "rye.search.tool.sec.tools.safe.*"]);
    assert.equal(await exists(marker("child")), false, "the parent does not allow touch: the child may not either");
    const events = await bench.events(childId);
    assert.equal(events.filter((e) => e.event_type === "tool_call_denied").length, 1);
    const envResult = events.filter((e) => e.event_type === "tool_call_result").at(-1)!;
    assert.match(envResult.payload.output, /"parent": null/, "a tool run by a thread sees no RYE_THREAD_PARENT");
    assert.match(envResult.payload.output, /"worker": null/);
  });

  test("capability tokens: a parent record edited to claim everything widens nothing for its child", async () => {
    bench.script({
      parent: (turn) => {
        if (turn === 0) {
          // While the parent runs, its record is edited to claim every capability (as a tool writing files could).
          const dir = join(bench.ws.projectDir, ".ai", "threads");
          for (const id of readdirSync(dir)) {
            const path = join(dir, id, "thread.json");
            if (!existsSync(path)) continue;
            const record = JSON.parse(readFileSync(path, "utf8")) as { directive: string; status: string; capabilities: string[] };
            if (record.directive === "sec/tree/parent" && record.status === "running") writeFileSync(path, JSON.stringify({ ...record, capabilities: ["rye.*"] }));
          }
          return { toolCalls: [{ name: "rye_execute", input: { item_type: "tool", item_id: "rye/agent/threads/thread_directive", parameters: { directive_name: "sec/tree/child" } } }], usage: { input: 10, output: 5 } };
        }
        return { text: "parent done", usage: { input: 10, output: 5 } };
      },
      child: (turn) => (turn === 0 ? { toolCalls: [touch("widened")], usage: { input: 10, output: 5 } } : { text: "child done", usage: { input: 10, output: 5 } }),
    });
    const run = await bench.rye(["thread", "run", "sec/tree/parent"]);
    assert.equal(run.json.status, "completed", run.stdout + run.stderr);
    assert.deepEqual((await bench.record(run.json.thread_id)).capabilities, ["rye.*"], "the edit happened");
    const childId = (await bench.events(run.json.thread_id)).find((e) => e.event_type === "child_thread_started")!.payload.child_thread_id as string;
    const child = await bench.record(childId);
    assert.equal(child.status, "completed");
    assert.ok(!child.capabilities.includes("rye.*") && !child.capabilities.some((c: string) => c.includes("touch")), child.capabilities.join(", "));
    assert.equal(typeof child.capability_token, "string");
    assert.equal(await exists(marker("widened")), false, "the child could not touch: its token says what its parent's token allows");
  });

  test("capability tokens: a missing, forged, expired, wrong-audience or widened chain refuses the child, each with its code", async () => {
    bench.script({ parent: () => ({ hang: true }) });
    const before = bench.llm.requests.length;
    const started = await bench.rye(["thread", "run", "sec/tree/parent", "--async"]);
    const parentId = started.json.thread_id as string;
    try {
      // The parent is running (waiting for its first reply): contexts naming it get as far as the token check.
      for (let i = 0; i < 200 && !bench.llm.requests.slice(before).some((r) => requestInfo(r).directive === "parent"); i++) await new Promise((r) => setTimeout(r, 50));
      const record = await bench.record(parentId);
      assert.equal(record.status, "running", JSON.stringify({ started: started.json, record, stderr: started.stderr }));
      const { readParentContext } = await import("../../src/sdk/threads.ts");
      const { encodeToken, mintToken, pythonIsoUtc, signingPayload } = await import("../../src/threads/capability-token.ts");
      const { KeyStore } = await import("../../src/keys/keystore.ts");
      const { generateKeyPair, getEd25519, toBase64Url } = await import("@rye/core");
      const userKey = (await new KeyStore({ env: bench.env }).load())!;
      const context = (chain?: string[]) => JSON.stringify({ thread_id: parentId, project_path: bench.ws.projectDir, depth: record.depth, limits: record.limits, capabilities: ["rye.*"], ...(chain ? { token_chain: chain } : {}) });
      const refused = async (chain: string[] | undefined, code: string) =>
        assert.rejects(readParentContext({ ...bench.env, RYE_THREAD_PARENT: context(chain) }, bench.ws.projectDir), (e: { code: string }) => e.code === code, code);
      const soon = new Date(Date.now() + 3600_000);
      const mint = (caps: string[], key = userKey, extra: { audience?: string; expiresAt?: Date } = {}) =>
        mintToken({ caps, directiveId: "sec/tree/parent", threadId: parentId, expiresAt: extra.expiresAt ?? soon, ...(extra.audience ? { audience: extra.audience } : {}) }, key);

      await refused(undefined, "CAP_TOKEN_MISSING");
      await refused([encodeToken(await mint(["rye.*"], await generateKeyPair()))], "CAP_TOKEN_FORGED");
      const genuine = await mint(["rye.execute.tool.sec.tools.safe.*"]);
      await refused([encodeToken({ ...genuine, caps: ["rye.*"] })], "CAP_TOKEN_FORGED");
      await refused([encodeToken(await mint(["rye.*"], userKey, { expiresAt: new Date(Date.now() - 1000) }))], "CAP_TOKEN_EXPIRED");
      await refused([encodeToken(await mint(["rye.*"], userKey, { audience: "another-service" }))], "CAP_TOKEN_AUDIENCE");
      // A narrow root, then a link for the parent that grants more, even correctly signed, is refused.
      const root = { ...genuine, thread_id: "some-root", token_id: "root-token" };
      const sign = async (t: typeof genuine) => ({ ...t, signature: toBase64Url(await (await getEd25519()).sign(userKey.seed, signingPayload({ ...t, signature: null }))) });
      const widened = await sign({ ...genuine, token_id: "widened", parent_id: "root-token", caps: ["rye.*"], exp: pythonIsoUtc(soon) });
      await refused([encodeToken(await sign(root)), encodeToken(widened)], "CAP_TOKEN_WIDENED");
      // The genuine narrow chain passes: the capabilities are the token's, not the context's claim of rye.*.
      const ok = await readParentContext({ ...bench.env, RYE_THREAD_PARENT: context([encodeToken(genuine)]) }, bench.ws.projectDir);
      assert.deepEqual(ok?.capabilities, genuine.caps);
    } finally {
      await bench.rye(["thread", "kill", parentId, "--grace-ms", "200"]);
    }
  });

  test("forged parent context: in tool parameters it is refused, in the environment of a root thread it refuses the start", async () => {
    bench.script({
      parent: (turn) =>
        turn === 0
          ? {
              toolCalls: [
                {
                  name: "rye_execute",
                  input: { item_type: "tool", item_id: "rye/agent/threads/thread_directive", parameters: { directive_name: "sec/tree/child", parent_thread_id: "forged", parent_capabilities: ["rye.*"] } },
                },
              ],
              usage: { input: 10, output: 5 },
            }
          : { text: "parent done", usage: { input: 10, output: 5 } },
    });
    const run = await bench.rye(["thread", "run", "sec/tree/parent"]);
    assert.equal(run.json.status, "completed", run.stdout);
    const events = await bench.events(run.json.thread_id);
    assert.equal(events.filter((e) => e.event_type === "child_thread_started").length, 0, "no child was started");
    const result = events.find((e) => e.event_type === "tool_call_result")!;
    assert.equal(result.payload.error, true);
    assert.match(result.payload.output, /INPUT_INVALID|additional|parent_thread_id/);

    // A forged RYE_THREAD_PARENT reaches no thread through rye thread run (the executor drops it) …
    const forged = JSON.stringify({ thread_id: "nope-20260101t000000-000000", project_path: bench.ws.projectDir, depth: 9, limits: { spend: 100 }, capabilities: ["rye.*"] });
    bench.script({ child: () => ({ text: "root child", usage: { input: 1, output: 1 } }) });
    const root = await bench.rye(["thread", "run", "sec/tree/child"], { RYE_THREAD_PARENT: forged });
    assert.equal(root.json.status, "completed");
    assert.equal((await bench.record(root.json.thread_id)).parent_thread_id, null, "it ran as a root thread, its own capabilities only");
    // … and a thread process given one directly refuses to start.
    const { readParentContext } = await import("../../src/sdk/threads.ts");
    await assert.rejects(readParentContext({ RYE_THREAD_PARENT: forged }, bench.ws.projectDir), (e: { code: string; message: string }) => e.code === "FORBIDDEN" && /no thread nope/.test(e.message));
  });
});

describe("the runtime's own files", () => {
  async function systemCopy(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "rye-system-"));
    await cp(join(THREADS_DIR, "..", "..", "..", ".."), dir, { recursive: true });
    return dir;
  }

  test("a tampered loop, harness, config or provider file refuses to start the thread", async () => {
    bench.script({ limited: () => ({ text: "should never run", usage: { input: 1, output: 1 } }) });
    for (const rel of ["tools/rye/agent/threads/runner.mjs", "tools/rye/agent/threads/harness.mjs", "tools/rye/agent/threads/config/resilience.yaml", "tools/rye/agent/providers/anthropic.yaml"]) {
      const system = await systemCopy();
      const path = join(system, rel);
      await writeFile(path, (await readFile(path, "utf8")).replace(/\n\n/, "\n\n// tampered\n".replace("//", rel.endsWith(".yaml") ? "#" : "//")));
      const before = bench.llm.requests.length;
      const run = await bench.rye(["thread", "run", "sec/deny/limited"], { RYE_SYSTEM_SPACE: system });
      assert.notEqual(run.code, 0, rel);
      assert.match(run.stdout, /INTEGRITY_MISMATCH/, `${rel}: ${run.stdout.slice(0, 400)}`);
      assert.equal(bench.llm.requests.length, before, `${rel}: no LLM call was made`);
      await rm(system, { recursive: true, force: true });
    }
  });

  test("a project overrides one runtime file when its owner signs it; unsigned it is refused", async () => {
    const original = await readFile(join(THREADS_DIR, "prompt.mjs"), "utf8");
    const changed = original
      .replace(/^\/\/ rye:signed:.*\n/, "")
      .replace("export function firstMessage({ directive, itemId, inputs, context, directiveKey }) {\n  const parts = [];", "export function firstMessage({ directive, itemId, inputs, context, directiveKey }) {\n  const parts = [\"PROJECT PROMPT OVERRIDE\"];");
    assert.notEqual(changed, original.replace(/^\/\/ rye:signed:.*\n/, ""), "the override changes the function");
    const path = join(bench.ws.projectDir, ".ai/tools/rye/agent/threads/prompt.mjs");
    bench.script({ limited: () => ({ text: "ok", usage: { input: 1, output: 1 } }) });

    await bench.write("tool", "rye/agent/threads/prompt.mjs", changed);
    const signed = await bench.rye(["thread", "run", "sec/deny/limited"]);
    assert.equal(signed.json.status, "completed", signed.stdout);
    assert.match(JSON.stringify(bench.llm.requests.at(-1)!.body.messages[0]), /PROJECT PROMPT OVERRIDE/);

    await writeFile(path, changed);
    const unsigned = await bench.rye(["thread", "run", "sec/deny/limited"]);
    assert.notEqual(unsigned.code, 0);
    assert.match(unsigned.stdout, /UNSIGNED/);
    await writeFile(path, (await signItem(changed, "tool", await (async () => (await import("@rye/core")).generateKeyPair())())).content);
    const stranger = await bench.rye(["thread", "run", "sec/deny/limited"]);
    assert.match(stranger.stdout, /UNTRUSTED_KEY/, "signed by a key the project owner does not trust");
    await rm(path);
  });

  test("a configuration override must be signed too", async () => {
    const path = join(bench.ws.projectDir, ".ai/config/resilience.yaml");
    await import("node:fs/promises").then((fs) => fs.mkdir(join(bench.ws.projectDir, ".ai/config"), { recursive: true }));
    const override = `version: "1.0.0"\ntool_type: config\nexecutor_id: null\ncategory: config\ndescription: "fewer turns"\nlimits:\n  defaults:\n    turns: 1\n`;
    await writeFile(path, override);
    bench.script({ limited: (turn) => (turn === 0 ? { toolCalls: [{ name: "rye_load", input: { item_type: "knowledge", item_id: "sec/notes/n" } }], usage: { input: 1, output: 1 } } : { text: "two turns", usage: { input: 1, output: 1 } }) });
    const unsigned = await bench.rye(["thread", "run", "sec/deny/limited"]);
    assert.match(unsigned.stdout, /UNSIGNED/, unsigned.stdout);
    await writeFile(path, (await signItem(override, "tool", bench.ws.key)).content);
    const signed = await bench.rye(["thread", "run", "sec/deny/limited"]);
    assert.equal(signed.json.status, "error");
    assert.equal(signed.json.error_code, "turns_exceeded", "the signed override lowered the turn limit to 1");
    await rm(path);
  });
});
