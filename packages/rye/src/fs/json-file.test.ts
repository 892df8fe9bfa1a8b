import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { z } from "zod";
import { readJsonFile, readJsonFileAs } from "./json-file.ts";

test("JSON files: absent is undefined, damaged is VALIDATION_FAILED with the hint and each schema issue", async () => {
  const dir = await mkdtemp(join(tmpdir(), "rye-json-"));
  const path = join(dir, "f.json");
  const schema = z.object({ n: z.number() });
  const options = { what: "a counter file", hint: "Restore the file." };
  assert.equal(await readJsonFile(path, "x"), undefined);
  assert.equal(await readJsonFileAs(path, schema, options), undefined);

  await writeFile(path, '{"n": 3}');
  assert.deepEqual(await readJsonFileAs(path, schema, options), { n: 3 });

  await writeFile(path, "{not json");
  await assert.rejects(readJsonFileAs(path, schema, options), { code: "VALIDATION_FAILED", message: `${path} is not valid JSON`, hint: "Restore the file." });

  await writeFile(path, '{"n": "three"}');
  await assert.rejects(readJsonFileAs(path, schema, options), (err: { code: string; message: string; hint: string; details: { field: string }[] }) => {
    assert.equal(err.code, "VALIDATION_FAILED");
    assert.equal(err.message, `${path} is not a counter file`);
    assert.equal(err.hint, "Restore the file.");
    assert.deepEqual(err.details.map((d) => d.field), ["n"]);
    return true;
  });
});
