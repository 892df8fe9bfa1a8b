import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { before, describe, it } from "node:test";
import type { KeyPair } from "../crypto/keys.ts";
import { generateKeyPair } from "../crypto/keys.ts";
import { RyeError } from "../errors.ts";
import { signItem } from "../signature/sign.ts";
import { keyResolverFrom } from "../signature/verify.ts";
import type { BundleManifest } from "./manifest.ts";
import {
  buildManifest,
  isInlineSigned,
  parseManifest,
  serializeManifest,
  signManifest,
  validateBundlePath,
  verifyBundle,
} from "./manifest.ts";

const enc = (text: string) => new TextEncoder().encode(text);
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
const CREATED = new Date("2026-03-04T05:06:07.890Z");
const BAD_PATHS = ["../x", "a/../../x", "/etc/passwd", "a//b", "a\\b", "C:/x", "c:\\x", "./a", "a/", ""];

const DIRECTIVE = `# Hello

Says hello.

\`\`\`xml
<directive name="hello" version="1.0.0">
  <metadata><description>Hi</description><category>pack</category><author>me</author></metadata>
</directive>
\`\`\`
`;
const KNOWLEDGE = "---\nid: notes\ntitle: Notes\nversion: 1.0.0\nentry_type: reference\n---\n\nSome notes.\n";
const TOOL = `#!/usr/bin/env python3\n__version__ = "1.0.0"\n__executor_id__ = None\n`;

function reader(files: Map<string, Uint8Array>, calls: string[] = []) {
  return async (path: string) => {
    calls.push(path);
    return files.get(path);
  };
}

function isRyeError(code: string, pattern?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof RyeError, `expected a RyeError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (pattern) assert.match(err.message, pattern);
    return true;
  };
}

function manifestYaml(path: string): string {
  return `bundle:
  id: pack
  version: 0.1.0
  entrypoint: ""
  description: ""
  created_at: 2026-01-02T03:04:05Z
files:
  ${JSON.stringify(path)}:
    sha256: ${"a".repeat(64)}
    inline_signed: false
`;
}

let key: KeyPair;
let stranger: KeyPair;
let files: Map<string, Uint8Array>;

before(async () => {
  key = await generateKeyPair();
  stranger = await generateKeyPair();
  files = new Map([
    [".ai/tools/pack/run.py", enc(TOOL)],
    [".ai/directives/pack/hello.md", enc((await signItem(DIRECTIVE, "directive", key)).content)],
    [".ai/knowledge/pack/notes.md", enc((await signItem(KNOWLEDGE, "knowledge", key)).content)],
    [".ai/plans/pack/plan.md", enc("# Plan\n")],
    [".ai/tools/pack/blob.bin", new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0x0a])],
  ]);
});

const entries = () => [...files].map(([path, bytes]) => ({ path, bytes }));

describe("validateBundlePath", () => {
  it("accepts relative slash-separated paths", () => {
    for (const path of [".ai/tools/a.py", "a/b.c/d", "a/..foo/b", "x"]) assert.equal(validateBundlePath(path), null, path);
  });

  it("rejects traversal, absolute, drive-letter, empty-segment, backslash, NUL and over-long paths", () => {
    for (const path of [...BAD_PATHS, "a\0b", "a/.", `${"a/".repeat(256)}b`]) {
      assert.equal(typeof validateBundlePath(path), "string", JSON.stringify(path));
    }
  });
});

describe("isInlineSigned", () => {
  it("looks for a signature marker in the first 512 characters", () => {
    assert.equal(isInlineSigned(enc("<!-- rye:signed:2026… -->\n")), true);
    assert.equal(isInlineSigned(enc("#!/usr/bin/env python3\n# rye:signed:x\n")), true);
    assert.equal(isInlineSigned(enc("// rye:signed:x\nexport const a = 1;\n")), true);
    assert.equal(isInlineSigned(enc(`${"x".repeat(600)}\n# rye:signed:x\n`)), false);
    assert.equal(isInlineSigned(enc("<!-- rye:validated:2026-02-10T02:00:00Z:placeholder -->\n")), false);
    assert.equal(isInlineSigned(enc("plain text\n")), false);
    assert.equal(isInlineSigned(new Uint8Array([0xff, 0xfe, 0x23])), false);
  });

  it("still finds the marker when a multi-byte character straddles the bytes it inspects", () => {
    for (const pad of ["", "a", "aa", "aaa"]) {
      for (const ch of ["é", "€", "😀"]) {
        const bytes = enc(`# rye:signed:x\n${pad}${ch.repeat(1200)}\n`);
        assert.equal(isInlineSigned(bytes), true, `${JSON.stringify(pad)} + ${ch}`);
      }
    }
  });
});

describe("buildManifest", () => {
  let manifest: BundleManifest;
  before(() => {
    manifest = buildManifest({ id: "pack", description: "A pack", entrypoint: "pack/hello", createdAt: CREATED }, entries().reverse());
  });

  it("fills the bundle header with defaults and a second-precision UTC timestamp", () => {
    assert.deepEqual(manifest.bundle, {
      id: "pack",
      version: "0.1.0",
      entrypoint: "pack/hello",
      description: "A pack",
      created_at: "2026-03-04T05:06:07Z",
    });
    const pkg = buildManifest({ id: "rye-core", version: "2.0.0", type: "package", createdAt: CREATED }, []);
    assert.deepEqual(pkg.bundle, { id: "rye-core", version: "2.0.0", entrypoint: "", description: "", created_at: "2026-03-04T05:06:07Z", type: "package" });
    assert.deepEqual(pkg.files, {});
  });

  it("lists the files sorted by path", () => {
    assert.deepEqual(Object.keys(manifest.files), [...files.keys()].sort());
  });

  it("records the sha256 of the raw bytes (also for non-UTF-8 files)", () => {
    for (const [path, bytes] of files) assert.equal(manifest.files[path]!.sha256, sha256(bytes), path);
  });

  it("marks inline-signed items", () => {
    assert.deepEqual(
      Object.fromEntries(Object.entries(manifest.files).map(([path, entry]) => [path, entry.inline_signed])),
      {
        ".ai/directives/pack/hello.md": true,
        ".ai/knowledge/pack/notes.md": true,
        ".ai/plans/pack/plan.md": false,
        ".ai/tools/pack/blob.bin": false,
        ".ai/tools/pack/run.py": false,
      },
    );
  });

  it("rejects unsafe paths with PATH_TRAVERSAL", () => {
    for (const path of BAD_PATHS) {
      assert.throws(() => buildManifest({ id: "pack" }, [{ path, bytes: enc("x") }]), isRyeError("PATH_TRAVERSAL"), JSON.stringify(path));
    }
  });
});

describe("serializeManifest / parseManifest", () => {
  it("round-trips, keeping bundle before files", () => {
    const manifest = buildManifest({ id: "pack", createdAt: CREATED }, entries());
    const text = serializeManifest(manifest);
    assert.ok(text.indexOf("bundle:") < text.indexOf("files:"));
    assert.match(text, /^ {2}created_at: 2026-03-04T05:06:07Z$/m);
    assert.deepEqual(parseManifest(text), manifest);
  });

  it("round-trips values that YAML would otherwise retype", () => {
    const manifest = buildManifest(
      { id: "123", version: "1.0.0-rc.1", entrypoint: "true", description: "yes: no # not a comment\nsecond line", createdAt: CREATED },
      [{ path: ".ai/tools/null.py", bytes: enc("") }],
    );
    assert.deepEqual(parseManifest(serializeManifest(manifest)), manifest);
  });

  it("reads a manifest with a signature line", async () => {
    const manifest = buildManifest({ id: "pack", createdAt: CREATED }, entries());
    const signed = await signManifest(serializeManifest(manifest), key);
    assert.deepEqual(parseManifest(signed), manifest);
  });

  it("rejects unsafe paths with PATH_TRAVERSAL, naming the path", () => {
    for (const path of BAD_PATHS) {
      assert.throws(
        () => parseManifest(manifestYaml(path)),
        (err: unknown) => {
          isRyeError("PATH_TRAVERSAL")(err);
          const details = (err as RyeError).details as { field: string; message: string }[];
          assert.ok(details.some((d) => d.message.includes(JSON.stringify(path))), JSON.stringify(details));
          return true;
        },
        JSON.stringify(path),
      );
    }
    assert.equal(Object.keys(parseManifest(manifestYaml(".ai/tools/ok.py")).files)[0], ".ai/tools/ok.py");
  });

  it("rejects invalid YAML and invalid manifests with BUNDLE_INVALID", () => {
    assert.throws(() => parseManifest("bundle: [unclosed\nfiles: {\n"), isRyeError("BUNDLE_INVALID", /not valid YAML/));
    assert.throws(() => parseManifest("- just\n- a list\n"), isRyeError("BUNDLE_INVALID"));
    assert.throws(() => parseManifest(manifestYaml("a.py").replace("version: 0.1.0", "version: \"1.0\"")), (err: unknown) => {
      isRyeError("BUNDLE_INVALID")(err);
      assert.ok(((err as RyeError).details as { field: string }[]).some((d) => d.field === "bundle.version"));
      return true;
    });
    assert.throws(() => parseManifest(manifestYaml("a.py").replace("a".repeat(64), "A".repeat(64))), isRyeError("BUNDLE_INVALID"));
    assert.throws(() => parseManifest(manifestYaml("a.py").replace("inline_signed: false", "inline_signed: \"no\"")), isRyeError("BUNDLE_INVALID"));
  });
});

describe("signManifest", () => {
  it("prepends a # rye:signed line whose hash is the SHA-256 of the whole YAML text", async () => {
    const text = serializeManifest(buildManifest({ id: "pack", createdAt: CREATED }, entries()));
    const signed = await signManifest(text, key);
    const [first, ...rest] = signed.split("\n");
    assert.match(first!, /^# rye:signed:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z:[0-9a-f]{64}:[A-Za-z0-9_-]{86}==:[0-9a-f]{16}$/);
    assert.equal(first!.split(":")[5], sha256(text));
    assert.ok(first!.endsWith(`:${key.publicKey.fingerprint}`));
    assert.equal(rest.join("\n"), text);
  });
});

describe("verifyBundle", () => {
  async function signedManifestFor(fileMap: Map<string, Uint8Array>, signer: KeyPair = key): Promise<string> {
    const manifest = buildManifest({ id: "pack", createdAt: CREATED }, [...fileMap].map(([path, bytes]) => ({ path, bytes })));
    return signManifest(serializeManifest(manifest), signer);
  }

  it("verifies an intact bundle", async () => {
    const result = await verifyBundle(await signedManifestFor(files), keyResolverFrom([key.publicKey]), reader(files));
    assert.equal(result.code, "OK");
    assert.equal(result.ok, true);
    assert.equal(result.manifestSignature.ok, true);
    assert.deepEqual(result.files_ok, [...files.keys()].sort());
    assert.deepEqual(result.files_missing, []);
    assert.deepEqual(result.files_tampered, []);
    assert.equal(result.manifest?.bundle.id, "pack");
  });

  it("reports a missing file", async () => {
    const manifest = await signedManifestFor(files);
    const partial = new Map(files);
    partial.delete(".ai/plans/pack/plan.md");
    const result = await verifyBundle(manifest, keyResolverFrom([key.publicKey]), reader(partial));
    assert.equal(result.ok, false);
    assert.equal(result.code, "BUNDLE_FILES_MISSING");
    assert.deepEqual(result.files_missing, [".ai/plans/pack/plan.md"]);
    assert.deepEqual(result.files_tampered, []);
    assert.equal(result.files_ok.length, files.size - 1);
  });

  it("reports a changed file", async () => {
    const manifest = await signedManifestFor(files);
    const changed = new Map(files);
    changed.set(".ai/tools/pack/run.py", enc(TOOL.replace("1.0.0", "1.0.1")));
    const result = await verifyBundle(manifest, keyResolverFrom([key.publicKey]), reader(changed));
    assert.equal(result.ok, false);
    assert.equal(result.code, "BUNDLE_FILES_TAMPERED");
    assert.deepEqual(result.files_tampered.map((t) => t.path), [".ai/tools/pack/run.py"]);
    assert.match(result.files_tampered[0]!.reason, /sha256/);
    assert.deepEqual(result.files_missing, []);
  });

  it("reports an inline-signed item whose bytes match but whose own signature is not trusted", async () => {
    const forged = new Map(files);
    forged.set(".ai/directives/pack/hello.md", enc((await signItem(DIRECTIVE, "directive", stranger)).content));
    const manifest = await signedManifestFor(forged);
    const result = await verifyBundle(manifest, keyResolverFrom([key.publicKey]), reader(forged));
    assert.equal(result.manifestSignature.ok, true);
    assert.equal(result.ok, false);
    assert.equal(result.code, "BUNDLE_FILES_TAMPERED");
    assert.deepEqual(result.files_tampered.map((t) => t.path), [".ai/directives/pack/hello.md"]);
    assert.match(result.files_tampered[0]!.reason, /UNTRUSTED_KEY/);
    // once the stranger is trusted too, the same bundle verifies
    const both = await verifyBundle(manifest, keyResolverFrom([key.publicKey, stranger.publicKey]), reader(forged));
    assert.equal(both.code, "OK");
  });

  it("reports an inline-signed item edited after signing, even when the manifest was rebuilt over the new bytes", async () => {
    const edited = new Map(files);
    const original = new TextDecoder().decode(files.get(".ai/knowledge/pack/notes.md")!);
    edited.set(".ai/knowledge/pack/notes.md", enc(original.replace("Some notes.", "Other notes.")));
    const result = await verifyBundle(await signedManifestFor(edited), keyResolverFrom([key.publicKey]), reader(edited));
    assert.equal(result.code, "BUNDLE_FILES_TAMPERED");
    assert.deepEqual(result.files_tampered.map((t) => t.path), [".ai/knowledge/pack/notes.md"]);
    assert.match(result.files_tampered[0]!.reason, /INTEGRITY_MISMATCH/);
  });

  it("fails with INTEGRITY_MISMATCH when the manifest was edited after signing", async () => {
    const manifest = await signedManifestFor(files);
    const changed = new Map(files);
    changed.set(".ai/tools/pack/run.py", enc("print('evil')\n"));
    const edited = manifest.replace(sha256(files.get(".ai/tools/pack/run.py")!), sha256(changed.get(".ai/tools/pack/run.py")!));
    assert.notEqual(edited, manifest);
    const result = await verifyBundle(edited, keyResolverFrom([key.publicKey]), reader(changed));
    assert.equal(result.ok, false);
    assert.equal(result.code, "INTEGRITY_MISMATCH");
    assert.equal(result.manifestSignature.code, "INTEGRITY_MISMATCH");
  });

  it("fails with UNTRUSTED_KEY when the manifest was signed by an unknown key", async () => {
    const result = await verifyBundle(await signedManifestFor(files, stranger), keyResolverFrom([key.publicKey]), reader(files));
    assert.equal(result.ok, false);
    assert.equal(result.code, "UNTRUSTED_KEY");
  });

  it("fails with UNSIGNED for a manifest without a signature line", async () => {
    const text = serializeManifest(buildManifest({ id: "pack", createdAt: CREATED }, entries()));
    const result = await verifyBundle(text, keyResolverFrom([key.publicKey]), reader(files));
    assert.equal(result.ok, false);
    assert.equal(result.code, "UNSIGNED");
  });

  it("returns BUNDLE_INVALID for a signed manifest that is not valid YAML", async () => {
    const signed = await signManifest("bundle: [unclosed\n", key);
    const result = await verifyBundle(signed, keyResolverFrom([key.publicKey]), reader(files));
    assert.equal(result.manifestSignature.ok, true);
    assert.equal(result.ok, false);
    assert.equal(result.code, "BUNDLE_INVALID");
  });

  it("never reads a file outside the bundle root, even from a validly signed manifest", async () => {
    const signed = await signManifest(manifestYaml("../../etc/passwd"), key);
    const calls: string[] = [];
    const result = await verifyBundle(signed, keyResolverFrom([key.publicKey]), reader(files, calls));
    assert.equal(result.ok, false);
    assert.equal(result.code, "BUNDLE_INVALID");
    assert.deepEqual(calls, []);
  });
});
