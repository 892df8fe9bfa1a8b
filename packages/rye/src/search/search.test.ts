/** Search behaviour on real item files in temporary project, user and system spaces. */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { RyeError } from "@rye/core";
import type { SearchOptions, SearchResult } from "./search.ts";
import { searchItems } from "./search.ts";
import { INDEX_FIELDS } from "./fields.ts";
import { defaultSearchConfig } from "./weights.ts";
import { checkOverride } from "./weights-override.ts";
import { DEFAULT_SEARCH_WEIGHTS } from "./weights.default.ts";
import type { TestSpaces } from "./test-fixtures.ts";
import { directiveFile, knowledgeFile, makeSpaces, pythonToolFile, removeTestSpaces, writeItem, yamlToolFile } from "./test-fixtures.ts";

let s: TestSpaces;

after(removeTestSpaces);

before(async () => {
  s = await makeSpaces();
  const { project, user, system } = s;
  await writeItem(project, "tool", "files/fs_write", pythonToolFile("files/fs_write", "Write text to a file on disk", "# Uses an atomic rename."));
  await writeItem(project, "tool", "files/fs_read", pythonToolFile("files/fs_read", "Read a file from disk", "", { version: "2.0.0" }));
  await writeItem(project, "directive", "deploy/deploy_app", directiveFile("deploy/deploy_app", "Deploy the application with docker compose", "Build the image, push it and restart the service."));
  await writeItem(project, "knowledge", "notes/search_tips", knowledgeFile("notes/search_tips", "Search tips", "Use quotes for exact phrases. The quick brown fox jumps over the lazy dog.", { tags: ["search", "tips"] }));
  await writeItem(project, "directive", "broken/no_fence", "# A directive without its xml block\n\nIt mentions a kangaroo.\n");
  await writeItem(user, "tool", "files/fs_write", pythonToolFile("files/fs_write", "Write text to a file on disk", "# Uses an atomic rename."));
  await writeItem(user, "knowledge", "notes/docker_basics", knowledgeFile("notes/docker_basics", "Docker basics", "Containers and images: docker run starts a container."));
  await writeItem(user, "directive", "rye/core/create_directive", directiveFile("rye/core/create_directive", "Create a new directive file"));
  await writeItem(system, "directive", "rye/core/sign_item", directiveFile("rye/core/sign_item", "Sign an item with your key"));
  await writeItem(system, "directive", "rye/corex/other_thing", directiveFile("rye/corex/other_thing", "Something that lives in corex"));
  await writeItem(system, "directive", "rye/core/x/nested_thing", directiveFile("rye/core/x/nested_thing", "A nested thing"));
  await writeItem(system, "tool", "rye/core/runtimes/python_script", pythonToolFile("rye/core/runtimes/python_script", "Run a python script", "", { toolType: "runtime" }));
  await writeItem(system, "tool", "rye/core/primitives/http_call", yamlToolFile("rye/core/primitives/http_call", "Call an HTTP endpoint"), ".yaml");
  await writeItem(system, "knowledge", "rye/core/item_formats", knowledgeFile("rye/core/item_formats", "Item formats", "Directives, tools and knowledge are signed files.", { tags: ["formats", "signatures"] }));
});

function search(query: string, options: Partial<SearchOptions> = {}): Promise<SearchResult> {
  return searchItems({ query, spaces: s.spaces, limit: 100, ...options });
}

/** `space:type:id` of each hit, in result order. */
async function keys(query: string, options: Partial<SearchOptions> = {}): Promise<string[]> {
  return (await search(query, options)).results.map((h) => `${h.space}:${h.type}:${h.id}`);
}

async function ids(query: string, options: Partial<SearchOptions> = {}): Promise<string[]> {
  return [...new Set((await search(query, options)).results.map((h) => h.id))].sort();
}

describe("boolean logic", () => {
  test("implicit AND, AND, OR, NOT and -term", async () => {
    assert.deepEqual(await ids("deploy docker"), ["deploy/deploy_app"]);
    assert.deepEqual(await ids("deploy AND docker"), ["deploy/deploy_app"]);
    assert.deepEqual(await ids("deploy OR kangaroo"), ["broken/no_fence", "deploy/deploy_app"]);
    assert.deepEqual(await ids("docker NOT deploy"), ["notes/docker_basics"]);
    assert.deepEqual(await ids("docker -deploy"), ["notes/docker_basics"]);
    assert.deepEqual(await ids("(kangaroo OR sign) -item"), ["broken/no_fence"]);
  });

  test("lowercase or is a word, not an operator", async () => {
    assert.deepEqual(await ids("docker OR kangaroo"), ["broken/no_fence", "deploy/deploy_app", "notes/docker_basics"]);
    assert.deepEqual(await ids("docker or kangaroo"), [], "no item contains docker, 'or' and kangaroo");
  });

  test("NOT alone matches everything else, and never adds score", async () => {
    const all = (await search("")).total;
    const result = await search("NOT docker");
    assert.equal(result.total, all - 2);
    assert.ok(result.results.every((h) => h.score === 1));
    const mixed = await search("kangaroo OR NOT docker");
    assert.equal(mixed.results[0]!.id, "broken/no_fence");
    assert.ok(mixed.results.slice(1).every((h) => h.score === 0), "documents matched only through NOT score 0");
  });
});

describe("phrases, wildcards, fields, fuzzy, proximity", () => {
  test("phrases need the words in order and next to each other", async () => {
    assert.deepEqual(await ids('"quick brown fox"'), ["notes/search_tips"]);
    assert.deepEqual(await ids('"brown quick fox"'), []);
    assert.deepEqual(await ids('"quick fox"'), []);
    assert.deepEqual(await ids('"fs write"'), ["files/fs_write"], "identifier words are consecutive positions");
  });

  test("identifiers match whole or by their words", async () => {
    assert.deepEqual(await ids("fs_write"), ["files/fs_write"]);
    assert.deepEqual(await ids("files/fs_write"), ["files/fs_write"]);
    assert.deepEqual(await ids("name:python_script"), ["rye/core/runtimes/python_script"]);
    assert.deepEqual(await ids("python_script"), ["files/fs_read", "files/fs_write", "rye/core/runtimes/python_script"], "the fs tools name it as their executor");
  });

  test("wildcards", async () => {
    assert.deepEqual(await ids("fs_w*"), ["files/fs_write"]);
    assert.deepEqual(await ids("fs_*"), ["files/fs_read", "files/fs_write"]);
    assert.deepEqual(await ids("kang?roo"), ["broken/no_fence"]);
    assert.deepEqual(await ids("*aroo"), ["broken/no_fence"]);
    assert.deepEqual(await ids("name:*_thing"), ["rye/core/x/nested_thing", "rye/corex/other_thing"]);
  });

  test("fields", async () => {
    assert.deepEqual(await ids("name:deploy_app"), ["deploy/deploy_app"]);
    assert.deepEqual(await ids("name:docker"), ["notes/docker_basics"]);
    assert.deepEqual(await ids("description:docker"), ["deploy/deploy_app"]);
    assert.deepEqual(await ids("content:rename"), ["files/fs_write"]);
    assert.deepEqual(await ids('title:"search tips"'), ["notes/search_tips"]);
    assert.deepEqual(await ids("tag:signatures"), ["rye/core/item_formats"]);
    assert.deepEqual(await ids("tag:tips"), ["notes/search_tips"]);
    assert.deepEqual(await ids("type:knowledge"), ["notes/docker_basics", "notes/search_tips", "rye/core/item_formats"]);
    assert.deepEqual(await ids("space:user type:tool"), ["files/fs_write"]);
    assert.deepEqual(await ids("id:files/fs_read"), ["files/fs_read"]);
    assert.deepEqual(await ids("version:2.0.0"), ["files/fs_read"]);
    assert.deepEqual(await ids("tool_type:runtime"), ["rye/core/runtimes/python_script"]);
    assert.deepEqual(await ids("author:rye-tests type:directive space:system"), ["rye/core/sign_item", "rye/core/x/nested_thing", "rye/corex/other_thing"]);
    assert.deepEqual(await ids("category:rye/core type:directive"), ["rye/core/create_directive", "rye/core/sign_item", "rye/core/x/nested_thing"]);
    assert.deepEqual(await ids("name:(sign_item OR create_directive)"), ["rye/core/create_directive", "rye/core/sign_item"]);
  });

  test("fuzzy terms, explicit and by option", async () => {
    assert.deepEqual(await ids("kangaro"), []);
    assert.deepEqual(await ids("kangaro~"), ["broken/no_fence"]);
    assert.deepEqual(await ids("dokcer~"), ["deploy/deploy_app", "notes/docker_basics"], "a swap is two edits; 6 letters allow 2");
    assert.deepEqual(await ids("dokcer~1"), []);
    assert.deepEqual(await ids("kangarooo", { fuzzy: { enabled: true } }), ["broken/no_fence"]);
    assert.deepEqual(await ids("kangaroooo", { fuzzy: { enabled: true, maxDistance: 1 } }), []);
    assert.deepEqual(await ids("kangaroooo", { fuzzy: { enabled: false } }), []);
  });

  test("plural forms match each other", async () => {
    assert.deepEqual(await ids("kangaroos"), ["broken/no_fence"]);
    assert.deepEqual(await ids("container"), ["notes/docker_basics"]);
  });

  test("proximity: every word within N positions, in any order", async () => {
    // "Build the image, push it and restart the service": build@0 … restart@6
    assert.deepEqual(await ids('"build restart"~6'), ["deploy/deploy_app"]);
    assert.deepEqual(await ids('"restart build"~6'), ["deploy/deploy_app"]);
    assert.deepEqual(await ids('"build restart"~5'), []);
    assert.deepEqual(await ids('"fox lazy quick"~8'), ["notes/search_tips"]);
  });
});

describe("ranking", () => {
  test("scores are normalised to 0..1 with 4 decimals, the best hit scoring 1", async () => {
    const result = await search("docker");
    assert.equal(result.results[0]!.score, 1);
    for (const hit of result.results) {
      assert.ok(hit.score >= 0 && hit.score <= 1);
      assert.equal(hit.score, Math.round(hit.score * 10000) / 10000);
    }
  });

  test("a name match outranks a content-only match", async () => {
    const { project } = await makeSpaces();
    await writeItem(project, "tool", "misc/zebra_stripes", pythonToolFile("misc/zebra_stripes", "Count stripes"));
    await writeItem(project, "knowledge", "misc/animals", knowledgeFile("misc/animals", "Animals", "A zebra, a lion and a giraffe."));
    const result = await searchItems({ query: "zebra", spaces: [project] });
    assert.deepEqual(result.results.map((h) => h.id), ["misc/zebra_stripes", "misc/animals"]);
    assert.ok(result.results[1]!.score < result.results[0]!.score);
  });

  test("BM25 prefers the rarer term", async () => {
    const { project } = await makeSpaces();
    for (let i = 0; i < 6; i++) {
      await writeItem(project, "knowledge", `k/common_${i}`, knowledgeFile(`k/common_${i}`, `Entry ${i}`, "Some plain words about pelicans today."));
    }
    await writeItem(project, "knowledge", "k/rare", knowledgeFile("k/rare", "Entry rare", "Some plain words about axolotls today."));
    const result = await searchItems({ query: "pelicans OR axolotls", spaces: [project] });
    assert.equal(result.total, 7);
    assert.equal(result.results[0]!.id, "k/rare");
    assert.ok(result.results[1]!.score < 1);
  });

  test("exact matches beat fuzzy and wildcard ones; phrases beat loose words", async () => {
    const { project } = await makeSpaces();
    await writeItem(project, "knowledge", "k/exact", knowledgeFile("k/exact", "One", "The walrus sleeps."));
    await writeItem(project, "knowledge", "k/near", knowledgeFile("k/near", "Two", "The walrut sleeps."));
    const fuzzy = await searchItems({ query: "walrus~", spaces: [project] });
    assert.deepEqual(fuzzy.results.map((h) => h.id), ["k/exact", "k/near"]);
    assert.ok(fuzzy.results[1]!.score <= 0.5);
    const wildcard = await searchItems({ query: "walru* OR walrus", spaces: [project] });
    assert.deepEqual(wildcard.results.map((h) => h.id), ["k/exact", "k/near"]);

    await writeItem(project, "knowledge", "k/together", knowledgeFile("k/together", "Three", "Polar bears swim far."));
    await writeItem(project, "knowledge", "k/apart", knowledgeFile("k/apart", "Four", "Bears are polar opposites."));
    const phrase = await searchItems({ query: '"polar bears" OR (polar bears)', spaces: [project] });
    assert.deepEqual(phrase.results.map((h) => h.id), ["k/together", "k/apart"]);
  });

  test("weights come from <project>/.ai/config/search.yaml and change the order", async () => {
    const spaces = await makeSpaces();
    const { project, projectPath } = spaces;
    await writeItem(project, "tool", "a/lighthouse", pythonToolFile("a/lighthouse", "Keeps the lamp on"));
    await writeItem(project, "tool", "a/beacon", pythonToolFile("a/beacon", "A lighthouse beacon"));
    const order = async (): Promise<string[]> => (await searchItems({ query: "lighthouse", spaces: [project], projectPath })).results.map((h) => h.id);
    assert.deepEqual(await order(), ["a/lighthouse", "a/beacon"]);

    await mkdir(join(projectPath, ".ai", "config"), { recursive: true });
    const config = join(projectPath, ".ai", "config", "search.yaml");
    await writeFile(config, "weights:\n  tool: { name: 0.5, description: 8 }\n");
    assert.deepEqual(await order(), ["a/beacon", "a/lighthouse"]);

    // Weights of another type do not matter for tools.
    await writeFile(config, "weights:\n  knowledge: { name: 0, description: 100 }\n");
    assert.deepEqual(await order(), ["a/lighthouse", "a/beacon"]);

    // Without projectPath the project space's own config is used.
    await writeFile(config, "weights:\n  tool: { name: 0.5, description: 8 }\n");
    assert.deepEqual((await searchItems({ query: "lighthouse", spaces: [project] })).results.map((h) => h.id), ["a/beacon", "a/lighthouse"]);
  });

  test("match factors come from search.yaml too; a factor of 0 still matches but adds nothing", async () => {
    const { project, projectPath } = await makeSpaces();
    await writeItem(project, "knowledge", "k/exact", knowledgeFile("k/exact", "One", "The walrus sleeps."));
    await writeItem(project, "knowledge", "k/near", knowledgeFile("k/near", "Two", "The walrut sleeps."));
    await mkdir(join(projectPath, ".ai", "config"), { recursive: true });
    await writeFile(join(projectPath, ".ai", "config", "search.yaml"), "factors: { fuzzy: 0 }\n");
    const result = await searchItems({ query: "walrus~", spaces: [project], projectPath });
    assert.deepEqual(result.results.map((h) => [h.id, h.score]), [["k/exact", 1], ["k/near", 0]]);
  });

  test("a bad search.yaml is a VALIDATION_FAILED error naming the file", async () => {
    const { project, projectPath } = await makeSpaces();
    await mkdir(join(projectPath, ".ai", "config"), { recursive: true });
    const config = join(projectPath, ".ai", "config", "search.yaml");
    for (const bad of ["weights:\n  tool: { name: -1 }\n", "weights:\n  tool: { nmae: 2 }\n", "weights:\n  tools: { name: 2 }\n", "weights: [1, 2]\n", "weights: {\n", "factors: { phrase: big }\n"]) {
      await writeFile(config, bad);
      await assert.rejects(searchItems({ query: "x", spaces: [project], projectPath }), (err: unknown) => {
        assert.ok(err instanceof RyeError);
        assert.equal(err.code, "VALIDATION_FAILED");
        assert.ok(err.message.includes(config), err.message);
        return true;
      });
    }
    await writeFile(config, "# nothing set\n");
    assert.equal((await searchItems({ query: "", spaces: [project], projectPath })).total, 0);
  });

  test("the built-in weights pass the schema of search.yaml and set every field of every type", () => {
    assert.deepEqual(checkOverride(structuredClone(DEFAULT_SEARCH_WEIGHTS), "weights.default.ts"), DEFAULT_SEARCH_WEIGHTS);
    const config = defaultSearchConfig();
    for (const [type, fields] of Object.entries(DEFAULT_SEARCH_WEIGHTS.weights)) {
      assert.deepEqual(Object.keys(fields).sort(), [...INDEX_FIELDS].sort(), type);
      assert.deepEqual([...config.weights[type as keyof typeof config.weights]], INDEX_FIELDS.map((f) => (fields as Record<string, number>)[f]), type);
    }
    assert.deepEqual(config.factors, DEFAULT_SEARCH_WEIGHTS.factors);
  });

  test("ties go to the higher-precedence space, then the item id", async () => {
    assert.deepEqual(await keys("fs_write"), ["project:tool:files/fs_write", "user:tool:files/fs_write"]);
    const [first, second] = (await search("fs_write")).results;
    assert.equal(first!.score, second!.score);
    const everything = await keys("");
    assert.deepEqual(everything.slice(0, 5), [
      "project:directive:broken/no_fence",
      "project:directive:deploy/deploy_app",
      "project:tool:files/fs_read",
      "project:tool:files/fs_write",
      "project:knowledge:notes/search_tips",
    ]);
    assert.equal(everything[5], "user:tool:files/fs_write");
  });
});

describe("filters, pagination, hits", () => {
  test("item types", async () => {
    assert.deepEqual(await ids("", { itemTypes: ["tool"] }), ["files/fs_read", "files/fs_write", "rye/core/primitives/http_call", "rye/core/runtimes/python_script"]);
    assert.deepEqual(await ids("docker", { itemTypes: ["knowledge"] }), ["notes/docker_basics"]);
    assert.deepEqual(await ids("docker", { itemTypes: ["knowledge", "directive"] }), ["deploy/deploy_app", "notes/docker_basics"]);
  });

  test("source", async () => {
    assert.deepEqual(await keys("fs_write", { source: "user" }), ["user:tool:files/fs_write"]);
    assert.deepEqual(await ids("", { source: "system", itemTypes: ["knowledge"] }), ["rye/core/item_formats"]);
    assert.equal((await search("", { source: "all" })).total, 14);
  });

  test("category prefix matches the category and its sub-categories only", async () => {
    assert.deepEqual(await ids("", { categoryPrefix: "rye/core" }), [
      "rye/core/create_directive",
      "rye/core/item_formats",
      "rye/core/primitives/http_call",
      "rye/core/runtimes/python_script",
      "rye/core/sign_item",
      "rye/core/x/nested_thing",
    ]);
    assert.deepEqual(await ids("", { categoryPrefix: "rye/core/" }), await ids("", { categoryPrefix: "rye/core" }));
    assert.deepEqual(await ids("", { categoryPrefix: "rye/corex" }), ["rye/corex/other_thing"]);
    assert.deepEqual(await ids("", { categoryPrefix: "rye/cor" }), []);
  });

  test("pagination: limit, offset and the total before paging", async () => {
    const all = await search("");
    assert.equal(all.total, 14);
    const pages: string[] = [];
    for (let offset = 0; offset < 14; offset += 4) {
      const page = await search("", { limit: 4, offset });
      assert.equal(page.total, 14);
      assert.equal(page.limit, 4);
      assert.equal(page.offset, offset);
      pages.push(...page.results.map((h) => `${h.space}:${h.type}:${h.id}`));
    }
    assert.deepEqual(pages, all.results.map((h) => `${h.space}:${h.type}:${h.id}`));
    const beyond = await search("", { offset: 50 });
    assert.deepEqual(beyond.results, []);
    assert.equal(beyond.total, 14);
    const defaults = await searchItems({ query: "", spaces: s.spaces });
    assert.equal(defaults.results.length, 10);
    assert.equal(defaults.limit, 10);
    assert.equal(defaults.offset, 0);
    assert.equal(defaults.query, "");
  });

  test("bad options are BAD_REQUEST (or INVALID_ITEM_TYPE)", async () => {
    for (const bad of [{ limit: 0 }, { limit: 101 }, { limit: 1.5 }, { offset: -1 }, { offset: 0.5 }, { source: "galaxy" as "all" }, { itemTypes: [] }, { fuzzy: { enabled: true, maxDistance: 4 } }]) {
      await assert.rejects(search("x", bad), (err: unknown) => err instanceof RyeError && err.code === "BAD_REQUEST", JSON.stringify(bad));
    }
    await assert.rejects(search("x", { itemTypes: ["widget" as "tool"] }), (err: unknown) => err instanceof RyeError && err.code === "INVALID_ITEM_TYPE");
    await assert.rejects(search("x (", {}), (err: unknown) => err instanceof RyeError && err.code === "BAD_REQUEST");
  });

  test("shadowed: a higher-precedence space has the same type and id", async () => {
    const hits = (await search("fs_write")).results;
    assert.deepEqual(hits.map((h) => [h.space, h.shadowed]), [["project", false], ["user", true]]);
    const onlyUser = (await search("fs_write", { source: "user" })).results;
    assert.equal(onlyUser[0]!.shadowed, true, "shadowing looks at every space, whatever the source filter");
    assert.equal((await search("name:create_directive")).results[0]!.shadowed, false);
  });

  test("hit fields", async () => {
    const [hit] = (await search("name:fs_read")).results;
    assert.deepEqual(
      { ...hit, path: hit!.path.slice(s.base.length) },
      {
        id: "files/fs_read",
        type: "tool",
        space: "project",
        name: "fs_read",
        description: "Read a file from disk",
        category: "files",
        version: "2.0.0",
        score: 1,
        signed: false,
        verified: null,
        verifyCode: null,
        shadowed: false,
        path: "/project/.ai/tools/files/fs_read.py",
        preview: "Read a file from disk",
      },
    );
    const [note] = (await search("name:search_tips")).results;
    assert.equal(note!.title, "Search tips");
    assert.equal(note!.preview, "Use quotes for exact phrases. The quick brown fox jumps over the lazy dog.");
  });

  test("a file that fails to parse is still found, with the error", async () => {
    const [hit] = (await search("kangaroo")).results;
    assert.equal(hit!.id, "broken/no_fence");
    assert.equal(hit!.name, "no_fence");
    assert.equal(hit!.category, "broken");
    assert.match(hit!.parseError!, /XML/);
    assert.equal(hit!.version, null);
  });
});

describe("signatures", () => {
  const SIGNATURE = `<!-- rye:signed:2026-01-02T03:04:05Z:${"a".repeat(64)}:${"B".repeat(86)}==:0123456789abcdef -->`;

  test("signed comes from a well-formed signature line; verify runs only for the page and is cached", async () => {
    const { project } = await makeSpaces();
    const signedPath = await writeItem(project, "directive", "s/signed_one", `${SIGNATURE}\n${directiveFile("s/signed_one", "Signed otter")}`);
    await writeItem(project, "directive", "s/malformed_one", `<!-- rye:signed:garbage -->\n${directiveFile("s/malformed_one", "Malformed otter")}`);
    for (let i = 0; i < 5; i++) await writeItem(project, "directive", `s/plain_${i}`, directiveFile(`s/plain_${i}`, "Plain otter"));

    const seen: string[] = [];
    const verify: SearchOptions["verify"] = async (doc) => {
      seen.push(doc.path);
      assert.equal(doc.type, "directive");
      assert.equal(doc.space, "project");
      assert.ok(doc.content.includes("otter"));
      const signed = doc.content.startsWith("<!-- rye:signed:");
      return { signed, verified: false, code: signed ? "INTEGRITY_MISMATCH" : "UNSIGNED" };
    };
    const first = await searchItems({ query: "otter", spaces: [project], limit: 3, verify });
    assert.equal(first.total, 7);
    assert.equal(seen.length, 3, "only the returned page is verified");
    const bySigned = await searchItems({ query: "signed otter", spaces: [project], limit: 1, verify });
    const hit = bySigned.results[0]!;
    assert.equal(hit.id, "s/signed_one");
    assert.equal(hit.signed, true);
    assert.equal(hit.verified, false);
    assert.equal(hit.verifyCode, "INTEGRITY_MISMATCH");
    const malformed = (await searchItems({ query: "malformed", spaces: [project] })).results[0]!;
    assert.equal(malformed.signed, false);
    assert.equal(malformed.verified, null, "no verifier, no verification");

    const count = seen.length;
    await searchItems({ query: "otter", spaces: [project], limit: 3, verify });
    assert.equal(seen.length, count, "cached by (path, mtime, size)");

    await writeFile(signedPath, `${SIGNATURE}\n${directiveFile("s/signed_one", "Signed otter, edited")}`);
    await searchItems({ query: "signed otter", spaces: [project], limit: 1, verify });
    assert.equal(seen.length, count + 1, "an edited file is verified again");
    assert.equal(seen.at(-1), signedPath);
  });

  test("a verifier that throws marks the hit unverified instead of failing the search", async () => {
    const { project } = await makeSpaces();
    await writeItem(project, "directive", "s/otter", directiveFile("s/otter", "An otter"));
    const result = await searchItems({
      query: "otter",
      spaces: [project],
      verify: async () => {
        throw new RyeError("UNTRUSTED_KEY", "nope");
      },
    });
    assert.equal(result.results[0]!.verified, false);
    assert.equal(result.results[0]!.verifyCode, "UNTRUSTED_KEY");
  });
});

test("a page is the same slice of the full ranking whatever its size and offset, ties included", async () => {
  const { project, user } = await makeSpaces();
  // Scores from 1 to 4 occurrences of "heron", several items per score (ties broken by space, then id).
  for (let i = 0; i < 30; i++) {
    const body = Array.from({ length: 1 + (i % 4) }, () => "heron").join(" ");
    await writeItem(project, "knowledge", `b/bird_${String(i).padStart(2, "0")}`, knowledgeFile(`b/bird_${String(i).padStart(2, "0")}`, `Bird ${i}`, body));
    if (i % 5 === 0) await writeItem(user, "knowledge", `b/bird_${String(i).padStart(2, "0")}`, knowledgeFile(`b/bird_${String(i).padStart(2, "0")}`, `Bird ${i}`, body));
  }
  const spaces = [project, user];
  const key = (h: { space: string; id: string; score: number }) => `${h.space}:${h.id}:${h.score}`;
  const all = await searchItems({ query: "heron", spaces, limit: 100 });
  assert.equal(all.total, 36);
  const precedence: Record<string, number> = { project: 2, user: 1, system: 0 };
  const sorted = [...all.results].sort((a, b) => b.score - a.score || precedence[b.space]! - precedence[a.space]! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  assert.deepEqual(all.results.map(key), sorted.map(key), "the full page is in ranking order");
  assert.ok(new Set(all.results.map((h) => h.score)).size < all.results.length, "the ranking has ties");
  for (const limit of [1, 3, 7]) {
    const pages: string[] = [];
    for (let offset = 0; offset < 36; offset += limit) {
      const page = await searchItems({ query: "heron", spaces, limit, offset });
      assert.equal(page.total, 36);
      pages.push(...page.results.map(key));
    }
    assert.deepEqual(pages, all.results.map(key), `pages of ${limit}`);
  }
});
