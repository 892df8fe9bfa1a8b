/**
 * Namespace verification and token revocation, on the embedded PGlite (or PostgreSQL when DATABASE_URL is set):
 * - DNS verification latency: POST /v1/orgs/{org}/verifications/{id}/check against a local DNS server (dns2 over
 *   UDP on loopback), against GET /v1/orgs/{org}/verifications (the same caller and claim rows, no DNS) in the
 *   same run; and the bare TXT look-up through the registry's resolver;
 * - token check overhead of the revocation list: authenticating a JWT access token with BENCH_REVOKED revoked
 *   tokens on the list (user and jti in one query), against the user-only look-up made before the list existed.
 * Run: node --import tsx apps/api/bench/verification.bench.ts   (BENCH_CHECKS, BENCH_AUTHS, BENCH_REVOKED scale it)
 */
import "@rye/core/node";
import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { loadConfig } from "../src/config.ts";
import { AccessTokenRevocations } from "../src/auth/access-token-revocations.ts";
import { ApiTokenAuthenticator } from "../src/auth/api-tokens.ts";
import { CompositeAuthenticator } from "../src/auth/composite-authenticator.ts";
import { createTxtResolver } from "../src/services/verification/dns-resolver.ts";
import { createTestRegistry } from "../test/harness.ts";
import { startLocalDnsServer } from "../test/fixtures/dns-server.ts";

const CHECKS = Number(process.env.BENCH_CHECKS ?? 200);
const AUTHS = Number(process.env.BENCH_AUTHS ?? 2000);
const REVOKED = Number(process.env.BENCH_REVOKED ?? 10_000);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dns = await startLocalDnsServer();
const base = loadConfig({});
const reg = await createTestRegistry({ config: { rateLimit: { windowSeconds: 60, reads: 1_000_000, writes: 1_000_000 }, verification: { ...base.verification, dnsServers: [dns.address], dnsTimeoutMs: 2000 } } });
const owner = await reg.createUser("bench");
await reg.createOrg("acme", [{ user: owner, role: "owner" }]);
const token = await reg.token(owner, { scopes: ["items:read", "items:write", "org:admin"] });

const started = await reg.request("POST", "/v1/orgs/acme/verifications", { token, json: { kind: "dns", subject: "acme.com" } });
const claim = (await started.json()) as { id: string; instructions: { record_value: string } };
dns.txt.set("_rye.acme.com", [["v=spf1 -all"], [claim.instructions.record_value]]);

async function timed(n: number, run: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await run();
    out.push(performance.now() - t0);
  }
  return out;
}
const ok = async (res: Response) => {
  if (res.status !== 200) throw new Error(`${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
};
const resolver = createTxtResolver({ servers: [dns.address], timeoutMs: 2000 });
// Warm-up, then interleaved rounds so both sides see the same machine load.
await timed(20, async () => ok(await reg.request("POST", `/v1/orgs/acme/verifications/${claim.id}/check`, { token })));
const check: number[] = [];
const list: number[] = [];
const lookup: number[] = [];
for (let round = 0; round < 4; round++) {
  check.push(...(await timed(CHECKS / 4, async () => ok(await reg.request("POST", `/v1/orgs/acme/verifications/${claim.id}/check`, { token })))));
  list.push(...(await timed(CHECKS / 4, async () => ok(await reg.request("GET", "/v1/orgs/acme/verifications", { token })))));
  lookup.push(...(await timed(CHECKS / 4, async () => void (await resolver.resolveTxt("_rye.acme.com")))));
}

// The revocation list: REVOKED rows of live tokens, then authenticate one valid JWT repeatedly.
for (let i = 0; i < REVOKED; i += 1000) {
  await reg.db.prisma.revokedAccessToken.createMany({ data: Array.from({ length: Math.min(1000, REVOKED - i) }, () => ({ jti: randomUUID(), userId: owner.id, expiresAt: new Date(Date.now() + 900_000) })) });
}
const jwt = (await reg.deps.accessTokens.issueAccessToken({ sub: owner.id, username: "bench", scope: ["items:read"], clientId: "rye-cli" })).token;
const apiTokens = new ApiTokenAuthenticator(reg.db);
const withList = new CompositeAuthenticator({ db: reg.db, apiTokens, accessTokens: reg.deps.accessTokens, revocations: new AccessTokenRevocations(reg.db) });
// The look-up the authenticator made before the revocation list existed: the user alone.
const userOnly = {
  async subjectOf(userId: string) {
    const user = await reg.db.prisma.user.findUnique({ where: { id: userId }, select: { username: true, isAdmin: true, disabledAt: true } });
    return user ? { username: user.username, isAdmin: user.isAdmin, disabled: user.disabledAt !== null, revoked: false } : null;
  },
} as unknown as AccessTokenRevocations;
const withoutList = new CompositeAuthenticator({ db: reg.db, apiTokens, accessTokens: reg.deps.accessTokens, revocations: userOnly });
const rate = async (auth: CompositeAuthenticator) => {
  const t0 = performance.now();
  for (let i = 0; i < AUTHS / 4; i++) if (!(await auth.authenticate(jwt))) throw new Error("not authenticated");
  return AUTHS / 4 / ((performance.now() - t0) / 1000);
};
await rate(withList);
await rate(withoutList);
const withRates: number[] = [];
const withoutRates: number[] = [];
for (let round = 0; round < 4; round++) {
  withoutRates.push(await rate(withoutList));
  withRates.push(await rate(withList));
}
await reg.close();
await dns.close();

const f = (ms: number) => `${ms.toFixed(2)} ms`;
const w = median(withRates);
const wo = median(withoutRates);
console.log(`namespace verification and token revocation (${reg.db.kind}; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")})`);
console.log(`  DNS check:   POST …/check ${f(median(check))} median (local DNS server); GET …/verifications ${f(median(list))} → check ÷ list ×${(median(check) / median(list)).toFixed(2)}; bare TXT look-up ${f(median(lookup))}`);
console.log(`  token check: ${Math.round(w)} JWT authentications/s with ${REVOKED} revoked tokens listed; ${Math.round(wo)}/s without the list → with ÷ without ×${(w / wo).toFixed(2)} (overhead ${((wo / w - 1) * 100).toFixed(1)}% per authentication)`);
