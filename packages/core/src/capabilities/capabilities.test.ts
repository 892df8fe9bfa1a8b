import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { ItemType } from "../item-types.ts";
import { permissionsToCapabilities } from "../parsers/directive.ts";
import { parseXml } from "../parsers/xml-tree.ts";
import type { Primary } from "./capabilities.ts";
import { capabilitiesBeyond, checkCapability, formatCapability, intersectCapabilities, parseCapability, PRIMARIES, requiredCapability, searchFilter } from "./capabilities.ts";

const allowed = (caps: string[], primary: Primary, type: ItemType, id?: string) => checkCapability(caps, primary, type, id).allowed;

describe("capability strings", () => {
  it("parse the documented forms and refuse anything else (which then grants nothing)", () => {
    assert.deepEqual(parseCapability("rye.*"), { primary: "*", itemType: "*", pattern: null });
    assert.deepEqual(parseCapability("rye.execute"), { primary: "execute", itemType: "*", pattern: null });
    assert.deepEqual(parseCapability("rye.execute.*"), { primary: "execute", itemType: "*", pattern: null });
    assert.deepEqual(parseCapability("rye.load.knowledge"), { primary: "load", itemType: "knowledge", pattern: null });
    assert.deepEqual(parseCapability("rye.execute.tool.rye.file-system.*"), { primary: "execute", itemType: "tool", pattern: ["rye", "file-system", "*"] });
    assert.deepEqual(parseCapability("rye.execute.tool.rye/file-system/fs_*"), { primary: "execute", itemType: "tool", pattern: ["rye", "file-system", "fs_*"] });
    for (const bad of ["", "*", "rye.run.tool.x", "rye.execute.script.x", "rye.execute.tool.a..b", "rye.execute.tool.a/../b", "rye.execute.*.x", "xrye.*", "rye.execute.tool.a b", "rye.execute.tool.a;rm"]) {
      assert.equal(parseCapability(bad), null, bad);
    }
    assert.equal(formatCapability(parseCapability("rye.execute.tool.rye/file-system/*")!), "rye.execute.tool.rye.file-system.*");
  });

  it("no capabilities deny everything; an unparseable one grants nothing", () => {
    for (const primary of PRIMARIES) {
      const d = checkCapability([], primary, "tool", primary === "search" ? undefined : "rye/bash/bash");
      assert.equal(d.allowed, false);
      assert.match(d.reason!, /no capabilities/);
    }
    assert.equal(allowed(["rye.everything"], "load", "knowledge", "a/b"), false);
  });

  it("match segment by segment: a trailing * takes one or more segments, an inner * exactly one, globs stay in their segment", () => {
    const caps = ["rye.execute.tool.rye.file-system.*"];
    assert.ok(allowed(caps, "execute", "tool", "rye/file-system/fs_read"));
    assert.ok(allowed(caps, "execute", "tool", "rye/file-system/deep/fs_x"));
    assert.ok(!allowed(caps, "execute", "tool", "rye/file-system"));
    assert.ok(!allowed(caps, "execute", "tool", "rye/bash/bash"));
    assert.ok(!allowed(caps, "execute", "directive", "rye/file-system/fs_read"), "another item type");
    assert.ok(allowed(["rye.execute.tool.rye.*.fs_read"], "execute", "tool", "rye/file-system/fs_read"));
    assert.ok(!allowed(["rye.execute.tool.rye.*.fs_read"], "execute", "tool", "rye/a/b/fs_read"));
    assert.ok(allowed(["rye.execute.tool.rye.file-system.fs_*"], "execute", "tool", "rye/file-system/fs_write"));
    assert.ok(!allowed(["rye.execute.tool.rye.file-system.fs_*"], "execute", "tool", "rye/file-system/fs_x/y"));
    assert.ok(!allowed(["rye.execute.tool.rye.fi*"], "execute", "tool", "rye/file-system/fs_read"), "a glob never crosses a separator");
    assert.ok(allowed(["rye.execute.tool.alice.tools.greet"], "execute", "tool", "alice/tools/greet"));
    assert.ok(!allowed(["rye.execute.tool.alice.tools.greet"], "execute", "tool", "alice/tools/greeter"));
  });

  it("ids that could slip past a pattern are refused whatever the capabilities", () => {
    for (const id of ["rye/file-system/../bash/bash", "../x/y", "/etc/passwd", "rye//bash", "rye/file-system/\u0000"]) {
      const d = checkCapability(["rye.*"], "execute", "tool", id);
      assert.equal(d.allowed, false, id);
      assert.match(d.reason!, /invalid item id/);
    }
  });

  it("execute implies search and load of the same items; sign implies load; nothing implies execute or sign", () => {
    const caps = ["rye.execute.tool.rye.file-system.*"];
    assert.ok(allowed(caps, "load", "tool", "rye/file-system/fs_read"));
    assert.ok(allowed(caps, "search", "tool"));
    assert.ok(!allowed(caps, "sign", "tool", "rye/file-system/fs_read"));
    assert.ok(!allowed(caps, "search", "knowledge"));
    const sign = ["rye.sign.directive.team.*"];
    assert.ok(allowed(sign, "load", "directive", "team/x"));
    assert.ok(!allowed(sign, "execute", "directive", "team/x"));
    assert.ok(!allowed(["rye.load.*"], "execute", "knowledge", "a/b"));
    assert.ok(!allowed(["rye.search.*"], "load", "knowledge", "a/b"));
  });

  it("a search is allowed per type; an id pattern limits which hits it returns", () => {
    assert.ok(allowed(["rye.search.tool"], "search", "tool"));
    assert.ok(!allowed(["rye.search.tool"], "search", "knowledge"));
    const filter = searchFilter(["rye.execute.tool.rye.file-system.*", "rye.load.knowledge.rye.core.*"], "tool");
    assert.equal(filter("rye/file-system/fs_read"), true);
    assert.equal(filter("rye/bash/bash"), false);
    assert.equal(searchFilter(["rye.search.*"], "knowledge")("any/thing/at-all"), true);
    assert.equal(searchFilter(["rye.search.tool"], "knowledge")("a/b/c"), false);
    assert.equal(requiredCapability("search", "tool"), "rye.search.tool");
    assert.equal(requiredCapability("execute", "tool", "rye/bash/bash"), "rye.execute.tool.rye.bash.bash");
  });

  it("<permissions> become capabilities, including a bare type", () => {
    const el = parseXml(`<permissions><execute><tool>rye.file-system.*</tool></execute><search>tool</search><load>*</load><sign><directive>team/*</directive></sign><cap>ignored</cap></permissions>`);
    assert.deepEqual(permissionsToCapabilities(el).capabilities, ["rye.execute.tool.rye.file-system.*", "rye.search.tool", "rye.load.*", "rye.sign.directive.team/*"]);
  });
});

describe("a child's capabilities are the intersection with its parent's", () => {
  it("narrows to what both allow, implications included", () => {
    assert.deepEqual(intersectCapabilities(["rye.*"], ["rye.load.knowledge.rye.core.*"]), ["rye.load.knowledge.rye.core.*"]);
    assert.deepEqual(intersectCapabilities(["rye.execute.tool.rye.*"], ["rye.execute.tool.rye.file-system.*"]).filter((c) => c.startsWith("rye.execute")), ["rye.execute.tool.rye.file-system.*"]);
    // The child asks for execute, the parent only allows loading: the child may load.
    assert.deepEqual(intersectCapabilities(["rye.execute.tool.a.*"], ["rye.load.tool.*"]), ["rye.load.tool.a.*"]);
    assert.deepEqual(intersectCapabilities(["rye.execute.tool.a.*"], []), []);
    assert.deepEqual(intersectCapabilities([], ["rye.*"]), []);
    assert.deepEqual(intersectCapabilities(["rye.execute.tool.a.*.x"], ["rye.execute.tool.a.y.*"]), [], "a partial overlap is dropped (fail-closed)");
  });

  const segment = fc.constantFrom("rye", "a", "b", "fs_read", "fs_write", "x1", "core");
  const id = fc.array(segment, { minLength: 2, maxLength: 4 }).map((s) => s.join("/"));
  const patternSegment = fc.oneof(segment, fc.constant("*"), fc.constant("fs_*"));
  const cap = fc.oneof(
    fc.constant("rye.*"),
    fc.tuple(fc.constantFrom(...PRIMARIES), fc.constantFrom("tool", "directive", "knowledge", "*")).map(([p, t]) => (t === "*" ? `rye.${p}.*` : `rye.${p}.${t}`)),
    fc.tuple(fc.constantFrom(...PRIMARIES), fc.constantFrom("tool", "directive", "knowledge"), fc.array(patternSegment, { minLength: 1, maxLength: 4 })).map(([p, t, s]) => `rye.${p}.${t}.${s.join(".")}`),
  );
  const action = fc.tuple(fc.constantFrom(...PRIMARIES), fc.constantFrom<ItemType>("tool", "directive", "knowledge"), id);

  it("property: the intersection never allows what the child or the parent does not", () => {
    fc.assert(
      fc.property(fc.array(cap, { maxLength: 4 }), fc.array(cap, { maxLength: 4 }), action, (child, parent, [primary, type, itemId]) => {
        const target = primary === "search" ? undefined : itemId;
        if (allowed(intersectCapabilities(child, parent), primary, type, target)) {
          assert.ok(allowed(child, primary, type, target), "child allows it");
          assert.ok(allowed(parent, primary, type, target), "parent allows it");
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("property: a child whose capabilities the parent covers keeps them all", () => {
    fc.assert(
      fc.property(fc.array(cap, { maxLength: 4 }), action, (child, [primary, type, itemId]) => {
        const target = primary === "search" ? undefined : itemId;
        assert.equal(allowed(intersectCapabilities(child, ["rye.*"]), primary, type, target), allowed(child, primary, type, target));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("capabilitiesBeyond", () => {
  it("names what a child grants beyond its parent (fail-closed)", () => {
  assert.deepEqual(capabilitiesBeyond(["rye.execute.tool.a.b"], ["rye.execute.tool.a.*"]), []);
  assert.deepEqual(capabilitiesBeyond(["rye.load.tool.a.b"], ["rye.execute.tool.a.*"]), [], "execute implies load");
  assert.deepEqual(capabilitiesBeyond(["rye.execute.tool.*"], ["rye.execute.tool.a.*"]), ["rye.execute.tool.*"]);
  assert.deepEqual(capabilitiesBeyond(["rye.execute.tool.a.b"], ["rye.load.tool.*"]), ["rye.execute.tool.a.b"]);
  assert.deepEqual(capabilitiesBeyond(["rye.*"], ["rye.execute.*"]), ["rye.*"], "sign is not granted");
  assert.deepEqual(capabilitiesBeyond(["rye.*"], ["rye.execute.*", "rye.sign.*"]), [], "execute and sign imply search and load");
  assert.deepEqual(capabilitiesBeyond(["rye.*"], ["rye.*"]), []);
  assert.deepEqual(capabilitiesBeyond(["not a capability"], ["rye.*"]), ["not a capability"]);
});
});
