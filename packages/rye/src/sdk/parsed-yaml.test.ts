import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { LAYOUT } from "../package-layout.ts";
import { PARSED_YAML_FILE, parserWith, parseYaml as shippedParser, readParsedYamlTable, yamlTextHash } from "./parsed-yaml.ts";
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

test("the built package's table holds every YAML file of the system bundle, each exactly as yaml parses it", { skip: !existsSync(join(LAYOUT.root, "dist", "sdk", "v1.js")) && "the package is not built" }, async () => {
  const table = readParsedYamlTable(PARSED_YAML_FILE);
  assert.ok(table, `the build wrote no ${PARSED_YAML_FILE}`);
  const systemDir = LAYOUT.packagedSystemAiDir;
  const files = (await readdir(systemDir, { recursive: true })).filter((f) => f.endsWith(".yaml"));
  assert.ok(files.some((f) => f.endsWith("anthropic.yaml")) && files.some((f) => f.endsWith("resilience.yaml")));
  for (const file of files) {
    const content = await readFile(join(systemDir, file), "utf8");
    const json = table.get(yamlTextHash(content));
    assert.ok(json !== undefined, `${file} is not in ${PARSED_YAML_FILE}`);
    assert.deepEqual(JSON.parse(json), parse(content), file);
  }
  assert.equal(table.size, new Set(await Promise.all(files.map(async (f) => yamlTextHash(await readFile(join(systemDir, f), "utf8"))))).size);
});
