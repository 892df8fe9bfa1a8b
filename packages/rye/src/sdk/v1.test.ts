/**
 * Surface pin of `ryeos/sdk/v1`: the names it exports are a contract with code signed by others (the system
 * registry tool today, the agent runtime and users' tools later). Adding a name is a minor version of the entry
 * (update SDK_VERSION and docs/sdk.md with it); removing or changing one needs `ryeos/sdk/v2`.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import * as sdk from "./v1.ts";

const PINNED = [
  "RyeError",
  "SDK_VERSION",
  "accessTokenFor",
  "capabilities",
  "decideHeld",
  "graphs",
  "importVerifiedModule",
  "listHeld",
  "listVerifiedItems",
  "manageItem",
  "mcpServers",
  "normalizeRegistryUrl",
  "openEngine",
  "parseYaml",
  "pullBundle",
  "pullItemToFile",
  "pushBundle",
  "pushItem",
  "readConfigOverride",
  "readVerifiedItem",
  "resolveRegistryFor",
  "searchOneRegistry",
  "searchRegistries",
  "splitBundleRef",
  "splitVersion",
  "threads",
  "whoAmI",
];

test("sdk/v1 exports exactly the pinned names, at a 1.x version", () => {
  assert.deepEqual(Object.keys(sdk).sort(), PINNED);
  assert.match(sdk.SDK_VERSION, /^1\.\d+\.\d+$/);
  for (const name of PINNED.filter((n) => !["SDK_VERSION", "capabilities", "graphs", "mcpServers", "threads"].includes(n))) assert.equal(typeof (sdk as Record<string, unknown>)[name], "function", name);
  for (const name of ["checkCapability", "searchFilter", "intersectCapabilities"]) assert.equal(typeof (sdk.capabilities as Record<string, unknown>)[name], "function");
  for (const name of ["allocateThreadId", "writeThread", "updateThread", "finishThread", "TranscriptWriter", "reserve", "report", "release", "getEntry", "isCancelRequested", "readParentContext"]) {
    assert.equal(typeof (sdk.threads as Record<string, unknown>)[name], "function", `threads.${name}`);
  }
});

test("the package exports the entry, docs/sdk.md documents every name, and the system registry tool asks for this major", async () => {
  const pkg = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8"));
  assert.deepEqual(pkg.exports["./sdk/v1"], { types: "./dist/sdk/v1.d.ts", default: "./dist/sdk/v1.js" });
  const docs = await readFile(new URL("../../../../docs/sdk.md", import.meta.url), "utf8");
  for (const name of PINNED) assert.ok(docs.includes("`" + name + "`") || docs.includes("`" + name + "("), `docs/sdk.md documents ${name}`);
  const tool = await readFile(new URL("../../../../.ai/tools/rye/registry/registry.mjs", import.meta.url), "utf8");
  assert.match(tool, /const SDK_MAJOR = "1";/);
});

test("the SDK's functions behave as the CLI's (a pure one, to see the wiring)", () => {
  assert.deepEqual(sdk.splitVersion("alice/notes/hello@1.2.0"), { id: "alice/notes/hello", version: "1.2.0" });
  assert.equal(sdk.normalizeRegistryUrl("http://127.0.0.1:3000/"), "http://127.0.0.1:3000");
  const error = new sdk.RyeError("BAD_REQUEST", "x", { hint: "y" });
  assert.equal(error.code, "BAD_REQUEST");
});
