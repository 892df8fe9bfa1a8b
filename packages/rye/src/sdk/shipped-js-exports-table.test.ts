import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parseTool, useShippedJsExports } from "@rye/core";
import { jsExportsValue, shippedJsExportsValue } from "./shipped-js-exports-table.ts";
import { readParsedYamlTable, yamlTextHash } from "./shipped-yaml-table.ts";

const tool = `// rye:signed:2026-01-01T00:00:00Z:${"0".repeat(64)}:sig:fp\nexport const __version__ = "1.0.0";\nexport const __tool_type__ = "javascript";\nexport const __executor_id__ = "rye/core/runtimes/node";\nexport const __tool_description__ = "d";\n`;
// A table value that differs from the real reading shows that the answer came from the table.
const fromTable = { values: { __version__: "9.9.9", __tool_type__: "javascript", __executor_id__: "rye/core/runtimes/node", __tool_description__: "from the table" }, errors: [] };

test("a text whose hash is in the table gets its exports, a fresh object each time; another text or another shape gets none", () => {
  const table = new Map([[yamlTextHash(tool), JSON.stringify(fromTable)], [yamlTextHash("x"), JSON.stringify({ values: [], errors: [] })]]);
  const first = jsExportsValue(table, tool)!;
  assert.deepEqual(first, fromTable);
  first.values.__version__ = "changed";
  assert.deepEqual(jsExportsValue(table, tool), fromTable);
  assert.equal(jsExportsValue(table, `${tool} `), undefined);
  assert.equal(jsExportsValue(table, "x"), undefined);
  assert.equal(jsExportsValue(null, tool), undefined);
});

test("@rye/core's tool parser takes a shipped JavaScript tool's exports once an item is read, and reads any other", async (t) => {
  // Reading items installs the built package's table as the lookup (in a checkout it knows no text).
  await import("../engine/read.ts");
  const installed = useShippedJsExports(undefined);
  assert.equal(installed, shippedJsExportsValue);
  t.after(() => useShippedJsExports(installed));
  assert.equal(shippedJsExportsValue(tool), undefined);
  const table = new Map([[yamlTextHash(tool), JSON.stringify(fromTable)]]);
  useShippedJsExports((text) => jsExportsValue(table, text));
  assert.equal(parseTool(tool, "x/t.mjs").description, "from the table");
  assert.equal(parseTool(tool, "x/t.mjs").version, "9.9.9");
  assert.equal(parseTool(tool.replace('"d"', '"e"'), "x/t.mjs").description, "e");
  useShippedJsExports(undefined);
  assert.equal(parseTool(tool, "x/t.mjs").description, "d");
});

test("the build's table (scripts/system-js-exports.ts) reads every system JavaScript tool exactly as the parser does", async (t) => {
  const root = fileURLToPath(new URL("../../../../.ai/tools/", import.meta.url));
  const out = join(await mkdtemp(join(tmpdir(), "rye-js-exports-")), "table.json");
  const script = fileURLToPath(new URL("../../scripts/system-js-exports.ts", import.meta.url));
  await promisify(execFile)(process.execPath, ["--import", "tsx", script, root, out], { cwd: fileURLToPath(new URL("../..", import.meta.url)) });
  const table = readParsedYamlTable(out);
  assert.ok(table);
  const { readdir } = await import("node:fs/promises");
  const files = (await readdir(root, { recursive: true })).filter((f) => /\.(m?js|ts)$/.test(f));
  assert.ok(files.some((f) => f.endsWith("thread_directive.mjs")) && files.length >= 15, files.join("\n"));
  assert.equal(table.size, new Set(await Promise.all(files.map(async (f) => yamlTextHash(await readFile(join(root, f), "utf8"))))).size);
  t.after(() => useShippedJsExports(undefined));
  for (const rel of files) {
    const text = await readFile(join(root, rel), "utf8");
    useShippedJsExports(undefined);
    const parsed = parseTool(text, rel);
    let asked = 0;
    useShippedJsExports((candidate) => (asked++, jsExportsValue(table, candidate)));
    assert.deepEqual(parseTool(text, rel), parsed, rel);
    assert.ok(asked === 1 && jsExportsValue(table, text), `${rel} is in the table`);
  }
});
