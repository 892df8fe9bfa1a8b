/**
 * GET /v1/relations: uses read from the published file and resolved against the registry (also when the used item
 * is published later), used-by from the users' latest versions, warnings for yanked/deprecated uses; private and
 * held items hidden from outsiders on both sides; limits and bad input refused with codes.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { MAX_REFERENCES_PER_ITEM } from "@rye/core";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";

type Json = Record<string, any>;

let reg: TestRegistry;
let alice: TestUser;
let tokens: { alice: string; bob: string; rye: string; eve: string; admin: string };

const nameOf = (id: string) => id.split("/").at(-1)!;
const categoryOf = (id: string) => id.split("/").slice(1, -1).join("/");
const directive = (id: string, actions: string[], version = "1.0.0") =>
  `# ${nameOf(id)}\n\n\`\`\`xml\n<directive name="${nameOf(id)}" version="${version}">\n  <metadata>\n    <description>Flow ${nameOf(id)}.</description>\n    <category>${categoryOf(id)}</category>\n    <author>alice</author>\n  </metadata>\n  <process>\n${actions.map((a) => `    <step>${a}</step>`).join("\n")}\n  </process>\n</directive>\n\`\`\`\n`;
const tool = (id: string, executor: string | null, version = "1.0.0") =>
  `__version__ = "${version}"\n__tool_type__ = "python"\n__executor_id__ = ${executor === null ? "None" : JSON.stringify(executor)}\n__category__ = "${categoryOf(id)}"\n__tool_description__ = "Tool ${nameOf(id)}"\n`;
const knowledge = (id: string, version = "1.0.0") => `---\nid: ${nameOf(id)}\ntitle: ${nameOf(id)}\nversion: ${version}\nentry_type: reference\ncategory: ${categoryOf(id)}\n---\n\nBody.\n`;
const exec = (type: string, id: string) => `<execute item_type="${type}" item_id="${id}"/>`;
const load = (id: string) => `<load item_type="knowledge" item_id="${id}"/>`;

async function push(as: string, type: string, id: string, content: string, version = "1.0.0", visibility?: string): Promise<Response> {
  return reg.request("POST", "/v1/push", { token: as, json: { item_type: type, item_id: id, content, version, ...(type === "tool" ? { file_extension: ".py" } : {}), metadata: visibility ? { visibility } : undefined } });
}
async function publish(as: string, type: string, id: string, content: string, version = "1.0.0", visibility?: string): Promise<void> {
  const res = await push(as, type, id, content, version, visibility);
  assert.equal(res.status, 201, await res.text());
}
async function relations(path: string, as?: string): Promise<{ status: number; body: Json; cache: string | null }> {
  const res = await reg.request("GET", `/v1/relations/${path}`, as ? { token: as } : {});
  return { status: res.status, body: (await res.json()) as Json, cache: res.headers.get("cache-control") };
}
const usedByIds = (body: Json) => body.used_by.map((u: Json) => `${u.item_type} ${u.item_id}`);

before(async () => {
  reg = await createTestRegistry({ config: { rateLimit: { windowSeconds: 60, reads: 100_000, writes: 100_000 } } });
  alice = await reg.createUser("alice");
  const bob = await reg.createUser("bob");
  const rye = await reg.createUser("rye");
  const eve = await reg.createUser("eve");
  await reg.createOrg("acme", [{ user: bob, role: "owner" }]);
  tokens = { alice: await reg.token(alice), bob: await reg.token(bob), rye: await reg.token(rye), eve: await reg.token(eve), admin: await reg.token(await reg.createUser("root", { admin: true })) };
});
after(() => reg.close());

describe("happy path", () => {
  test("a directive's tools, knowledge and child directive resolve, also the child published after it; used-by lists the directive", async () => {
    await publish(tokens.rye, "tool", "rye/rye/core/primitives/subprocess", tool("rye/rye/core/primitives/subprocess", null));
    await publish(tokens.alice, "tool", "alice/runtimes/py_rt", tool("alice/runtimes/py_rt", "rye/core/primitives/subprocess"));
    for (const name of ["fetch", "parse", "store"]) await publish(tokens.alice, "tool", `alice/tools/${name}`, tool(`alice/tools/${name}`, "alice/runtimes/py_rt"));
    await publish(tokens.alice, "knowledge", "alice/notes/style", knowledge("alice/notes/style"));
    await publish(tokens.alice, "directive", "alice/flows/main", directive("alice/flows/main", [exec("tool", "alice/tools/fetch"), exec("tool", "alice/tools/parse"), exec("tool", "alice/tools/store"), load("alice/notes/style"), exec("directive", "alice/flows/child@1.0.0")]));

    const before = await relations("directive/alice/flows/main");
    assert.equal(before.status, 200, JSON.stringify(before.body));
    assert.equal(before.cache, "private, no-cache");
    assert.deepEqual(before.body.uses.map((u: Json) => [u.kind, u.item_type, u.reference, u.resolved?.item_id ?? null]), [
      ["execute", "tool", "alice/tools/fetch", "alice/tools/fetch"],
      ["execute", "tool", "alice/tools/parse", "alice/tools/parse"],
      ["execute", "tool", "alice/tools/store", "alice/tools/store"],
      ["load", "knowledge", "alice/notes/style", "alice/notes/style"],
      ["execute", "directive", "alice/flows/child", null],
    ]);
    assert.deepEqual(before.body.warnings, ["directive alice/flows/child@1.0.0 is not published in this registry (or not visible to you)"]);

    await publish(tokens.alice, "directive", "alice/flows/child", directive("alice/flows/child", [exec("tool", "alice/tools/fetch")]));
    const afterChild = await relations("directive/alice/flows/main");
    assert.deepEqual(afterChild.body.uses[4].resolved, { item_id: "alice/flows/child", latest_version: "1.0.0", version: "1.0.0", yanked: false, deprecated: false, deprecation_message: null });
    assert.deepEqual(afterChild.body.warnings, []);
    assert.equal(afterChild.body.version, "1.0.0");

    const fetch = await relations("tool/alice/tools/fetch");
    assert.deepEqual(usedByIds(fetch.body), ["directive alice/flows/child", "directive alice/flows/main"]);
    assert.equal(fetch.body.used_by_total, 2);
    assert.deepEqual(fetch.body.uses.map((u: Json) => [u.kind, u.resolved.item_id]), [["executor", "alice/runtimes/py_rt"]]);
  });

  test("an executor chain: a runtime names a system id that resolves to the system bundle's rye/<id>", async () => {
    const runtime = await relations("tool/alice/runtimes/py_rt");
    assert.deepEqual(runtime.body.uses.map((u: Json) => [u.kind, u.reference, u.resolved.item_id]), [["executor", "rye/core/primitives/subprocess", "rye/rye/core/primitives/subprocess"]]);
    assert.deepEqual(usedByIds(runtime.body), ["tool alice/tools/fetch", "tool alice/tools/parse", "tool alice/tools/store"]);
    const primitive = await relations("tool/rye/rye/core/primitives/subprocess");
    assert.deepEqual(primitive.body.uses, []);
    assert.deepEqual(usedByIds(primitive.body), ["tool alice/runtimes/py_rt"]);
  });

  test("yanked and deprecated uses are warnings; used-by follows the users' latest version only", async () => {
    await publish(tokens.alice, "tool", "alice/tools/old", tool("alice/tools/old", null));
    await publish(tokens.alice, "knowledge", "alice/notes/legacy", knowledge("alice/notes/legacy"));
    await publish(tokens.alice, "directive", "alice/flows/aging", directive("alice/flows/aging", [exec("tool", "alice/tools/old@1.0.0"), load("alice/notes/legacy")]));
    assert.equal((await reg.request("POST", "/v1/yank/tool/alice/tools/old", { token: tokens.alice, json: { version: "1.0.0", reason: "broken" } })).status, 200);
    assert.equal((await reg.request("POST", "/v1/deprecate/knowledge/alice/notes/legacy", { token: tokens.alice, json: { message: "Use alice/notes/style" } })).status, 200);
    const aging = await relations("directive/alice/flows/aging");
    assert.deepEqual(aging.body.warnings, ["tool alice/tools/old@1.0.0 is yanked (alice/tools/old@1.0.0)", "knowledge alice/notes/legacy is deprecated: Use alice/notes/style"]);
    assert.deepEqual([aging.body.uses[0].resolved.yanked, aging.body.uses[0].resolved.latest_version, aging.body.uses[1].resolved.deprecated], [true, null, true]);

    assert.deepEqual(usedByIds((await relations("knowledge/alice/notes/legacy")).body), ["directive alice/flows/aging"]);
    await publish(tokens.alice, "directive", "alice/flows/aging", directive("alice/flows/aging", [exec("tool", "alice/tools/old@1.0.0")], "1.1.0"), "1.1.0");
    assert.deepEqual(usedByIds((await relations("knowledge/alice/notes/legacy")).body), [], "1.1.0 no longer loads it");
    const older = await relations("directive/alice/flows/aging?version=1.0.0");
    assert.deepEqual([older.body.version, older.body.uses.length], ["1.0.0", 2], "an older version's uses on request");
  });
});

describe("errors", () => {
  test("bad types, ids and versions are refused with codes; a missing version is a 404", async () => {
    const bad = [
      ["widget/alice/flows/main", 400, "INVALID_ITEM_TYPE"],
      ["directive/alice", 400, "INVALID_ITEM_ID"],
      ["directive/alice/flows/main?version=latest", 400, "BAD_REQUEST"],
      ["directive/alice/flows/main?version=9.9.9", 404, "ITEM_NOT_FOUND"],
      ["directive/alice/flows/nothing", 404, "ITEM_NOT_FOUND"],
    ] as const;
    for (const [path, status, code] of bad) {
      const r = await relations(path);
      assert.deepEqual([r.status, r.body.error.code], [status, code], path);
      assert.ok(r.body.error.hint, path);
    }
  });

  test(`a directive using more than ${MAX_REFERENCES_PER_ITEM} items is refused at publish, and nothing is stored`, async () => {
    const many = (n: number) => directive("alice/flows/huge", Array.from({ length: n }, (_, i) => exec("tool", `alice/tools/t${i}`)));
    const refused = await push(tokens.alice, "directive", "alice/flows/huge", many(MAX_REFERENCES_PER_ITEM + 1));
    const body = (await refused.json()) as Json;
    assert.deepEqual([refused.status, body.error.code], [400, "VALIDATION_FAILED"]);
    assert.match(body.error.message, /uses 65 items; at most 64/);
    assert.equal(await reg.db.prisma.item.count({ where: { name: "huge" } }), 0);
    await publish(tokens.alice, "directive", "alice/flows/huge", many(MAX_REFERENCES_PER_ITEM));
    assert.equal((await relations("directive/alice/flows/huge")).body.uses.length, MAX_REFERENCES_PER_ITEM);
  });
});

describe("security", () => {
  test("a private user never appears in used-by for outsiders; members and admins see it", async () => {
    await publish(tokens.bob, "directive", "acme/flows/secret_flow", directive("acme/flows/secret_flow", [exec("tool", "alice/tools/parse")]), "1.0.0", "private");
    await publish(tokens.bob, "directive", "acme/flows/unlisted_flow", directive("acme/flows/unlisted_flow", [exec("tool", "alice/tools/parse")]), "1.0.0", "unlisted");
    for (const as of [undefined, tokens.alice, tokens.eve]) {
      const r = await relations("tool/alice/tools/parse", as);
      assert.deepEqual(usedByIds(r.body), ["directive alice/flows/main"], "outsiders");
      assert.equal(r.body.used_by_total, 1);
    }
    for (const as of [tokens.bob, tokens.admin]) assert.deepEqual(usedByIds((await relations("tool/alice/tools/parse", as)).body), ["directive acme/flows/secret_flow", "directive acme/flows/unlisted_flow", "directive alice/flows/main"]);
    const readOnlyless = await reg.token({ id: (await reg.db.prisma.user.findUniqueOrThrow({ where: { username: "bob" } })).id, username: "bob" }, { scopes: ["items:write"] });
    assert.deepEqual(usedByIds((await relations("tool/alice/tools/parse", readOnlyless)).body), ["directive alice/flows/main"], "a token without items:read reads like an anonymous caller");
  });

  test("a private item's relations are a 404 to outsiders; a private use is unresolved for them", async () => {
    await publish(tokens.bob, "tool", "acme/tools/internal", tool("acme/tools/internal", null), "1.0.0", "private");
    await publish(tokens.alice, "directive", "alice/flows/uses_private", directive("alice/flows/uses_private", [exec("tool", "acme/tools/internal")]));
    const missing = await relations("tool/acme/tools/nothing");
    for (const as of [undefined, tokens.alice]) {
      const r = await relations("tool/acme/tools/internal", as);
      assert.deepEqual([r.status, r.body.error.code, r.body.error.message], [404, "ITEM_NOT_FOUND", missing.body.error.message.replace("nothing", "internal")]);
      const user = await relations("directive/alice/flows/uses_private", as);
      assert.equal(user.body.uses[0].resolved, null, "nothing about the private item leaks");
    }
    const bobView = await relations("directive/alice/flows/uses_private", tokens.bob);
    assert.equal(bobView.body.uses[0].resolved.item_id, "acme/tools/internal");
    assert.deepEqual(usedByIds((await relations("tool/acme/tools/internal", tokens.bob)).body), ["directive alice/flows/uses_private"]);
  });

  test("a deleted target unresolves its uses; publishing it again resolves them", async () => {
    await publish(tokens.alice, "knowledge", "alice/notes/phoenix", knowledge("alice/notes/phoenix"));
    await publish(tokens.alice, "directive", "alice/flows/reborn", directive("alice/flows/reborn", [load("alice/notes/phoenix")]));
    await reg.db.prisma.item.deleteMany({ where: { name: "phoenix" } });
    assert.equal((await relations("directive/alice/flows/reborn")).body.uses[0].resolved, null);
    await publish(tokens.alice, "knowledge", "alice/notes/phoenix", knowledge("alice/notes/phoenix", "2.0.0"), "2.0.0");
    assert.equal((await relations("directive/alice/flows/reborn")).body.uses[0].resolved.latest_version, "2.0.0");
  });
});
