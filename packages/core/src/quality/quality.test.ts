import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseItem } from "../validate/item.ts";
import { QUALITY_FACTORS, qualityReport, storedQualityPoints, versionQuality } from "./quality.ts";

const directive = (inputs: string, body = "") =>
  `${body}\n\`\`\`xml\n<directive name="greet" version="1.0.0">\n  <metadata>\n    <description>Greets someone by name, politely</description>\n    <category>demo</category>\n  </metadata>\n  <inputs>\n${inputs}\n  </inputs>\n</directive>\n\`\`\`\n`;
const signed = { authorVerified: true, authorFingerprint: "abcd", logIndex: 3, attested: true };
const unsigned = { authorVerified: false, authorFingerprint: null, logIndex: 4, attested: true };
const day = 86_400_000;

describe("quality factors", () => {
  it("a documented, signed directive meets every version factor", () => {
    const content = directive('    <input name="who" type="string" required="true">Whom to greet</input>', "# Greet\n\nSays hello to the person named in the input, in one friendly sentence.");
    const q = versionQuality(parseItem(content, "directive"), content, signed);
    assert.deepEqual(Object.fromEntries(Object.entries(q.factors).map(([k, f]) => [k, f.met])), { description: true, docs: true, inputs: true, signed: true, provenance: true });
    const now = new Date();
    const report = qualityReport("1.0.0", q, { publishedVersions: 1, yankedVersions: 0, latestPublishedAt: now }, now);
    assert.equal(report.score, 100);
    assert.ok(report.factors.every((f) => f.hint === null));
  });

  it("each factor not met lowers the score by its points and carries a hint", () => {
    const content = directive('    <input name="who" type="string" required="true"></input>');
    const q = versionQuality(parseItem(content, "directive"), content, unsigned);
    const now = new Date();
    const report = qualityReport("1.0.0", q, { publishedVersions: 2, yankedVersions: 1, latestPublishedAt: new Date(now.getTime() - 400 * day) }, now);
    const missed = report.factors.filter((f) => !f.met).map((f) => f.id);
    assert.deepEqual(missed, ["docs", "inputs", "signed", "provenance", "no_yanks", "recent"]);
    assert.equal(report.score, QUALITY_FACTORS.description.points);
    assert.match(report.factors.find((f) => f.id === "inputs")!.detail, /who/);
    for (const f of report.factors.filter((x) => !x.met)) assert.ok(f.hint && f.hint.length > 10, f.id);
  });

  it("recently updated means published less than 365 days ago, to the millisecond", () => {
    const content = directive("");
    const q = versionQuality(parseItem(content, "directive"), content, signed);
    const now = new Date("2026-11-25T12:00:00Z");
    const at = (ms: number) => qualityReport("1.0.0", q, { publishedVersions: 1, yankedVersions: 0, latestPublishedAt: new Date(now.getTime() - ms) }, now).factors.find((f) => f.id === "recent")!.met;
    assert.deepEqual([at(365 * day - 1), at(365 * day), at(0)], [true, false, true]);
  });

  it("factors that cannot apply leave the total (knowledge has no inputs; a config item no parameters)", () => {
    const content = "---\nid: notes\ntitle: Meeting notes of the team\nversion: 1.0.0\nentry_type: reference\n---\n\nA body long enough to count as documentation for a reader of it.\n";
    const q = versionQuality(parseItem(content, "knowledge"), content, signed);
    assert.equal(q.factors.inputs.applicable, false);
    const stored = storedQualityPoints(q, { publishedVersions: 1, yankedVersions: 0 });
    assert.deepEqual(stored, { points: 75, max: 85 }, "every applicable factor but recent (added when read)");
    const report = qualityReport("1.0.0", q, { publishedVersions: 1, yankedVersions: 0, latestPublishedAt: new Date() });
    assert.equal(report.score, 100);
    const config = "version: 1.0.0\ntool_type: config\nexecutor_id: null\ncategory: x\ndescription: Settings for something\n";
    assert.equal(versionQuality(parseItem(config, "tool", { path: "s.yaml" }), config, signed).factors.inputs.applicable, false);
  });

  it("a tool's parameters are documented by descriptions in its schema", () => {
    const tool = (props: string) => `__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_script"\n__category__ = "x"\n__tool_description__ = "Counts words in a text"\nCONFIG_SCHEMA = {"type": "object", "properties": {${props}}}\n`;
    const met = tool('"text": {"type": "string", "description": "The text"}');
    const missed = tool('"text": {"type": "string"}');
    assert.equal(versionQuality(parseItem(met, "tool", { path: "wc.py" }), met, signed).factors.inputs.met, true);
    const q = versionQuality(parseItem(missed, "tool", { path: "wc.py" }), missed, signed);
    assert.deepEqual([q.factors.inputs.met, q.factors.docs.met], [false, false]);
  });
});
