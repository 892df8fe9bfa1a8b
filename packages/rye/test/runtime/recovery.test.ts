/** What a durable thread continued after its worker died takes from its transcript (runner.mjs). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { costFromTranscript, finalAnswerOf } from "../../../../.ai/tools/rye/agent/threads/runner.mjs";

const ev = (event_type: string, payload: Record<string, unknown>) => ({ event_type, payload });

describe("recovery from a transcript", () => {
  it("counts the model's recorded replies (replayed ones excluded) as the turns, tokens and spend done", () => {
    const events = [
      ev("cognition_in", { text: "task" }),
      ev("cognition_out", { text: "old", usage: { input: 999, output: 999 }, spend: 9, replayed: true }),
      ev("cognition_out", { text: "", tool_calls: 1, usage: { input: 10, output: 5 }, spend: 0.1 }),
      ev("tool_call_start", { call_id: "a", tool: "rye_search", input: {} }),
      ev("tool_call_result", { call_id: "a", output: "{}", error: false }),
      ev("cognition_out", { text: "", tool_calls: 1, usage: { input: 20, output: 5 }, spend: 0.2 }),
    ];
    assert.deepEqual(costFromTranscript(events), { turns: 2, input_tokens: 30, output_tokens: 10, spend: 0.3, elapsed_seconds: 0 });
  });

  it("a final answer is a last reply without tool calls; anything after it or a reply asking for tools is not", () => {
    const answer = ev("cognition_out", { text: "the answer", tool_calls: 0, stop_reason: "end" });
    assert.equal(finalAnswerOf([ev("cognition_in", { text: "t" }), answer, ev("hook_fired", {})]), "the answer");
    assert.equal(finalAnswerOf([ev("cognition_in", { text: "t" }), ev("cognition_out", { text: "", tool_calls: 2, stop_reason: "tools" })]), undefined);
    assert.equal(finalAnswerOf([answer, ev("tool_call_start", { call_id: "x" })]), undefined);
    assert.equal(finalAnswerOf([ev("cognition_in", { text: "t" })]), undefined);
    assert.equal(finalAnswerOf([ev("cognition_out", { text: "replayed", tool_calls: 0, replayed: true })]), undefined);
    assert.equal(finalAnswerOf([ev("cognition_out", { text: "older transcript", stop_reason: "end" })]), "older transcript", "without tool_calls, the stop reason decides");
  });
});
