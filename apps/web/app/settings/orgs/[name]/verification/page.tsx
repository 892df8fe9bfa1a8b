/**
 * /settings/orgs/{name}/verification: the organization's verified domains and GitHub organizations — start a claim,
 * read the DNS record to add, check it, remove it (docs/namespace-verification.md). Members see the claims;
 * owners and admins see the challenge values and act.
 */
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { type Verification, verificationListSchema } from "@rye/core";
import { ProblemBox, SuccessBox } from "@/components/auth/form-bits";
import { Time } from "@/components/settings/time";
import type { OrgDetails } from "@/components/settings/types";
import { badge, card, code, help, link } from "@/components/settings/ui";
import { StartVerificationForm, VerificationActions } from "@/components/verification/verification-forms";
import { VerifiedBadges } from "@/components/verification/verified-badges";
import { apiOrNull } from "@/lib/api";
import { apiParsed } from "@/lib/contracts";
import { requireSession } from "@/lib/session";

type Params = { params: Promise<{ name: string }> };

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const title = `Verification · ${decoded((await params).name)}`;
  return { title, robots: { index: false } };
}

export const dynamic = "force-dynamic";

const STATUS_TEXT: Record<Verification["status"], string> = { pending: "waiting for proof", verified: "verified", lapsed: "lapsed" };

function Instructions({ v }: { v: Verification }) {
  const i = v.instructions;
  if (!i) return null;
  if (i.record_name) {
    return (
      <div className="space-y-1 text-sm">
        <p>Add this record at your DNS provider, then check:</p>
        <dl className="grid grid-cols-[5rem_minmax(0,1fr)] gap-x-2 gap-y-1">
          <dt className={help}>Name</dt>
          <dd>
            <code className={`${code} break-all`} aria-label="Record name">
              {i.record_name}
            </code>
          </dd>
          <dt className={help}>Type</dt>
          <dd>
            <code className={code}>TXT</code>
          </dd>
          <dt className={help}>Value</dt>
          <dd>
            <code className={`${code} break-all`} aria-label="Record value">
              {i.record_value}
            </code>
          </dd>
        </dl>
        <p className={help}>
          DNS changes can take a while to propagate. The challenge can be proven until <Time iso={v.challenge_expires_at} />.
        </p>
      </div>
    );
  }
  return (
    <p className="text-sm">
      <a href={i.authorize_path} className={link}>
        Sign in at GitHub
      </a>{" "}
      as an owner of {v.subject} to {v.status === "verified" ? "prove it again" : "prove it"}.
    </p>
  );
}

/** Where GitHub's redirect back lands: `?github=verified|<error code>&subject=<login>` (routes/verifications.ts). */
function GithubOutcome({ outcome, subject }: { outcome: string | undefined; subject: string | undefined }) {
  if (!outcome) return null;
  const who = subject ? `github.com/${subject}` : "the GitHub organization";
  if (outcome === "verified") return <SuccessBox>Verified: {who} now stands behind this namespace.</SuccessBox>;
  const message =
    outcome === "VERIFICATION_NOT_MEMBER" ? `The GitHub account you signed in with is not an owner of ${who}.` : `GitHub could not be asked about ${who} right now (${outcome}); try again shortly.`;
  return <ProblemBox problem={{ message, hint: outcome === "VERIFICATION_NOT_MEMBER" ? "Sign in at GitHub as an owner of the organization (and grant this app access to it if GitHub asks)." : undefined }} />;
}

export default async function OrgVerificationPage({ params, searchParams }: Params & { searchParams: Promise<{ github?: string; subject?: string }> }) {
  const name = decoded((await params).name);
  const { github, subject } = await searchParams;
  await requireSession(`/settings/orgs/${encodeURIComponent(name)}/verification`);
  const org = await apiOrNull<OrgDetails>(`/v1/orgs/${encodeURIComponent(name)}`, { session: true });
  if (!org || !org.role) notFound();
  const manager = org.role === "owner" || org.role === "admin";
  const { verifications } = await apiParsed(verificationListSchema, `/v1/orgs/${encodeURIComponent(org.name)}/verifications`, { session: true });

  return (
    <div className="space-y-8">
      <div className="space-y-2">
        <p className="text-sm">
          <Link href={`/settings/orgs/${encodeURIComponent(org.name)}`} className={link}>
            {org.display_name || org.name}
          </Link>
        </p>
        <h1 className="text-2xl font-semibold tracking-tight">Verified names</h1>
        <p className={help}>
          Prove that {org.name} controls a DNS domain or a GitHub organization: its namespace and items then show a verified badge. The namespace keeps its name; the badge says
          which domain or GitHub organization stands behind it.
        </p>
        <VerifiedBadges namespace={org.name} />
      </div>
      <div aria-live="polite">
        <GithubOutcome outcome={github?.slice(0, 64)} subject={subject?.slice(0, 39)} />
      </div>

      {manager ? (
        <section aria-labelledby="start-heading" className={`${card} space-y-3`}>
          <h2 id="start-heading" className="text-lg font-semibold">
            Verify a name
          </h2>
          <StartVerificationForm org={org.name} />
        </section>
      ) : (
        <p className={help}>Owners and admins of {org.name} start and check verifications.</p>
      )}

      <section aria-labelledby="claims-heading" className="space-y-3">
        <h2 id="claims-heading" className="text-lg font-semibold">
          Claims ({verifications.length})
        </h2>
        {verifications.length === 0 ? (
          <p className={help}>No claims yet.</p>
        ) : (
          <ul className="space-y-3" aria-label="Verification claims">
            {verifications.map((v) => (
              <li key={v.id} className={`${card} space-y-3`}>
                <p className="flex flex-wrap items-center gap-2">
                  <strong className="font-mono">{v.label}</strong>
                  <span className={badge}>{STATUS_TEXT[v.status]}</span>
                  {v.verified_at && v.status === "verified" ? (
                    <span className={help}>
                      since <Time iso={v.verified_at} />
                    </span>
                  ) : null}
                  {v.last_error ? <span className={help}>last check: {v.last_error}</span> : null}
                </p>
                <Instructions v={v} />
                {manager ? <VerificationActions org={org.name} id={v.id} label={v.label} kind={v.kind} status={v.status} /> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
