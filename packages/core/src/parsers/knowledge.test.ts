import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { sha256Hex } from "../hash.ts";
import { parseKnowledge } from "./knowledge.ts";

const SIG = `<!-- rye:signed:2026-01-02T03:04:05Z:${"0".repeat(64)}:${"A".repeat(86)}==:0123456789abcdef -->`;

describe("parseKnowledge: YAML frontmatter", () => {
  it("reads scalars, quoted values, flow lists and block lists", () => {
    const parsed = parseKnowledge(`---
id: api_limits
title: "Rate limits: what to expect"
version: "1.2.0"
entry_type: 'api_fact'
category: apis/github
tags: [http, "rate limits", 'retry']
references:
  - https://docs.github.com/rest
  - internal/notes
author: alice
---

# Rate limits

Body text.
`);
    assert.equal(parsed.hasFrontmatter, true);
    assert.equal(parsed.warning, undefined);
    assert.deepEqual(parsed.frontmatter, {
      id: "api_limits",
      title: "Rate limits: what to expect",
      version: "1.2.0",
      entry_type: "api_fact",
      category: "apis/github",
      tags: ["http", "rate limits", "retry"],
      references: ["https://docs.github.com/rest", "internal/notes"],
      author: "alice",
    });
    assert.equal(parsed.body, "# Rate limits\n\nBody text.");
  });

  it("keeps an unquoted semver as a string and a date as a YYYY-MM-DD string", () => {
    const { frontmatter } = parseKnowledge("---\nid: x\nversion: 1.0.0\ncreated_at: 2026-02-14\n---\nbody");
    assert.equal(frontmatter.version, "1.0.0");
    assert.equal(frontmatter.created_at, "2026-02-14");
    assert.equal(typeof frontmatter.created_at, "string");
  });

  it("does not turn yes/no into booleans (YAML 1.2 core schema) and keeps null", () => {
    const { frontmatter } = parseKnowledge("---\nid: x\ndraft: yes\nreviewed: true\nnote: ~\n---\n");
    assert.deepEqual(frontmatter, { id: "x", draft: "yes", reviewed: true, note: null });
  });

  it("stops at the first closing --- line, so a horizontal rule in the body stays in the body", () => {
    const parsed = parseKnowledge("---\nid: x\n---\nintro\n\n---\n\nmore: text\n");
    assert.deepEqual(parsed.frontmatter, { id: "x" });
    assert.equal(parsed.body, "intro\n\n---\n\nmore: text");
  });

  it("accepts an empty frontmatter block", () => {
    for (const text of ["---\n---\nbody\n\n---\nrest", "---\n\n---\nbody\n\n---\nrest"]) {
      const parsed = parseKnowledge(text);
      assert.equal(parsed.hasFrontmatter, true, JSON.stringify(text));
      assert.deepEqual(parsed.frontmatter, {});
      assert.equal(parsed.body, "body\n\n---\nrest");
    }
  });

  it("reads CRLF files like LF files", () => {
    const parsed = parseKnowledge("---\r\nid: x\r\ntitle: T\r\n---\r\n\r\nline one\r\nline two\r\n");
    assert.deepEqual(parsed.frontmatter, { id: "x", title: "T" });
    assert.equal(parsed.body, "line one\nline two");
  });
});

describe("parseKnowledge: fallback line parser", () => {
  const text = `---
id: broken_yaml
title: Colon: inside: the value
version: "1.0.0"
tags: [a, "b", 'c']
# note: comment lines are skipped
references:
  - dropped
  - also dropped
---
Body.
`;

  it("falls back to the original's line parser when the YAML is invalid, with a warning", () => {
    const parsed = parseKnowledge(text);
    assert.equal(parsed.hasFrontmatter, true);
    assert.ok(parsed.warning, "a warning is expected");
    assert.match(parsed.warning, /not valid YAML/);
    assert.equal(parsed.body, "Body.");
  });

  it("splits at the first ':', strips quotes, reads [a, b] lists, skips comments and drops block lists", () => {
    const { frontmatter } = parseKnowledge(text);
    assert.deepEqual(frontmatter, {
      id: "broken_yaml",
      title: "Colon: inside: the value",
      version: "1.0.0",
      tags: ["a", "b", "c"],
      references: "",
    });
    assert.equal("note" in frontmatter, false);
  });

  it("reads empty list items and an empty list as nothing, like the original", () => {
    const { frontmatter } = parseKnowledge("---\nid: x\nbad: value: here\ntags: [a, , b]\naliases: []\n---\n");
    assert.deepEqual(frontmatter.tags, ["a", "b"]);
    assert.deepEqual(frontmatter.aliases, []);
  });

  it("also falls back when the frontmatter is valid YAML but not a mapping", () => {
    const parsed = parseKnowledge("---\n- a\n- b\n---\nbody");
    assert.ok(parsed.warning);
    assert.deepEqual(parsed.frontmatter, {});
    assert.equal(parsed.body, "body");
  });
});

describe("parseKnowledge: no frontmatter", () => {
  it("returns the whole trimmed text as body", () => {
    const parsed = parseKnowledge("\n# Just markdown\n\nid: not frontmatter\n");
    assert.equal(parsed.hasFrontmatter, false);
    assert.deepEqual(parsed.frontmatter, {});
    assert.equal(parsed.body, "# Just markdown\n\nid: not frontmatter");
    assert.equal(parsed.warning, undefined);
  });

  it("needs the opening --- on the first line (after the signature line) and a closing ---", () => {
    assert.equal(parseKnowledge("\n---\nid: x\n---\nbody").hasFrontmatter, false);
    assert.equal(parseKnowledge("---\nid: x\nno closing line\n").hasFrontmatter, false);
  });
});

describe("parseKnowledge: signature line", () => {
  it("skips a signature line before the frontmatter", () => {
    const parsed = parseKnowledge(`${SIG}\n---\nid: signed_entry\ntitle: Signed\n---\n\nSigned body.\n`);
    assert.equal(parsed.hasFrontmatter, true);
    assert.deepEqual(parsed.frontmatter, { id: "signed_entry", title: "Signed" });
    assert.equal(parsed.body, "Signed body.");
  });

  it("skips a legacy rye:validated line too", () => {
    const parsed = parseKnowledge(`<!-- rye:validated:2026-02-10T02:00:00Z:placeholder -->\n---\nid: legacy\n---\nbody`);
    assert.deepEqual(parsed.frontmatter, { id: "legacy" });
    assert.equal(parsed.body, "body");
  });
});

describe("parseKnowledge: the real anchor_patterns.md vector", () => {
  const raw = readFileSync(new URL("../../test/vectors/original/anchor_patterns.md", import.meta.url), "utf8");
  const parsed = parseKnowledge(raw);

  it("reads its frontmatter", () => {
    assert.equal(parsed.warning, undefined);
    assert.deepEqual(parsed.frontmatter, {
      id: "anchor_patterns",
      title: "Anchor System Patterns",
      version: "1.0.0",
      entry_type: "reference",
      category: "test/anchor_demo",
      tags: ["anchor", "pythonpath", "imports"],
      created_at: "2026-02-14",
    });
  });

  it("returns as body exactly the text the signature covers (§3.3: after the frontmatter, stripped)", () => {
    assert.ok(parsed.body.startsWith("# Anchor System Patterns\n\nThe anchor system"));
    assert.ok(parsed.body.endsWith("for integrity"));
    const embedded = /^<!-- rye:signed:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z:([0-9a-f]{64}):/.exec(raw)![1];
    assert.equal(sha256Hex(parsed.body), embedded);
  });
});
