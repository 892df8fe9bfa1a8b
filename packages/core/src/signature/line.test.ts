import assert from "node:assert/strict";
import { test } from "node:test";
import { extractSignature, formatSignatureLine, insertSignatureLine, stripSignature, type SignatureInfo } from "./line.ts";

const HASH = "a".repeat(64);
const SIG = `${"B".repeat(86)}==`;
const info: SignatureInfo = { timestamp: "2026-01-02T03:04:05Z", hash: HASH, signature: SIG, fingerprint: "0123456789abcdef" };

test("signature lines are formatted byte-exactly per comment style (surface pin)", () => {
  assert.equal(formatSignatureLine(info, "html"), `<!-- rye:signed:2026-01-02T03:04:05Z:${HASH}:${SIG}:0123456789abcdef -->`);
  assert.equal(formatSignatureLine(info, "hash"), `# rye:signed:2026-01-02T03:04:05Z:${HASH}:${SIG}:0123456789abcdef`);
  assert.equal(formatSignatureLine(info, "slash"), `// rye:signed:2026-01-02T03:04:05Z:${HASH}:${SIG}:0123456789abcdef`);
  assert.equal(
    formatSignatureLine({ ...info, provider: "rye-registry", username: "alice" }, "html"),
    `<!-- rye:signed:2026-01-02T03:04:05Z:${HASH}:${SIG}:0123456789abcdef|rye-registry@alice -->`,
  );
});

test("parse ∘ format is the identity, provenance included", () => {
  for (const variant of [info, { ...info, provider: "rye-registry", username: "bob_1" }]) {
    const html = extractSignature(`${formatSignatureLine(variant, "html")}\nbody`, "directive");
    assert.deepEqual(html, { status: "signed", signature: variant, line: formatSignatureLine(variant, "html") });
    const tool = extractSignature(`#!/bin/sh\n${formatSignatureLine(variant, "hash")}\necho`, "tool");
    assert.equal(tool.status, "signed");
    assert.deepEqual(tool.status === "signed" && tool.signature, variant);
  }
});

test("the signature line must sit at the type's position", () => {
  const line = formatSignatureLine(info, "html");
  assert.equal(extractSignature(`\n${line}\n`, "knowledge").status, "unsigned", "a blank line before it");
  assert.equal(extractSignature(`\ufeff${line}\n`, "knowledge").status, "unsigned", "a BOM before it");
  assert.equal(extractSignature(`# title\n${line}\n`, "directive").status, "unsigned");
  const toolLine = formatSignatureLine(info, "hash");
  assert.equal(extractSignature(`${toolLine}\nx`, "tool").status, "signed");
  assert.equal(extractSignature(`#!/usr/bin/env python3\n${toolLine}\nx`, "tool").status, "signed");
  assert.equal(extractSignature(`#!python\n${toolLine}\nx`, "tool").status, "unsigned", "only #!/ is a shebang");
  assert.equal(extractSignature(`x = 1\n${toolLine}\n`, "tool").status, "unsigned");
});

test("legacy rye:validated and kiwi-mcp lines are unsigned; damaged lines are malformed", () => {
  assert.equal(extractSignature("<!-- rye:validated:2026-02-10T02:00:00Z:placeholder -->\nx", "directive").status, "legacy");
  assert.equal(extractSignature(`# kiwi-mcp:validated:2026-02-10T02:00:00Z:${HASH}\nx`, "tool").status, "legacy");
  assert.equal(extractSignature("# rye:signed:2026-02-15T00:00:00Z:placeholder\nx", "tool").status, "malformed");
  assert.equal(extractSignature(`# rye:signed:2026-01-02T03:04:05Z:${HASH.toUpperCase()}:${SIG}:0123456789abcdef\n`, "tool").status, "malformed");
  assert.equal(extractSignature(`# rye:signed:2026-01-02T03:04:05.123Z:${HASH}:${SIG}:0123456789abcdef\n`, "tool").status, "malformed");
  assert.equal(extractSignature(`# rye:signed:2026-01-02T03:04:05Z:${HASH}:${SIG}:0123456789abcdef|a.b@c\n`, "tool").status, "malformed");
  // The grammar accepts 0-2 '=' (verification then insists on padding).
  assert.equal(extractSignature(`# rye:signed:2026-01-02T03:04:05Z:${HASH}:${"B".repeat(86)}:0123456789abcdef\n`, "tool").status, "signed");
});

test("insert replaces any existing line, keeps a shebang first and never duplicates", () => {
  const toolLine = formatSignatureLine(info, "hash");
  const once = insertSignatureLine("#!/bin/bash\necho hi\n", "tool", toolLine);
  assert.equal(once, `#!/bin/bash\n${toolLine}\necho hi\n`);
  const twice = insertSignatureLine(once, "tool", toolLine.replace("2026", "2027"));
  assert.equal(twice.split("\n").filter((l) => l.includes("rye:signed")).length, 1);
  assert.ok(twice.split("\n")[1]!.includes("2027-01-02"));
  assert.equal(insertSignatureLine("#!/bin/sh", "tool", toolLine), `#!/bin/sh\n${toolLine}\n`);
  const doc = insertSignatureLine("<!-- rye:validated:x -->\n# T\n", "knowledge", formatSignatureLine(info, "html"));
  assert.equal(doc, `${formatSignatureLine(info, "html")}\n# T\n`);
  assert.equal(stripSignature(doc, "knowledge"), "# T\n");
  assert.equal(stripSignature(twice, "tool"), "#!/bin/bash\necho hi\n");
});
