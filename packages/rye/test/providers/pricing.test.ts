/** Tiers, model resolution, key presence and spend (to the cent, with cache and long-context prices). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { computeSpend, createProvider } from "../../../../.ai/tools/rye/agent/threads/provider.mjs";
import * as sse from "../../../../.ai/tools/rye/agent/threads/sse.mjs";
import { CASES, harness, providerYaml, transport } from "./helpers.ts";

const provider = async (file: string, env: Record<string, string> = {}) => createProvider(await providerYaml(file), { env, sse, fetch: transport });
const cents = (usd: number) => Math.round(usd * 100);

describe("tiers and model ids", () => {
  it("map fast, general and reasoning (and the original's names) to model ids", async () => {
    const anthropic = await provider("anthropic");
    assert.equal(anthropic.id, "anthropic");
    assert.equal(anthropic.dialect, "anthropic_messages");
    assert.equal(anthropic.resolveModel("fast"), "claude-haiku-5-5");
    assert.equal(anthropic.resolveModel("general"), "claude-sonnet-5-5");
    assert.equal(anthropic.resolveModel("reasoning"), "claude-opus-5-5");
    assert.equal(anthropic.resolveModel("sonnet"), "claude-sonnet-5-5");
    assert.equal(anthropic.resolveModel("claude-haiku-4-5"), "claude-haiku-4-5", "an id it prices but maps to no tier");
    assert.equal(anthropic.resolveModel("claude-opus-5-5"), "claude-opus-5-5");
    assert.equal(anthropic.resolveModel("gpt-5.6-sol"), undefined);
    assert.equal(anthropic.resolveModel("constructor"), undefined);
    assert.equal(anthropic.resolveModel("FAST"), undefined, "tiers are case-sensitive");
    assert.deepEqual(anthropic.models().sort(), ["claude-haiku-4-5", "claude-haiku-5-5", "claude-opus-5-5", "claude-sonnet-5-5"]);
    const openai = await provider("openai");
    assert.deepEqual([openai.resolveModel("fast"), openai.resolveModel("general"), openai.resolveModel("reasoning")], ["gpt-5.6-luna", "gpt-5.6-terra", "gpt-5.6-sol"]);
    const local = await provider("openai_compatible");
    assert.equal(local.resolveModel("general"), "gpt-oss:20b");
    assert.equal(local.dialect, "openai_chat");
  });

  it("know whether their key is set, and name its variable", async () => {
    assert.equal((await provider("anthropic")).apiKeyPresent(), false);
    assert.equal((await provider("anthropic", { ANTHROPIC_API_KEY: "" })).apiKeyPresent(), false);
    assert.equal((await provider("anthropic", { ANTHROPIC_API_KEY: "k" })).apiKeyPresent(), true);
    assert.equal((await provider("anthropic")).keyVariable, "ANTHROPIC_API_KEY");
    assert.equal((await provider("openai", { OPENAI_API_KEY: "k" })).apiKeyPresent(), true);
    assert.equal((await provider("openai")).keyVariable, "OPENAI_API_KEY");
    assert.equal((await provider("openai_compatible")).apiKeyPresent(), true, "a local server needs no key");
    assert.equal((await provider("openai_compatible")).keyVariable, "RYE_OPENAI_COMPAT_API_KEY");
    // The key is read when asked, not when the provider is made.
    const env: Record<string, string> = {};
    const late = createProvider(await providerYaml("anthropic"), { env, sse, fetch: transport });
    assert.equal(late.apiKeyPresent(), false);
    env.ANTHROPIC_API_KEY = "set-later";
    assert.equal(late.apiKeyPresent(), true);
  });
});

describe("spend", () => {
  it("is (input·price.input + output·price.output) / 1e6, exact", async () => {
    const anthropic = await provider("anthropic");
    // claude-sonnet-5-5: $2 / $10 per million
    assert.equal(anthropic.spendFor("claude-sonnet-5-5", { input: 123_456, output: 7_890 }), 0.325812);
    assert.equal(cents(anthropic.spendFor("claude-sonnet-5-5", { input: 123_456, output: 7_890 })), 33);
    assert.equal(anthropic.spendFor("claude-sonnet-5-5", { input: 1_000_000, output: 1_000_000 }), 12);
    assert.equal(anthropic.spendFor("claude-opus-5-5", { input: 3_000, output: 1_500 }), 0.042);
    assert.equal(anthropic.spendFor("claude-haiku-4-5", { input: 1, output: 1 }), 0.000006);
    assert.equal(anthropic.spendFor("claude-sonnet-5-5", { input: 0, output: 0 }), 0);
    const openai = await provider("openai");
    assert.equal(openai.spendFor("gpt-5.6-luna", { input: 200_000, output: 200_000 }), 0.28);
    assert.equal(openai.spendFor("gpt-5.6-terra", { input: 10_000, output: 2_345 }), 0.04814);
    assert.equal(openai.spendFor("gpt-5.6-sol", { input: 7, output: 3 }), 0.000088);
  });

  it("prices Anthropic cache reads and writes, and OpenAI cached input", async () => {
    const anthropic = await provider("anthropic");
    // 1000·2 + 500·10 + 20000·0.2 + 3000·2.5 = 18500 micro-dollars
    assert.equal(anthropic.spendFor("claude-sonnet-5-5", { input: 1_000, output: 500, cache_read: 20_000, cache_write: 3_000 }), 0.0185);
    const openai = await provider("openai");
    assert.equal(openai.spendFor("gpt-5.6-terra", { input: 1_000, output: 100, cache_read: 50_000 }), (1_000 * 2 + 100 * 12 + 50_000 * 0.2) / 1e6);
    // No cache price: cache tokens cost the input price (never nothing).
    assert.equal(computeSpend({ input: 3, output: 15 }, { input: 0, output: 0, cache_read: 1_000_000, cache_write: 1_000_000 }), 6);
  });

  it("switches to long-context prices above the threshold, for the whole call", async () => {
    const anthropic = await provider("anthropic");
    // claude-haiku-5-5: $0.10 / $0.50, above 100,000 prompt tokens $0.50 / $2.50
    assert.equal(anthropic.spendFor("claude-haiku-5-5", { input: 90_000, output: 2_000 }), 0.01);
    assert.equal(anthropic.spendFor("claude-haiku-5-5", { input: 100_000, output: 2_000 }), 0.011, "at the threshold: still the base price");
    assert.equal(anthropic.spendFor("claude-haiku-5-5", { input: 150_000, output: 2_000 }), 0.08);
    // Cache tokens count toward the threshold.
    assert.equal(anthropic.spendFor("claude-haiku-5-5", { input: 10_000, output: 0, cache_read: 95_000 }), (10_000 * 0.5 + 95_000 * 0.05) / 1e6);
    const openai = await provider("openai");
    assert.equal(openai.spendFor("gpt-5.6-luna", { input: 300_000, output: 10_000 }), (300_000 * 0.4 + 10_000 * 1.8) / 1e6);
  });

  it("is 0 and flagged unpriced for a model without prices", async () => {
    const anthropic = await provider("anthropic");
    assert.equal(anthropic.isPriced("claude-sonnet-5-5"), true);
    assert.equal(anthropic.isPriced("claude-unknown-1"), false);
    assert.equal(anthropic.spendFor("claude-unknown-1", { input: 1_000_000, output: 1_000_000 }), 0);
  });

  for (const kase of CASES) {
    it(`${kase.file}: complete() reports the spend of the usage the server gave`, async () => {
      const h = await harness(kase);
      try {
        for (const tier of ["fast", "general", "reasoning"]) {
          const model = h.provider.resolveModel(tier)!;
          h.fake.script({ text: "ok", usage: { input: 31_337, output: 4_242 } });
          const reply = await h.provider.complete({ model, messages: [{ role: "user", content: "hi" }] });
          assert.deepEqual([reply.usage.input, reply.usage.output], [31_337, 4_242]);
          assert.equal(reply.priced, true);
          assert.equal(reply.spend, h.provider.spendFor(model, { input: 31_337, output: 4_242 }));
          const price = h.config.pricing[model];
          assert.equal(cents(reply.spend), cents((31_337 * price.input + 4_242 * price.output) / 1e6));
        }
        h.fake.script({ text: "ok", usage: { input: 10, output: 10 } });
        const unpriced = await h.provider.complete({ model: "some-unlisted-model", messages: [{ role: "user", content: "hi" }] });
        assert.equal(unpriced.priced, false);
        assert.equal(unpriced.spend, 0);
      } finally {
        await h.close();
      }
    });
  }
});
