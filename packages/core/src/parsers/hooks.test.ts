import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseDirective } from "./directive.ts";

const directive = (hooks: string) =>
  `# x\n\n\`\`\`xml\n<directive name="x" version="1.0.0">\n  <metadata>\n    <description>x</description>\n    <category>t</category>\n    <author>a</author>\n    <hooks>${hooks}</hooks>\n  </metadata>\n</directive>\n\`\`\`\n`;

describe("directive hooks become rules", () => {
  it("reads the event, the condition (leaf, combinators, <when>) and one action", () => {
    const { hook_rules } = parseDirective(
      directive(`
      <hook id="style" event="thread_started"><load item_type="knowledge" item_id="acme/style/guide"/></hook>
      <hook id="more" event="error"><condition path="classification.category" op="in" value='["transient","rate_limited"]'/><control action="retry" max="5"/></hook>
      <hook event="after_step"><when><any><condition path="cost.turns" op="gte" value="5"/><not><condition path="x"/></not></any></when>
        <execute item_type="tool" item_id="acme/notify/post"><param name="text">turn \${cost.turns}</param></execute></hook>`),
    );
    assert.deepEqual(hook_rules, [
      { id: "style", event: "thread_started", layer: 1, action: { primary: "load", item_type: "knowledge", item_id: "acme/style/guide", params: {} } },
      { id: "more", event: "error", layer: 1, condition: { path: "classification.category", op: "in", value: ["transient", "rate_limited"] }, action: { control: "retry", max: "5" } },
      {
        id: "directive_hook_3",
        event: "after_step",
        layer: 1,
        condition: { any: [{ path: "cost.turns", op: "gte", value: 5 }, { not: { path: "x", op: "eq" } }] },
        action: { primary: "execute", item_type: "tool", item_id: "acme/notify/post", params: { text: "turn ${cost.turns}" } },
      },
    ]);
  });

  it("a hook that does not parse carries the reason (the runtime refuses to start)", () => {
    const { hook_rules } = parseDirective(
      directive(`<hook id="a" event="sometimes"><control action="retry"/></hook><hook id="b" event="error"/><hook id="c" event="error"><control action="explode"/></hook><hook id="d" event="limit"><execute item_type="tool"/></hook>`),
    );
    assert.deepEqual(
      hook_rules.map((h) => h.error),
      [
        "hook a: event must be one of thread_started, after_step, error, limit",
        "hook b: a hook holds exactly one action (found 0)",
        "hook c: <control action> must be one of retry, fail, abort, continue, escalate",
        "hook d: <execute> needs an item_id",
      ],
    );
  });
});
