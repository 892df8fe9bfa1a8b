/** itemReferences: what a directive or tool says it uses, read from the file alone. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseItem } from "../validate/item.ts";
import { boundedItemReferences, itemReferences, MAX_REFERENCES_PER_ITEM, registryCandidates } from "./references.ts";

const directive = (xml: string, metadataExtra = "") =>
  `# d\n\n\`\`\`xml\n<directive name="d" version="1.0.0">\n  <metadata>\n    <description>D.</description>\n    <category>flows</category>\n    <author>a</author>\n${metadataExtra}  </metadata>\n${xml}\n</directive>\n\`\`\`\n`;
const refsOf = (content: string) => itemReferences(parseItem(content, "directive"));

test("a directive's <execute> and <load> actions, in order, each (type, id) once; hooks count too", () => {
  const content = directive(
    `  <process>
    <step><execute item_type="tool" item_id="acme/tools/fetch"><param name="url" value="x"/></execute></step>
    <step><load item_type="knowledge" item_id="acme/notes/style"/></step>
    <step><execute item_type="directive" item_id="acme/flows/child@1.2.0"/></step>
    <step><execute item_type="tool" item_id="acme/tools/fetch"/></step>
    <step><search item_type="tool" query="anything"/></step>
    <step><sign item_type="tool" item_id="acme/tools/signed_only"/></step>
  </process>`,
    `    <hooks><hook event="thread_started"><load item_type="knowledge" item_id="acme/notes/hooked"/></hook></hooks>\n`,
  );
  assert.deepEqual(refsOf(content), [
    { kind: "execute", type: "tool", id: "acme/tools/fetch" },
    { kind: "load", type: "knowledge", id: "acme/notes/style" },
    { kind: "execute", type: "directive", id: "acme/flows/child", version: "1.2.0" },
    { kind: "load", type: "knowledge", id: "acme/notes/hooked" },
  ]);
});

test("permissions grant and are not uses; run-time ids, bad ids and bad versions name nothing fixed", () => {
  const content = directive(
    `  <execute item_type="tool" item_id="{input:tool}"/>
  <execute item_type="tool" item_id="acme/tools/\${name}"/>
  <execute item_type="tool" item_id="../../etc/passwd"/>
  <execute item_type="tool" item_id="acme/tools/x@latest"/>
  <execute item_type="widget" item_id="acme/tools/y"/>
  <execute item_id="acme/tools/untyped"/>`,
    `    <permissions><execute><tool>acme.tools.*</tool></execute><load><knowledge>acme/notes/exact</knowledge></load></permissions>\n`,
  );
  assert.deepEqual(refsOf(content), []);
});

test("a tool's executor_id is its one use; a primitive has none", () => {
  const tool = (executor: string) => itemReferences(parseItem(`__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = ${executor}\n__category__ = "tools"\n__tool_description__ = "T"\n`, "tool", { path: "t.py" }));
  assert.deepEqual(tool(`"rye/core/runtimes/python_script_runtime"`), [{ kind: "executor", type: "tool", id: "rye/core/runtimes/python_script_runtime" }]);
  assert.deepEqual(tool("None"), []);
  const knowledge = parseItem("---\nid: k\ntitle: K\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n---\n\nBody.\n", "knowledge");
  assert.deepEqual(itemReferences(knowledge), []);
});

test(`more than ${MAX_REFERENCES_PER_ITEM} distinct references are refused at the limit, not before`, () => {
  const many = (n: number) => directive(Array.from({ length: n }, (_, i) => `  <execute item_type="tool" item_id="acme/tools/t${i}"/>`).join("\n"));
  assert.equal(boundedItemReferences(parseItem(many(MAX_REFERENCES_PER_ITEM), "directive")).length, MAX_REFERENCES_PER_ITEM);
  assert.throws(() => boundedItemReferences(parseItem(many(MAX_REFERENCES_PER_ITEM + 1), "directive")), (err: { code?: string; message?: string }) => err.code === "VALIDATION_FAILED" && /65 items; at most 64/.test(err.message ?? ""));
});

test("registry candidates: the id itself when it is a registry id, then the system bundle's rye/<id>", () => {
  assert.deepEqual(registryCandidates("acme/tools/x"), ["acme/tools/x", "rye/acme/tools/x"]);
  assert.deepEqual(registryCandidates("core/runtimes"), ["rye/core/runtimes"]);
  assert.deepEqual(registryCandidates("rye/rye/core/primitives/subprocess"), ["rye/rye/core/primitives/subprocess"]);
});
