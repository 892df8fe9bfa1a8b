/**
 * Every way an LLM call fails becomes a ProviderError with the fields the loop's error classification reads
 * (status, type, message, code, retryAfterMs, headers, category), and none of them ever carries the API key.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { createProvider, ProviderError } from "../../../../.ai/tools/rye/agent/threads/provider.mjs";
import * as sse from "../../../../.ai/tools/rye/agent/threads/sse.mjs";
import type { Harness } from "./helpers.ts";
import { CASES, harness, MODES, providerYaml, thrown, transport } from "./helpers.ts";

const ask = (h: Harness, extra: Record<string, unknown> = {}) => h.provider.complete({ model: h.model, messages: [{ role: "user", content: "hi" }], ...extra });

/** A stream body that sends `parts` and then stays open, or ends when `end` is set; it errors on abort, as fetch's does. */
function streamingFetch(parts: string[], { end = false, contentType = "text/event-stream" } = {}) {
  return async (_url: unknown, init?: RequestInit) => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
        if (end) controller.close();
        init?.signal?.addEventListener("abort", () => controller.error(init.signal!.reason));
      },
    });
    return new Response(body, { headers: { "content-type": contentType } });
  };
}

for (const kase of CASES) {
  describe(`${kase.file} provider failures`, () => {
    let h: Harness;
    before(async () => {
      h = await harness(kase);
    });
    after(() => h.close());
    const rateLimitType = kase.protocol === "anthropic" ? "rate_limit_error" : "requests";

    it("429 with Retry-After: status, the provider's type, the delay in ms, the headers", async () => {
      h.fake.script({ status: 429, retryAfter: 7 });
      const err = await thrown(() => ask(h));
      assert.ok(err instanceof ProviderError);
      assert.equal(err.name, "ProviderError");
      assert.equal(err.status, 429);
      assert.equal(err.type, rateLimitType);
      assert.equal(err.retryAfterMs, 7000);
      assert.equal(err.headers?.["retry-after"], "7");
      assert.equal(err.category, "rate_limited");
      assert.equal(err.provider, kase.file);
      assert.match(err.message, /HTTP 429/);
      if (kase.protocol === "openai") assert.equal(err.code, "rate_limit_exceeded");
      assert.deepEqual(err.toErrorContext().error, { type: rateLimitType, message: err.message, code: err.code ?? null });
      assert.equal(err.toErrorContext().status_code, 429);
    });

    it("Retry-After as an HTTP date, and OpenAI's retry-after-ms", async () => {
      const now = Date.UTC(2026, 10, 25, 12, 0, 0);
      const provider = createProvider(h.config, { env: h.env, sse, now: () => now, fetch: transport });
      h.fake.script({ status: 429, headers: { "retry-after": new Date(now + 30_000).toUTCString() } });
      assert.equal((await thrown(() => provider.complete({ model: h.model, messages: [{ role: "user", content: "x" }] }))).retryAfterMs, 30_000);
      h.fake.script({ status: 429, retryAfter: 9, headers: { "retry-after-ms": "1500" } });
      assert.equal((await thrown(() => ask(h))).retryAfterMs, 1500);
    });

    it("5xx: transient, with the provider's error type", async () => {
      h.fake.script({ status: 500 });
      const err = await thrown(() => ask(h));
      assert.equal(err.status, 500);
      assert.equal(err.type, kase.protocol === "anthropic" ? "api_error" : "server_error");
      assert.equal(err.category, "transient");
      assert.equal(err.retryAfterMs, undefined);
    });

    it("401 for a wrong key: permanent; a key the server echoes is redacted", async () => {
      const provider = createProvider(h.config, { env: { ...h.env, [h.provider.keyVariable!]: "sk-wrong-key-0123456789" }, sse, fetch: transport });
      if (kase.apiKey === null) h.fake.script({ status: 401, message: "Incorrect API key provided: sk-wrong-key-0123456789" });
      const err = await thrown(() => provider.complete({ model: h.model, messages: [{ role: "user", content: "x" }] }));
      assert.equal(err.status, 401);
      assert.equal(err.category, "permanent");
      assert.equal(err.type, kase.protocol === "anthropic" ? "authentication_error" : "invalid_request_error");
      h.fake.script({ status: 401, message: `Incorrect API key provided: ${h.env[h.provider.keyVariable!] || "none"}` });
      const echoed = await thrown(() => ask(h));
      const key = h.env[h.provider.keyVariable!];
      if (key) {
        assert.equal(JSON.stringify({ ...echoed, message: echoed.message }).includes(key), false);
        assert.match(echoed.message, /\[REDACTED\]/);
      }
    });

    for (const mode of MODES) {
      it(`malformed reply (${mode.name}): malformed_response`, async () => {
        const m = await harness(kase, { stream: mode.stream });
        try {
          m.fake.script({ malformed: true });
          const err = await thrown(() => ask(m));
          assert.equal(err.type, "malformed_response");
          assert.equal(err.status, undefined);
          assert.equal(err.category, "permanent");
        } finally {
          await m.close();
        }
      });
    }

    it("a stream dropped in the middle: stream_interrupted (transient)", async () => {
      h.fake.script({ drop: true, text: "partial" });
      const deltas: unknown[] = [];
      const err = await thrown(() => ask(h, { onDelta: (d: unknown) => deltas.push(d) }));
      assert.equal(err.type, "stream_interrupted");
      assert.equal(err.category, "transient");
      assert.equal(err.status, undefined);
    });

    it("a stream that ends cleanly before its terminal event: stream_interrupted", async () => {
      const start =
        kase.protocol === "anthropic"
          ? `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { model: h.model, usage: { input_tokens: 1, output_tokens: 1 } } })}\n\n`
          : `data: ${JSON.stringify({ id: "c", model: h.model, choices: [{ index: 0, delta: { content: "par" }, finish_reason: "stop" }] })}\n\n`;
      const provider = createProvider(h.config, { env: h.env, sse, fetch: streamingFetch([start], { end: true }) });
      const err = await thrown(() => provider.complete({ model: h.model, messages: [{ role: "user", content: "x" }] }));
      assert.equal(err.type, "stream_interrupted");
      assert.match(err.message, kase.protocol === "anthropic" ? /message_stop/ : /\[DONE\]/);
    });

    it("no server listening: network_error naming the refused connection", async () => {
      const server = createServer();
      server.listen(0, "127.0.0.1");
      await once(server, "listening");
      const port = (server.address() as AddressInfo).port;
      await new Promise((resolve) => server.close(resolve));
      const base = kase.file === "openai" ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`;
      const urlVar = { anthropic: "ANTHROPIC_BASE_URL", openai: "OPENAI_BASE_URL", openai_compatible: "RYE_OPENAI_COMPAT_BASE_URL" }[kase.file];
      const provider = createProvider(h.config, { env: { ...h.env, [urlVar]: base }, sse, fetch: transport });
      const err = await thrown(() => provider.complete({ model: h.model, messages: [{ role: "user", content: "x" }] }));
      assert.equal(err.type, "network_error");
      assert.equal(err.category, "transient");
      assert.match(err.message, /connection refused/);
      assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
    });

    it("the caller's signal: cancelled, before and during the call", async () => {
      const early = new AbortController();
      early.abort();
      const before = h.fake.requests.length;
      const err1 = await thrown(() => ask(h, { signal: early.signal }));
      assert.equal(err1.type, "cancelled");
      assert.equal(err1.cancelled, true);
      assert.equal(err1.category, "cancelled");
      assert.equal(h.fake.requests.length, before, "nothing was sent");

      h.fake.script({ hang: true });
      const late = new AbortController();
      setTimeout(() => late.abort(new Error("the thread was stopped")), 50);
      const err2 = await thrown(() => ask(h, { signal: late.signal }));
      assert.equal(err2.type, "cancelled");
    });

    it("timeouts: no reply within config.timeout, and a stream that stalls", async () => {
      const quick = structuredClone(h.config);
      quick.config.timeout = 0.2;
      const provider = createProvider(quick, { env: h.env, sse, fetch: transport });
      h.fake.script({ hang: true });
      const started = Date.now();
      const err = await thrown(() => provider.complete({ model: h.model, messages: [{ role: "user", content: "x" }] }));
      assert.equal(err.type, "TimeoutError");
      assert.equal(err.category, "transient");
      assert.match(err.message, /timed out after 0\.2 s/);
      assert.ok(Date.now() - started < 3000);

      const first = kase.protocol === "anthropic" ? `event: ping\ndata: {"type":"ping"}\n\n` : `: keep-alive\n\n`;
      const stalled = createProvider(quick, { env: h.env, sse, fetch: streamingFetch([first]) });
      const err2 = await thrown(() => stalled.complete({ model: h.model, messages: [{ role: "user", content: "x" }] }));
      assert.equal(err2.type, "TimeoutError");
      assert.match(err2.message, /next part of the stream/);
    });

    it("a complete stream whose connection stays open still completes (reading stops at the terminal event)", async () => {
      const events =
        kase.protocol === "anthropic"
          ? [
              { type: "message_start", message: { model: h.model, usage: { input_tokens: 3, output_tokens: 1 } } },
              { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
              { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "all here" } },
              { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } },
              { type: "message_stop" },
            ].map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)
          : [
              `data: ${JSON.stringify({ model: h.model, choices: [{ index: 0, delta: { content: "all here" }, finish_reason: "stop" }] })}\n\n`,
              `data: ${JSON.stringify({ model: h.model, choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } })}\n\n`,
              "data: [DONE]\n\n",
            ];
      const quick = structuredClone(h.config);
      quick.config.timeout = 0.3;
      const provider = createProvider(quick, { env: h.env, sse, fetch: streamingFetch(events) });
      const reply = await provider.complete({ model: h.model, messages: [{ role: "user", content: "x" }] });
      assert.equal(reply.text, "all here");
      assert.deepEqual([reply.usage.input, reply.usage.output], [3, 2]);
    });

    for (const mode of MODES) {
      it(`a reply over max_response_bytes, or a tool call's input over max_input_bytes (${mode.name}): response_too_large`, async () => {
        const m = await harness(kase, {
          stream: mode.stream,
          edit: (c) => {
            c.config.max_response_bytes = 64 * 1024;
            c.tool_use.max_input_bytes = 2000;
          },
        });
        try {
          m.fake.script({ text: "x".repeat(100 * 1024), usage: { input: 1, output: 1 }, chunkSize: 4096 });
          const big = await thrown(() => ask(m));
          assert.equal(big.type, "response_too_large");
          assert.equal(big.category, "permanent");
          m.fake.script({ toolCalls: [{ name: "rye_search", input: { query: "y".repeat(5000) } }], usage: { input: 1, output: 1 }, chunkSize: 500 });
          const tool = await thrown(() => ask(m));
          assert.equal(tool.type, "response_too_large");
          assert.match(tool.message, /tool call's input/);
        } finally {
          await m.close();
        }
      });
    }

    it("an unset key: missing_api_key, and nothing is sent", async () => {
      if (kase.apiKey === null) return; // the compatible provider needs no key
      const provider = createProvider(h.config, { env: { ...h.env, [h.provider.keyVariable!]: "" }, sse, fetch: transport });
      assert.equal(provider.apiKeyPresent(), false);
      const before = h.fake.requests.length;
      const err = await thrown(() => provider.complete({ model: h.model, messages: [{ role: "user", content: "x" }] }));
      assert.equal(err.type, "missing_api_key");
      assert.match(err.message, new RegExp(h.provider.keyVariable!));
      assert.equal(h.fake.requests.length, before);
    });

    it("a redirect is not followed (it would carry the key elsewhere): redirect_refused", async () => {
      const hits: string[] = [];
      const redirector = createServer((req, res) => {
        hits.push(req.url ?? "");
        res.writeHead(307, { location: `${h.fake.url}${req.url}` });
        res.end();
      });
      redirector.listen(0, "127.0.0.1");
      await once(redirector, "listening");
      try {
        const root = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
        const urlVar = { anthropic: "ANTHROPIC_BASE_URL", openai: "OPENAI_BASE_URL", openai_compatible: "RYE_OPENAI_COMPAT_BASE_URL" }[kase.file];
        const provider = createProvider(h.config, { env: { ...h.env, [urlVar]: kase.file === "openai" ? `${root}/v1` : root }, sse, fetch: transport });
        const before = h.fake.requests.length;
        const err = await thrown(() => provider.complete({ model: h.model, messages: [{ role: "user", content: "x" }] }));
        assert.equal(err.type, "redirect_refused");
        assert.equal(err.status, 307);
        assert.equal(hits.length, 1);
        assert.equal(h.fake.requests.length, before, "the redirect target saw nothing");
      } finally {
        await new Promise((resolve) => redirector.close(resolve));
      }
    });
  });
}

describe("Anthropic stream errors", () => {
  it("an error event in the stream carries the provider's type (overloaded: transient)", async () => {
    const h = await harness(CASES[0]!);
    try {
      h.fake.script({ streamError: { type: "overloaded_error", message: "Overloaded" } });
      const err = await thrown(() => ask(h));
      assert.equal(err.type, "overloaded_error");
      assert.equal(err.category, "transient");
      assert.equal(err.status, undefined);
      assert.match(err.message, /Overloaded/);
      h.fake.script({ status: 529 });
      const http = await thrown(() => ask(h));
      assert.equal(http.status, 529);
      assert.equal(http.type, "overloaded_error");
      assert.equal(http.category, "transient");
    } finally {
      await h.close();
    }
  });
});

describe("secrets in errors", () => {
  it("no failure mode puts the key into the error or any of its fields", async () => {
    const key = "sk-ant-very-secret-key-0123456789abcdef";
    const h = await harness(CASES[0]!, { fake: { apiKey: key } });
    try {
      assert.equal(h.env.ANTHROPIC_API_KEY, key);
      const replies = [
        { status: 429, retryAfter: 1 },
        { status: 500, message: `upstream said: key=${key}` },
        { status: 400, message: `bad header x-api-key: ${key}`, headers: { "x-echo": key } },
        { malformed: true as const },
        { drop: true as const },
        { streamError: { type: "api_error", message: `internal ${key}` } },
      ];
      for (const reply of replies) {
        h.fake.script(reply);
        const err = await thrown(() => ask(h));
        const everything = JSON.stringify({ ...err, message: err.message, stack: err.stack, context: err.toErrorContext() });
        assert.equal(everything.includes(key), false, `${JSON.stringify(reply)} leaked the key: ${everything}`);
      }
      const wrong = createProvider(h.config, { env: { ...h.env, ANTHROPIC_BASE_URL: "http://127.0.0.1:1" }, sse, fetch: transport });
      const err = await thrown(() => wrong.complete({ model: h.model, messages: [{ role: "user", content: "x" }] }));
      assert.equal(JSON.stringify({ ...err, message: err.message, stack: err.stack }).includes(key), false);
    } finally {
      await h.close();
    }
  });
});

describe("provider configuration errors", () => {
  it("a broken provider YAML is refused with a provider_config error naming the key", async () => {
    const base = await providerYaml("anthropic");
    base.stream.enabled = true;
    const refuse = (edit: (c: any) => void, pattern: RegExp) => {
      const c = structuredClone(base);
      edit(c);
      assert.throws(() => createProvider(c, { env: {}, sse, fetch: transport }), (err: any) => err instanceof ProviderError && err.type === "provider_config" && pattern.test(err.message));
    };
    refuse((c) => delete c.tool_id, /tool_id/);
    refuse((c) => (c.dialect = "gemini"), /dialect must be one of anthropic_messages, openai_chat/);
    refuse((c) => (c.tool_use.response.content_field = "body"), /tool_use\.response\.content_field is "content"/);
    refuse((c) => (c.tool_use.tool_result.extra = 1), /tool_use\.tool_result\.extra is not a setting/);
    refuse((c) => (c.pricing["claude-opus-5-5"] = { input: "4" }), /pricing\.claude-opus-5-5 needs numeric input and output/);
    refuse((c) => (c.config.auth.type = "basic"), /auth\.type must be api_key or bearer/);
    refuse((c) => (c.config.timeout = 0), /config\.timeout must be a positive number/);
    refuse((c) => (c.stream.format = "ndjson"), /stream\.format must be sse/);
    refuse((c) => (c.env_config = { env: { "BAD NAME": "x" } }), /env_config\.env\.BAD NAME/);
    assert.throws(() => createProvider(base, { env: {} }), /no SSE parser/);
  });

  it("a URL that expands to something unusable is refused before anything is sent", async () => {
    const h = await harness(CASES[0]!);
    try {
      for (const [value, pattern] of [
        ["not a url", /absolute URL/],
        ["ftp://example.com", /http or https/],
        ["http://user:pw@127.0.0.1", /credentials/],
      ] as const) {
        const provider = createProvider(h.config, { env: { ...h.env, ANTHROPIC_BASE_URL: value }, sse, fetch: transport });
        const err = await thrown(() => provider.complete({ model: h.model, messages: [{ role: "user", content: "x" }] }));
        assert.equal(err.type, "provider_config");
        assert.match(err.message, pattern);
      }
      const provider = createProvider(h.config, { env: { ...h.env, ANTHROPIC_API_KEY: "line\nbreak" }, sse, fetch: transport });
      const err = await thrown(() => provider.complete({ model: h.model, messages: [{ role: "user", content: "x" }] }));
      assert.match(err.message, /header x-api-key has characters/);
      assert.equal(err.message.includes("line"), false);
    } finally {
      await h.close();
    }
  });
});
