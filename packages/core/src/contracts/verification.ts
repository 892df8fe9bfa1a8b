/**
 * Namespace verification (docs/namespace-verification.md): an organization proves it controls a DNS domain (a TXT
 * record at `_rye.<domain>`) or a GitHub organization (an owner's OAuth sign-in), and its namespace shows the
 * verified names. Request and response contracts, and the domain rules shared by the API, the CLI and the website.
 */
import { z } from "zod";
import { isoTimestampSchema } from "./common.ts";

export const VERIFICATION_KINDS = ["dns", "github"] as const;
export const verificationKindSchema = z.enum(VERIFICATION_KINDS);
export type VerificationKind = z.infer<typeof verificationKindSchema>;

export const verificationStatusSchema = z.enum(["pending", "verified", "lapsed"]);
export type VerificationStatus = z.infer<typeof verificationStatusSchema>;

/** The DNS name under which the challenge TXT record lives. */
export const DNS_CHALLENGE_LABEL = "_rye";
/** The TXT record's value is this prefix followed by the challenge. */
export const DNS_CHALLENGE_PREFIX = "rye-verification=";

export const DOMAIN_MAX_LENGTH = 253;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** GitHub logins: 1–39 letters, digits and single inner hyphens (GitHub's own rule). */
const GITHUB_LOGIN = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,38}$/;

/**
 * A domain as typed (any case, one optional trailing dot) normalized to lowercase ASCII, or the reason it is not a
 * name the registry verifies: at least two labels, no IP addresses, no wildcards, no internationalized form
 * (give its punycode `xn--…`), at most 253 characters.
 */
export function normalizeDomain(input: string): { domain: string } | { problem: string } {
  const domain = input.trim().toLowerCase().replace(/\.$/, "");
  if (domain.length === 0 || domain.length > DOMAIN_MAX_LENGTH) return { problem: `a domain has 1 to ${DOMAIN_MAX_LENGTH} characters` };
  const labels = domain.split(".");
  if (labels.length < 2) return { problem: "a domain has at least two labels, e.g. acme.com" };
  if (!labels.every((l) => LABEL.test(l))) return { problem: "labels use ASCII letters, digits and inner hyphens, 1 to 63 characters (punycode for internationalized names)" };
  if (/^[0-9]+$/.test(labels.at(-1)!)) return { problem: "IP addresses are not domains" };
  return { domain };
}

/** A GitHub organization login normalized to lowercase, or why it cannot be one. */
export function normalizeGithubOrg(input: string): { login: string } | { problem: string } {
  const login = input.trim().toLowerCase();
  return GITHUB_LOGIN.test(login) ? { login } : { problem: "GitHub organization names have 1 to 39 letters, digits and single inner hyphens" };
}

/** How a verified subject is shown: `acme.com`, `github.com/acme`. */
export function verifiedLabel(kind: VerificationKind, subject: string): string {
  return kind === "dns" ? subject : `github.com/${subject}`;
}

export const startVerificationRequestSchema = z.strictObject({
  kind: verificationKindSchema,
  subject: z.string().min(1).max(DOMAIN_MAX_LENGTH + 47).meta({ description: "A domain (dns) or a GitHub organization login (github)." }),
});
export type StartVerificationRequest = z.infer<typeof startVerificationRequestSchema>;

export const transferVerificationRequestSchema = z.strictObject({
  to_org: z.string().min(1).max(100).meta({ description: "The organization that receives the verified name; the caller must be its owner or admin." }),
});

export const verificationSchema = z.object({
  id: z.string(),
  org: z.string(),
  kind: verificationKindSchema,
  subject: z.string(),
  label: z.string().meta({ description: "How the verified name is shown: acme.com or github.com/acme." }),
  status: verificationStatusSchema,
  challenge_expires_at: isoTimestampSchema,
  verified_at: isoTimestampSchema.nullable(),
  last_checked_at: isoTimestampSchema.nullable(),
  last_error: z.string().nullable().meta({ description: "The error code of the last failed check; null after a success." }),
  created_at: isoTimestampSchema,
  instructions: z
    .object({
      record_name: z.string().optional(),
      record_type: z.literal("TXT").optional(),
      record_value: z.string().optional(),
      authorize_path: z.string().optional().meta({ description: "github: open this registry path in a browser, signed in, to prove the membership." }),
    })
    .nullable()
    .meta({ description: "What to do to prove it; for the organization's owners and admins only, null once verified." }),
}).meta({ id: "Verification" });
export type Verification = z.infer<typeof verificationSchema>;

export const verificationListSchema = z.object({ verifications: z.array(verificationSchema) });

/** A verified name as shown on namespace and item pages: public. */
export const verifiedBadgeSchema = z.object({
  kind: verificationKindSchema,
  subject: z.string(),
  label: z.string(),
  verified_at: isoTimestampSchema,
});
export type VerifiedBadge = z.infer<typeof verifiedBadgeSchema>;
export const verifiedBadgeListSchema = z.object({ namespace: z.string(), verified: z.array(verifiedBadgeSchema) });
