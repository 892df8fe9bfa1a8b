import assert from "node:assert/strict";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import { checkRequestTarget, REQUEST_TARGET_LIMITS as L } from "./request-target.ts";

const BASE = "http://registry.test";

function refusal(target: string): { message: string; details: Record<string, unknown> } | null {
  try {
    checkRequestTarget(BASE + target);
    return null;
  } catch (error) {
    assert.ok(error instanceof RyeError, String(error));
    assert.equal(error.code, "INVALID_PARAMETER");
    assert.equal(error.status, 400);
    assert.ok(error.hint.length > 10);
    return { message: error.message, details: error.details as Record<string, unknown> };
  }
}

test("well-formed paths and queries pass, whatever they mean to a route", () => {
  for (const target of [
    "/",
    "/v1/items/knowledge/alice/notes/guide",
    "/v1/search?query=d%C3%A9ploiement+rapide&limit=5",
    "/v1/search?query=%F0%9F%98%80%E2%80%AE&sort=",
    "/v1/items/knowledge/..%2f..%2fetc",
    "/v1/search?query=%25_%5C",
    "/v1/search?flag&&x=",
    "/alice/.well-known/agent-skills/index.json#frag%00ment",
  ]) {
    assert.equal(refusal(target), null, target);
  }
});

test("NUL and every other C0, DEL and C1 control character are refused, in a segment, a query name or value", () => {
  for (const code of [0x00, 0x01, 0x09, 0x0a, 0x0d, 0x1f, 0x7f, 0x80, 0x85, 0x9f]) {
    const encoded = encodeURIComponent(String.fromCharCode(code));
    const hex = code.toString(16).toUpperCase().padStart(4, "0");
    assert.match(refusal(`/x${encoded}y/.well-known/agent-skills/index.json`)!.message, new RegExp(`segment 1 contains the control character U\\+${hex}`));
    assert.deepEqual(refusal(`/v1/search?query=a${encoded}`)!.details, { where: "query", parameter: "query", reason: `contains the control character U+${hex}` });
    assert.equal(refusal(`/v1/search?a${encoded}=1`)!.details.where, "query");
  }
  assert.equal(refusal("/v1/search?query=a%7e"), null, "~ is printable");
  assert.equal(refusal("/v1/search?query=%C2%A0"), null, "U+00A0 is not a control character");
});

test("malformed percent-encoding and bytes that are not UTF-8 are refused", () => {
  for (const bad of ["%", "abc%", "%zz", "%4", "%C0%AF", "%FF%FE", "%ED%A0%80", "%E2%82", "%F8%88%80%80%80"]) {
    assert.deepEqual(refusal(`/v1/namespaces/${bad}`)!.details, { where: "path", segment: 3, reason: "is not well-formed percent-encoded UTF-8" }, bad);
    assert.equal(refusal(`/v1/search?query=${bad}`)!.details.parameter, "query", bad);
    assert.equal(refusal(`/v1/search?${bad}=1`)!.details.where, "query", bad);
  }
});

test("each length limit holds at its bound and refuses one more", () => {
  const segment = (n: number) => `/v1/namespaces/${"a".repeat(n)}`;
  assert.equal(refusal(segment(L.maxSegmentChars)), null);
  assert.deepEqual(refusal(segment(L.maxSegmentChars + 1))!.details, { where: "path", segment: 3, reason: `is longer than ${L.maxSegmentChars} characters`, limit: L.maxSegmentChars });
  // Decoded characters count, not UTF-8 bytes: 340 two-byte characters are 340 characters (680 bytes).
  assert.equal(refusal(`/${"%C3%A9".repeat(340)}`), null);

  const path = (n: number) => `/${Array.from({ length: Math.ceil(n / 101) }, () => "b".repeat(100)).join("/")}`.slice(0, n);
  assert.equal(path(L.maxPathBytes).length, L.maxPathBytes);
  assert.equal(refusal(path(L.maxPathBytes)), null);
  assert.equal(refusal(path(L.maxPathBytes) + "c")!.details.limit, L.maxPathBytes);

  const value = (n: number) => `/v1/search?query=${"q".repeat(n)}`;
  assert.equal(refusal(value(L.maxQueryValueChars)), null);
  assert.deepEqual(refusal(value(L.maxQueryValueChars + 1))!.details, { where: "query", parameter: "query", reason: `is longer than ${L.maxQueryValueChars} characters`, limit: L.maxQueryValueChars });

  assert.equal(refusal(`/v1/search?${"k".repeat(L.maxQueryKeyChars)}=1`), null);
  assert.equal(refusal(`/v1/search?${"k".repeat(L.maxQueryKeyChars + 1)}=1`)!.details.limit, L.maxQueryKeyChars);

  const params = (n: number) => `/v1/search?${Array.from({ length: n }, (_, i) => `p${i}=1`).join("&")}`;
  assert.equal(refusal(params(L.maxQueryParameters)), null);
  assert.equal(refusal(params(L.maxQueryParameters + 1))!.details.limit, L.maxQueryParameters);

  // Four values of about 2 000 characters each: within every other limit.
  const query = (n: number) => {
    const each = Math.floor((n - 15) / 4);
    return `/v1/search?${[each, each, each, n - 15 - 3 * each].map((k, i) => `v${i}=${"z".repeat(k)}`).join("&")}`;
  };
  assert.equal(query(L.maxQueryBytes).length, "/v1/search?".length + L.maxQueryBytes);
  assert.equal(refusal(query(L.maxQueryBytes)), null);
  assert.equal(refusal(query(L.maxQueryBytes + 1))!.details.limit, L.maxQueryBytes);
});

test("the message names where the problem is, and never echoes the raw control character", () => {
  const r = refusal("/v1/search?query=ok&na%00me=1")!;
  assert.match(r.message, /^The request query is not valid: the name of parameter 2 contains the control character U\+0000$/);
  const q = refusal("/v1/search?query=%0D%0ASet-Cookie:x")!;
  assert.ok(!/[\r\n]/.test(q.message), q.message);
});
