/** `rye org verify …` against a real registry over HTTP whose resolver asks a real local DNS server. */
import "@rye/core/node";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { hashToken, TOKEN_PREFIX } from "../../../../../apps/api/src/auth/api-tokens.ts";
import { type LocalDnsServer, startLocalDnsServer } from "../../../../../apps/api/test/fixtures/dns-server.ts";
import { startTestRegistry, type TestRegistry } from "../../../test/registry-server.ts";
import { registerOrg } from "./org.ts";
import { runCommands } from "../test-fixtures.ts";

let dns: LocalDnsServer;
let registry: TestRegistry;
const tokens: Record<string, string> = {};

async function user(username: string): Promise<{ id: string; token: string }> {
  const prisma = registry.db.prisma;
  const row = await prisma.user.create({ data: { username, email: `${username}@example.test` } });
  await prisma.namespace.create({ data: { name: username, userId: row.id } });
  const secret = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
  await prisma.apiToken.create({ data: { userId: row.id, name: "test", tokenHash: hashToken(secret), scopes: ["items:read", "items:write", "org:admin"] } });
  return { id: row.id, token: secret };
}

async function org(name: string, members: [string, "owner" | "admin" | "member"][]): Promise<void> {
  const prisma = registry.db.prisma;
  const row = await prisma.organization.create({ data: { name } });
  await prisma.namespace.create({ data: { name, orgId: row.id } });
  for (const [username, role] of members) {
    const u = await prisma.user.findUniqueOrThrow({ where: { username } });
    await prisma.membership.create({ data: { orgId: row.id, userId: u.id, role } });
  }
}

before(async () => {
  dns = await startLocalDnsServer();
  registry = await startTestRegistry({ env: { RYE_DNS_RESOLVER: dns.address, RYE_DNS_TIMEOUT_MS: "500" } });
  tokens.olivia = (await user("olivia")).token;
  tokens.mona = (await user("mona")).token;
  await org("acme", [["olivia", "owner"], ["mona", "member"]]);
  await org("acme-labs", [["olivia", "owner"]]);
});
after(async () => {
  await registry.close();
  await dns.close();
});

async function rye(args: string[], as = tokens.olivia!) {
  const root = await mkdtemp(join(tmpdir(), "rye-cli-org-"));
  const cwd = join(root, "project");
  await mkdir(cwd, { recursive: true });
  return runCommands(registerOrg, args, { USER_SPACE: join(root, "home"), RYE_REGISTRY_URL: registry.url, RYE_TOKEN: as }, cwd);
}

test("start prints the TXT record; check fails precisely until it is published, then verifies; status, transfer, remove", async () => {
  let r = await rye(["org", "verify", "start", "acme", "Acme.com"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /acme\.com for acme: pending\./);
  assert.match(r.stdout, /name: {2}_rye\.acme\.com/);
  const value = /value: (rye-verification=\S+)/.exec(r.stdout)?.[1];
  assert.ok(value, r.stdout);

  r = await rye(["org", "verify", "check", "acme", "acme.com"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /error\[VERIFICATION_RECORD_MISSING\]: There is no TXT record at _rye\.acme\.com/);
  assert.match(r.stderr, /hint: .*propagated/);

  dns.txt.set("_rye.acme.com", [["rye-verification=typo"]]);
  r = await rye(["org", "verify", "check", "acme", "acme.com"]);
  assert.match(r.stderr, /error\[VERIFICATION_RECORD_MISMATCH\]/);

  dns.txt.set("_rye.acme.com", [[value]]);
  r = await rye(["org", "verify", "check", "acme", "acme.com"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Verified: acme\.com belongs to acme\./);

  r = await rye(["org", "verify", "status", "acme", "--json"]);
  assert.deepEqual(JSON.parse(r.stdout).verifications.map((v: { subject: string; status: string }) => [v.subject, v.status]), [["acme.com", "verified"]]);

  r = await rye(["org", "verify", "transfer", "acme", "acme.com", "--to", "acme-labs"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /acme\.com now belongs to acme-labs\./);
  const badges = (await (await fetch(`${registry.url}/v1/namespaces/acme-labs/verified`)).json()) as { verified: { label: string }[] };
  assert.deepEqual(badges.verified.map((b) => b.label), ["acme.com"]);

  r = await rye(["org", "verify", "remove", "acme-labs", "acme.com"]);
  assert.equal(r.code, 0, r.stderr);
  r = await rye(["org", "verify", "status", "acme-labs"]);
  assert.match(r.stdout, /no verification claims/);
});

test("members cannot start claims; bad subjects are refused before any request", async () => {
  let r = await rye(["org", "verify", "start", "acme", "acme.org"], tokens.mona);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /error\[FORBIDDEN\]/);
  r = await rye(["org", "verify", "start", "acme", "not a domain"]);
  assert.match(r.stderr, /error\[INVALID_DOMAIN\]/);
  r = await rye(["org", "verify", "check", "acme", "never-claimed.com"]);
  assert.match(r.stderr, /error\[NOT_FOUND\][\s\S]*rye org verify start acme never-claimed\.com/);
});
