/**
 * Agent threads end to end: a real `rye thread run` (and `rye mcp` driven by the MCP SDK client) runs a directive
 * that searches, loads a knowledge item and executes a tool, against a local server speaking the provider's real
 * wire protocol (Anthropic Messages, streamed; OpenAI Chat Completions). The transcript shows every step, the spend
 * matches the pricing table, and the key never reaches a file.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { RYE_BIN } from "../cli.ts";
import type { ThreadBench } from "../threads.ts";
import { directive, knowledge, requestInfo, returnsTool, threadBench } from "../threads.ts";

const WORDS_SCHEMA = `{ type: "object", properties: { text: { type: "string" } }, required: ["text"] }`;

async function setUp(bench: ThreadBench): Promise<void> {
  await bench.write("knowledge", "demo/notes/facts.md", knowledge("facts", "demo/notes", "The answer to the question is 42."));
  await bench.write("tool", "demo/tools/words.mjs", returnsTool("demo/tools", "{ words: p.text.split(/\\s+/).filter(Boolean).length }", WORDS_SCHEMA));
  await bench.write(
    "directive",
    "demo/research/summarize.md",
    directive({
      name: "summarize",
      category: "demo/research",
      permissions: "<search>knowledge</search><load><knowledge>demo.*</knowledge></load><execute><tool>demo.tools.*</tool></execute>",
      inputs: `<input name="topic" type="string" required="true">what to research</input>`,
      steps: `<step name="find">Search the knowledge for {input:topic}, load the best item, count the words of your answer with demo/tools/words.</step>`,
    }),
  );
  bench.script({
    summarize: (turn) =>
      [
        { toolCalls: [{ name: "rye_search", input: { item_type: "knowledge", query: "answer" } }], usage: { input: 1000, output: 100 } },
        { toolCalls: [{ name: "rye_load", input: { item_type: "knowledge", item_id: "demo/notes/facts" } }], usage: { input: 1500, output: 100 } },
        { toolCalls: [{ name: "rye_execute", input: { item_type: "tool", item_id: "demo/tools/words", parameters: { text: "the answer is 42" } } }], usage: { input: 2000, output: 120 } },
        { text: "The answer is 42; that sentence has 4 words.", usage: { input: 2500, output: 50 } },
      ][turn] ?? { text: "extra turn", usage: { input: 1, output: 1 } },
  });
}

let anthropic: ThreadBench;
let openai: ThreadBench;
before(async () => {
  anthropic = await threadBench("anthropic");
  openai = await threadBench("openai");
  await setUp(anthropic);
  await setUp(openai);
});
after(async () => {
  await anthropic?.close();
  await openai?.close();
});

/** USD per million tokens of the tier the directive uses (read from the shipped provider file). */
async function price(provider: "anthropic" | "openai"): Promise<{ model: string; input: number; output: number }> {
  const { parse } = await import("yaml");
  const config = parse(await readFile(new URL(`../../../../.ai/tools/rye/agent/providers/${provider}.yaml`, import.meta.url), "utf8")) as any;
  const model = config.tier_mapping.general as string;
  return { model, ...config.pricing[model] };
}

async function checkRun(bench: ThreadBench, provider: "anthropic" | "openai", result: Record<string, any>): Promise<void> {
  assert.equal(result.status, "completed", JSON.stringify(result));
  assert.equal(result.result, "The answer is 42; that sentence has 4 words.");
  assert.equal(result.provider, provider);
  const p = await price(provider);
  assert.equal(result.model, p.model);
  assert.deepEqual({ turns: result.cost.turns, input: result.cost.input_tokens, output: result.cost.output_tokens }, { turns: 4, input: 7000, output: 370 });
  const expected = (7000 * p.input + 370 * p.output) / 1e6;
  assert.ok(Math.abs(result.cost.spend - expected) < 1e-9, `spend ${result.cost.spend} = ${expected} from the pricing table`);
  assert.equal(result.cost.spend.toFixed(2), expected.toFixed(2), "to the cent");

  // What the model was given back: the search hit, the knowledge, the tool's result.
  const requests = bench.llm.requests.filter((r) => requestInfo(r).directive === "summarize").slice(-4);
  assert.ok(requests.every((r) => r.authorized), "every call carried the key in its header");
  const results = requestInfo(requests[3]!).toolResults;
  assert.match(results[0]!, /demo\/notes\/facts/);
  assert.match(results[1]!, /The answer to the question is 42/);
  assert.match(results[2]!, /"words": 4/);

  // The transcript: every step, in order; the record; the ledger; no key anywhere.
  const events = await bench.events(result.thread_id);
  const kinds = events.map((e) => e.event_type).filter((k) => k !== "cognition_out_delta");
  assert.deepEqual(kinds, [
    "thread_started",
    "cognition_in",
    // An executed tool passed the security gate: its decision is recorded before the result.
    ...["rye_search", "rye_load", "rye_execute"].flatMap((tool) => ["cognition_out", "tool_call_start", ...(tool === "rye_execute" ? ["security_decision"] : []), "tool_call_result"]),
    "cognition_out",
    "thread_completed",
  ]);
  assert.deepEqual(events.filter((e) => e.event_type === "tool_call_start").map((e) => e.payload.tool), ["rye_search", "rye_load", "rye_execute"]);
  assert.ok(events.filter((e) => e.event_type === "tool_call_result").every((e) => e.payload.error === false));
  const record = await bench.record(result.thread_id);
  assert.equal(record.status, "completed");
  assert.equal(record.cost.turns, 4);
  assert.deepEqual(record.capabilities, ["rye.search.knowledge", "rye.load.knowledge.demo.*", "rye.execute.tool.demo.tools.*"]);
  const ledger = JSON.parse(await readFile(join(bench.ws.projectDir, ".ai/threads/ledger.json"), "utf8"));
  assert.equal(ledger.entries[result.thread_id].status, "released");
  assert.ok(Math.abs(ledger.entries[result.thread_id].actual_spend - expected) < 1e-9);
  const dir = join(bench.ws.projectDir, ".ai/threads", result.thread_id);
  for (const file of await readdir(dir)) {
    if (file.startsWith(".")) continue;
    assert.doesNotMatch(await readFile(join(dir, file), "utf8"), new RegExp(String(bench.llm.apiKey)), `${file} does not contain the API key`);
  }
  assert.match(await readFile(join(dir, "transcript.md"), "utf8"), /rye_execute/);
}

describe("a thread searches, loads knowledge and executes a tool", () => {
  test("rye thread run against the Anthropic Messages API (streamed)", async () => {
    const run = await anthropic.rye(["thread", "run", "demo/research/summarize", "--input", "topic=the answer"]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    await checkRun(anthropic, "anthropic", run.json);
    const requests = anthropic.llm.requests.slice(-4);
    if (requests[0]!.stream) {
      const deltas = (await anthropic.events(run.json.thread_id)).filter((e) => e.event_type === "cognition_out_delta");
      assert.equal(deltas.map((d) => d.payload.text).join(""), "The answer is 42; that sentence has 4 words.", "the streamed text arrives as deltas");
    }
    const first = requests[0]!.body;
    assert.ok(Array.isArray(first.tools) && first.tools.map((t: any) => t.name).sort().join() === "rye_execute,rye_load,rye_search,rye_sign");
    assert.match(JSON.stringify(first.messages[0]), /the answer/, "the input reached the first message");
  });

  test("rye thread run against the OpenAI Chat Completions API", async () => {
    const run = await openai.rye(["thread", "run", "demo/research/summarize", "--input", "topic=the answer"]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    await checkRun(openai, "openai", run.json);
  });

  test("MCP execute of rye/agent/threads/thread_directive runs the same thread", async () => {
    const client = new Client({ name: "rye-threads", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [RYE_BIN, "mcp"], cwd: anthropic.ws.projectDir, env: anthropic.env, stderr: "pipe" }));
    try {
      const answer = (await client.callTool({
        name: "execute",
        arguments: { item_type: "tool", item_id: "rye/agent/threads/thread_directive", parameters: { directive_name: "demo/research/summarize", inputs: { topic: "the answer" } } },
      })) as { isError?: boolean; content: { text: string }[] };
      const body = JSON.parse(answer.content[0]!.text);
      assert.ok(!answer.isError, answer.content[0]!.text);
      await checkRun(anthropic, "anthropic", body.data);
    } finally {
      await client.close();
    }
  });

  test("--async returns at once; list, status and tail follow the thread to its end", async () => {
    const started = await anthropic.rye(["thread", "run", "demo/research/summarize", "--input", "topic=x", "--async"]);
    assert.equal(started.code, 0, started.stdout + started.stderr);
    assert.equal(started.json.status, "running");
    const id = started.json.thread_id as string;
    const tail = await anthropic.rye(["thread", "tail", id, "--follow"]);
    assert.equal(tail.code, 0, tail.stderr);
    const status = await anthropic.rye(["thread", "status", id]);
    assert.equal(status.json.thread.status, "completed", status.stdout);
    assert.equal(status.json.ledger.status, "released");
    const list = await anthropic.rye(["thread", "list"]);
    assert.ok(JSON.stringify(list.json).includes(id));
  });
});
