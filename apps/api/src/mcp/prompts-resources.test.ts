/**
 * /mcp's prompts, resources and completions over real HTTP with the official SDK client: a published directive as a
 * prompt (its inputs as arguments, rendered with them as rye renders it, refusals for missing or wrong inputs), paging
 * across replicas' worth of stateless requests, knowledge items and skill files as resources (SKILL.md listing the
 * others, binary files as blobs), an organization's private knowledge only for members, and completions.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { DIRECTIVE_INSTRUCTIONS } from "@rye/core";
import { directive, startMcpFixture, type McpFixture } from "../../test/mcp-registry.ts";
import { PROMPTS_PAGE } from "./prompts.ts";
import { RESOURCES_PAGE } from "./resources.ts";

let f: McpFixture;
before(async () => {
  f = await startMcpFixture();
});
after(() => f?.close());

async function refusal(run: () => Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await run();
  } catch (err) {
    assert.ok(err instanceof McpError, String(err));
    return { code: err.code, message: err.message };
  }
  assert.fail("expected a JSON-RPC error");
}

describe("prompts", () => {
  test("a published directive is a prompt with its inputs as arguments", async () => {
    const client = await f.client();
    const { prompts } = await client.listPrompts();
    const greet = prompts.find((p) => p.name === "alice/flows/greet");
    assert.ok(greet, JSON.stringify(prompts));
    assert.equal(greet.title, "greet");
    assert.equal(greet.description, "Greets {input:person}.");
    assert.deepEqual(greet.arguments, [
      { name: "person", description: "Who to greet", required: true },
      { name: "times", description: "How many times", required: false },
    ]);
  });

  test("prompts/get renders it with the arguments (defaults applied, JSON-typed), as rye execute does", async () => {
    const client = await f.client();
    const got = await client.getPrompt({ name: "alice/flows/greet", arguments: { person: "Ada" } });
    assert.equal(got.description, "Greets {input:person}.", "the description is not interpolated, as rye execute leaves it");
    assert.equal(got.messages.length, 1);
    const text = (got.messages[0]!.content as { text: string }).text;
    assert.ok(text.startsWith(`${DIRECTIVE_INSTRUCTIONS}\n\n`), text);
    assert.match(text, /<step>Say hello to Ada, 1 times\.<\/step>/);
    assert.deepEqual(got._meta, { "rye/item_id": "alice/flows/greet", "rye/version": "1.0.0" });
    const three = await client.getPrompt({ name: "alice/flows/greet", arguments: { person: "Ada", times: "3" } });
    assert.match((three.messages[0]!.content as { text: string }).text, /Say hello to Ada, 3 times/);
  });

  test("missing or mistyped inputs and unknown directives are InvalidParams errors with the API's code", async () => {
    const client = await f.client();
    const missing = await refusal(() => client.getPrompt({ name: "alice/flows/greet", arguments: {} }));
    assert.equal(missing.code, -32602);
    assert.match(missing.message, /MISSING_INPUTS: Missing required inputs: person/);
    const mistyped = await refusal(() => client.getPrompt({ name: "alice/flows/greet", arguments: { person: "Ada", times: "many" } }));
    assert.match(mistyped.message, /INPUT_INVALID: .*times \(expected an integer\)/);
    const unknown = await refusal(() => client.getPrompt({ name: "alice/flows/nope", arguments: {} }));
    assert.match(unknown.message, /ITEM_NOT_FOUND/);
  });

  test("prompts/list pages with the search's cursor: every directive once", async () => {
    const extra = PROMPTS_PAGE + 3;
    for (let i = 0; i < extra; i++) {
      const res = await f.http("POST", "/v1/push", { token: f.tokens.otto, json: { item_type: "directive", item_id: `otto/bulk/d${i}`, content: directive(`d${i}`, "bulk", "1.0.0"), version: "1.0.0" } });
      assert.equal(res.status, 201, await res.text());
    }
    const client = await f.client();
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listPrompts(cursor ? { cursor } : {});
      names.push(...page.prompts.map((p) => p.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 2);
    assert.equal(names.length, extra + 1);
    assert.equal(new Set(names).size, names.length);
    const bad = await refusal(() => client.listPrompts({ cursor: "not-a-cursor" }));
    assert.equal(bad.code, -32602);
  });
});

describe("resources", () => {
  test("knowledge items and skills' SKILL.md are listed; the templates describe the rest", async () => {
    const client = await f.client();
    const uris: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor ? { cursor } : {});
      assert.ok(page.resources.length <= RESOURCES_PAGE);
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(uris.sort(), ["rye://knowledge/alice/notes/style", "skill://alice/notes/SKILL.md"]);
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ["rye://knowledge/{+id}", "skill://{namespace}/{name}/{+path}"]);
  });

  test("reading a knowledge item answers its signed file (latest published, or a pinned version)", async () => {
    const client = await f.client();
    const { contents } = await client.readResource({ uri: "rye://knowledge/alice/notes/style" });
    assert.equal(contents.length, 1);
    const [file] = contents as { uri: string; mimeType: string; text: string; _meta: Record<string, string> }[];
    assert.equal(file!.mimeType, "text/markdown");
    assert.match(file!.text, /rye:signed:/);
    assert.match(file!.text, /Write short sentences/);
    assert.equal(file!._meta["rye/version"], "1.0.0");
    const pinned = await client.readResource({ uri: "rye://knowledge/alice/notes/style@1.0.0" });
    assert.equal((pinned.contents[0] as { text: string }).text, file!.text);
    // The held 1.1.0 does not exist for this caller.
    const held = await refusal(() => client.readResource({ uri: "rye://knowledge/alice/notes/style@1.1.0" }));
    assert.equal(held.code, -32002);
  });

  test("a skill: SKILL.md first, listing the other files' URIs; each read on demand (binary as a blob)", async () => {
    const client = await f.client();
    const skillMd = (await client.readResource({ uri: "skill://alice/notes/SKILL.md" })).contents[0] as { text: string; _meta: Record<string, unknown> };
    assert.match(skillMd.text, /^---\nname: notes/);
    assert.deepEqual(skillMd._meta["rye/files"], ["skill://alice/notes/assets/logo.bin", "skill://alice/notes/reference/guide.md"]);
    const guide = (await client.readResource({ uri: "skill://alice/notes/reference/guide.md" })).contents[0] as { text: string; mimeType: string };
    assert.equal(guide.text, "# Guide\n\nKeep notes short.\n");
    assert.equal(guide.mimeType, "text/markdown");
    const logo = (await client.readResource({ uri: "skill://alice/notes/assets/logo.bin" })).contents[0] as { blob: string; mimeType: string };
    assert.equal(logo.blob, Buffer.from([0xff, 0xfe, 0x00, 0x01]).toString("base64"));
    assert.equal(logo.mimeType, "application/octet-stream");
    const pinned = (await client.readResource({ uri: "skill://alice/notes@1.0.0/SKILL.md" })).contents[0] as { _meta: Record<string, unknown> };
    assert.deepEqual(pinned._meta["rye/files"], ["skill://alice/notes@1.0.0/assets/logo.bin", "skill://alice/notes@1.0.0/reference/guide.md"]);

    assert.equal((await refusal(() => client.readResource({ uri: "skill://alice/notes/nope.md" }))).code, -32002);
    for (const uri of ["skill://alice/notes/../../etc/passwd", "skill://alice/notes/reference%2Fguide.md", "skill://alice/notes", "https://example.test/x"]) {
      assert.equal((await refusal(() => client.readResource({ uri }))).code, -32602, uri);
    }
  });

  test("an organization's private knowledge: listed and read for a member only", async () => {
    const uri = "rye://knowledge/acme/internal/secret-plan";
    for (const token of [undefined, f.tokens.otto]) {
      const client = await f.client(token);
      assert.equal((await refusal(() => client.readResource({ uri }))).code, -32002);
      assert.ok(!(await client.listResources()).resources.some((r) => r.uri === uri));
    }
    const member = await f.client(f.tokens.mia);
    assert.match(((await member.readResource({ uri })).contents[0] as { text: string }).text, /The acme plan/);
    assert.ok((await member.listResources()).resources.some((r) => r.uri === uri));
  });
});

describe("completions", () => {
  test("resource template arguments and prompt id arguments complete from what the caller may see", async () => {
    const client = await f.client();
    const ids = await client.complete({ ref: { type: "ref/resource", uri: "rye://knowledge/{+id}" }, argument: { name: "id", value: "alice/" } });
    assert.deepEqual(ids.completion.values, ["alice/notes/style"]);
    const secret = await client.complete({ ref: { type: "ref/resource", uri: "rye://knowledge/{+id}" }, argument: { name: "id", value: "acme/" } });
    assert.deepEqual(secret.completion.values, [], "private items are not suggested to outsiders");
    const member = await f.client(f.tokens.mia);
    assert.deepEqual((await member.complete({ ref: { type: "ref/resource", uri: "rye://knowledge/{+id}" }, argument: { name: "id", value: "acme/" } })).completion.values, ["acme/internal/secret-plan"]);

    const skillNames = await client.complete({ ref: { type: "ref/resource", uri: "skill://{namespace}/{name}/{+path}" }, argument: { name: "name", value: "no" }, context: { arguments: { namespace: "alice" } } });
    assert.deepEqual(skillNames.completion.values, ["notes"]);
    const paths = await client.complete({ ref: { type: "ref/resource", uri: "skill://{namespace}/{name}/{+path}" }, argument: { name: "path", value: "re" }, context: { arguments: { namespace: "alice", name: "notes" } } });
    assert.deepEqual(paths.completion.values, ["reference/guide.md"]);
    const types = await client.complete({ ref: { type: "ref/prompt", name: "alice/flows/greet" }, argument: { name: "item_type", value: "k" } });
    assert.deepEqual(types.completion.values, ["knowledge"]);
  });
});
