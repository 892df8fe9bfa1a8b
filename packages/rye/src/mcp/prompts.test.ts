/** Directives as MCP prompts, with the MCP SDK client over stdio against a real `rye mcp`. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createWorkspace, type Workspace } from "../../test/workspace.ts";

const BIN = fileURLToPath(new URL("../../bin/rye.mjs", import.meta.url));

let ws: Workspace;
let client: Client;

const directive = (name: string, inputs: string, body: string) => `# ${name}

\`\`\`xml
<directive name="${name}" version="1.0.0">
  <metadata>
    <description>Greets someone, ${name}</description>
    <category>demo</category>
    <author>tests</author>
  </metadata>
  <inputs>${inputs}</inputs>
  <process>
    <step name="s">${body}</step>
  </process>
</directive>
\`\`\`
`;

before(async () => {
  ws = await createWorkspace();
  await ws.write("directive", "demo/greet.md", directive("greet", `<input name="name" type="string" required="true">Who to greet</input><input name="times" type="integer" default="2">How often</input>`, "Say hi to {input:name} {input:times} times."));
  // Unsigned: never offered.
  await ws.write("directive", "demo/draft.md", directive("draft", "", "Nothing."), { signer: null });
  client = new Client({ name: "rye-prompts-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], cwd: ws.projectDir, env: ws.env as Record<string, string>, stderr: "pipe" }));
});
after(async () => {
  await client?.close();
});

test("verified directives are prompts with their inputs as arguments; an unsigned one is not", async () => {
  assert.ok(client.getServerCapabilities()?.prompts, "the server announces prompts");
  const { prompts } = await client.listPrompts();
  const greet = prompts.find((p) => p.name === "demo/greet");
  assert.ok(greet, JSON.stringify(prompts.map((p) => p.name)));
  assert.equal(greet.description, "Greets someone, greet");
  assert.deepEqual(greet.arguments, [
    { name: "name", description: "Who to greet", required: true },
    { name: "times", description: "How often", required: false },
  ]);
  assert.ok(!prompts.some((p) => p.name === "demo/draft"), "an unsigned directive is not offered");
  assert.ok(prompts.some((p) => p.name === "rye/core/create_knowledge"), "the system bundle's directives are prompts too");
});

test("prompts/get returns the directive with the inputs applied, as execute does", async () => {
  const prompt = await client.getPrompt({ name: "demo/greet", arguments: { name: "Ada", times: "3" } });
  assert.equal(prompt.messages.length, 1);
  assert.equal(prompt.messages[0]!.role, "user");
  const text = (prompt.messages[0]!.content as { text: string }).text;
  assert.match(text, /Say hi to Ada 3 times\./);
  assert.match(text, /Execute the directive/);
  const executed = (prompt._meta as Record<string, { inputs: unknown }>)["rye/execute"]!;
  assert.deepEqual(executed.inputs, { name: "Ada", times: 3 });
});

test("a missing required argument, an unknown or an unsigned prompt is an error, not content", async () => {
  await assert.rejects(client.getPrompt({ name: "demo/greet", arguments: {} }), /MISSING_INPUTS/);
  await assert.rejects(client.getPrompt({ name: "demo/nothing" }), /ITEM_NOT_FOUND/);
  await assert.rejects(client.getPrompt({ name: "demo/draft" }), /UNSIGNED/);
  await assert.rejects(client.getPrompt({ name: "../etc/passwd" }), /INVALID_ITEM_ID/);
});
