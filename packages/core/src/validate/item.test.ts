import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { RyeError } from "../errors.ts";
import type { ValidationIssue } from "./item.ts";
import { locationFromPath, parseItem, validateMetadata } from "./item.ts";

const fields = (issues: ValidationIssue[]) => issues.map((i) => i.field).sort();
const issueFor = (issues: ValidationIssue[], field: string) => {
  const found = issues.find((i) => i.field === field);
  assert.ok(found, `expected an issue for ${field}, got ${JSON.stringify(issues)}`);
  return found;
};

const vector = (name: string) => readFileSync(new URL(`../../test/vectors/original/${name}`, import.meta.url), "utf8");

const DIRECTIVE = { name: "deploy_app", version: "1.0.0", description: "Deploys", category: "ops/deploy", author: "alice" };
const TOOL = {
  name: "greet",
  version: "1.0.0",
  tool_type: "python",
  executor_id: "rye/core/runtimes/python_script_runtime",
  category: "demo",
  description: "Greets",
};
const KNOWLEDGE = { id: "notes", title: "Notes", version: "1.0.0", entry_type: "reference" };

describe("validateMetadata: directives", () => {
  it("accepts complete metadata", () => {
    assert.deepEqual(validateMetadata("directive", DIRECTIVE), []);
    assert.deepEqual(validateMetadata("directive", DIRECTIVE, { stem: "deploy_app", category: "ops/deploy" }), []);
  });

  it("requires name, version, description, category and author, naming each field in its message", () => {
    const issues = validateMetadata("directive", {});
    assert.deepEqual(fields(issues), ["author", "category", "description", "name", "version"]);
    for (const issue of issues) assert.match(issue.message, new RegExp(issue.field), JSON.stringify(issue));
  });

  for (const field of ["name", "version", "description", "category", "author"] as const) {
    it(`reports a missing ${field} alone`, () => {
      const { [field]: _dropped, ...rest } = DIRECTIVE;
      const issues = validateMetadata("directive", rest);
      assert.deepEqual(fields(issues), [field]);
      assert.match(issues[0]!.message, new RegExp(`${field} is required`));
    });
  }

  it("treats blank description and author as missing, but accepts an empty category (the root folder)", () => {
    const issues = validateMetadata("directive", { ...DIRECTIVE, description: "   ", author: "", category: "" });
    assert.deepEqual(fields(issues), ["author", "description"]);
  });

  it("needs snake_case names", () => {
    for (const name of ["deploy_app", "x", "a1_b2", "deploy__app_"]) {
      assert.deepEqual(validateMetadata("directive", { ...DIRECTIVE, name }), [], name);
    }
    for (const name of ["DeployApp", "deploy-app", "1deploy", "_deploy", "deploy app", "déploy", ""]) {
      const issues = validateMetadata("directive", { ...DIRECTIVE, name });
      assert.deepEqual(fields(issues), ["name"], name);
      assert.match(issues[0]!.message, /snake_case/);
    }
  });

  it("needs a semantic version string", () => {
    for (const version of ["1.0.0", "0.0.1", "10.20.30", "1.0.0-beta.1+b", "2.1.0-rc.1", "1.0.0+build.5"]) {
      assert.deepEqual(validateMetadata("directive", { ...DIRECTIVE, version }), [], version);
    }
    for (const version of ["1.0", "v1.0.0", "1", "1.0.0.0", "01.0.0", "1.0.0-", "latest", 1, 1.5, null]) {
      const issues = validateMetadata("directive", { ...DIRECTIVE, version });
      assert.deepEqual(fields(issues), ["version"], String(version));
      assert.match(issues[0]!.message, /version/);
      assert.match(issues[0]!.message, /1\.0\.0/, "the message shows an example");
    }
  });

  it("checks the name against the file stem", () => {
    const issues = validateMetadata("directive", DIRECTIVE, { stem: "deploy" });
    assert.deepEqual(fields(issues), ["name"]);
    assert.match(issues[0]!.message, /name "deploy_app" must equal the file name "deploy"/);
  });

  it("checks the category against the folder path", () => {
    const issues = validateMetadata("directive", DIRECTIVE, { category: "ops" });
    assert.deepEqual(fields(issues), ["category"]);
    assert.match(issues[0]!.message, /category "ops\/deploy" must equal the folder path "ops"/);
    // at the root the category must be ""
    assert.deepEqual(fields(validateMetadata("directive", DIRECTIVE, { category: "" })), ["category"]);
    assert.deepEqual(validateMetadata("directive", { ...DIRECTIVE, category: "" }, { category: "" }), []);
  });

  it("skips the file checks when there is no location (the registry case)", () => {
    assert.deepEqual(validateMetadata("directive", { ...DIRECTIVE, name: "anything_else", category: "x/y" }), []);
  });

  it("checks model.parallel and the limit types", () => {
    const ok = { ...DIRECTIVE, model: { tier: "haiku", parallel: "false", extra: "kept" }, limits: { turns: 3, spend: 0.5, spend_currency: "USD" } };
    assert.deepEqual(validateMetadata("directive", ok), []);
    const issues = validateMetadata("directive", {
      ...DIRECTIVE,
      model: { parallel: "yes" },
      limits: { turns: "many", tokens: 1.5, spend: "cheap", spend_currency: 5, depth: 2 },
    });
    assert.deepEqual(fields(issues), ["limits.spend", "limits.spend_currency", "limits.tokens", "limits.turns", "model.parallel"]);
  });

  it("checks input names and types; inputs are optional", () => {
    const good = [
      { name: "env", type: "string", required: true },
      { name: "_private", type: "boolean", required: false },
      { name: "camelCase2", type: "integer", required: false },
    ];
    assert.deepEqual(validateMetadata("directive", { ...DIRECTIVE, inputs: good }), []);
    assert.deepEqual(validateMetadata("directive", { ...DIRECTIVE, inputs: [] }), []);
    const issues = validateMetadata("directive", {
      ...DIRECTIVE,
      inputs: [
        { name: "bad-name", type: "string", required: true },
        { name: "ok", type: "", required: false },
        { name: "", type: "string", required: false },
        { name: "2fast", type: "string", required: false },
      ],
    });
    assert.deepEqual(fields(issues), ["inputs.0.name", "inputs.1.type", "inputs.2.name", "inputs.3.name"]);
    assert.match(issueFor(issues, "inputs.0.name").message, /input names/);
    assert.match(issueFor(issues, "inputs.1.type").message, /input type is required/);
  });
});

describe("validateMetadata: tools", () => {
  it("accepts complete metadata, with executor_id null for a primitive", () => {
    assert.deepEqual(validateMetadata("tool", TOOL), []);
    assert.deepEqual(validateMetadata("tool", { ...TOOL, executor_id: null, tool_type: "primitive" }), []);
  });

  it("requires version, tool_type, executor_id, category and description, naming each field", () => {
    const issues = validateMetadata("tool", { name: "t" });
    assert.deepEqual(fields(issues), ["category", "description", "executor_id", "tool_type", "version"]);
    for (const issue of issues) assert.match(issue.message, new RegExp(issue.field), JSON.stringify(issue));
  });

  it("distinguishes a missing executor_id (an issue) from null (a primitive)", () => {
    const { executor_id: _dropped, ...noExecutor } = TOOL;
    const issues = validateMetadata("tool", noExecutor);
    assert.deepEqual(fields(issues), ["executor_id"]);
    assert.match(issues[0]!.message, /executor_id is required.*null for a primitive/);
    assert.deepEqual(validateMetadata("tool", { ...TOOL, executor_id: null }), []);
  });

  it("rejects an executor_id that is not an item id", () => {
    for (const executor_id of ["", "../escape", "/abs/path", "a//b", 42]) {
      assert.deepEqual(fields(validateMetadata("tool", { ...TOOL, executor_id })), ["executor_id"], String(executor_id));
    }
  });

  it("rejects names that cannot be an item-id segment", () => {
    for (const name of ["bad name", "a/b", ".hidden", ""]) {
      assert.deepEqual(fields(validateMetadata("tool", { ...TOOL, name })), ["name"], name);
    }
    assert.deepEqual(validateMetadata("tool", { ...TOOL, name: "python-script.runtime_2" }), []);
  });

  it("checks version, and that config_schema / env_config / config are mappings", () => {
    assert.deepEqual(fields(validateMetadata("tool", { ...TOOL, version: "1.0" })), ["version"]);
    const issues = validateMetadata("tool", { ...TOOL, config_schema: ["type"], env_config: "PATH", config: 3 });
    assert.deepEqual(fields(issues), ["config", "config_schema", "env_config"]);
    assert.match(issueFor(issues, "config_schema").message, /config_schema/);
  });

  it("checks the name against the stem and the category against the folder path", () => {
    const issues = validateMetadata("tool", TOOL, { stem: "hello", category: "demo/sub" });
    assert.deepEqual(fields(issues), ["category", "name"]);
    assert.deepEqual(validateMetadata("tool", TOOL, { stem: "greet", category: "demo" }), []);
  });
});

describe("validateMetadata: knowledge", () => {
  it("accepts complete metadata without a category", () => {
    assert.deepEqual(validateMetadata("knowledge", KNOWLEDGE), []);
  });

  it("requires id, title, version and entry_type, naming each field", () => {
    const issues = validateMetadata("knowledge", {});
    assert.deepEqual(fields(issues), ["entry_type", "id", "title", "version"]);
    for (const issue of issues) assert.match(issue.message, new RegExp(issue.field), JSON.stringify(issue));
  });

  it("checks the id (not a name) against the file stem", () => {
    const issues = validateMetadata("knowledge", KNOWLEDGE, { stem: "other" });
    assert.deepEqual(fields(issues), ["id"]);
    assert.match(issues[0]!.message, /id "notes" must equal the file name "other"/);
  });

  it("checks the category only when the entry declares one", () => {
    assert.deepEqual(validateMetadata("knowledge", KNOWLEDGE, { stem: "notes", category: "a/b" }), []);
    assert.deepEqual(validateMetadata("knowledge", { ...KNOWLEDGE, category: "a/b" }, { stem: "notes", category: "a/b" }), []);
    const issues = validateMetadata("knowledge", { ...KNOWLEDGE, category: "a" }, { stem: "notes", category: "a/b" });
    assert.deepEqual(fields(issues), ["category"]);
  });

  it("rejects a numeric version (YAML `version: 1.0`) and non-list tags", () => {
    assert.deepEqual(fields(validateMetadata("knowledge", { ...KNOWLEDGE, version: 1 })), ["version"]);
    const issues = validateMetadata("knowledge", { ...KNOWLEDGE, tags: "a, b" });
    assert.deepEqual(fields(issues), ["tags"]);
    assert.match(issues[0]!.message, /tags/);
    assert.deepEqual(validateMetadata("knowledge", { ...KNOWLEDGE, tags: ["a", "b"] }), []);
  });
});

describe("locationFromPath", () => {
  it("gives the stem and the folder path under .ai/<type folder>/", () => {
    assert.deepEqual(locationFromPath("directive", "/proj/.ai/directives/a/b/x.md"), { stem: "x", category: "a/b" });
    assert.deepEqual(locationFromPath("directive", ".ai/directives/x.md"), { stem: "x", category: "" });
    assert.deepEqual(locationFromPath("tool", "/home/u/.ai/tools/rye/core/runtimes/python_script_runtime.yaml"), {
      stem: "python_script_runtime",
      category: "rye/core/runtimes",
    });
    assert.deepEqual(locationFromPath("knowledge", "/p/.ai/knowledge/test/anchor_demo/anchor_patterns.md"), {
      stem: "anchor_patterns",
      category: "test/anchor_demo",
    });
  });

  it("gives only the stem outside the type's folder", () => {
    assert.deepEqual(locationFromPath("directive", "x.md"), { stem: "x" });
    assert.deepEqual(locationFromPath("directive", "/p/.ai/tools/a/x.md"), { stem: "x" });
    assert.deepEqual(locationFromPath("directive", "/p/my.ai/directives/a/x.md"), { stem: "x" });
  });

  it("handles Windows separators", () => {
    assert.deepEqual(locationFromPath("tool", "C:\\proj\\.ai\\tools\\a\\b\\t.py"), { stem: "t", category: "a/b" });
  });
});

const directiveFile = (name: string, category: string) => `# Title

\`\`\`xml
<directive name="${name}" version="1.0.0">
  <metadata>
    <description>Does things</description>
    <category>${category}</category>
    <author>alice</author>
  </metadata>
  <inputs><input name="target" required="true">Where</input></inputs>
</directive>
\`\`\`
`;

describe("parseItem", () => {
  it("parses a directive and summarises it", () => {
    const item = parseItem(directiveFile("deploy_app", "ops/deploy"), "directive", { path: "/p/.ai/directives/ops/deploy/deploy_app.md" });
    assert.equal(item.type, "directive");
    assert.deepEqual(item.summary, {
      type: "directive",
      name: "deploy_app",
      version: "1.0.0",
      description: "Does things",
      category: "ops/deploy",
      author: "alice",
    });
    assert.deepEqual(item.issues, []);
    assert.deepEqual(item.warnings, []);
    assert.equal(item.type === "directive" && item.metadata.inputs[0]!.required, true);
  });

  it("reports a directive whose name and category do not match its path", () => {
    const item = parseItem(directiveFile("deploy_app", "ops"), "directive", { path: "/p/.ai/directives/ops/deploy/deploy.md" });
    assert.deepEqual(fields(item.issues), ["category", "name"]);
  });

  it("lets an explicit location override the path", () => {
    const item = parseItem(directiveFile("deploy_app", "ops"), "directive", {
      path: "/p/.ai/directives/ops/deploy/deploy.md",
      location: { stem: "deploy_app", category: "ops" },
    });
    assert.deepEqual(item.issues, []);
  });

  it("validates the real limit_test.md vector at its original path", () => {
    const item = parseItem(vector("limit_test.md"), "directive", { path: "tests/e2e/.ai/directives/test/limits/limit_test.md" });
    assert.deepEqual(item.issues, []);
    assert.equal(item.summary.name, "limit_test");
    assert.equal(item.summary.category, "test/limits");
  });

  it("throws PARSE_FAILED only when the file cannot be read as its type", () => {
    assert.throws(
      () => parseItem("# no fence here\n", "directive"),
      (err: unknown) => err instanceof RyeError && err.code === "PARSE_FAILED",
    );
    assert.throws(
      () => parseItem("version: 1.0.0\n", "tool"),
      (err: unknown) => err instanceof RyeError && err.code === "PARSE_FAILED" && /file name/.test(err.message),
    );
  });

  it("parses a tool and summarises it (executorId null for a primitive)", () => {
    const item = parseItem(vector("subprocess.yaml"), "tool", { path: "rye/rye/.ai/tools/rye/core/primitives/subprocess.yaml" });
    assert.equal(item.type, "tool");
    assert.deepEqual(item.summary, {
      type: "tool",
      name: "subprocess",
      version: "1.0.0",
      description: "Subprocess primitive - execute shell commands with configurable arguments",
      category: "rye/core/primitives",
      toolType: "primitive",
      executorId: null,
    });
    assert.deepEqual(item.issues, []);
  });

  it("reports a tool placed in the wrong folder, a missing executor_id and carries parser warnings", () => {
    const source = `__version__ = "1.0.0"\n__tool_type__ = "python"\n__category__ = "demo"\n__tool_description__ = "d"\nX = compute()\n`;
    const item = parseItem(source, "tool", { path: "/p/.ai/tools/other/t.py" });
    assert.deepEqual(fields(item.issues), ["category", "executor_id"]);
    assert.equal(item.summary.executorId, undefined);
    assert.equal(item.summary.name, "t");
    assert.equal(item.warnings.length, 1);
    assert.match(item.warnings[0]!, /^X\b/);
  });

  it("takes a tool's name from a Windows path's stem", () => {
    const source = `__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = None\n__category__ = "a"\n__tool_description__ = "d"\n`;
    const item = parseItem(source, "tool", { path: "C:\\p\\.ai\\tools\\a\\t.py" });
    assert.equal(item.summary.name, "t");
    assert.deepEqual(item.issues, []);
  });

  it("parses knowledge and summarises it (name = id, description falls back to the title)", () => {
    const item = parseItem(vector("anchor_patterns.md"), "knowledge", { path: "tests/e2e/.ai/knowledge/test/anchor_demo/anchor_patterns.md" });
    assert.equal(item.type, "knowledge");
    assert.deepEqual(item.summary, {
      type: "knowledge",
      name: "anchor_patterns",
      version: "1.0.0",
      description: "Anchor System Patterns",
      category: "test/anchor_demo",
      title: "Anchor System Patterns",
      tags: ["anchor", "pythonpath", "imports"],
    });
    assert.deepEqual(item.issues, []);
    assert.deepEqual(item.warnings, []);
  });

  it("uses a knowledge description and author when present, and reports frontmatter problems", () => {
    const item = parseItem(
      "---\nid: notes\ntitle: Notes\ndescription: Short text\nauthor: bob\nversion: 1.0\n---\nbody",
      "knowledge",
      { path: ".ai/knowledge/notes.md" },
    );
    assert.equal(item.summary.description, "Short text");
    assert.equal(item.summary.author, "bob");
    assert.equal(item.summary.version, "1");
    assert.deepEqual(fields(item.issues), ["entry_type", "version"]);
  });

  it("passes the fallback parser's warning on", () => {
    const item = parseItem("---\nid: k\ntitle: a: b: c\nversion: 1.0.0\nentry_type: pattern\n---\nbody", "knowledge", { path: "k.md" });
    assert.equal(item.warnings.length, 1);
    assert.match(item.warnings[0]!, /not valid YAML/);
    assert.equal(item.summary.title, "a: b: c");
    assert.deepEqual(item.issues, []);
  });
});
