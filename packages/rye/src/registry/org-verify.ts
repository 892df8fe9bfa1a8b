/** An organization's namespace verification claims through the registry API (docs/namespace-verification.md). */
import { RyeError, normalizeDomain, normalizeGithubOrg, type Verification, type VerificationKind } from "@rye/core";
import { registryFetch } from "./http.ts";
import { answer, type PublishContext, registryFor, requireToken } from "./publish.ts";

const ORG_RE = /^[a-z0-9][a-z0-9-]{0,63}$/i;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface OrgVerifyTarget {
  org: string;
  registryUrl?: string | undefined;
}

function checkOrg(org: string): string {
  if (!ORG_RE.test(org)) throw new RyeError("BAD_REQUEST", `Not an organization name: ${JSON.stringify(org.slice(0, 64))}`);
  return org.toLowerCase();
}

async function call<T>(target: OrgVerifyTarget, path: string, request: { method?: string; json?: unknown }, ctx: PublishContext): Promise<T> {
  const org = checkOrg(target.org);
  const registryUrl = await registryFor(org, target.registryUrl, ctx);
  const token = await requireToken(registryUrl, ctx.env);
  const res = await registryFetch(registryUrl, `/v1/orgs/${encodeURIComponent(org)}/verifications${path}`, {
    token,
    env: ctx.env,
    ...(request.method ? { method: request.method } : {}),
    ...(request.json !== undefined ? { json: request.json } : {}),
  });
  return answer<T>(res, registryUrl);
}

/** `acme.com` → dns, `github.com/acme` or `--github acme` → github. */
export function parseSubject(subject: string, github: boolean): { kind: VerificationKind; subject: string } {
  const gh = /^(?:https?:\/\/)?github\.com\/([^/]+)\/?$/i.exec(subject.trim());
  if (github || gh) {
    const login = normalizeGithubOrg(gh?.[1] ?? subject);
    if ("problem" in login) throw new RyeError("VALIDATION_FAILED", `Not a GitHub organization: ${JSON.stringify(subject.slice(0, 80))}`, { hint: login.problem });
    return { kind: "github", subject: login.login };
  }
  const domain = normalizeDomain(subject);
  if ("problem" in domain) throw new RyeError("INVALID_DOMAIN", `Not a domain: ${JSON.stringify(subject.slice(0, 80))}: ${domain.problem}`);
  return { kind: "dns", subject: domain.domain };
}

export function startVerification(target: OrgVerifyTarget, claim: { kind: VerificationKind; subject: string }, ctx: PublishContext): Promise<Verification> {
  return call<Verification>(target, "", { method: "POST", json: claim }, ctx);
}

export async function listVerifications(target: OrgVerifyTarget, ctx: PublishContext): Promise<Verification[]> {
  return (await call<{ verifications: Verification[] }>(target, "", {}, ctx)).verifications;
}

/** A claim by id, or by its subject (`acme.com`, `github.com/acme`). */
export async function findClaim(target: OrgVerifyTarget, idOrSubject: string, ctx: PublishContext): Promise<Verification> {
  const claims = await listVerifications(target, ctx);
  const wanted = UUID_RE.test(idOrSubject) ? null : parseSubject(idOrSubject, false);
  const found = claims.find((c) => (wanted ? c.kind === wanted.kind && c.subject === wanted.subject : c.id === idOrSubject.toLowerCase()));
  if (!found) throw new RyeError("NOT_FOUND", `${target.org} has no verification claim for ${idOrSubject}`, { hint: `Start one: rye org verify start ${target.org} ${idOrSubject}` });
  return found;
}

export async function checkVerification(target: OrgVerifyTarget, idOrSubject: string, ctx: PublishContext): Promise<Verification> {
  const claim = await findClaim(target, idOrSubject, ctx);
  return call<Verification>(target, `/${claim.id}/check`, { method: "POST" }, ctx);
}

export async function removeVerification(target: OrgVerifyTarget, idOrSubject: string, ctx: PublishContext): Promise<Verification> {
  const claim = await findClaim(target, idOrSubject, ctx);
  await call<{ removed: true }>(target, `/${claim.id}`, { method: "DELETE" }, ctx);
  return claim;
}

export async function transferVerification(target: OrgVerifyTarget, idOrSubject: string, toOrg: string, ctx: PublishContext): Promise<Verification> {
  const claim = await findClaim(target, idOrSubject, ctx);
  return call<Verification>(target, `/${claim.id}/transfer`, { method: "POST", json: { to_org: checkOrg(toOrg) } }, ctx);
}
