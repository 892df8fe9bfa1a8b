/** The runtime's condition language, interpolation, config merging, error classification, retry delays and limits. */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parse as parseYaml } from "yaml";
import { evaluate, getPath, interpolate } from "../../../../.ai/tools/rye/agent/threads/conditions.mjs";
import { classifyError, loadConfig, mergeConfig, resolveLimits, retryDelayMs } from "../../../../.ai/tools/rye/agent/threads/config.mjs";
import { THREADS_DIR } from "./files.ts";

const doc = { status_code: 429, error: { type: "rate_limit_error", message: "Too Many Requests, slow down" }, list: [{ a: 1 }], cost: { turns: 3 } };

describe("conditions", () => {
  it("reads dotted paths through objects and arrays", () => {
    assert.equal(getPath(doc, "error.type"), "rate_limit_error");
    assert.equal(getPath(doc, "list.0.a"), 1);
    assert.equal(getPath(doc, "list.x"), undefined);
    assert.equal(getPath(doc, "missing.deeper"), undefined);
    assert.equal(getPath({ __proto__: { polluted: 1 } }, "polluted"), undefined, "own keys only");
  });

  it("evaluates every operator and the combinators", () => {
    const t = (cond: unknown) => evaluate(cond, doc);
    assert.ok(t({ path: "status_code", op: "eq", value: 429 }));
    assert.ok(t({ path: "status_code", value: 429 }), "eq is the default");
    assert.ok(t({ path: "status_code", op: "ne", value: 500 }));
    assert.ok(t({ path: "status_code", op: "gt", value: 400 }) && t({ path: "status_code", op: "gte", value: 429 }));
    assert.ok(t({ path: "status_code", op: "lt", value: 500 }) && t({ path: "status_code", op: "lte", value: 429 }));
    assert.ok(!t({ path: "error.type", op: "gt", value: 1 }), "ordering needs numbers");
    assert.ok(t({ path: "status_code", op: "in", value: [429, 503] }));
    assert.ok(t({ path: "error.message", op: "contains", value: "slow" }));
    assert.ok(t({ path: "error.message", op: "regex", value: "(?i)too many" }));
    assert.ok(!t({ path: "error.message", op: "regex", value: "too many" }), "case-sensitive without (?i)");
    assert.ok(!t({ path: "error.message", op: "regex", value: "(" }), "a bad regex is false, not a crash");
    assert.ok(t({ path: "error.code", op: "exists", value: false }) && t({ path: "error", op: "exists" }));
    assert.ok(!t({ path: "x", op: "nonsense", value: 1 }));
    assert.ok(t({ any: [{ path: "status_code", value: 500 }, { path: "status_code", value: 429 }] }));
    assert.ok(!t({ all: [{ path: "status_code", value: 429 }, { path: "error.type", value: "x" }] }));
    assert.ok(t({ not: { path: "status_code", value: 500 } }));
    assert.ok(t(undefined) && t({}), "no condition is true");
    assert.ok(!t({ any: "not a list" }) && !t("a string") && !t([1]));
  });

  it("interpolates ${path}: a lone placeholder keeps its type, text gets JSON, missing is empty", () => {
    assert.deepEqual(interpolate({ a: "${cost}", b: "turn ${cost.turns} of ${missing}", c: ["${status_code}"], d: 5 }, doc), {
      a: { turns: 3 },
      b: "turn 3 of ",
      c: [429],
      d: 5,
    });
    assert.equal(interpolate("${error.message}", doc), "Too Many Requests, slow down");
    assert.equal(interpolate("{input:x} ${not valid}", doc), "{input:x} ${not valid}");
  });
});

describe("configuration", () => {
  it("merges objects by key and id lists by id (merge, remove, append)", () => {
    const base = { a: 1, nested: { x: 1, y: 2 }, hooks: [{ id: "h1", event: "error", layer: 2 }, { id: "h2", event: "limit" }], plain: [1, 2] };
    const merged = mergeConfig(base, { nested: { y: 3 }, hooks: [{ id: "h1", layer: 1 }, { id: "h2", remove: true }, { id: "h3", event: "after_step" }], plain: [9] });
    assert.deepEqual(merged, { a: 1, nested: { x: 1, y: 3 }, hooks: [{ id: "h1", event: "error", layer: 1 }, { id: "h3", event: "after_step" }], plain: [9] });
  });

  it("loads a base config merged with an override, both from their sources", async () => {
    const config = await loadConfig("resilience", {
      readBase: async (name) => ({ content: await readFile(join(THREADS_DIR, "config", `${name}.yaml`), "utf8"), path: name }),
      readOverride: async () => ({ content: "limits:\n  defaults:\n    turns: 7\n", path: "override" }),
      parseYaml,
    });
    const limits = (config.limits as { defaults: Record<string, unknown> }).defaults;
    assert.equal(limits.turns, 7);
    assert.equal(limits.tokens, 200000, "other keys stay");
  });

  it("classifies errors with the shipped patterns (status, type, message), first match wins", async () => {
    const config = parseYaml(await readFile(join(THREADS_DIR, "config", "error_classification.yaml"), "utf8")) as Record<string, unknown>;
    const classify = (ctx: Record<string, unknown>) => classifyError(config, ctx, evaluate);
    assert.equal(classify({ status_code: 429, error: {} }).category, "rate_limited");
    assert.equal(classify({ error: { type: "x", message: "Rate limit reached" } }).code, "http_429");
    assert.equal(classify({ status_code: 503, error: {} }).category, "transient");
    assert.equal(classify({ status_code: 529, error: {} }).code, "overloaded");
    assert.equal(classify({ error: { type: "stream_interrupted", message: "the stream ended early" } }).category, "transient");
    assert.equal(classify({ status_code: 401, error: {} }).category, "permanent");
    assert.equal(classify({ error: { type: "cancelled" } }).category, "cancelled");
    assert.deepEqual(classify({ status_code: 418, error: { type: "teapot", message: "?" } }), { category: "permanent", retryable: false, retry_policy: { type: "none" } });
  });

  it("computes retry delays: exponential with a cap, fixed, Retry-After seconds or date, fallback", () => {
    assert.equal(retryDelayMs({ type: "exponential", base: 2, max: 60 }, 0), 2000);
    assert.equal(retryDelayMs({ type: "exponential", base: 2, max: 60 }, 3), 16000);
    assert.equal(retryDelayMs({ type: "exponential", base: 2, max: 60 }, 10), 60000);
    assert.equal(retryDelayMs({ type: "exponential", base: 2, max_delay: 5 }, 10), 5000, "the resilience.yaml spelling max_delay");
    assert.equal(retryDelayMs({ type: "fixed", delay: 1.5 }, 4), 1500);
    const header = { type: "use_header", header: "retry-after", fallback: { type: "exponential", base: 1, max: 10 } };
    assert.equal(retryDelayMs(header, 0, { "Retry-After": "3" }), 3000);
    const now = Date.parse("2026-11-25T10:00:00Z");
    assert.equal(retryDelayMs(header, 0, { "retry-after": "Wed, 25 Nov 2026 10:00:05 GMT" }, () => now), 5000);
    assert.equal(retryDelayMs(header, 2, {}), 4000, "no header: the fallback policy");
    assert.equal(retryDelayMs({ type: "none" }, 0), null);
    assert.equal(retryDelayMs(null, 0), null);
  });

  it("resolves limits: defaults → directive → overrides, capped by the parent; depth goes down a level", () => {
    const defaults = { turns: 25, tokens: 200000, spend: 1, spawns: 10, depth: 5, duration_seconds: 600 };
    const root = resolveLimits(defaults, { turns: "8", spend: 0.5, bogus: 1 }, { turns: 12 }, null);
    assert.deepEqual(root, { limits: { turns: 12, tokens: 200000, spend: 0.5, spawns: 10, depth: 5, duration_seconds: 600, spend_currency: "USD" } });
    const child = resolveLimits(defaults, { spend: 5, depth: 9 }, { turns: 100 }, { turns: 12, spend: 0.25, depth: 5, duration_seconds: 60 });
    assert.deepEqual(child.limits, { turns: 12, tokens: 200000, spend: 0.25, spawns: 10, depth: 4, duration_seconds: 60, spend_currency: "USD" });
    assert.equal(resolveLimits(defaults, {}, {}, { depth: 0 }).error, "depth_exceeded");
    assert.equal(resolveLimits(defaults, { turns: -3 }, {}, null).limits.turns, 25, "a negative limit is ignored");
  });

  it("a child that names no spend limit gets an even share of its parent's spend (spend ÷ spawns)", () => {
    const defaults = { turns: 25, tokens: 200000, spend: 1, spawns: 10, depth: 5, duration_seconds: 600 };
    const parent = { turns: 25, spend: 1, spawns: 4, depth: 5 };
    assert.equal(resolveLimits(defaults, {}, {}, parent).limits.spend, 0.25);
    assert.equal(resolveLimits(defaults, { spend: 0.6 }, {}, parent).limits.spend, 0.6, "a named limit stands (the ledger still caps it at what is left)");
    assert.equal(resolveLimits(defaults, {}, { spend: 0.9 }, parent).limits.spend, 0.9, "so does an override");
    assert.equal(resolveLimits(defaults, {}, {}, { ...parent, spawns: 0 }).limits.spend, 1, "no spawns: the share is the whole (the spawn limit refuses the child anyway)");
    assert.equal(resolveLimits(defaults, {}, {}, { ...parent, spend: 1, spawns: 3 }).limits.spend, 0.333333333);
  });
});
