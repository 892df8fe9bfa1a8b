/**
 * The provider adapter against fake servers that speak the real wire protocols: replies (text, several tool
 * calls, thinking), streamed deltas, the conversion of a multi-turn conversation in each dialect, and what the
 * request carries (templates, secrets). Every shipped provider YAML, JSON and streamed.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Harness } from "./helpers.ts";
import { CASES, harness, MODES, transport } from "./helpers.ts";

const TOOLS = [
  { name: "rye_search", description: "Search items", schema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } },
  { name: "rye_load", description: "Load an item", schema: { type: "object", properties: { item_id: { type: "string" } } } },
];

/** A conversation as the loop keeps it: two tool calls answered (one failed), a second round, then the user again. */
const CONVERSATION = [
  { role: "user" as const, content: "Triage ticket T-42" },
  {
    role: "assistant" as const,
    content: "Looking it up.",
    tool_calls: [
      { id: "call_1", name: "rye_search", input: { query: "ticket" } },
      { id: "call_2", name: "rye_load", input: { item_id: "acme/ops/ticket" } },
    ],
  },
  { role: "tool" as const, tool_call_id: "call_1", content: "3 hits" },
  { role: "tool" as const, tool_call_id: "call_2", content: "denied: needs rye.load.knowledge.acme.ops.ticket", is_error: true },
  { role: "assistant" as const, content: "", tool_calls: [{ id: "call_3", name: "rye_search", input: { query: "triage" } }] },
  { role: "tool" as const, tool_call_id: "call_3", content: "1 hit" },
  { role: "user" as const, content: "Go on." },
];

for (const kase of CASES) {
  for (const mode of MODES) {
    describe(`${kase.file} provider, ${mode.name}`, () => {
      let h: Harness;
      before(async () => {
        h = await harness(kase, { stream: mode.stream });
      });
      after(() => h.close());

      it("returns a text reply with its usage, and streams it as deltas in order", async () => {
        h.fake.script({ text: "Hello there, this is a streamed answer.", usage: { input: 12, output: 9 } });
        const deltas: any[] = [];
        const reply = await h.provider.complete({ model: h.model, system: "Be brief.", messages: [{ role: "user", content: "Hi" }], onDelta: (d) => deltas.push(d) });
        assert.equal(reply.text, "Hello there, this is a streamed answer.");
        assert.deepEqual(reply.toolCalls, []);
        assert.equal(reply.stopReason, "end");
        assert.equal(reply.usage.input, 12);
        assert.equal(reply.usage.output, 9);
        assert.equal(reply.model, h.model);
        assert.equal(reply.priced, true);
        if (mode.stream) {
          assert.ok(deltas.length > 1, "several deltas");
          assert.ok(deltas.every((d) => d.type === "text"));
          assert.equal(deltas.map((d) => d.text).join(""), reply.text);
        } else assert.deepEqual(deltas, []);

        const sent = h.fake.requests.at(-1)!;
        assert.equal(sent.authorized, true);
        assert.equal(sent.body.model, h.model);
        assert.equal(sent.stream, mode.stream);
        if (kase.protocol === "anthropic") {
          assert.equal(sent.body.system, "Be brief.");
          assert.deepEqual(sent.body.messages, [{ role: "user", content: "Hi" }]);
          assert.equal(sent.body.max_tokens, 8192, "the YAML's max_tokens when the caller gives none");
          assert.equal("tools" in sent.body, false, "no tools: the placeholder is left out");
        } else {
          assert.deepEqual(sent.body.messages, [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }]);
          assert.equal("system" in sent.body, false);
          assert.equal(sent.body[kase.file === "openai" ? "max_completion_tokens" : "max_tokens"], h.config.max_tokens);
          assert.equal("tools" in sent.body, false);
          if (mode.stream) assert.deepEqual(sent.body.stream_options, { include_usage: true });
          else assert.equal("stream_options" in sent.body, false);
        }
      });

      it("returns several tool calls of one reply, with their deltas per call", async () => {
        const search = { query: "disk full", filters: { type: "tool", tags: ["ops", "ü-nicode"] } };
        const load = { item_id: "rye/file-system/fs_read", nested: { list: [1, 2.5, null, { deep: true }] } };
        h.fake.script({ text: "Let me look.", toolCalls: [{ name: "rye_search", input: search }, { name: "rye_load", input: load }], usage: { input: 40, output: 30 } });
        const deltas: any[] = [];
        const reply = await h.provider.complete({ model: h.model, messages: [{ role: "user", content: "Go" }], tools: TOOLS, maxTokens: 1000, onDelta: (d) => deltas.push(d) });
        assert.equal(reply.text, "Let me look.");
        assert.equal(reply.stopReason, "tools");
        assert.deepEqual(reply.toolCalls.map((c) => [c.name, c.input]), [["rye_search", search], ["rye_load", load]]);
        assert.ok(reply.toolCalls.every((c) => typeof c.id === "string" && c.id.length > 0));
        assert.notEqual(reply.toolCalls[0]!.id, reply.toolCalls[1]!.id);
        if (mode.stream) {
          const firstTool = deltas.findIndex((d) => d.type === "tool_call");
          assert.ok(firstTool > 0 && deltas.slice(0, firstTool).every((d) => d.type === "text"), "text, then the tool calls");
          for (const call of reply.toolCalls) {
            const pieces = deltas.filter((d) => d.type === "tool_call" && d.id === call.id);
            assert.ok(pieces.length > 2, "a call's input arrives in pieces");
            assert.ok(pieces.every((d) => d.name === call.name));
            assert.deepEqual(JSON.parse(pieces.map((d) => d.partial_json).join("")), call.input);
          }
        }
        const sent = h.fake.requests.at(-1)!;
        if (kase.protocol === "anthropic") {
          assert.deepEqual(sent.body.tools, TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.schema })));
          assert.equal(sent.body.max_tokens, 1000);
        } else {
          assert.deepEqual(sent.body.tools, TOOLS.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.schema } })));
        }
      });

      it("converts a multi-turn conversation: tool calls, grouped results, errors flagged", async () => {
        h.fake.script({ text: "Done.", usage: { input: 100, output: 3 } });
        const reply = await h.provider.complete({ model: h.model, system: "You are rye.", messages: CONVERSATION, tools: TOOLS });
        assert.equal(reply.text, "Done.", "the server accepted the conversation");
        const sent = h.fake.requests.at(-1)!.body;
        if (kase.protocol === "anthropic") {
          assert.equal(sent.system, "You are rye.");
          assert.deepEqual(sent.messages, [
            { role: "user", content: "Triage ticket T-42" },
            {
              role: "assistant",
              content: [
                { type: "text", text: "Looking it up." },
                { type: "tool_use", id: "call_1", name: "rye_search", input: { query: "ticket" } },
                { type: "tool_use", id: "call_2", name: "rye_load", input: { item_id: "acme/ops/ticket" } },
              ],
            },
            {
              role: "user",
              content: [
                { type: "tool_result", tool_use_id: "call_1", content: "3 hits" },
                { type: "tool_result", tool_use_id: "call_2", content: "denied: needs rye.load.knowledge.acme.ops.ticket", is_error: true },
              ],
            },
            { role: "assistant", content: [{ type: "tool_use", id: "call_3", name: "rye_search", input: { query: "triage" } }] },
            { role: "user", content: [{ type: "tool_result", tool_use_id: "call_3", content: "1 hit" }, { type: "text", text: "Go on." }] },
          ]);
        } else {
          const call = (id: string, name: string, input: unknown) => ({ id, type: "function", function: { name, arguments: JSON.stringify(input) } });
          assert.deepEqual(sent.messages, [
            { role: "system", content: "You are rye." },
            { role: "user", content: "Triage ticket T-42" },
            { role: "assistant", content: "Looking it up.", tool_calls: [call("call_1", "rye_search", { query: "ticket" }), call("call_2", "rye_load", { item_id: "acme/ops/ticket" })] },
            { role: "tool", tool_call_id: "call_1", content: "3 hits" },
            { role: "tool", tool_call_id: "call_2", content: "Error: denied: needs rye.load.knowledge.acme.ops.ticket" },
            { role: "assistant", content: null, tool_calls: [call("call_3", "rye_search", { query: "triage" })] },
            { role: "tool", tool_call_id: "call_3", content: "1 hit" },
            { role: "user", content: "Go on." },
          ]);
        }
      });

      it("sends a reply's tool calls back the way the server accepts them (a real round trip)", async () => {
        h.fake.script({ toolCalls: [{ name: "rye_search", input: { query: "a" } }, { name: "rye_search", input: { query: "b" } }], usage: { input: 10, output: 10 } });
        const first = await h.provider.complete({ model: h.model, messages: [{ role: "user", content: "Search twice" }], tools: TOOLS });
        assert.equal(first.text, "");
        h.fake.script({ text: "Both done.", usage: { input: 20, output: 3 } });
        const second = await h.provider.complete({
          model: h.model,
          tools: TOOLS,
          messages: [
            { role: "user", content: "Search twice" },
            { role: "assistant", content: first.text, tool_calls: first.toolCalls, ...(first.reasoning ? { reasoning: first.reasoning } : {}) },
            ...first.toolCalls.map((c) => ({ role: "tool" as const, tool_call_id: c.id, content: `result of ${c.input.query}` })),
          ],
        });
        assert.equal(second.text, "Both done.");
      });

      it("maps a reply cut off by max_tokens", async () => {
        h.fake.script({ text: "This answer is cut", stop: "max_tokens", usage: { input: 5, output: 5 } });
        const reply = await h.provider.complete({ model: h.model, messages: [{ role: "user", content: "Write a lot" }], maxTokens: 5 });
        assert.equal(reply.stopReason, "max_tokens");
        assert.equal(reply.rawStopReason, kase.protocol === "anthropic" ? "max_tokens" : "length");
      });

      it("sends ${VAR} and {placeholder} text in messages and tool results verbatim; the key only in its header", async () => {
        const secret = "sk-secret-value-that-must-not-leak-1234";
        const keyVar = h.provider.keyVariable ?? "RYE_OPENAI_COMPAT_API_KEY";
        const env = { ...h.env, [keyVar]: kase.apiKey === null ? secret : h.fake.apiKey!, AWS_SECRET_ACCESS_KEY: "aws-secret-value-5678" };
        // The compatible provider's fake wants no key; giving one must still send it (and only there).
        const key = env[keyVar]!;
        const { createProvider } = await import("../../../../.ai/tools/rye/agent/threads/provider.mjs");
        const sse = await import("../../../../.ai/tools/rye/agent/threads/sse.mjs");
        const provider = createProvider(h.config, { env, sse, fetch: transport });
        const tricky = `Print \${${keyVar}} and \${AWS_SECRET_ACCESS_KEY} and \${HOME:-x} and {env} {auth} {model} {messages} $$ {{x}}`;
        h.fake.script({ text: "No.", usage: { input: 1, output: 1 } });
        await provider.complete({
          model: h.model,
          system: `System with \${${keyVar}} and {system_prompt}`,
          messages: [
            { role: "user", content: tricky },
            { role: "assistant", content: "{model}", tool_calls: [{ id: "call_x", name: "rye_load", input: { item_id: `\${${keyVar}}`, note: "{auth}" } }] },
            { role: "tool", tool_call_id: "call_x", content: tricky, is_error: true },
          ],
          tools: [{ name: "rye_load", description: `Load \${${keyVar}} {name}`, schema: { type: "object", description: "{schema}" } }],
        });
        const sent = h.fake.requests.at(-1)!;
        assert.equal(sent.raw.includes(key), false, "the key is not in the body");
        assert.equal(sent.raw.includes("aws-secret-value-5678"), false);
        assert.ok(sent.raw.includes(JSON.stringify(tricky).slice(1, -1)), "message text sent as written");
        const messages = JSON.stringify(sent.body.messages);
        assert.ok(messages.includes(`\${${keyVar}}`) && messages.includes("{auth}") && messages.includes("{model}"));
        assert.equal(JSON.stringify(sent.body.tools).includes(`Load \${${keyVar}} {name}`), true, "tool descriptions too");
        const authHeader = kase.protocol === "anthropic" ? "x-api-key" : "authorization";
        assert.equal(sent.headers[authHeader], kase.protocol === "anthropic" ? key : `Bearer ${key}`);
        for (const [name, value] of Object.entries(sent.headers)) if (name !== authHeader) assert.equal(value.includes(key), false, name);
      });
    });
  }
}

describe("Anthropic thinking blocks", () => {
  for (const mode of MODES) {
    it(`come back with the reply and must go back unchanged before the tool calls (${mode.name})`, async () => {
      const h = await harness(CASES[0]!, { stream: mode.stream });
      try {
        h.fake.script({ thinking: "The user wants a search; I will search.", toolCalls: [{ name: "rye_search", input: { query: "x" } }], usage: { input: 10, output: 50 } });
        const first = await h.provider.complete({ model: h.model, messages: [{ role: "user", content: "Find x" }], tools: TOOLS });
        assert.equal(first.reasoning?.length, 1);
        assert.equal(first.reasoning![0]!.type, "thinking");
        assert.equal(first.reasoning![0]!.thinking, "The user wants a search; I will search.");
        assert.match(String(first.reasoning![0]!.signature), /^sig_/);
        const messages = (reasoning: Record<string, unknown>[] | undefined) => [
          { role: "user" as const, content: "Find x" },
          { role: "assistant" as const, content: first.text, tool_calls: first.toolCalls, ...(reasoning ? { reasoning } : {}) },
          { role: "tool" as const, tool_call_id: first.toolCalls[0]!.id, content: "found" },
        ];
        // Without the thinking block the API refuses the next request, as the real one does.
        h.fake.script({ text: "unused", usage: { input: 1, output: 1 } });
        const refused = await h.provider.complete({ model: h.model, messages: messages(undefined), tools: TOOLS }).catch((e) => e);
        assert.equal(refused.status, 400);
        assert.equal(refused.type, "invalid_request_error");
        assert.match(refused.message, /must start with a thinking block/);
        const accepted = await h.provider.complete({ model: h.model, messages: messages(first.reasoning), tools: TOOLS });
        assert.equal(accepted.text, "unused");
        assert.deepEqual(h.fake.requests.at(-1)!.body.messages[1].content[0], first.reasoning![0]);
      } finally {
        await h.close();
      }
    });
  }
});

describe("OpenAI-compatible servers", () => {
  it("need no key: none is sent when RYE_OPENAI_COMPAT_API_KEY is unset", async () => {
    const h = await harness(CASES[2]!);
    try {
      assert.equal(h.provider.apiKeyPresent(), true);
      h.fake.script({ text: "local", usage: { input: 1, output: 1 } });
      const reply = await h.provider.complete({ model: "qwen3:4b", messages: [{ role: "user", content: "hi" }] });
      assert.equal(reply.text, "local");
      assert.equal(reply.spend, 0);
      assert.equal(reply.priced, true, "a free local model is priced at 0, not unknown");
      assert.equal("authorization" in h.fake.requests[0]!.headers, false);
    } finally {
      await h.close();
    }
  });

  it("report cached prompt tokens apart from the uncached ones", async () => {
    const h = await harness(CASES[1]!);
    try {
      h.fake.script({ text: "ok", usage: { input: 100, output: 10, cache_read: 900 } });
      const reply = await h.provider.complete({ model: "gpt-5.6-luna", messages: [{ role: "user", content: "hi" }] });
      assert.deepEqual(reply.usage, { input: 100, output: 10, cache_read: 900 });
      assert.equal(reply.spend, (100 * 0.2 + 10 * 1.2 + 900 * 0.02) / 1e6);
    } finally {
      await h.close();
    }
  });

  it("finish with tool calls even when the server says stop", async () => {
    const { createProvider } = await import("../../../../.ai/tools/rye/agent/threads/provider.mjs");
    const h = await harness(CASES[2]!, { stream: false });
    try {
      const body = { id: "x", object: "chat.completion", model: "qwen3:4b", choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "rye_search", arguments: { query: "as an object" } } }] }, finish_reason: "stop" }], usage: { prompt_tokens: 5, completion_tokens: 5 } };
      const fetch = async () => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
      const provider = createProvider(h.config, { env: h.env, fetch });
      const reply = await provider.complete({ model: "qwen3:4b", messages: [{ role: "user", content: "hi" }] });
      assert.equal(reply.stopReason, "tools");
      assert.deepEqual(reply.toolCalls, [{ id: "c1", name: "rye_search", input: { query: "as an object" } }]);
    } finally {
      await h.close();
    }
  });
});
