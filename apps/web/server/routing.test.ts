/** Which paths of the shared origin the registry API answers (the rest is the website's). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { isApiPath } from "./routing.ts";

test("the API's prefixes, and Agent Skills discovery under a namespace or a skill", () => {
  for (const path of [
    "/v1/search?q=x",
    "/oauth/token",
    "/mcp",
    "/health",
    "/ready",
    "/.well-known/agent-skills/index.json",
    "/alice/.well-known/agent-skills/index.json",
    "/alice/pdf-tools@1.0.0/.well-known/agent-skills/index.json",
    "/alice/.well-known/agent-skills/pdf-tools/1.0.0/pdf-tools-1.0.0.tar.gz",
  ]) {
    assert.equal(isApiPath(path), true, path);
  }
  for (const path of ["/", "/alice", "/mcp/x", "/mcpx", "/alice/pdf-tools", "/search?q=.well-known/agent-skills/", "/a/b/c/.well-known/agent-skills/index.json", "/alice/.well-known/other"]) {
    assert.equal(isApiPath(path), false, path);
  }
});
