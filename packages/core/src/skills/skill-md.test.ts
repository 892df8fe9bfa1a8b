import assert from "node:assert/strict";
import { test } from "node:test";
import { SKILL_EXAMPLES } from "./examples.ts";
import { allowedTools, parseSkillMd, skillNameProblem } from "./skill-md.ts";

test("rye's validator gives the reference validator's verdict on every example (stricter only where documented)", () => {
  for (const example of SKILL_EXAMPLES) {
    const parsed = parseSkillMd(example.skillMd, example.folder);
    const expected = example.valid && !example.ryeStricter;
    assert.equal(parsed.issues.length === 0, expected, `${example.title}: ${JSON.stringify(parsed.issues)}`);
    if (expected) assert.ok(parsed.frontmatter, example.title);
  }
});

test("fields come back as the strings an agent reads", () => {
  const parsed = parseSkillMd(SKILL_EXAMPLES.find((e) => e.title === "every optional field")!.skillMd, "data-report");
  assert.deepEqual(parsed.frontmatter, {
    name: "data-report",
    description: "Build a weekly report from CSV exports. Use when the user asks for a report.",
    license: "Apache-2.0",
    compatibility: "Needs Python 3.11 and network access",
    metadata: { author: "example-org", version: "1.2.0" },
    "allowed-tools": "Bash(python:*) Read Write",
  });
  assert.deepEqual(allowedTools(parsed.frontmatter!), ["Bash(python:*)", "Read", "Write"]);
  assert.equal(parsed.body, "\n# Instructions\n\nDo the thing.\n");

  const typed = parseSkillMd(SKILL_EXAMPLES.find((e) => e.title === "numbers and booleans read as strings")!.skillMd, "v2");
  assert.deepEqual(typed.frontmatter, { name: "v2", description: "true", metadata: { version: "1.0", beta: "yes" } });
  const list = parseSkillMd(SKILL_EXAMPLES.find((e) => e.title === "allowed-tools as a block list")!.skillMd, "lister");
  assert.deepEqual(allowedTools(list.frontmatter!), ["Read", "Grep"]);
});

test("each problem is named with its field", () => {
  const issues = (md: string, folder?: string) => parseSkillMd(md, folder).issues;
  assert.deepEqual(issues("---\nname: a\ndescription: d\nversion: 1\nauthor: x\n---\n").map((i) => i.field), ["frontmatter"]);
  assert.match(issues("---\nname: a\ndescription: d\nversion: 1\nauthor: x\n---\n")[0]!.message, /unexpected fields: author, version/);
  assert.match(issues("---\nname: a\ndescription: d\n---\n", "b")[0]!.message, /folder is named "b" but the skill is "a"/);
  assert.deepEqual(issues("---\nname: a\ndescription: d\nmetadata:\n  k:\n    nested: x\n---\n").map((i) => i.field), ["metadata.k"]);
  assert.deepEqual(issues("---\nname: a\ndescription: d\nallowed-tools:\n  x: y\n---\n").map((i) => i.field), ["allowed-tools"]);
  assert.deepEqual(issues("---\nname: a\ndescription:\n  - x\n---\n").map((i) => i.field), ["description"]);
  assert.match(issues("---\nname: &n a\ndescription: *n\n---\n")[0]!.message, /anchors and aliases/);
  assert.match(issues("---\n- a\n- b\n---\n")[0]!.message, /must be a mapping/);
  assert.match(issues("--- \nname: a\n")[0]!.message, /not closed/);
  assert.equal(skillNameProblem("ok-name-2"), null);
  assert.match(skillNameProblem("")!, /empty/);
});
