/** The sealed sign-in flow cookie, its key, and the `next` open-redirect guard. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RyeError } from "@rye/core";
import { FLOW_TTL_SECONDS, openFlow, sealFlow } from "./flow-cookie.ts";
import { deriveFlowKey, flowKeySource } from "./flow-key.ts";
import { safeNextPath } from "./next-path.ts";

const flow = { provider: "acme", state: "s".repeat(43), nonce: "n".repeat(43), codeVerifier: "v".repeat(43), next: "/x" };

describe("flow cookie", () => {
  const key = deriveFlowKey("a".repeat(32));

  test("round trip; the content is not readable", () => {
    const sealed = sealFlow(key, flow);
    assert.deepEqual(openFlow(key, sealed), flow);
    assert.ok(!Buffer.from(sealed, "base64url").toString("latin1").includes(flow.state));
    assert.notEqual(sealFlow(key, flow), sealed, "a fresh IV each time");
  });

  test("tampering, another key, garbage and expiry give null", () => {
    const sealed = sealFlow(key, flow);
    const raw = Buffer.from(sealed, "base64url");
    for (const i of [0, 13, raw.length - 1]) {
      const bad = Buffer.from(raw);
      bad[i]! ^= 1;
      assert.equal(openFlow(key, bad.toString("base64url")), null, `byte ${i}`);
    }
    assert.equal(openFlow(deriveFlowKey("b".repeat(32)), sealed), null);
    assert.equal(openFlow(key, "not-a-cookie"), null);
    assert.equal(openFlow(key, ""), null);
    const now = Date.now();
    assert.ok(openFlow(key, sealFlow(key, flow, now), now + (FLOW_TTL_SECONDS - 1) * 1000));
    assert.equal(openFlow(key, sealFlow(key, flow, now), now + FLOW_TTL_SECONDS * 1000), null);
  });

  test("the key: RYE_COOKIE_SECRET when set, else derived from the registry key seed, following rotations", async () => {
    let seed = new Uint8Array(32).fill(1);
    const keyring = { signer: async () => ({ seed }) as never };
    const fromSecret = flowKeySource("z".repeat(40), keyring);
    assert.deepEqual(await fromSecret(), deriveFlowKey("z".repeat(40)));
    const fromRegistry = flowKeySource(undefined, keyring);
    const first = await fromRegistry();
    assert.deepEqual(first, deriveFlowKey(seed));
    assert.notDeepEqual(first, Buffer.from(seed), "never the seed itself");
    assert.equal(await fromRegistry(), first, "cached");
    seed = new Uint8Array(32).fill(2);
    assert.notDeepEqual(await fromRegistry(), first, "a rotated registry key gives a new cookie key");
  });
});

describe("next", () => {
  const base = "https://registry.example";
  test("same-origin relative paths pass, with query and fragment", () => {
    assert.equal(safeNextPath(undefined, base), "/");
    assert.equal(safeNextPath("", base), "/");
    assert.equal(safeNextPath("/items/acme/x?tab=1#top", base), "/items/acme/x?tab=1#top");
    assert.equal(safeNextPath("/a/../b", base), "/b");
  });
  test("anything that could leave the origin is refused", () => {
    for (const next of ["https://evil.example", "//evil.example", "///evil.example", "/\\evil.example", "\\\\evil.example", "javascript:alert(1)", "evil.example", "/x\r\nSet-Cookie: a=b", "/\tx", `/${"a".repeat(3000)}`]) {
      assert.throws(() => safeNextPath(next, base), (err: unknown) => err instanceof RyeError && err.code === "BAD_REQUEST", JSON.stringify(next));
    }
  });
});
