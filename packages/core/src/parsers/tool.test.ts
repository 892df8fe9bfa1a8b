import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { RyeError } from "../errors.ts";
import { parseTool, toolFormatOf } from "./tool.ts";

const HASH_SIG = `# rye:signed:2026-01-02T03:04:05Z:${"0".repeat(64)}:${"A".repeat(86)}==:0123456789abcdef`;
const SLASH_SIG = `// rye:signed:2026-01-02T03:04:05Z:${"0".repeat(64)}:${"A".repeat(86)}==:0123456789abcdef`;

describe("parseTool: Python", () => {
  const source = `#!/usr/bin/env python3
${HASH_SIG}
"""Greets people.

Second paragraph."""

import os

__version__ = "1.2.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "demo/greet"
__tool_description__ = (
    "Greets " "people"
)
CONFIG_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
ENV_CONFIG = {"interpreter": {"type": "venv_python", "var": "RYE_PYTHON"}}
CONFIG = {"retries": 3, "verbose": False, "ratio": 0.5, "nothing": None, "pair": (1, 2)}
TOOL_METADATA = {"tags": ["x"], "experimental": True}
DYNAMIC = os.environ.get("X")


def main():
    __version__ = "9.9.9"
    return 0
`;
  const tool = parseTool(source, ".ai/tools/demo/greet/greet.py");

  it("reads the format and takes the name from the file stem", () => {
    assert.equal(tool.format, "python");
    assert.equal(tool.name, "greet");
  });

  it("maps the dunder assignments to the standard keys (skipping shebang and signature line)", () => {
    assert.equal(tool.version, "1.2.0");
    assert.equal(tool.tool_type, "python");
    assert.equal(tool.executor_id, "rye/core/runtimes/python_script_runtime");
    assert.equal(tool.category, "demo/greet");
    assert.equal(tool.description, "Greets people");
  });

  it("reads CONFIG_SCHEMA, ENV_CONFIG and CONFIG as plain data (True/False/None, tuples as arrays)", () => {
    assert.deepEqual(tool.config_schema, { type: "object", properties: { name: { type: "string" } }, required: ["name"] });
    assert.deepEqual(tool.env_config, { interpreter: { type: "venv_python", var: "RYE_PYTHON" } });
    assert.deepEqual(tool.config, { retries: 3, verbose: false, ratio: 0.5, nothing: null, pair: [1, 2] });
  });

  it("keeps the module docstring", () => {
    assert.equal(tool.docstring, "Greets people.\n\nSecond paragraph.");
  });

  it("puts other module-level literals in extras and ignores assignments inside functions", () => {
    assert.deepEqual(tool.extras, { TOOL_METADATA: { tags: ["x"], experimental: true } });
    assert.equal(tool.version, "1.2.0");
  });

  it("warns about a non-literal value instead of evaluating it", () => {
    assert.equal(tool.warnings.length, 1);
    assert.match(tool.warnings[0]!, /^DYNAMIC\b/);
    assert.ok(!("DYNAMIC" in tool.extras));
  });

  it("gives executor_id null for a primitive (None)", () => {
    const primitive = parseTool(`__version__ = "1.0.0"\n__tool_type__ = "primitive"\n__executor_id__ = None\n`, "prim.py");
    assert.equal(primitive.executor_id, null);
    assert.equal(primitive.docstring, undefined);
  });

  it("leaves executor_id undefined when the file does not declare it", () => {
    const tool = parseTool(`__version__ = "1.0.0"\n`, "x.py");
    assert.equal(tool.executor_id, undefined);
    assert.equal("executor_id" in tool, false);
  });

  it("warns for a version computed at run time", () => {
    const tool = parseTool(`__version__ = get_version()\n__tool_type__ = f"py{3}"\n`, "x.py");
    assert.equal(tool.version, undefined);
    assert.equal(tool.tool_type, undefined);
    assert.equal(tool.warnings.length, 2);
    assert.ok(tool.warnings.some((w) => w.startsWith("__version__")));
    assert.ok(tool.warnings.some((w) => w.startsWith("__tool_type__")));
  });

  it("uses __description__ only as a fallback for __tool_description__", () => {
    assert.equal(parseTool(`__description__ = "old style"\n`, "x.py").description, "old style");
    assert.equal(parseTool(`__description__ = "old"\n__tool_description__ = "new"\n`, "x.py").description, "new");
  });
});

describe("parseTool: YAML", () => {
  it("reads top-level keys and puts the others in extras", () => {
    const tool = parseTool(
      `${HASH_SIG}
version: "2.0.0"
tool_type: http
executor_id: rye/core/primitives/http_client
category: rye/agent/providers
description: Anthropic provider
tool_id: anthropic
requires: [net.call]
config:
  method: POST
  url: https://api.example.com/v1/messages
tier_mapping:
  fast: model-a
`,
      ".ai/tools/rye/agent/providers/anthropic.yml",
    );
    assert.equal(tool.format, "yaml");
    assert.equal(tool.name, "anthropic");
    assert.equal(tool.version, "2.0.0");
    assert.equal(tool.tool_type, "http");
    assert.equal(tool.executor_id, "rye/core/primitives/http_client");
    assert.equal(tool.category, "rye/agent/providers");
    assert.equal(tool.description, "Anthropic provider");
    assert.deepEqual(tool.config, { method: "POST", url: "https://api.example.com/v1/messages" });
    assert.deepEqual(tool.extras, { tool_id: "anthropic", requires: ["net.call"], tier_mapping: { fast: "model-a" } });
    assert.deepEqual(tool.warnings, []);
  });

  it("reads the real subprocess.yaml vector (a primitive: executor_id null)", () => {
    const raw = readFileSync(new URL("../../test/vectors/original/subprocess.yaml", import.meta.url), "utf8");
    const tool = parseTool(raw, "rye/rye/.ai/tools/rye/core/primitives/subprocess.yaml");
    assert.equal(tool.name, "subprocess");
    assert.equal(tool.version, "1.0.0");
    assert.equal(tool.tool_type, "primitive");
    assert.equal(tool.executor_id, null);
    assert.equal(tool.category, "rye/core/primitives");
    assert.equal(tool.description, "Subprocess primitive - execute shell commands with configurable arguments");
    const schema = tool.config_schema as { type: string; properties: Record<string, { type: string; default?: unknown }>; required: string[] };
    assert.equal(schema.type, "object");
    assert.deepEqual(Object.keys(schema.properties), ["command", "args", "cwd", "env", "timeout", "input_data"]);
    assert.equal(schema.properties.timeout!.default, 300);
    assert.deepEqual(schema.required, ["command"]);
    assert.deepEqual(tool.extras, {});
  });

  it("keeps an unquoted 1.0.0 version as a string (YAML 1.2 core schema)", () => {
    assert.equal(parseTool("version: 1.0.0\n", "x.yaml").version, "1.0.0");
  });

  it("fails with PARSE_FAILED on invalid YAML or a non-mapping", () => {
    for (const text of ["version: [unclosed\n", "- a\n- b\n", "just a string\n", ""]) {
      assert.throws(
        () => parseTool(text, "x.yaml"),
        (err: unknown) => err instanceof RyeError && err.code === "PARSE_FAILED",
        JSON.stringify(text),
      );
    }
  });
});

describe("parseTool: JavaScript and TypeScript", () => {
  const js = `#!/usr/bin/env node
${SLASH_SIG}
/** Fetches a page. export const __version__ = "0.0.0-in-a-comment" */
export const __version__ = "1.0.0";
export const __tool_type__ = 'javascript';
export const __executor_id__ = "rye/core/runtimes/node_runtime";
export const __category__ = \`web\`;
export const __tool_description__ = "Fetch a page";
export const CONFIG_SCHEMA = { type: "object", properties: { url: { type: "string" } }, required: ["url"], };
export const ACTIONS = ["get", "head"];
export const computed = Date.now();
const notExported = "x";

export function main() {
  const __version__ = "9.9.9";
  return __version__;
}
`;

  it("reads exported dunder constants of a .mjs file with the same names as Python", () => {
    const tool = parseTool(js, "fetch.mjs");
    assert.equal(tool.format, "javascript");
    assert.equal(tool.name, "fetch");
    assert.equal(tool.version, "1.0.0");
    assert.equal(tool.tool_type, "javascript");
    assert.equal(tool.executor_id, "rye/core/runtimes/node_runtime");
    assert.equal(tool.category, "web");
    assert.equal(tool.description, "Fetch a page");
    assert.deepEqual(tool.config_schema, { type: "object", properties: { url: { type: "string" } }, required: ["url"] });
  });

  it("puts other exported literals in extras, ignores non-exported ones and warns on non-literals", () => {
    const tool = parseTool(js, "fetch.js");
    assert.deepEqual(tool.extras, { ACTIONS: ["get", "head"] });
    assert.equal(tool.warnings.length, 1);
    assert.match(tool.warnings[0]!, /^computed\b/);
  });

  it("skips a # signature line too (the original signs every tool with #)", () => {
    const tool = parseTool(`${HASH_SIG}\nexport const __version__ = "3.0.0";\n`, "t.js");
    assert.equal(tool.version, "3.0.0");
    assert.deepEqual(tool.warnings, []);
  });

  it("reads a .ts file with type annotations, 'as const' and a null executor", () => {
    const tool = parseTool(
      `export const __version__: string = "2.0.0";\nexport const __executor_id__ = null;\nexport const CONFIG = { a: 1, b: [true, null] } as const;\n`,
      "x.ts",
    );
    assert.equal(tool.format, "typescript");
    assert.equal(tool.version, "2.0.0");
    assert.equal(tool.executor_id, null);
    assert.deepEqual(tool.config, { a: 1, b: [true, null] });
  });
});

describe("parseTool: shell", () => {
  const sh = `#!/usr/bin/env bash
${HASH_SIG}
# @version 1.0.0
# @tool_type shell
# @executor_id rye/core/runtimes/bash_runtime
# @category ops/disk
# @description Print disk usage
# @config_schema {"type":"object","properties":{"path":{"type":"string"}}}
# @env_config {"PATH": "/usr/bin"}
# @config {"human": true}
# @requires fs.read
# a plain comment
echo hi
# @version 9.9.9
`;

  it("reads the # @key value header", () => {
    const tool = parseTool(sh, ".ai/tools/ops/disk/du.sh");
    assert.equal(tool.format, "shell");
    assert.equal(tool.name, "du");
    assert.equal(tool.version, "1.0.0");
    assert.equal(tool.tool_type, "shell");
    assert.equal(tool.executor_id, "rye/core/runtimes/bash_runtime");
    assert.equal(tool.category, "ops/disk");
    assert.equal(tool.description, "Print disk usage");
    assert.deepEqual(tool.config_schema, { type: "object", properties: { path: { type: "string" } } });
    assert.deepEqual(tool.env_config, { PATH: "/usr/bin" });
    assert.deepEqual(tool.config, { human: true });
    assert.deepEqual(tool.extras, { requires: "fs.read" });
    assert.deepEqual(tool.warnings, []);
  });

  it("stops at the first non-comment line", () => {
    assert.equal(parseTool(sh, "du.sh").version, "1.0.0");
  });

  it("reads '@executor_id null' as null", () => {
    assert.equal(parseTool("# @executor_id null\n", "p.sh").executor_id, null);
    assert.equal(parseTool("# @version 1.0.0\n", "p.sh").executor_id, undefined);
  });

  it("warns when a JSON-valued key is not JSON and drops the value", () => {
    const tool = parseTool("# @config_schema {type: object}\n# @version 1.0.0\n", "x.sh");
    assert.equal(tool.config_schema, undefined);
    assert.equal(tool.version, "1.0.0");
    assert.equal(tool.warnings.length, 1);
    assert.match(tool.warnings[0]!, /@config_schema/);
  });
});

describe("parseTool: formats", () => {
  it("maps extensions to formats", () => {
    assert.equal(toolFormatOf("a.py"), "python");
    assert.equal(toolFormatOf("a.yaml"), "yaml");
    assert.equal(toolFormatOf("a.yml"), "yaml");
    assert.equal(toolFormatOf("a.js"), "javascript");
    assert.equal(toolFormatOf("a.mjs"), "javascript");
    assert.equal(toolFormatOf("a.ts"), "typescript");
    assert.equal(toolFormatOf("a.sh"), "shell");
    assert.equal(toolFormatOf("a.json"), null);
  });

  it("takes the name from the file stem of POSIX and Windows paths", () => {
    assert.equal(parseTool("version: 1.0.0\n", "/p/.ai/tools/a/b/my_tool.yaml").name, "my_tool");
    assert.equal(parseTool('export const __version__ = "1.0.0";\n', "C:\\p\\.ai\\tools\\a\\t.js").name, "t");
  });

  it("rejects an unsupported extension with PARSE_FAILED", () => {
    for (const path of ["tool.rb", "tool.json", "tool.toml", "tool.md", "Makefile"]) {
      assert.throws(
        () => parseTool("version: 1.0.0\n", path),
        (err: unknown) => err instanceof RyeError && err.code === "PARSE_FAILED" && /Unsupported tool file extension/.test(err.message),
        path,
      );
    }
  });
});
