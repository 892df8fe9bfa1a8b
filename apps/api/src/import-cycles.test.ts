/**
 * No import cycle among the API's modules (routes, services, auth, middleware…), type-only imports included: a cycle
 * makes the order modules initialise in depend on who imports first, and hides which module owns a shape. madge reads
 * the imports as TypeScript resolves them.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import madge from "madge";

const root = fileURLToPath(new URL("..", import.meta.url));

test("the API's source has no import cycle", async () => {
  const graph = await madge(fileURLToPath(new URL("./", import.meta.url)), {
    fileExtensions: ["ts"],
    tsConfig: fileURLToPath(new URL("../../../tsconfig.json", import.meta.url)),
    excludeRegExp: [/\.test\.ts$/],
  });
  const modules = Object.keys(graph.obj());
  assert.ok(modules.includes("app.ts") && modules.includes("contract/document.ts"), `madge read the source under ${root}: ${modules.length} modules`);
  assert.deepEqual(graph.circular(), []);
});
