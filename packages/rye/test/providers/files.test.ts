/**
 * The provider YAMLs and the three runtime modules the provider is made of, as shipped: signed by the release key, valid items, tiers
 * fast/general/reasoning all priced; the modules import only node: builtins, so the runtime's loader can import
 * them from the verified bytes (a data: URL); and a provider file in the original's format still works.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parse as parseYaml } from "yaml";
import "@rye/core/node";
import { keyResolverFrom, parseItem, verifyItem } from "@rye/core";
import { releasePublicKey } from "../../src/engine/release-key.ts";
import { createProvider } from "../../../../.ai/tools/rye/agent/threads/provider.mjs";
import * as sse from "../../../../.ai/tools/rye/agent/threads/sse.mjs";
import { startFakeLlm } from "../fake-llm.ts";
import { transport } from "./helpers.ts";
import { PROVIDERS_DIR, THREADS_DIR } from "../runtime/files.ts";

const release = keyResolverFrom([releasePublicKey()]);

describe("shipped provider YAMLs", () => {
  it("each verifies with the release key, is a valid tool item, and maps fast/general/reasoning to priced models", async () => {
    const files = (await readdir(PROVIDERS_DIR)).filter((f) => /\.ya?ml$/.test(f)).sort();
    assert.deepEqual(files, ["anthropic.yaml", "openai.yaml", "openai_compatible.yaml"]);
    for (const file of files) {
      const path = join(PROVIDERS_DIR, file);
      const content = await readFile(path, "utf8");
      const verified = await verifyItem(content, "tool", release);
      assert.equal(verified.code, "OK", `${file}: ${verified.message} — run npm run sign:system`);
      const item = parseItem(content, "tool", { path });
      assert.deepEqual(item.issues, [], file);
      assert.equal(item.summary.category, "rye/agent/providers");
      assert.equal(item.summary.toolType, "http");
      assert.equal(item.summary.executorId, "rye/core/primitives/http_client");
      const config = parseYaml(content) as Record<string, any>;
      assert.equal(config.tool_id, file.replace(/\.ya?ml$/, ""), "tool_id is the file name");
      const provider = createProvider(config, { env: {}, sse, fetch: transport });
      for (const tier of ["fast", "general", "reasoning"]) {
        const model = provider.resolveModel(tier);
        assert.ok(model, `${file} maps ${tier}`);
        assert.equal(provider.isPriced(model), true, `${file}: ${model} is priced`);
      }
      assert.equal(config.stream.enabled, true, `${file} streams`);
      assert.match(String(config.config.auth.key ?? config.config.auth.token), /^\$\{[A-Z_]+\}$/, "the key is named by its variable only");
    }
  });
});

describe("runtime modules", () => {
  const entry: Record<string, string> = { "provider.mjs": "createProvider", "sse.mjs": "createSseParser", "http.mjs": "fetch" };
  for (const name of Object.keys(entry)) {
    it(`${name} is signed by the release key, a valid library item, and imports only node: builtins`, async () => {
      const path = join(THREADS_DIR, name);
      const content = await readFile(path, "utf8");
      const verified = await verifyItem(content, "tool", release);
      assert.equal(verified.code, "OK", `${name}: ${verified.message} — run npm run sign:system`);
      const item = parseItem(content, "tool", { path });
      assert.deepEqual(item.issues, []);
      assert.equal(item.summary.toolType, "library");
      assert.equal(item.summary.executorId, null);
      assert.equal(item.summary.category, "rye/agent/threads");
      for (const match of content.matchAll(/^\s*import\s[^;]*?from\s+["']([^"']+)["']/gm)) assert.match(match[1]!, /^node:/, `${name} imports ${match[1]}`);
      // What the runtime's module loader does: import the verified bytes from a data: URL.
      const module = await import(`data:text/javascript;base64,${Buffer.from(content).toString("base64")}`);
      assert.equal(typeof module[entry[name]!], "function");
    });
  }

  it("the modules imported from data: URLs work together", async () => {
    const load = async (name: string) => import(`data:text/javascript;base64,${Buffer.from(await readFile(join(THREADS_DIR, name))).toString("base64")}`);
    const [providerModule, sseModule, httpModule] = await Promise.all([load("provider.mjs"), load("sse.mjs"), load("http.mjs")]);
    const fake = await startFakeLlm("anthropic");
    try {
      const config = parseYaml(await readFile(join(PROVIDERS_DIR, "anthropic.yaml"), "utf8"));
      const provider = providerModule.createProvider(config, { env: { ANTHROPIC_API_KEY: fake.apiKey!, ANTHROPIC_BASE_URL: fake.url }, sse: sseModule, fetch: httpModule.fetch });
      fake.script({ text: "from a data: URL", usage: { input: 1, output: 1 } });
      assert.equal((await provider.complete({ model: "claude-sonnet-5-5", messages: [{ role: "user", content: "hi" }] })).text, "from a data: URL");
    } finally {
      await fake.close();
    }
  });
});

/** A provider file in the original RYE's format (no dialect, stream or env defaults; its extra keys unread). */
const ORIGINAL_FORMAT = `
tool_id: anthropic
tool_type: http
version: "1.1.0"
description: "Anthropic Messages API"
executor_id: rye/core/primitives/http_client
category: rye/agent/providers
requires: [net.call]
tier_mapping:
  fast: "claude-3-5-haiku-20241022"
  sonnet: "claude-3-5-sonnet-20241022"
pricing:
  claude-3-5-haiku-20241022: { input: 1.00, output: 5.00 }
  claude-3-5-sonnet-20241022: { input: 3.00, output: 15.00 }
env_config:
  env:
    ANTHROPIC_API_KEY: "\${ANTHROPIC_API_KEY}"
config:
  method: POST
  url: "https://api.anthropic.com/v1/messages"
  auth: { type: api_key, key: "\${ANTHROPIC_API_KEY}", header: x-api-key }
  headers: { Content-Type: application/json, anthropic-version: "2023-06-01" }
  body: { model: "{model}", max_tokens: "{max_tokens}", system: "{system_prompt}", messages: "{messages}", tools: "{tools}" }
  timeout: 120
  retry: { max_attempts: 2, backoff: exponential }
prompts:
  system_template: "You are Rye. {tool_names}"
parameters:
  - { name: model, type: string, required: true }
tool_use:
  tool_definition: { name: "{name}", description: "{description}", input_schema: "{schema}" }
  response:
    stop_reason_field: stop_reason
    stop_reason_tool_use: tool_use
    content_field: content
    text_block_type: text
    text_field: text
    tool_use_block_type: tool_use
    tool_use_id_field: id
    tool_use_name_field: name
    tool_use_input_field: input
  tool_result: { role: user, block_type: tool_result, id_field: tool_use_id, content_field: content, error_field: is_error }
`;

describe("the original's provider format", () => {
  it("loads as the anthropic_messages dialect and completes (not streamed: it has no stream section)", async () => {
    const config = parseYaml(ORIGINAL_FORMAT) as Record<string, any>;
    const fake = await startFakeLlm("anthropic");
    try {
      config.config.url = `${fake.url}/v1/messages`;
      const provider = createProvider(config, { env: { ANTHROPIC_API_KEY: fake.apiKey! }, sse, fetch: transport });
      assert.equal(provider.dialect, "anthropic_messages");
      assert.equal(provider.resolveModel("sonnet"), "claude-3-5-sonnet-20241022");
      fake.script({ toolCalls: [{ name: "rye_search", input: { query: "x" } }], usage: { input: 1000, output: 100 } });
      const reply = await provider.complete({ model: "claude-3-5-haiku-20241022", system: "s", messages: [{ role: "user", content: "hi" }], tools: [{ name: "rye_search", schema: { type: "object" } }] });
      assert.equal(reply.toolCalls[0]!.name, "rye_search");
      assert.equal(reply.spend, 0.0015);
      assert.equal(fake.requests[0]!.stream, false);
      assert.equal(fake.requests[0]!.body.max_tokens, 4096);
    } finally {
      await fake.close();
    }
  });
});
