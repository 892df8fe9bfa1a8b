import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { parserWith, parseYaml as shippedParser, readParsedYamlTable, yamlTextHash } from "./parsed-yaml.ts";
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
