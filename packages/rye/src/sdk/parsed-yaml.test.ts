import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { parserWith, parseYaml as shippedParser, readParsedYamlTable, yamlTextHash } from "./parsed-yaml.ts";
import { shippedYamlValue, tableValue } from "./shipped-yaml-table.ts";
import * as sdk from "./v1.ts";

const text = "retry:\n  max_retries: 3\nids: [a, b]\n";

test("a text whose hash is in the table gets the table's value, a fresh object on every call", () => {
  // A table value that differs from the real parse shows that the answer came from the table.
  const parseYaml = parserWith(() => new Map([[yamlTextHash(text), JSON.stringify({ from: "table" })]]));
  const first = parseYaml(text) as Record<string, unknown>;
  assert.deepEqual(first, { from: "table" });
  first.from = "changed";
  assert.deepEqual(parseYaml(text), { from: "table" });
});

test("sdk/v1's parseYaml is the one that consults the shipped table", () => {
  assert.equal(sdk.parseYaml, shippedParser);
});

test("any other text is parsed: one byte changed, options given, no table", () => {
  const parseYaml = parserWith(() => new Map([[yamlTextHash(text), JSON.stringify({ from: "table" })]]));
  assert.deepEqual(parseYaml(text.replace("3", "4")), { retry: { max_retries: 4 }, ids: ["a", "b"] });
  assert.deepEqual(parseYaml(text, { schema: "core" }), parse(text));
  assert.deepEqual(parserWith(() => null)(text), parse(text));
  assert.throws(() => parserWith(() => null)("a: [unclosed"), { name: "YAMLParseError" });
});

test("the table file: a missing or malformed one is no table; non-string entries are dropped", async () => {
  const dir = await mkdtemp(join(tmpdir(), "rye-parsed-yaml-"));
  assert.equal(readParsedYamlTable(join(dir, "none.json")), null);
  await writeFile(join(dir, "bad.json"), "[1,");
  assert.equal(readParsedYamlTable(join(dir, "bad.json")), null);
  await writeFile(join(dir, "t.json"), JSON.stringify({ a: "{}", b: 1 }));
  assert.deepEqual([...readParsedYamlTable(join(dir, "t.json"))!.keys()], ["a"]);
});

// What a built package ships in its table is checked on the package as npm installs it (test/e2e/published-package.test.ts).

test("@rye/core's tool and configuration readers take a shipped text's value once an item is read, and parse any other", async (t) => {
  const { configItemBody, parseTool, shippedYamlValue: coreValue, useShippedYaml } = await import("@rye/core");
  // Reading items installs the built package's table as the lookup (in a checkout it knows no text).
  await import("../engine/read.ts");
  const installed = useShippedYaml(undefined);
  assert.equal(installed, shippedYamlValue);
  t.after(() => useShippedYaml(installed));
  const tool = `# rye:signed:2026-01-01T00:00:00Z:${"0".repeat(64)}:sig:fp\nversion: "1.0.0"\ntool_type: runtime\nexecutor_id: null\ndescription: d\n`;
  // A table value that differs from the real parse shows that the answer came from the table.
  const table = new Map([[yamlTextHash(tool), JSON.stringify({ version: "9.9.9", tool_type: "runtime", executor_id: null, description: "from the table", rules: [] })]]);
  useShippedYaml((text) => tableValue(table, text));
  assert.equal(coreValue("a: 1"), undefined);
  assert.equal(parseTool(tool, "x/t.yaml").description, "from the table");
  assert.equal(parseTool(tool, "x/t.yaml").version, "9.9.9");
  assert.equal(configItemBody(tool, "t").description, "from the table");
  assert.equal(parseTool(tool.replace("d\n", "e\n"), "x/t.yaml").description, "e");
  assert.equal(configItemBody("description: e\n", "t").description, "e");
});

test("every system YAML file reads the same from the shipped table as parsed, for the tool parser and the configuration reader", async (t) => {
  const { configItemBody, parseTool, useShippedYaml } = await import("@rye/core");
  const { readdir, readFile } = await import("node:fs/promises");
  t.after(() => useShippedYaml(undefined));
  const root = new URL("../../../../.ai/", import.meta.url);
  const files = (await readdir(root, { recursive: true })).filter((f) => /\.ya?ml$/.test(f) && !f.startsWith("threads/"));
  assert.ok(files.length >= 15, `system YAML files: ${files.length}`);
  for (const rel of files) {
    const text = await readFile(new URL(rel, root), "utf8");
    // The table as scripts/build.mjs writes it: the JSON of yaml's parse of the whole text.
    const table = new Map([[yamlTextHash(text), JSON.stringify(parse(text))]]);
    useShippedYaml(undefined);
    const parsed = rel.startsWith("tools/") ? { tool: parseTool(text, rel), config: configItemBody(text, rel) } : { config: configItemBody(text, rel) };
    useShippedYaml((candidate) => tableValue(table, candidate));
    const shipped = rel.startsWith("tools/") ? { tool: parseTool(text, rel), config: configItemBody(text, rel) } : { config: configItemBody(text, rel) };
    assert.deepEqual(shipped, parsed, rel);
  }
});
