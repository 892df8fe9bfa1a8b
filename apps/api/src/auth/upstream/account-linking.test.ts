/** Account resolution for upstream sign-ins, on PostgreSQL and PGlite: rules, races, usernames. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { RyeError } from "@rye/core";
import type { Database } from "@rye/db";
import { openTestDatabase, postgresAvailable } from "@rye/db/testing";
import { resolveUpstreamAccount } from "./account-linking.ts";
import type { UpstreamProfile } from "./upstream-client.ts";
import { slugify, suggestUsername } from "./username-suggestion.ts";

const options = { providerName: "Acme", allowSignup: true, ip: "127.0.0.1", requestId: null };
const profile = (subject: string, extra: Partial<UpstreamProfile> = {}): UpstreamProfile => ({
  provider: "acme", subject, email: `${subject}@example.com`, emailVerified: true, usernameHints: [subject], displayName: "", ...extra,
});

test("slugify makes hints valid names", () => {
  assert.equal(slugify("Ann.Lee"), "ann-lee");
  assert.equal(slugify("  José_Ñúñez  "), "jose-nunez");
  assert.equal(slugify("--a--b--"), "a-b");
  assert.equal(slugify("日本"), "");
  assert.equal(slugify(`${"x".repeat(38)}-yz`), "x".repeat(38));
});

for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
  describe(`upstream account linking on ${kind}`, () => {
    let db: Database;
    before(async () => {
      db = await openTestDatabase(kind);
    });
    after(() => db.close());

    test("usernames avoid taken users, organization namespaces and reserved names", async () => {
      const org = await db.prisma.organization.create({ data: { name: "taken" } });
      await db.prisma.namespace.create({ data: { name: "taken", orgId: org.id } });
      await db.prisma.user.create({ data: { username: "taken-2" } });
      assert.equal(await suggestUsername(db.prisma, ["Taken"]), "taken-3");
      assert.equal(await suggestUsername(db.prisma, ["admin"]), "admin-2");
      assert.equal(await suggestUsername(db.prisma, ["x", "Second Choice"]), "second-choice");
      assert.match(await suggestUsername(db.prisma, ["日本", ""]), /^user-[0-9a-f]{6}$/);
    });

    test("an unverified email creates an account without claiming the address", async () => {
      const result = await resolveUpstreamAccount(db, profile("uma", { emailVerified: false }), options);
      assert.equal(result.outcome, "created");
      const user = await db.prisma.user.findUniqueOrThrow({ where: { id: result.userId }, include: { identities: true } });
      assert.equal(user.email, null);
      assert.equal(user.emailVerified, false);
      assert.deepEqual(user.identities.map((i) => [i.email, i.emailVerified]), [["uma@example.com", false]]);
      // …so the address's real owner can still link it later with a verified email
      await db.prisma.user.create({ data: { username: "uma-real", email: "uma2@example.com", emailVerified: true } });
      const linked = await resolveUpstreamAccount(db, profile("uma-other", { email: "uma2@example.com" }), options);
      assert.equal(linked.outcome, "linked");
    });

    test("a password-less account with an unverified email is not linked either", async () => {
      await db.prisma.user.create({ data: { username: "pia", email: "pia@example.com", emailVerified: false, passwordHash: null } });
      await assert.rejects(resolveUpstreamAccount(db, profile("pia-sub", { email: "pia@example.com" }), options), (err: unknown) => err instanceof RyeError && err.code === "CONFLICT");
      assert.equal(await db.prisma.identity.count({ where: { subject: "pia-sub" } }), 0);
    });

    test("email matching ignores case, and nothing else: LIKE wildcards match no one", async () => {
      const user = await db.prisma.user.create({ data: { username: "quinn", email: "Quinn@Example.com", emailVerified: true } });
      const result = await resolveUpstreamAccount(db, profile("quinn-sub", { email: "quinn@example.com" }), options);
      assert.deepEqual(result, { userId: user.id, outcome: "linked" });
      const victim = await db.prisma.user.create({ data: { username: "axb", email: "axb@example.com", emailVerified: true } });
      for (const email of ["a_b@example.com", "a%@example.com"]) {
        const other = await resolveUpstreamAccount(db, profile(`wild-${email}`, { email, usernameHints: ["wild"] }), options);
        assert.equal(other.outcome, "created", email);
        assert.notEqual(other.userId, victim.id, email);
      }
    });

    test("concurrent first sign-ins of one person make one account", async () => {
      const results = await Promise.all([1, 2, 3].map(() => resolveUpstreamAccount(db, profile("racer"), options)));
      assert.equal(new Set(results.map((r) => r.userId)).size, 1);
      assert.equal(results.filter((r) => r.outcome === "created").length, 1);
      assert.equal(await db.prisma.identity.count({ where: { subject: "racer" } }), 1);
      assert.equal(await db.prisma.auditEvent.count({ where: { action: "auth.upstream.user_created", targetId: results[0]!.userId } }), 1);
    });
  });
}
