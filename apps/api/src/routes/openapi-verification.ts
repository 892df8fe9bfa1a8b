/** OpenAPI description of namespace verification (routes/verifications.ts, docs/namespace-verification.md). */
import { z } from "zod";
import { startVerificationRequestSchema, transferVerificationRequestSchema, verificationListSchema, verificationSchema, verifiedBadgeListSchema } from "@rye/core";
import type { Operation } from "../contract/operation.ts";

export const VERIFICATION_SCHEMAS = {
  Verification: verificationSchema,
  VerificationList: verificationListSchema,
  VerifiedBadges: verifiedBadgeListSchema,
  StartVerificationRequest: startVerificationRequestSchema,
  TransferVerificationRequest: transferVerificationRequestSchema,
  RemovedVerification: z.object({ removed: z.literal(true) }),
};

const claims = "/v1/orgs/{name}/verifications";
const NOT_YOURS: [number, string] = [403, "FORBIDDEN: not an owner or admin of the organization, or a token without org:admin"];
const NOT_FOUND: [number, string] = [404, "NOT_FOUND: no such organization or claim"];

export const VERIFICATION_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: claims,
    operationId: "startVerification",
    summary: "Claim a DNS domain or GitHub organization for the organization: the answer says how to prove it (owners and admins)",
    tag: "orgs",
    auth: "caller+csrf",
    scopes: ["org:admin"],
    body: "StartVerificationRequest",
    ok: { status: 201, description: "A new claim (200: the pending or verified claim that already existed, or a renewed challenge)", schema: "Verification" },
    errors: [[400, "BAD_REQUEST; INVALID_DOMAIN; VALIDATION_FAILED: not a GitHub organization name"], NOT_YOURS, NOT_FOUND, [409, "LIMIT_EXCEEDED: 20 claims"], 413],
  },
  { method: "get", path: claims, operationId: "listVerifications", summary: "The organization's claims (members; challenge values for owners and admins)", tag: "orgs", auth: "caller", ok: { status: 200, description: "Claims, oldest first", schema: "VerificationList" }, errors: [[403, "FORBIDDEN: not a member"], NOT_FOUND] },
  {
    method: "post",
    path: `${claims}/{id}/check`,
    operationId: "checkVerification",
    summary: "Look the DNS challenge up now: verifies a pending claim, re-verifies a verified one (which lapses when the record is gone)",
    tag: "orgs",
    auth: "caller+csrf",
    scopes: ["org:admin"],
    ok: { status: 200, description: "Verified", schema: "Verification" },
    errors: [
      [400, "BAD_REQUEST: a GitHub claim (proven by signing in)"],
      NOT_YOURS,
      NOT_FOUND,
      [409, "VERIFICATION_RECORD_MISSING: no TXT record at _rye.<domain> (yet); VERIFICATION_RECORD_MISMATCH: records without this challenge"],
      [410, "VERIFICATION_EXPIRED: the challenge expired; start again"],
      [503, "VERIFICATION_DNS_UNAVAILABLE: the resolver did not answer"],
    ],
  },
  { method: "delete", path: `${claims}/{id}`, operationId: "removeVerification", summary: "Drop a claim (a verified name loses its badge)", tag: "orgs", auth: "caller+csrf", scopes: ["org:admin"], ok: { status: 200, description: "Removed", schema: "RemovedVerification" }, errors: [NOT_YOURS, NOT_FOUND] },
  {
    method: "post",
    path: `${claims}/{id}/transfer`,
    operationId: "transferVerification",
    summary: "Hand a verified name to another organization (owner here, owner or admin there)",
    tag: "orgs",
    auth: "caller+csrf",
    scopes: ["org:admin"],
    body: "TransferVerificationRequest",
    ok: { status: 200, description: "Transferred", schema: "Verification" },
    errors: [400, [403, "FORBIDDEN: not an owner here, or not an owner or admin of the receiving organization"], NOT_FOUND, [409, "CONFLICT: the claim is not verified"], 413],
  },
  {
    method: "get",
    path: `${claims}/{id}/github`,
    operationId: "startGithubVerification",
    summary: "Prove a GitHub organization claim: to GitHub to sign in (scope read:org) as one of its owners (a browser with the registry session)",
    tag: "orgs",
    auth: "caller",
    scopes: ["org:admin"],
    ok: { status: 302, description: "To GitHub's authorization endpoint; sets the sealed flow cookie (Cache-Control: no-store)", headers: { Location: { required: true, schema: { type: "string", format: "uri" } } } },
    errors: [[400, "BAD_REQUEST: a domain claim"], NOT_YOURS, NOT_FOUND, [410, "VERIFICATION_EXPIRED"], [503, "UNAVAILABLE: no GitHub provider configured"]],
  },
  {
    method: "get",
    path: "/v1/verifications/github/callback",
    operationId: "finishGithubVerification",
    summary: "GitHub's redirect back: the signed-in GitHub account's membership is checked (active admin proves it)",
    tag: "orgs",
    auth: "caller",
    query: z.object({ code: z.string().optional(), state: z.string().optional(), error: z.string().optional() }),
    ok: { status: 302, description: "To the organization's verification settings page with ?github=verified or ?github=<error code> (VERIFICATION_NOT_MEMBER, UNAVAILABLE)", headers: { Location: { required: true, schema: { type: "string", format: "uri-reference" } } } },
    errors: [[400, "No flow cookie from this browser, expired, or state mismatch"], [403, "FORBIDDEN: started by another registry account, or no longer an owner or admin"], 404, [410, "VERIFICATION_EXPIRED"]],
  },
  { method: "get", path: "/v1/namespaces/{name}/verified", operationId: "getVerifiedNames", summary: "A namespace's verified domains and GitHub organizations (public)", tag: "orgs", auth: "none", ok: { status: 200, description: "Verified names", schema: "VerifiedBadges" }, errors: [404] },
];
