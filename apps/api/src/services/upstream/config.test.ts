import assert from "node:assert/strict";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import { loadMirrorConfig } from "./config.ts";

test("no RYE_UPSTREAM_URL: no mirroring; the defaults are explicit", () => {
  assert.equal(loadMirrorConfig({}), null);
  assert.deepEqual(loadMirrorConfig({ RYE_UPSTREAM_URL: "https://registry.example/" }), {
    upstreamUrl: "https://registry.example",
    keyPins: [],
    timeoutMs: 5000,
    searchTimeoutMs: 1500,
    maxAnswerBytes: 8 * 1024 * 1024,
  });
});

test("RYE_UPSTREAM_KEY_PIN: comma-separated fingerprints, deduplicated", () => {
  const config = loadMirrorConfig({ RYE_UPSTREAM_URL: "http://127.0.0.1:9", RYE_UPSTREAM_KEY_PIN: "0123456789abcdef, fedcba9876543210,0123456789abcdef" });
  assert.deepEqual(config?.keyPins, ["0123456789abcdef", "fedcba9876543210"]);
});

test("bad settings are refused at start with a readable message", () => {
  const refused = (env: NodeJS.ProcessEnv, pattern: RegExp) =>
    assert.throws(() => loadMirrorConfig(env), (err: unknown) => err instanceof RyeError && err.code === "BAD_REQUEST" && pattern.test(err.message));
  refused({ RYE_UPSTREAM_URL: "ftp://registry.example" }, /RYE_UPSTREAM_URL/);
  refused({ RYE_UPSTREAM_URL: "not a url" }, /RYE_UPSTREAM_URL/);
  refused({ RYE_UPSTREAM_URL: "https://r.example", RYE_UPSTREAM_KEY_PIN: "ABCDEF0123456789" }, /RYE_UPSTREAM_KEY_PIN/);
  refused({ RYE_UPSTREAM_URL: "https://r.example", RYE_UPSTREAM_KEY_PIN: "0123456789abcdef;fedcba9876543210" }, /RYE_UPSTREAM_KEY_PIN/);
  refused({ RYE_UPSTREAM_KEY_PIN: "0123456789abcdef" }, /without RYE_UPSTREAM_URL/);
  refused({ RYE_UPSTREAM_URL: "https://r.example", RYE_UPSTREAM_TIMEOUT_MS: "0" }, /RYE_UPSTREAM_TIMEOUT_MS/);
  refused({ RYE_UPSTREAM_URL: "https://r.example", RYE_UPSTREAM_TIMEOUT_MS: "999999" }, /RYE_UPSTREAM_TIMEOUT_MS/);
  refused({ RYE_UPSTREAM_URL: "https://r.example", RYE_UPSTREAM_MAX_BYTES: "-1" }, /RYE_UPSTREAM_MAX_BYTES/);
});

test("a registry cannot be its own upstream", () => {
  assert.throws(() => loadMirrorConfig({ RYE_UPSTREAM_URL: "https://registry.acme.example/" }, "https://registry.acme.example"), (err: unknown) => err instanceof RyeError && /own URL/.test(err.message));
  assert.equal(loadMirrorConfig({ RYE_UPSTREAM_URL: "https://registry.example" }, "https://registry.acme.example")?.upstreamUrl, "https://registry.example");
});
