import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { keyResolverFrom, publicKeyFromPem, verifyItem } from "@rye/core";
import { createTestRegistry, type TestRegistry } from "../test/harness.ts";
import { seedSystemBundle } from "./seed.ts";

let reg: TestRegistry;
before(async () => {
  reg = await createTestRegistry();
});
after(() => reg.close());

test("the system bundle is published once under rye/, author-verified and registry-signed", async () => {
  const count = await seedSystemBundle(reg.deps);
  assert.ok(count >= 20, `seeded ${count}`);
  assert.equal(await seedSystemBundle(reg.deps), 0, "a second start seeds nothing");
  const key = publicKeyFromPem(await (await reg.request("GET", "/v1/public-key")).text());
  const res = await reg.request("GET", "/v1/pull/tool/rye/rye/core/runtimes/node");
  assert.equal(res.status, 200);
  const body = (await res.json()) as { content: string; author_key: { verified: boolean }; author: string };
  assert.equal(body.author, "rye");
  assert.equal(body.author_key.verified, true, "signed by the release key registered to the rye account");
  assert.equal((await verifyItem(body.content, "tool", keyResolverFrom([key]))).code, "OK");
});

test("two registry processes seeding the same empty database at once both start, and every item is published once", async () => {
  const fresh = await createTestRegistry();
  try {
    const counts = await Promise.all([seedSystemBundle(fresh.deps), seedSystemBundle(fresh.deps)]);
    const items = await fresh.db.prisma.item.count({ where: { namespace: { name: "rye" } } });
    assert.equal(counts[0]! + counts[1]!, items, "each item was published by exactly one of them");
    assert.equal(await fresh.db.prisma.itemVersion.count({ where: { item: { namespace: { name: "rye" } } } }), items);
  } finally {
    await fresh.close();
  }
});
