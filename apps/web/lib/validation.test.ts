/** The publish page's live validation and in-browser signing (pure @rye/core code, run here under Node). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { extractSignature, generateKeyPair, keyResolverFrom, verifyItem } from "@rye/core";
import { importPrivateKeyPem, signForPush } from "./signing.ts";
import { toolExtensionOf, validateDraft } from "./validation.ts";

const directive = (name: string, category = "demo", version = "1.0.0") =>
  `# ${name}\n\n\`\`\`xml\n<directive name="${name}" version="${version}">\n  <metadata>\n    <description>Do it.</description>\n    <category>${category}</category>\n    <author>me</author>\n  </metadata>\n</directive>\n\`\`\`\n`;
const knowledge = (id: string, category?: string) =>
  `---\nid: ${id}\ntitle: ${id}\nversion: 2.0.0\nentry_type: reference\n${category === undefined ? "" : `category: ${category}\n`}---\n\nBody.\n`;
const pyTool = `__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_script"\n__category__ = "text"\n__tool_description__ = "Count words"\n`;
const jsTool = `export const __version__ = "0.3.0";\nexport const __tool_type__ = "javascript";\nexport const __executor_id__ = "rye/core/runtimes/node";\nexport const __category__ = "text";\nexport const __tool_description__ = "Count words";\n`;
const mine = { namespace: "alice", allowedNamespaces: ["alice", "acme"] };

test("a valid directive derives namespace/category/name, version and category", () => {
  const r = validateDraft({ type: "directive", content: directive("deploy_app", "ops/release"), ...mine });
  assert.deepEqual(r.issues, []);
  assert.equal(r.ok, true);
  assert.equal(r.itemId, "alice/ops/release/deploy_app");
  assert.equal(r.version, "1.0.0");
  assert.equal(r.category, "ops/release");
  assert.equal(r.extension, ".md");
});

test("validator problems come back per field, the same messages the registry answers", () => {
  const r = validateDraft({ type: "directive", content: directive("Bad-Name", "demo", "one"), ...mine });
  assert.equal(r.ok, false);
  const fields = r.issues.map((i) => i.field);
  assert.ok(fields.includes("name"), JSON.stringify(r.issues));
  assert.ok(fields.includes("version"), JSON.stringify(r.issues));
  assert.match(r.issues.find((i) => i.field === "name")!.message, /snake_case/);
});

test("the namespace must be one the person may publish to", () => {
  const r = validateDraft({ type: "directive", content: directive("x_y"), namespace: "bob", allowedNamespaces: ["alice"] });
  assert.equal(r.ok, false);
  assert.equal(r.issues[0]!.field, "namespace");
  assert.ok(validateDraft({ type: "directive", content: directive("x_y"), namespace: "acme", allowedNamespaces: mine.allowedNamespaces }).ok);
});

test("registry ids need a category: knowledge without one is refused with a clear message", () => {
  const none = validateDraft({ type: "knowledge", content: knowledge("notes_a"), ...mine });
  assert.equal(none.ok, false);
  assert.equal(none.issues[0]!.field, "category");
  const ok = validateDraft({ type: "knowledge", content: knowledge("notes_a", "notes"), ...mine });
  assert.equal(ok.itemId, "alice/notes/notes_a");
  assert.equal(ok.version, "2.0.0");
});

test("tools need a file name with a supported extension; the stem is the name", () => {
  const missing = validateDraft({ type: "tool", content: pyTool, ...mine });
  assert.equal(missing.issues[0]!.field, "file name");
  const bad = validateDraft({ type: "tool", content: pyTool, fileName: "count.rb", ...mine });
  assert.match(bad.issues[0]!.message, /Unsupported tool file extension/);
  const py = validateDraft({ type: "tool", content: pyTool, fileName: "count_words.py", ...mine });
  assert.deepEqual(py.issues, []);
  assert.equal(py.itemId, "alice/text/count_words");
  assert.equal(py.extension, ".py");
  const js = validateDraft({ type: "tool", content: jsTool, fileName: "count_words.mjs", ...mine });
  assert.equal(js.ok, true, JSON.stringify(js.issues));
  assert.equal(js.version, "0.3.0");
  assert.equal(toolExtensionOf("a.MTS"), ".mts");
});

test("empty or unparsable content is a problem, not an exception", () => {
  assert.equal(validateDraft({ type: "directive", content: "  ", ...mine }).issues[0]!.message, "Paste the item or upload its file");
  const garbage = validateDraft({ type: "directive", content: "no xml block here", ...mine });
  assert.equal(garbage.ok, false);
  assert.ok(garbage.issues.length > 0);
});

test("an already signed item validates like the unsigned one (the signature line is ignored)", async () => {
  const key = await generateKeyPair();
  const signed = await signForPush(directive("signed_one"), "directive", key, ".md");
  assert.equal(validateDraft({ type: "directive", content: signed, ...mine }).ok, true);
});

test("signing in the browser is the CLI's signItem: it verifies with the author key, JS tools get a // line", async () => {
  const key = await generateKeyPair();
  const imported = await importPrivateKeyPem(key.privateKeyPem);
  assert.equal(imported.publicKey.fingerprint, key.publicKey.fingerprint);
  const signed = await signForPush(jsTool, "tool", imported, ".mjs");
  assert.match(signed, /^\/\/ rye:signed:/);
  const result = await verifyItem(signed, "tool", keyResolverFrom([key.publicKey]));
  assert.equal(result.code, "OK");
  const again = await signForPush(signed, "tool", imported, ".mjs");
  assert.equal(again.match(/rye:signed:/g)?.length, 1, "re-signing replaces the old line");
  assert.equal(extractSignature(again, "tool").status, "signed");
});

test("importing refuses public keys and garbage with a helpful message", async () => {
  const key = await generateKeyPair();
  await assert.rejects(importPrivateKeyPem(key.publicKey.pem), /public key/);
  await assert.rejects(importPrivateKeyPem("hello"), /PEM/);
  await assert.rejects(importPrivateKeyPem("x".repeat(5000)), /too large/);
});
