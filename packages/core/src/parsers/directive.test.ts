import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { RyeError } from "../errors.ts";
import { parseDirective, permissionsToCapabilities, splitDirectiveMarkdown } from "./directive.ts";
import { parseXml } from "./xml-tree.ts";

const FENCE = "```";

/** A directive file: markdown prose, the ```xml fence with `xml`, the closing fence, then `after`. */
function md(xml: string, options: { before?: string; after?: string } = {}): string {
  const before = options.before ?? "# Title\n\nSome prose.\n\n";
  return `${before}${FENCE}xml\n${xml}\n${FENCE}\n${options.after ?? ""}`;
}

/** A minimal valid directive wrapping `inner` (placed after `<metadata>`). */
function withBody(inner: string, metadataExtra = ""): string {
  return md(`<directive name="d" version="1.0.0">
  <metadata>
    <description>d</description>
    <category></category>
    <author>me</author>
    ${metadataExtra}
  </metadata>
  ${inner}
</directive>`);
}

function parseFailed(pattern: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof RyeError, `expected a RyeError, got ${String(err)}`);
    assert.equal(err.code, "PARSE_FAILED");
    assert.match(err.message, pattern);
    return true;
  };
}

const FULL_XML = `<directive name="deploy_app" version="2.1.0">
  <metadata>
    <description>Deploy the app &amp; check it</description>
    <category>ops/deploy</category>
    <author>alice</author>
    <model tier="sonnet" fallback="haiku" id="claude-x" parallel="true">Prefer careful reasoning</model>
    <limits turns="12" tokens="20000" spend="0.75" spend_currency="USD" duration_seconds="600" depth="deep" />
    <owner>platform-team</owner>
    <hooks>
      <hook id="on_fail" event="error">
        Escalate politely
        <when>error.category == "permanent"</when>
        <execute>rye/agent/notify</execute>
        <inputs>
          <input name="channel">#ops</input>
          <message>deploy failed</message>
        </inputs>
      </hook>
      <hook id="audit"><when>always</when></hook>
    </hooks>
    <permissions>
      <execute><tool>rye.file-system.*</tool></execute>
      <load>*</load>
    </permissions>
  </metadata>
  <inputs>
    <input name="env" type="string" required="true">Target environment</input>
    <input name="dry_run" type="boolean" required="TRUE" default="false">Only print the plan</input>
    <input name="tag">Image tag</input>
    <input name="notes" required="yes">Free text</input>
  </inputs>
  <process>
    <step name="build">
      <execute item_type="tool" item_id="rye/bash/bash">
        <param name="command" value="make build" />
        <param name="cwd">/srv/{input:env}</param>
      </execute>
    </step>
    <step name="lookup">
      <search item_type="knowledge" query="deploy checklist" />
      <load item_type="knowledge" item_id="ops/checklist" />
    </step>
  </process>
  <sign item_type="directive" item_id="ops/deploy/deploy_app" />
  <outputs>
    <output name="url">Deployed URL</output>
    <output name="log">Build log</output>
  </outputs>
</directive>`;

describe("parseDirective: a full directive", () => {
  const parsed = parseDirective(md(FULL_XML, { before: "# Deploy\n\nDeploys the app.\n\n" }));

  it("reads name and version from the root attributes", () => {
    assert.equal(parsed.name, "deploy_app");
    assert.equal(parsed.version, "2.1.0");
  });

  it("reads description (entities decoded), category and author from <metadata>", () => {
    assert.equal(parsed.description, "Deploy the app & check it");
    assert.equal(parsed.category, "ops/deploy");
    assert.equal(parsed.author, "alice");
  });

  it("keeps every model attribute plus its text as content", () => {
    assert.deepEqual(parsed.model, {
      tier: "sonnet",
      fallback: "haiku",
      id: "claude-x",
      parallel: "true",
      content: "Prefer careful reasoning",
    });
  });

  it("converts limits to int, to float when the value has a '.', and keeps non-numbers and spend_currency as strings", () => {
    assert.deepEqual(parsed.limits, {
      turns: 12,
      tokens: 20000,
      spend: 0.75,
      spend_currency: "USD",
      duration_seconds: 600,
      depth: "deep",
    });
    assert.equal(typeof parsed.limits?.turns, "number");
  });

  it("stores other simple metadata children as text in extra", () => {
    assert.deepEqual(parsed.extra, { owner: "platform-team" });
  });

  it("reads hooks: attributes, text content, child texts and an <inputs> dict keyed by name or tag", () => {
    assert.equal(parsed.hooks.length, 2);
    assert.deepEqual(parsed.hooks[0], {
      id: "on_fail",
      event: "error",
      content: "Escalate politely",
      when: 'error.category == "permanent"',
      execute: "rye/agent/notify",
      inputs: { channel: "#ops", message: "deploy failed" },
    });
    assert.deepEqual(parsed.hooks[1], { id: "audit", when: "always" });
  });

  it("reads root <inputs>: type defaults to string, required only for 'true' in any case, default attribute kept", () => {
    assert.deepEqual(parsed.inputs, [
      { name: "env", type: "string", required: true, description: "Target environment" },
      { name: "dry_run", type: "boolean", required: true, description: "Only print the plan", default: "false" },
      { name: "tag", type: "string", required: false, description: "Image tag" },
      { name: "notes", type: "string", required: false, description: "Free text" },
    ]);
    assert.equal("default" in parsed.inputs[0]!, false);
  });

  it("reads root <outputs>", () => {
    assert.deepEqual(parsed.outputs, [
      { name: "url", description: "Deployed URL" },
      { name: "log", description: "Build log" },
    ]);
  });

  it("collects actions anywhere outside <metadata>, in document order, with value and text params", () => {
    assert.deepEqual(parsed.actions, [
      {
        primary: "execute",
        attrs: { item_type: "tool", item_id: "rye/bash/bash" },
        params: { command: "make build", cwd: "/srv/{input:env}" },
      },
      { primary: "search", attrs: { item_type: "knowledge", query: "deploy checklist" }, params: {} },
      { primary: "load", attrs: { item_type: "knowledge", item_id: "ops/checklist" }, params: {} },
      { primary: "sign", attrs: { item_type: "directive", item_id: "ops/deploy/deploy_app" }, params: {} },
    ]);
    // the hook's <execute> lives in <metadata>: it is declarative, not an action
    assert.ok(!parsed.actions.some((a) => Object.keys(a.attrs).length === 0));
  });

  it("turns <permissions> inside <metadata> into capability strings", () => {
    assert.deepEqual(parsed.capabilities, ["rye.execute.tool.rye.file-system.*", "rye.load.*"]);
    assert.deepEqual(parsed.permissions, [
      { primary: "execute", itemType: "tool", pattern: "rye.file-system.*" },
      { primary: "load", pattern: "*" },
    ]);
  });

  it("splits body (markdown before the fence) and content (the XML text)", () => {
    assert.equal(parsed.body, "# Deploy\n\nDeploys the app.");
    assert.equal(parsed.content.trim(), FULL_XML);
    assert.equal(parsed.trailer, "");
    assert.deepEqual(parsed.templates, []);
  });
});

describe("parseDirective: details", () => {
  it("accepts a root-level <description> and keeps an empty <category> as ''", () => {
    const parsed = parseDirective(
      md(`<directive name="x" version="1.0.0"><description>At the root</description><metadata><category/></metadata></directive>`),
    );
    assert.equal(parsed.description, "At the root");
    assert.equal(parsed.category, "");
    assert.equal(parsed.author, undefined);
  });

  it("leaves name/version undefined when the root has no attributes", () => {
    const parsed = parseDirective(md(`<directive><metadata><description>x</description></metadata></directive>`));
    assert.equal(parsed.name, undefined);
    assert.equal(parsed.version, undefined);
    assert.deepEqual(parsed.inputs, []);
    assert.deepEqual(parsed.outputs, []);
    assert.deepEqual(parsed.actions, []);
    assert.deepEqual(parsed.capabilities, []);
    assert.equal(parsed.limits, undefined);
    assert.equal(parsed.model, undefined);
  });

  it("accepts <model_class> as the model element", () => {
    const parsed = parseDirective(withBody("", `<model_class tier="general" />`));
    assert.deepEqual(parsed.model, { tier: "general" });
  });

  it("converts float-looking limits and integers separately", () => {
    const parsed = parseDirective(withBody("", `<limits spend="2" tokens="1.5" turns="-3" />`));
    assert.deepEqual(parsed.limits, { spend: 2, tokens: 1.5, turns: -3 });
  });

  it("reads limits written as child elements too (attributes win)", () => {
    const parsed = parseDirective(withBody("", `<limits spend="0.5"><turns>8</turns><spend>9</spend><duration_seconds>60</duration_seconds></limits>`));
    assert.deepEqual(parsed.limits, { turns: 8, spend: 0.5, duration_seconds: 60 });
  });

  it("collects nested actions (an action inside an action) and ignores params of nested elements", () => {
    const parsed = parseDirective(
      withBody(`<execute item_type="directive" item_id="outer">
    <param name="a">one</param>
    <step><param name="not_mine" value="x" /></step>
    <load item_type="knowledge" item_id="inner" />
  </execute>`),
    );
    assert.deepEqual(parsed.actions, [
      { primary: "execute", attrs: { item_type: "directive", item_id: "outer" }, params: { a: "one" } },
      { primary: "load", attrs: { item_type: "knowledge", item_id: "inner" }, params: {} },
    ]);
  });

  it("ignores params without a name", () => {
    const parsed = parseDirective(withBody(`<execute item_type="tool" item_id="t"><param value="orphan" /></execute>`));
    assert.deepEqual(parsed.actions[0]!.params, {});
  });

  it("returns the markdown after the closing fence as trailer, outside the XML content", () => {
    const parsed = parseDirective(
      md(`<directive name="x" version="1.0.0"><metadata/></directive>`, { after: "\n## Process\n\n1. Run <it> & see.\n" }),
    );
    assert.equal(parsed.trailer, "## Process\n\n1. Run <it> & see.");
    assert.ok(!parsed.content.includes("Process"));
  });

  it("accepts spaces after ```xml and CRLF line endings", () => {
    const lf = md(`<directive name="x" version="1.0.0">\n  <metadata><author>a</author></metadata>\n</directive>`).replace(
      `${FENCE}xml\n`,
      `${FENCE}xml   \n`,
    );
    const crlf = lf.replace(/\n/g, "\r\n");
    const parsed = parseDirective(crlf);
    assert.equal(parsed.name, "x");
    assert.equal(parsed.author, "a");
    assert.equal(parsed.body, "# Title\n\nSome prose.");
    assert.ok(!parsed.content.includes("\r"));
  });
});

describe("parseDirective: masked <template>, <example> and <raw>", () => {
  const templateInner = "# Report for {input:env}\n<b>unclosed & a < b";
  const exampleInner = `<execute item_type="tool" item_id="should/not/count"/> & <broken>`;
  const rawInner = "if (a < b && c > d) { return; }";
  const xml = `<directive name="m" version="1.0.0">
  <metadata><description>masking</description></metadata>
  <template name="report" format="md">${templateInner}</template>
  <example>${exampleInner}</example>
  <step><raw>${rawInner}</raw></step>
  <load item_type="knowledge" item_id="real/one" />
</directive>`;

  it("parses although their inner text is not valid XML", () => {
    assert.throws(() => parseXml(xml), parseFailed(/Invalid XML/));
    const parsed = parseDirective(md(xml));
    assert.equal(parsed.name, "m");
  });

  it("returns their inner text verbatim, with tag and attributes", () => {
    const parsed = parseDirective(md(xml));
    assert.deepEqual(parsed.templates, [
      { tag: "template", attrs: 'name="report" format="md"', content: templateInner },
      { tag: "example", attrs: "", content: exampleInner },
      { tag: "raw", attrs: "", content: rawInner },
    ]);
  });

  it("does not treat elements inside masked sections as actions", () => {
    const parsed = parseDirective(md(xml));
    assert.deepEqual(
      parsed.actions.map((a) => a.attrs.item_id),
      ["real/one"],
    );
  });

  it("leaves a self-closing <template/> alone, so it cannot swallow the XML up to a later </template>", () => {
    const parsed = parseDirective(
      withBody(`<template name="empty"/>
  <load item_type="knowledge" item_id="between" />
  <template>a < b</template>`),
    );
    assert.deepEqual(
      parsed.actions.map((a) => a.attrs.item_id),
      ["between"],
    );
    assert.deepEqual(parsed.templates, [{ tag: "template", attrs: "", content: "a < b" }]);
  });

  it("keeps the unmasked text in content", () => {
    const parsed = parseDirective(md(xml));
    assert.ok(parsed.content.includes(templateInner));
    assert.ok(parsed.content.includes(rawInner));
  });
});

describe("permissions → capability strings (§11)", () => {
  const caps = (permissionsXml: string, where: "metadata" | "root" = "metadata") =>
    parseDirective(where === "metadata" ? withBody("", permissionsXml) : withBody(permissionsXml)).capabilities;

  it("maps <permissions>*</permissions> to rye.*", () => {
    assert.deepEqual(caps("<permissions>*</permissions>"), ["rye.*"]);
  });

  it("maps <execute>*</execute> to rye.execute.*", () => {
    assert.deepEqual(caps("<permissions><execute>*</execute><search> * </search></permissions>"), ["rye.execute.*", "rye.search.*"]);
  });

  it("maps typed children to rye.<primary>.<type>.<text>, copying the text verbatim", () => {
    assert.deepEqual(
      caps(`<permissions>
        <execute><tool>rye.file-system.*</tool><directive>ops/*</directive></execute>
        <search><directive>analysis/*</directive><knowledge>notes.*</knowledge></search>
        <sign><tool>mine.*</tool></sign>
      </permissions>`),
      [
        "rye.execute.tool.rye.file-system.*",
        "rye.execute.directive.ops/*",
        "rye.search.directive.analysis/*",
        "rye.search.knowledge.notes.*",
        "rye.sign.tool.mine.*",
      ],
    );
  });

  it("ignores unknown primaries, unknown item types and empty patterns", () => {
    assert.deepEqual(
      caps(`<permissions>
        <network>*</network>
        <delete><tool>x</tool></delete>
        <execute><bogus>x.*</bogus><tool>   </tool><tool>ok.*</tool></execute>
      </permissions>`),
      ["rye.execute.tool.ok.*"],
    );
  });

  it("reads <permissions> at the root level too", () => {
    assert.deepEqual(caps("<permissions><load><knowledge>k.*</knowledge></load></permissions>", "root"), ["rye.load.knowledge.k.*"]);
  });

  it("gives no capabilities without a <permissions> element (fail-closed)", () => {
    assert.deepEqual(caps(""), []);
  });

  it("does not count <execute> inside <permissions> as an action", () => {
    const parsed = parseDirective(withBody(`<permissions><execute><tool>t.*</tool></execute></permissions>`));
    assert.deepEqual(parsed.actions, []);
  });

  it("permissionsToCapabilities works on a bare element and on undefined", () => {
    assert.deepEqual(permissionsToCapabilities(undefined), { permissions: [], capabilities: [] });
    const el = parseXml("<permissions><sign>*</sign></permissions>");
    assert.deepEqual(permissionsToCapabilities(el).capabilities, ["rye.sign.*"]);
  });
});

describe("splitDirectiveMarkdown", () => {
  it("returns body, xml and trailer and skips the signature line", () => {
    const sig = `<!-- rye:signed:2026-01-02T03:04:05Z:${"a".repeat(64)}:${"A".repeat(86)}==:0123456789abcdef -->`;
    const split = splitDirectiveMarkdown(`${sig}\n# T\n\n${FENCE}xml\n<directive/>\n${FENCE}\nafter\n`);
    assert.equal(split.body, "# T");
    assert.equal(split.xml.trim(), "<directive/>");
    assert.equal(split.trailer, "after");
  });

  it("only takes the first xml fence", () => {
    const split = splitDirectiveMarkdown(`${FENCE}xml\n<directive/>\n${FENCE}\n\n${FENCE}xml\n<other/>\n${FENCE}\n`);
    assert.equal(split.xml.trim(), "<directive/>");
    assert.ok(split.trailer.includes("<other/>"));
  });
});

describe("parseDirective: the real limit_test.md vector", () => {
  const raw = readFileSync(new URL("../../test/vectors/original/limit_test.md", import.meta.url), "utf8");
  const parsed = parseDirective(raw);

  it("reads the metadata", () => {
    assert.equal(parsed.name, "limit_test");
    assert.equal(parsed.version, "1.0.0");
    assert.equal(parsed.description, "Test: exceed turns limit — should trigger escalation hook.");
    assert.equal(parsed.category, "test/limits");
    assert.equal(parsed.author, "rye-os");
    assert.deepEqual(parsed.model, { tier: "haiku" });
    assert.deepEqual(parsed.limits, { turns: 1, tokens: 4096, spend: 1 });
  });

  it("reads the root-level permissions as capabilities", () => {
    assert.deepEqual(parsed.capabilities, ["rye.execute.tool.rye.file-system.*", "rye.execute.tool.rye.primary-tools.*"]);
  });

  it("finds the two search actions nested in <process><step>", () => {
    assert.deepEqual(parsed.actions, [
      { primary: "search", attrs: { item_type: "tool", query: "file system" }, params: {} },
      { primary: "search", attrs: { item_type: "tool", query: "knowledge" }, params: {} },
    ]);
  });

  it("has no <output> elements (its <outputs> holds <success>) and keeps the signature line out of the body", () => {
    assert.deepEqual(parsed.outputs, []);
    assert.equal(parsed.body, "# Limit Test: Turns Limit\n\nTest that the default_escalate_limit hook fires when turns limit is exceeded.");
    assert.ok(!parsed.body.includes("rye:signed"));
  });
});

describe("parseDirective: errors", () => {
  it("fails with PARSE_FAILED when there is no ```xml fence", () => {
    assert.throws(() => parseDirective(`# Title\n\n<directive name="x" version="1.0.0"></directive>\n`), parseFailed(/No XML code block found/));
    // the fence must be a line of its own
    assert.throws(() => parseDirective(`Text ${FENCE}xml\n<directive/>\n${FENCE}\n`), parseFailed(/No XML code block found/));
    assert.throws(() => parseDirective(`${FENCE}xml version\n<directive/>\n${FENCE}\n`), parseFailed(/No XML code block found/));
  });

  it("fails when the fence is never closed", () => {
    assert.throws(() => parseDirective(`# T\n\n${FENCE}xml\n<directive name="x"/>\n`), parseFailed(/never closed/));
    assert.throws(() => parseDirective(`# T\n\n${FENCE}xml`), parseFailed(/never closed/));
  });

  it("reports malformed XML with its line and column", () => {
    const xml = `<directive name="x" version="1.0.0">\n  <metadata>\n    <description>oops</descripton>\n  </metadata>\n</directive>`;
    assert.throws(() => parseDirective(md(xml)), parseFailed(/Invalid XML at line 3, column \d+/));
  });

  it("rejects DOCTYPE and ENTITY declarations", () => {
    const doctype = `<!DOCTYPE directive [<!ENTITY boom "bang">]>\n<directive name="x" version="1.0.0">&boom;</directive>`;
    assert.throws(() => parseDirective(md(doctype)), parseFailed(/DOCTYPE or ENTITY/));
    assert.throws(() => parseXml(`<!entity x "y"><directive/>`), parseFailed(/DOCTYPE or ENTITY/));
  });

  it("requires the root element to be <directive>", () => {
    assert.throws(() => parseDirective(md(`<tool name="x" version="1.0.0"><metadata/></tool>`)), parseFailed(/root must be <directive>, found <tool>/));
  });

  it("rejects an empty XML block and several roots", () => {
    assert.throws(() => parseDirective(`${FENCE}xml\n${FENCE}\n`), (err: unknown) => err instanceof RyeError && err.code === "PARSE_FAILED");
    assert.throws(
      () => parseDirective(md(`<directive name="a"/>\n<directive name="b"/>`)),
      (err: unknown) => err instanceof RyeError && err.code === "PARSE_FAILED",
    );
  });
});
