/**
 * The LLM call's failure modes in real threads (rye thread run → thread process → a local server speaking the
 * provider's wire protocol): a 429 waits what Retry-After says, a 500 and a stream dropped in the middle are
 * retried with the classification's policy, a malformed reply and a wrong key stop the thread at once with their
 * codes, and retries end at `max_retries`. Delays come from a signed project override of the classification
 * (lists merge by id), so the test does not sleep for the shipped 2 s, 4 s, 8 s.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { signItem } from "@rye/core";
import type { Reply } from "../fake-llm.ts";
import type { ThreadBench } from "../threads.ts";
import { directive, threadBench } from "../threads.ts";

const FAST_RETRIES = `version: "1.0.0"
tool_type: config
executor_id: null
category: config
description: "short retry delays for tests"
patterns:
  - id: http_5xx
    retry_policy: { type: exponential, base: 0.05, max: 1.0 }
  - id: network
    retry_policy: { type: exponential, base: 0.05, max: 1.0 }
`;

/** Replies served in order, whatever the turn (retries repeat a turn); then a final text. */
function sequence(bench: ThreadBench, replies: Reply[]): void {
  let n = 0;
  bench.script({ steady: () => replies[n++] ?? { text: "finally", usage: { input: 100, output: 20 } } });
}

async function setUp(bench: ThreadBench): Promise<void> {
  await bench.write("directive", "res/try/steady.md", directive({ name: "steady", category: "res/try", permissions: "<search>knowledge</search>" }));
  await mkdir(join(bench.ws.projectDir, ".ai/config"), { recursive: true });
  await writeFile(join(bench.ws.projectDir, ".ai/config/error_classification.yaml"), (await signItem(FAST_RETRIES, "tool", bench.ws.key)).content);
}

const kinds = (events: { event_type: string; payload: Record<string, any> }[], type: string) => events.filter((e) => e.event_type === type).map((e) => e.payload);

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

describe("retryable failures are retried, each with its policy", () => {
  test("Anthropic (streamed): 429 with Retry-After, 500, a dropped stream, then the reply", async () => {
    sequence(anthropic, [{ status: 429, retryAfter: 1 }, { status: 500 }, { drop: true, text: "half a sent" }]);
    const before = anthropic.llm.requests.length;
    const run = await anthropic.rye(["thread", "run", "res/try/steady"]);
    assert.equal(run.json.status, "completed", run.stdout + run.stderr);
    assert.equal(run.json.result, "finally");
    assert.equal(anthropic.llm.requests.length - before, 4, "three failures, one success");
    assert.equal(run.json.cost.turns, 1, "retries do not use turns");

    const events = await anthropic.events(run.json.thread_id);
    assert.deepEqual(kinds(events, "error_classified").map((p) => [p.category, p.status_code]), [["rate_limited", 429], ["transient", 500], ["transient", null]]);
    const retries = kinds(events, "llm_retry");
    assert.deepEqual(retries.map((p) => p.attempt), [1, 2, 3]);
    assert.equal(retries[0]!.delay_ms, 1000, "the 429 waits what Retry-After says");
    assert.equal(retries[1]!.delay_ms, 100, "the 500 waits the override's exponential policy (0.05 · 2¹ s)");
    assert.equal(retries[2]!.delay_ms, 200, "the dropped stream: 0.05 · 2² s");
    const times = anthropic.llm.requests.slice(before).map((r) => r.at);
    assert.ok(times[1]! - times[0]! >= 950, `the second request came ${times[1]! - times[0]!} ms after the 429`);
    // Only the reply that arrived is paid for: 100 input + 20 output tokens at the general tier's prices.
    assert.equal(run.json.cost.input_tokens, 100);
    assert.equal(run.json.cost.output_tokens, 20);
  });

  test("retries end at max_retries (3): four 500s stop the thread with llm_http_5xx", async () => {
    sequence(anthropic, [{ status: 500 }, { status: 503 }, { status: 502 }, { status: 500 }, { text: "never reached", usage: { input: 1, output: 1 } }]);
    const before = anthropic.llm.requests.length;
    const run = await anthropic.rye(["thread", "run", "res/try/steady"]);
    assert.equal(run.json.status, "error", run.stdout);
    assert.equal(run.json.error_code, "llm_http_5xx");
    assert.equal(anthropic.llm.requests.length - before, 4, "one call and three retries");
    const record = await anthropic.record(run.json.thread_id);
    assert.equal(record.status, "error");
  });
});

describe("permanent failures stop the thread at once", () => {
  test("OpenAI: a 429 is retried, then a malformed reply stops the thread with llm_malformed_response", async () => {
    sequence(openai, [{ status: 429, retryAfter: 0 }, { malformed: true }, { text: "never reached", usage: { input: 1, output: 1 } }]);
    const before = openai.llm.requests.length;
    const run = await openai.rye(["thread", "run", "res/try/steady"]);
    assert.equal(run.json.status, "error", run.stdout);
    assert.equal(run.json.error_code, "llm_malformed_response");
    assert.equal(openai.llm.requests.length - before, 2, "no retry after the malformed reply");
    const events = await openai.events(run.json.thread_id);
    assert.deepEqual(kinds(events, "error_classified").map((p) => p.category), ["rate_limited", "permanent"]);
  });

  test("a wrong API key: 401 is permanent (llm_auth_failure) and the key never reaches the thread's files", async () => {
    sequence(openai, [{ text: "never reached", usage: { input: 1, output: 1 } }]);
    const before = openai.llm.requests.length;
    const run = await openai.rye(["thread", "run", "res/try/steady"], { OPENAI_API_KEY: "sk-wrong-key-0123456789" });
    assert.equal(run.json.status, "error", run.stdout);
    assert.equal(run.json.error_code, "llm_auth_failure");
    assert.equal(openai.llm.requests.length - before, 1);
    const { readFile } = await import("node:fs/promises");
    const dir = join(openai.ws.projectDir, ".ai/threads", run.json.thread_id);
    for (const file of ["thread.json", "transcript.jsonl", "transcript.md"]) {
      assert.ok(!(await readFile(join(dir, file), "utf8")).includes("sk-wrong-key-0123456789"), `${file} holds no key`);
    }
    assert.ok(!run.stdout.includes("sk-wrong-key") && !run.stderr.includes("sk-wrong-key"));
  });
});
