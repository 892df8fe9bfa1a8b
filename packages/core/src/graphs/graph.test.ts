import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseItem } from "../validate/item.ts";
import { parseTool } from "../parsers/tool.ts";
import { checkGraph, parseGraph } from "./graph.ts";

const graph = (nodes: string, extra = "") => `version: "1.0.0"
tool_type: graph
executor_id: rye/core/runtimes/state_graph
category: demo/graphs
description: "demo"
config: { start: a${extra} }
nodes:
${nodes}`;

const parse = (text: string) => parseTool(text, "demo/graphs/g.yaml");

describe("state graph format", () => {
  it("reads nodes, edges, foreach and defaults", () => {
    const g = parseGraph(
      parse(
        graph(`  a:
    action: { item_id: demo/tools/x, params: { v: "\${inputs.v}" } }
    assign: { x: "\${result.x}" }
    next:
      - if: { path: state.x, op: gt, value: 1 }
        to: b
      - to: c
  b:
    foreach: { over: "\${state.list}", as: it, action: { item_id: demo/tools/y }, collect: ys }
    next: c
  c:
    return: done
`),
      ),
      "demo/graphs/g",
    );
    assert.equal(g.start, "a");
    assert.equal(g.max_steps, 100);
    assert.equal(g.max_parallel, 4);
    assert.deepEqual(g.nodes.get("a")!.action, { primary: "execute", item_type: "tool", item_id: "demo/tools/x", params: { v: "${inputs.v}" } });
    assert.equal(g.nodes.get("b")!.foreach!.max_parallel, 4);
    assert.equal(g.nodes.get("c")!.hasReturn, true);
  });

  it("lists every problem: unknown targets, a missing start, bad actions, bad limits", () => {
    const { graph: g, issues } = checkGraph(
      parse(
        graph(
          `  a:
    action: { primary: run, item_type: script, item_id: "../x" }
    next: nowhere
    on_error: gone
    colour: red
  b:
    action: { item_id: demo/tools/x }
    foreach: { as: state, action: { item_id: demo/tools/x } }
    return: 1
    next: a
`,
          ", max_steps: 0, max_parallel: 1000",
        ).replace("start: a", "start: zz"),
      ),
      "demo/graphs/g",
    );
    assert.equal(g, undefined);
    const text = issues.join("\n");
    for (const expected of [/primary must be execute, load or search/, /item_type must be/, /"\.\.\/x" is not an item id/, /goes to "nowhere"/, /goes to "gone"/, /colour is not a node key/, /both action and foreach/, /foreach\.as must be/, /foreach\.over is required/, /both return and next/, /config\.start must name a node/, /max_steps must be an integer/, /max_parallel must be an integer/]) {
      assert.match(text, expected);
    }
  });

  it("item validation checks graphs (so rye sign and the registry refuse a broken one)", () => {
    const broken = parseItem(graph("  a:\n    next: b\n"), "tool", { path: "/p/.ai/tools/demo/graphs/g.yaml" });
    assert.deepEqual(broken.issues.map((i) => i.message), ['nodes.a goes to "b", which is not a node']);
    assert.deepEqual(parseItem(graph("  a:\n    return: 1\n"), "tool", { path: "/p/.ai/tools/demo/graphs/g.yaml" }).issues, []);
  });
});
