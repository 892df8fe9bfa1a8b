/**
 * The system tools' parameter validators the build compiles ahead (scripts/system-validators.ts → dist/system-validators.js):
 * the generator run on the repository's own system bundle, its output read as the built package reads it, and every
 * validator checked against what Ajv compiles from the same schema with the engine's options.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Ajv } from "ajv";
import { parseTool } from "@rye/core";
import { AJV_OPTIONS, parameterSchema, schemaKey } from "./schema.ts";
import type { ShippedValidators } from "./shipped-validators.ts";
import { readShippedValidators } from "./shipped-validators.ts";

const PACKAGE_DIR = fileURLToPath(new URL("../../", import.meta.url));
const TOOLS_DIR = join(PACKAGE_DIR, "..", "..", ".ai", "tools");

/** Every system tool's parameter schema, by key, as the engine reads it (parseTool, then config_schema or input_schema). */
async function systemSchemas(): Promise<Map<string, { file: string; schema: Record<string, unknown> }>> {
  const out = new Map<string, { file: string; schema: Record<string, unknown> }>();
  for (const file of (await readdir(TOOLS_DIR, { recursive: true })).sort()) {
    if (!/\.(mjs|js|ts|py|yaml|yml|sh)$/.test(file)) continue;
    const schema = parameterSchema(parseTool(await readFile(join(TOOLS_DIR, file), "utf8"), file));
    if (schema && typeof schema === "object" && !Array.isArray(schema)) out.set(schemaKey(schema), { file, schema: schema as Record<string, unknown> });
  }
  return out;
}

let work: string;
let shipped: ShippedValidators;
before(async () => {
  // Inside the package, so the generated module's imports of Ajv's helpers resolve as they do for the bundler.
  work = await mkdtemp(join(PACKAGE_DIR, ".test-validators-"));
  const out = join(work, "validators.mjs");
  await promisify(execFile)(process.execPath, ["--import", "tsx", join(PACKAGE_DIR, "scripts", "system-validators.ts"), TOOLS_DIR, out], { cwd: PACKAGE_DIR });
  shipped = await readShippedValidators(out);
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

test("every system tool's parameter schema is precompiled, under the key the engine computes for it", async () => {
  const schemas = await systemSchemas();
  assert.ok([...schemas.values()].some((s) => s.file.endsWith("thread_directive.mjs")), "thread_directive has a schema");
  for (const [key, { file }] of schemas) assert.ok(shipped.has(key), `${file}'s schema is not precompiled`);
  assert.equal(shipped.size, schemas.size, "nothing else is in the table");
});

/** Parameters that exercise a schema: none, an unknown one, and each declared property with values of every JSON type. */
function probes(schema: Record<string, unknown>): unknown[] {
  const samples: unknown[] = [null, true, 0, -1, 1.5, 12345678, "", "x", "😀", "a".repeat(300), [], ["x", 1], {}, { nested: { deep: 1 } }];
  const properties = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  const out: unknown[] = [{}, { not_a_parameter: 1 }, [], "text"];
  for (const property of properties) for (const value of samples) out.push({ [property]: value });
  // Every property at once with a string, then with an object: defaults, required and additionalProperties together.
  out.push(Object.fromEntries(properties.map((p) => [p, "x"])), Object.fromEntries(properties.map((p) => [p, {}])));
  return out;
}

test("each precompiled validator answers exactly as Ajv compiling the schema: validity, errors and the defaults it fills", async () => {
  const ajv = new Ajv(AJV_OPTIONS);
  let compared = 0;
  for (const [key, { file, schema }] of await systemSchemas()) {
    const compiled = ajv.compile(schema);
    const precompiled = shipped.get(key)!;
    for (const probe of probes(schema)) {
      const a = structuredClone(probe);
      const b = structuredClone(probe);
      const ok = compiled(a);
      assert.equal(precompiled(b), ok, `${file}: ${JSON.stringify(probe)}`);
      assert.deepEqual(precompiled.errors ?? null, compiled.errors ?? null, `${file}: errors for ${JSON.stringify(probe)}`);
      assert.deepEqual(b, a, `${file}: defaults filled into ${JSON.stringify(probe)}`);
      compared++;
    }
  }
  assert.ok(compared > 100, `${compared} comparisons`);
});

test("a string's length counts code points, as Ajv's does (the helper the generated code imports is bundled in)", async () => {
  const key = [...(await systemSchemas())].find(([, s]) => s.file.endsWith("thread_directive.mjs"))![0];
  const threadDirective = shipped.get(key)!;
  assert.equal(threadDirective({ directive_name: "😀" }), true);
  assert.equal(threadDirective({ directive_name: "😀".repeat(256) }), true, "256 code points, 512 UTF-16 units: within maxLength 256");
  assert.equal(threadDirective({ directive_name: "😀".repeat(257) }), false);
  assert.equal(threadDirective({ directive_name: "" }), false);
});

test("no file, or a file that is not a table of validators, gives no validators (Ajv compiles every schema)", async () => {
  assert.equal((await readShippedValidators(join(work, "absent.js"))).size, 0);
  await writeFile(join(work, "broken.mjs"), "export const validators = ;");
  assert.equal((await readShippedValidators(join(work, "broken.mjs"))).size, 0);
  await writeFile(join(work, "strange.mjs"), "export const validators = { a: 1, b: () => true };");
  assert.deepEqual([...(await readShippedValidators(join(work, "strange.mjs"))).keys()], ["b"]);
});
