import assert from "node:assert/strict";
import { test } from "node:test";
import { parseItem } from "./item.ts";

test("tool metadata that cannot be read is an issue, never silently absent (a tool must not run without its schema)", () => {
  const tool = `const SHARED = { type: "string" };
export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __category__ = "demo";
export const __tool_description__ = "x";
export const CONFIG_SCHEMA = { type: "object", properties: { a: SHARED }, additionalProperties: false };
export function main() { return {}; }
`;
  const parsed = parseItem(tool, "tool", { path: "/p/.ai/tools/demo/x.mjs" });
  assert.deepEqual(parsed.issues, [{ field: "CONFIG_SCHEMA", message: "CONFIG_SCHEMA: not a literal (identifier 'SHARED') at line 7" }]);
  const shell = `#!/usr/bin/env bash\n# @version 1.0.0\n# @tool_type bash\n# @executor_id rye/core/runtimes/bash\n# @category demo\n# @description x\n# @config_schema {not json\necho\n`;
  assert.deepEqual(parseItem(shell, "tool", { path: "/p/.ai/tools/demo/x.sh" }).issues.map((i) => i.field), ["config_schema"]);
});
