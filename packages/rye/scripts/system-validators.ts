/**
 * Writes Ajv's standalone code for the parameter schema of every tool in a system bundle (src/execute/shipped-validators.ts):
 *   node --import tsx scripts/system-validators.ts <tools folder> <out.mjs>
 * The output is an ES module exporting `validators`, `{ "<schema key>": validate }`; it imports Ajv's runtime helpers
 * by package name, so the build bundles it (scripts/build.mjs) into `dist/system-validators.js`.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Ajv } from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";
import { parseTool } from "@rye/core";
import { AJV_OPTIONS, parameterSchema, schemaKey } from "../src/execute/schema.ts";

const [toolsDir, outFile] = process.argv.slice(2);
if (!toolsDir || !outFile) {
  console.error("usage: system-validators.ts <tools folder> <out.mjs>");
  process.exit(2);
}

const ajv = new Ajv({ ...AJV_OPTIONS, code: { source: true, esm: true } });
const exports: Record<string, string> = {};
for (const rel of (await readdir(toolsDir, { recursive: true })).sort()) {
  let tool;
  try {
    tool = parseTool(await readFile(join(toolsDir, rel), "utf8"), rel);
  } catch {
    continue; // not a tool file (a folder, a README, a package.json): the engine does not read it as one either
  }
  const schema = parameterSchema(tool);
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) continue;
  const key = schemaKey(schema);
  if (Object.values(exports).includes(key)) continue;
  ajv.addSchema(schema as Record<string, unknown>, key);
  exports[`v${Object.keys(exports).length}`] = key;
}
let code = Object.keys(exports).length ? standaloneCode(ajv, exports) : "";
// Ajv 8 emits `require("ajv/dist/runtime/…").default` even for ESM; an import lets the bundler take the helper in
// (the package has no runtime dependencies). A CommonJS default import is the module's exports or, with the
// bundler's interop, its `default`: either way the function is `.default ?? itself`.
const helpers = new Map<string, string>();
code = code.replace(/require\("(ajv\/dist\/runtime\/[a-z0-9_]+)"\)\.default/g, (_, path: string) => {
  const name = `helper${helpers.size}`;
  if (!helpers.has(path)) helpers.set(path, name);
  return `(${helpers.get(path)!}.default ?? ${helpers.get(path)!})`;
});
if (/\brequire\(/.test(code)) throw new Error(`Ajv's standalone code requires a module this script does not import: ${/require\([^)]*\)/.exec(code)![0]}`);
code = [...helpers].map(([path, name]) => `import ${name} from "${path}.js";\n`).join("") + code;
const table = Object.entries(exports).map(([name, key]) => `  ${JSON.stringify(key)}: ${name},`).join("\n");
await writeFile(outFile, `${code}\nexport const validators = {\n${table}\n};\n`);
console.error(`ryeos: ${Object.keys(exports).length} system tool parameter schemas precompiled`);
