import assert from "node:assert/strict";
import { test } from "node:test";
import { validateParameters } from "./schema.ts";

const schema = {
  type: "object",
  properties: { name: { type: "string", minLength: 1 }, mode: { type: "string", default: "fast" } },
  required: ["name"],
  additionalProperties: false,
};

test("parameters are checked against the tool's schema and get its defaults (in a copy)", async () => {
  const given = { name: "x" };
  assert.deepEqual(await validateParameters(schema, given, "t/tool"), { name: "x", mode: "fast" });
  assert.deepEqual(given, { name: "x" });
  await assert.rejects(validateParameters(schema, { mode: "slow" }, "t/tool"), (err: { code?: string; details?: { field: string }[] }) => err.code === "INPUT_INVALID" && err.details?.[0]?.field === "name");
  await assert.rejects(validateParameters(schema, { name: "x", extra: 1 }, "t/tool"), { code: "INPUT_INVALID" });
});

test("a schema whose keywords have values of the wrong type is refused, not applied loosely", async () => {
  for (const bad of [{ type: "strnig" }, { type: "object", required: "name" }, { type: "object", properties: { n: { type: "string", maxLength: "5" } } }]) {
    await assert.rejects(validateParameters(bad, {}, "t/tool"), { code: "VALIDATION_FAILED" }, JSON.stringify(bad));
  }
});
