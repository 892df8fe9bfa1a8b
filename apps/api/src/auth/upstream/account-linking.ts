/**
 * Which rye account an upstream sign-in belongs to. In order:
 * 1. an Identity (provider, subject) exists → its user ("signed_in");
 * 2. a user has the same email → a new Identity is linked to it ("linked"), but ONLY when the provider
 *    says the email is verified AND the rye account's own email is verified. An account whose email is
 *    unverified is never linked, with or without a password: otherwise whoever typed someone else's
 *    address into a sign-up form (or an IdP that does not verify) would share the real owner's account
 *    later (pre-account-takeover). Any other email collision is refused (409), nothing is linked;
 * 3. else, when the provider allows sign-up, a new user (+ namespace) is created ("created"). Its email
 *    is set only when verified; an unverified one stays on the Identity, so it blocks no one's address.
 * Disabled users are refused. Every outcome writes an audit event in the same transaction.
 */
import { RyeError } from "@rye/core";
import { type Database, isUniqueViolation, type Prisma } from "@rye/db";
import { recordAudit } from "../../services/audit.ts";
import type { UpstreamProfile } from "./upstream-client.ts";
import { suggestUsername } from "./username-suggestion.ts";

export type LinkOutcome = "signed_in" | "linked" | "created";

export interface LinkOptions {
  providerName: string;
  allowSignup: boolean;
  ip: string | null;
  requestId: string | null;
}

export interface LinkResult {
  userId: string;
  outcome: LinkOutcome;
}

type Tx = Prisma.TransactionClient;


function refuseDisabled(user: { disabledAt: Date | null }): void {
  if (user.disabledAt) throw new RyeError("FORBIDDEN", "This account is disabled", { hint: "Ask a registry administrator to re-enable it." });
}

function auditOf(profile: UpstreamProfile, userId: string, action: string, options: LinkOptions, extra: Record<string, unknown> = {}) {
  return {
    actorId: userId,
    action,
    targetType: "user",
    targetId: userId,
    details: { provider: profile.provider, subject: profile.subject, email: profile.email, email_verified: profile.emailVerified, ...extra },
    ip: options.ip,
    requestId: options.requestId,
  };
}

async function signInExisting(tx: Tx, profile: UpstreamProfile, options: LinkOptions): Promise<LinkResult | null> {
  const identity = await tx.identity.findUnique({ where: { provider_subject: { provider: profile.provider, subject: profile.subject } }, include: { user: true } });
  if (!identity) return null;
  refuseDisabled(identity.user);
  await tx.identity.update({ where: { id: identity.id }, data: { email: profile.email, emailVerified: profile.emailVerified, lastLoginAt: new Date() } });
  await recordAudit(tx, auditOf(profile, identity.userId, "auth.upstream.sign_in", options));
  return { userId: identity.userId, outcome: "signed_in" };
}

async function linkByEmail(tx: Tx, profile: UpstreamProfile, options: LinkOptions): Promise<LinkResult | null> {
  if (!profile.email) return null;
  const email = profile.email;
  // Prisma's case-insensitive `equals` is ILIKE, where "_" and "%" are wildcards ("a_b@x" would find
  // "axb@x"): it only narrows the search, the exact comparison happens here.
  const matches = (await tx.user.findMany({ where: { email: { equals: email, mode: "insensitive" } } })).filter((u) => u.email?.toLowerCase() === email);
  if (matches.length === 0) return null;
  const [user] = matches;
  if (matches.length > 1 || !user) throw new RyeError("CONFLICT", "Several rye accounts use this email address", { hint: "Ask a registry administrator to resolve the duplicate.", details: { reason: "ambiguous_email" } });
  if (!profile.emailVerified || !user.emailVerified) {
    throw new RyeError("CONFLICT", `The email of this ${options.providerName} account belongs to an existing rye account, which is not linked automatically`, {
      hint: profile.emailVerified
        ? "Sign in to the existing account another way and verify its email address, then sign in with this provider again."
        : `Verify the email address at ${options.providerName}, or sign in to the existing account another way.`,
      details: { reason: profile.emailVerified ? "account_email_unverified" : "provider_email_unverified" },
    });
  }
  refuseDisabled(user);
  await tx.identity.create({ data: { userId: user.id, provider: profile.provider, subject: profile.subject, email: profile.email, emailVerified: true, lastLoginAt: new Date() } });
  await recordAudit(tx, auditOf(profile, user.id, "auth.upstream.identity_linked", options));
  return { userId: user.id, outcome: "linked" };
}

async function createAccount(tx: Tx, profile: UpstreamProfile, options: LinkOptions): Promise<LinkResult> {
  if (!options.allowSignup) {
    throw new RyeError("FORBIDDEN", `Sign-up through ${options.providerName} is closed on this registry`, { hint: "Ask a registry administrator to create your account first." });
  }
  const username = await suggestUsername(tx, profile.usernameHints);
  const verifiedEmail = profile.emailVerified ? profile.email : null;
  const user = await tx.user.create({ data: { username, email: verifiedEmail, emailVerified: verifiedEmail !== null, displayName: profile.displayName, passwordHash: null } });
  await tx.namespace.create({ data: { name: username, userId: user.id } });
  await tx.identity.create({ data: { userId: user.id, provider: profile.provider, subject: profile.subject, email: profile.email, emailVerified: profile.emailVerified, lastLoginAt: new Date() } });
  await recordAudit(tx, auditOf(profile, user.id, "auth.upstream.user_created", options, { username }));
  return { userId: user.id, outcome: "created" };
}

/** Finds, links or creates the account for a verified upstream profile (see the rules above). */
export async function resolveUpstreamAccount(db: Database, profile: UpstreamProfile, options: LinkOptions): Promise<LinkResult> {
  // A concurrent sign-in may create the same identity, email or username first: the retry then finds it.
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.prisma.$transaction(async (tx) => (await signInExisting(tx, profile, options)) ?? (await linkByEmail(tx, profile, options)) ?? (await createAccount(tx, profile, options)));
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= 3) throw err;
    }
  }
}
