/**
 * Namespace verification over real HTTP handling and a real local DNS server (dns2 on 127.0.0.1, queried by the
 * registry's resolver over UDP): happy path, precise errors, security (authz, another domain's record, another
 * claim's challenge, expiry), re-verification (on demand and periodic) and transfer.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { loadConfig } from "../config.ts";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";
import { type LocalDnsServer, startLocalDnsServer } from "../../test/fixtures/dns-server.ts";
import { silentLogger } from "../logger.ts";
import { createTxtResolver } from "../services/verification/dns-resolver.ts";
import { VerificationRechecker } from "../services/verification/rechecker.ts";

type Json = Record<string, any>;

let dns: LocalDnsServer;
let reg: TestRegistry;
let owner: TestUser;
const t: Record<string, string> = {};

async function call(method: string, path: string, token?: string, json?: unknown): Promise<{ status: number; body: Json }> {
  const res = await reg.request(method, path, { ...(token ? { token } : {}), ...(json !== undefined ? { json } : {}) });
  return { status: res.status, body: (await res.json()) as Json };
}
async function start(org: string, subject: string, token = t.owner): Promise<Json> {
  const res = await call("POST", `/v1/orgs/${org}/verifications`, token, { kind: "dns", subject });
  assert.ok(res.status === 201 || res.status === 200, JSON.stringify(res.body));
  return res.body;
}
const check = (org: string, id: string, token = t.owner) => call("POST", `/v1/orgs/${org}/verifications/${id}/check`, token);
const badges = async (ns: string) => (await call("GET", `/v1/namespaces/${ns}/verified`)).body.verified as Json[];
const publish = (name: string, record: Json) => dns.txt.set(record.instructions.record_name, [...(dns.txt.get(record.instructions.record_name) ?? []), [record.instructions.record_value]]);

before(async () => {
  dns = await startLocalDnsServer();
  const base = loadConfig({});
  reg = await createTestRegistry({ config: { verification: { ...base.verification, dnsServers: [dns.address], dnsTimeoutMs: 500 } } });
  owner = await reg.createUser("olivia");
  const admin = await reg.createUser("adam");
  const member = await reg.createUser("mona");
  const stranger = await reg.createUser("sam");
  await reg.createOrg("acme", [{ user: owner, role: "owner" }, { user: admin, role: "admin" }, { user: member, role: "member" }]);
  await reg.createOrg("rival", [{ user: stranger, role: "owner" }]);
  await reg.createOrg("acme-new", [{ user: owner, role: "owner" }]);
  const all = ["items:read", "items:write", "org:admin"];
  t.owner = await reg.token(owner, { scopes: all });
  t.ownerNoAdmin = await reg.token(owner, { scopes: ["items:read", "items:write"] });
  t.admin = await reg.token(admin, { scopes: all });
  t.member = await reg.token(member, { scopes: all });
  t.stranger = await reg.token(stranger, { scopes: all });
});
after(async () => {
  await reg.close();
  await dns.close();
});
beforeEach(async () => {
  await reg.db.prisma.namespaceVerification.deleteMany({});
  dns.txt.clear();
  dns.cname.clear();
  dns.failing.clear();
});

describe("happy path", () => {
  test("an owner starts a DNS claim, publishes the TXT record, checks, and the namespace shows the badge", async () => {
    const claim = await start("acme", "Acme.COM.");
    assert.equal(claim.subject, "acme.com");
    assert.equal(claim.status, "pending");
    assert.deepEqual(Object.keys(claim.instructions).sort(), ["record_name", "record_type", "record_value"]);
    assert.equal(claim.instructions.record_name, "_rye.acme.com");
    assert.match(claim.instructions.record_value, /^rye-verification=[A-Za-z0-9_-]{32}$/);
    assert.deepEqual(await badges("acme"), []);

    dns.txt.set("_rye.acme.com", [["v=spf1 -all"], [claim.instructions.record_value]]);
    const checked = await check("acme", claim.id);
    assert.equal(checked.status, 200, JSON.stringify(checked.body));
    assert.equal(checked.body.status, "verified");
    assert.equal(checked.body.instructions, null);
    assert.ok(dns.questions.includes("_rye.acme.com"), "the registry asked the local DNS server");

    const shown = await badges("acme");
    assert.deepEqual(shown.map((b) => [b.kind, b.subject, b.label]), [["dns", "acme.com", "acme.com"]]);
    assert.deepEqual(await badges("olivia"), [], "users have no verified names");
    assert.equal((await call("GET", "/v1/namespaces/nobody-here/verified")).status, 404);
  });

  test("a record split into several character strings and a CNAME to a provider's name both count", async () => {
    const claim = await start("acme", "acme.com");
    const value: string = claim.instructions.record_value;
    dns.cname.set("_rye.acme.com", "acme.verify.dns-provider.net");
    dns.txt.set("acme.verify.dns-provider.net", [[value.slice(0, 10), value.slice(10)]]);
    assert.equal((await check("acme", claim.id)).body.status, "verified");
  });

  test("starting again returns the pending claim unchanged; admins may start and check; members list without challenges", async () => {
    const first = await start("acme", "acme.com", t.admin);
    const again = await call("POST", "/v1/orgs/acme/verifications", t.owner, { kind: "dns", subject: "ACME.com" });
    assert.equal(again.status, 200);
    assert.equal(again.body.instructions.record_value, first.instructions.record_value);
    const listed = await call("GET", "/v1/orgs/acme/verifications", t.member);
    assert.equal(listed.status, 200);
    assert.equal(listed.body.verifications.length, 1);
    assert.equal(listed.body.verifications[0].instructions, null, "members do not see the challenge");
    assert.ok((await call("GET", "/v1/orgs/acme/verifications", t.admin)).body.verifications[0].instructions.record_value);
  });
});

describe("errors", () => {
  test("no record yet (not propagated): VERIFICATION_RECORD_MISSING, also when the name exists without TXT", async () => {
    const claim = await start("acme", "acme.com");
    const missing = await check("acme", claim.id);
    assert.equal(missing.status, 409);
    assert.equal(missing.body.error.code, "VERIFICATION_RECORD_MISSING");
    assert.match(missing.body.error.message, /_rye\.acme\.com/);
    assert.match(missing.body.error.hint, /propagated/);
    dns.txt.set("_rye.acme.com", []);
    assert.equal((await check("acme", claim.id)).body.error.code, "VERIFICATION_RECORD_MISSING");
    const listed = (await call("GET", "/v1/orgs/acme/verifications", t.owner)).body.verifications[0];
    assert.equal(listed.status, "pending");
    assert.equal(listed.last_error, "VERIFICATION_RECORD_MISSING");
  });

  test("a wrong value: VERIFICATION_RECORD_MISMATCH naming the expected and the found values", async () => {
    const claim = await start("acme", "acme.com");
    dns.txt.set("_rye.acme.com", [["rye-verification=an-old-value"]]);
    const res = await check("acme", claim.id);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, "VERIFICATION_RECORD_MISMATCH");
    assert.match(res.body.error.message, /another challenge value/);
    assert.equal(res.body.error.details.expected, claim.instructions.record_value);
    assert.deepEqual(res.body.error.details.found, ["rye-verification=an-old-value"]);
  });

  test("a resolver failure is VERIFICATION_DNS_UNAVAILABLE (503) and changes nothing", async () => {
    const claim = await start("acme", "acme.com");
    dns.failing.add("_rye.acme.com");
    const res = await check("acme", claim.id);
    assert.equal(res.status, 503);
    assert.equal(res.body.error.code, "VERIFICATION_DNS_UNAVAILABLE");
    assert.equal(res.body.error.details.dns_error, "ESERVFAIL");
  });

  test("invalid subjects are refused with INVALID_DOMAIN or VALIDATION_FAILED", async () => {
    for (const subject of ["localhost", "10.0.0.1", "*.acme.com", "acme..com", "-acme.com", "ácme.com", `${"a".repeat(64)}.com`, `${"a.".repeat(127)}com`]) {
      const res = await call("POST", "/v1/orgs/acme/verifications", t.owner, { kind: "dns", subject });
      assert.equal(res.status, 400, subject);
      assert.equal(res.body.error.code, "INVALID_DOMAIN", subject);
    }
    const gh = await call("POST", "/v1/orgs/acme/verifications", t.owner, { kind: "github", subject: "not/valid" });
    assert.equal(gh.body.error.code, "VALIDATION_FAILED");
    assert.equal((await call("POST", "/v1/orgs/acme/verifications", t.owner, { kind: "mx", subject: "acme.com" })).status, 400);
    assert.equal((await call("POST", "/v1/orgs/acme/verifications/not-a-uuid/check", t.owner)).status, 404);
  });

  test("a challenge expires: VERIFICATION_EXPIRED even with the right record; starting again issues a new value", async () => {
    const claim = await start("acme", "acme.com");
    publish("acme", claim);
    await reg.db.prisma.namespaceVerification.update({ where: { id: claim.id }, data: { challengeExpiresAt: new Date(Date.now() - 1000) } });
    const res = await check("acme", claim.id);
    assert.equal(res.status, 410);
    assert.equal(res.body.error.code, "VERIFICATION_EXPIRED");
    const renewed = await start("acme", "acme.com");
    assert.equal(renewed.id, claim.id);
    assert.notEqual(renewed.instructions.record_value, claim.instructions.record_value);
    assert.equal((await check("acme", claim.id)).body.error.code, "VERIFICATION_RECORD_MISMATCH", "the old value does not prove the new challenge");
  });

  test("at most MAX_VERIFICATIONS_PER_ORG claims per organization", async () => {
    const { MAX_VERIFICATIONS_PER_ORG } = await import("../services/verification/service.ts");
    for (let i = 0; i < MAX_VERIFICATIONS_PER_ORG; i++) await start("acme", `d${i}.acme.com`);
    const res = await call("POST", "/v1/orgs/acme/verifications", t.owner, { kind: "dns", subject: "one-more.acme.com" });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, "LIMIT_EXCEEDED");
  });
});

describe("security", () => {
  test("only owners and admins start, check, remove; anonymous callers and tokens without org:admin are refused", async () => {
    const claim = await start("acme", "acme.com");
    for (const [token, status] of [[t.member, 403], [t.stranger, 403], [t.ownerNoAdmin, 403], [undefined, 401]] as const) {
      assert.equal((await call("POST", "/v1/orgs/acme/verifications", token, { kind: "dns", subject: "x.acme.com" })).status, status);
      assert.equal((await call("POST", `/v1/orgs/acme/verifications/${claim.id}/check`, token)).status, status);
      assert.equal((await call("DELETE", `/v1/orgs/acme/verifications/${claim.id}`, token)).status, status);
    }
    assert.equal((await call("GET", "/v1/orgs/acme/verifications", t.stranger)).status, 403);
    assert.equal((await call("GET", "/v1/orgs/acme/verifications")).status, 401);
    // Another organization's claim id through one's own organization: not found.
    const rivals = await start("rival", "rival.com", t.stranger);
    assert.equal((await check("acme", rivals.id)).status, 404);
    assert.equal((await call("DELETE", `/v1/orgs/acme/verifications/${rivals.id}`, t.owner)).status, 404);
  });

  test("another domain's record cannot satisfy the challenge", async () => {
    const claim = await start("acme", "acme.com");
    // The right value at names the claimant controls, but not at _rye.acme.com.
    dns.txt.set("_rye.evil.com", [[claim.instructions.record_value]]);
    dns.txt.set("_rye.sub.acme.com", [[claim.instructions.record_value]]);
    dns.txt.set("acme.com", [[claim.instructions.record_value]]);
    dns.txt.set("_rye.acme.com.evil.com", [[claim.instructions.record_value]]);
    const res = await check("acme", claim.id);
    assert.equal(res.body.error.code, "VERIFICATION_RECORD_MISSING");
    assert.deepEqual(await badges("acme"), []);
  });

  test("another claim's challenge at the right name does not verify this claim", async () => {
    const attacker = await start("rival", "acme.com", t.stranger);
    const claim = await start("acme", "acme.com");
    assert.notEqual(attacker.instructions.record_value, claim.instructions.record_value);
    dns.txt.set("_rye.acme.com", [[claim.instructions.record_value]]);
    assert.equal((await check("rival", attacker.id, t.stranger)).body.error.code, "VERIFICATION_RECORD_MISMATCH");
    assert.equal((await check("acme", claim.id)).body.status, "verified");
    assert.deepEqual(await badges("rival"), []);
  });
});

describe("re-verification", () => {
  test("on demand: a removed record lapses the claim and the badge goes; the record back verifies it again", async () => {
    const claim = await start("acme", "acme.com");
    publish("acme", claim);
    assert.equal((await check("acme", claim.id)).body.status, "verified");
    dns.txt.delete("_rye.acme.com");
    const res = await check("acme", claim.id);
    assert.equal(res.body.error.code, "VERIFICATION_RECORD_MISSING");
    assert.match(res.body.error.message, /lapsed/);
    assert.deepEqual(await badges("acme"), []);
    publish("acme", claim);
    assert.equal((await check("acme", claim.id)).body.status, "verified");
    assert.equal((await badges("acme")).length, 1);
  });

  test("periodically: due claims are re-checked; a missing record lapses, a resolver failure does not", async () => {
    const a = await start("acme", "acme.com");
    const b = await start("acme", "acme.org");
    publish("acme", a);
    publish("acme", b);
    await check("acme", a.id);
    await check("acme", b.id);
    const rechecker = new VerificationRechecker({ db: reg.db, logger: silentLogger, intervalMs: 3600_000, resolver: createTxtResolver({ servers: [dns.address], timeoutMs: 500 }) });
    assert.deepEqual(await rechecker.runOnce(), { checked: 0, lapsed: 0 }, "nothing is due right after a check");
    dns.txt.delete("_rye.acme.com");
    dns.failing.add("_rye.acme.org");
    const later = new Date(Date.now() + 2 * 3600_000);
    assert.deepEqual(await rechecker.runOnce(later), { checked: 2, lapsed: 1 });
    assert.deepEqual((await badges("acme")).map((x) => x.subject), ["acme.org"]);
    const listed = (await call("GET", "/v1/orgs/acme/verifications", t.owner)).body.verifications as Json[];
    assert.deepEqual(listed.map((v) => [v.subject, v.status, v.last_error]), [["acme.com", "lapsed", "VERIFICATION_RECORD_MISSING"], ["acme.org", "verified", "VERIFICATION_DNS_UNAVAILABLE"]]);
  });
});

describe("transfer", () => {
  test("by proof: another organization that proves the domain takes it over; the former holder's claim lapses", async () => {
    const a = await start("acme", "acme.com");
    publish("acme", a);
    await check("acme", a.id);
    const r = await start("rival", "acme.com", t.stranger);
    dns.txt.set("_rye.acme.com", [[r.instructions.record_value]]);
    assert.equal((await check("rival", r.id, t.stranger)).body.status, "verified");
    assert.deepEqual((await badges("rival")).map((x) => x.subject), ["acme.com"]);
    assert.deepEqual(await badges("acme"), []);
    const former = (await call("GET", "/v1/orgs/acme/verifications", t.owner)).body.verifications[0];
    assert.deepEqual([former.status, former.last_error], ["lapsed", "VERIFICATION_TRANSFERRED"]);
    const audit = await reg.db.prisma.auditEvent.findMany({ where: { action: { startsWith: "verification." } }, orderBy: { createdAt: "asc" } });
    assert.ok(audit.some((e) => e.action === "verification.lost"));
  });

  test("explicitly: an owner hands a verified name to an organization they administer; re-checks keep passing there", async () => {
    const a = await start("acme", "acme.com");
    publish("acme", a);
    await check("acme", a.id);
    const moved = await call("POST", `/v1/orgs/acme/verifications/${a.id}/transfer`, t.owner, { to_org: "acme-new" });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.org, "acme-new");
    assert.deepEqual(await badges("acme"), []);
    assert.deepEqual((await badges("acme-new")).map((x) => x.subject), ["acme.com"]);
    assert.equal((await check("acme-new", a.id)).body.status, "verified", "the record in place still proves it");
  });

  test("transfer needs: owner of the source (not admin), owner or admin of the target, a verified claim", async () => {
    const a = await start("acme", "acme.com");
    const pending = await call("POST", `/v1/orgs/acme/verifications/${a.id}/transfer`, t.owner, { to_org: "acme-new" });
    assert.equal(pending.status, 409);
    publish("acme", a);
    await check("acme", a.id);
    assert.equal((await call("POST", `/v1/orgs/acme/verifications/${a.id}/transfer`, t.admin, { to_org: "acme-new" })).status, 403);
    assert.equal((await call("POST", `/v1/orgs/acme/verifications/${a.id}/transfer`, t.owner, { to_org: "rival" })).status, 403, "not an admin of the target");
    assert.equal((await call("POST", `/v1/orgs/acme/verifications/${a.id}/transfer`, t.stranger, { to_org: "rival" })).status, 403);
    assert.deepEqual((await badges("acme")).map((x) => x.subject), ["acme.com"]);
  });
});

describe("settings", () => {
  test("RYE_DNS_RESOLVER takes IP addresses with optional ports; anything else stops the registry at start", () => {
    assert.deepEqual(loadConfig({}).verification.dnsServers, []);
    assert.deepEqual(loadConfig({ RYE_DNS_RESOLVER: "10.0.0.2, 127.0.0.1:5353,[::1]:53" }).verification.dnsServers, ["10.0.0.2", "127.0.0.1:5353", "[::1]:53"]);
    for (const bad of ["dns.example.com", "10.0.0.2:port", "http://10.0.0.2"]) {
      assert.throws(() => loadConfig({ RYE_DNS_RESOLVER: bad }), /RYE_DNS_RESOLVER/, bad);
    }
    const v = loadConfig({ RYE_VERIFICATION_CHALLENGE_HOURS: "2", RYE_VERIFICATION_RECHECK_HOURS: "6", RYE_DNS_TIMEOUT_MS: "750" }).verification;
    assert.deepEqual([v.challengeTtlMs, v.recheckIntervalMs, v.dnsTimeoutMs], [2 * 3600_000, 6 * 3600_000, 750]);
  });
});
