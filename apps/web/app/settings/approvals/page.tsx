import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { ApprovalActions } from "@/components/settings/approval-actions";
import { SectionSkeleton } from "@/components/settings/skeleton";
import { Time } from "@/components/settings/time";
import { badge, card, code, help, link } from "@/components/settings/ui";
import { api } from "@/lib/api";
import { requireSession } from "@/lib/session";

export const metadata: Metadata = {
  title: "Approvals",
  description: "Versions held for approval in the namespaces you review.",
  openGraph: { title: "Approvals · rye registry" },
  robots: { index: false },
};

export const dynamic = "force-dynamic";

interface Finding {
  rule: string;
  /** The attack family (absent on reviews stored before families). */
  family?: string;
  risk: string;
  path: string;
  line: number;
  excerpt: string;
  message: string;
}

interface HeldVersion {
  item_type: string;
  item_id: string;
  namespace: string;
  version: string;
  status: "pending" | "rejected" | "published";
  held_reason: string | null;
  review: { risk?: string; findings?: Finding[]; truncated?: boolean } | null;
  publisher: string;
  created_at: string;
  visibility: string;
  can_approve: boolean;
  decided_by: string | null;
  decided_at: string | null;
  reason: string | null;
}

interface Approvals {
  mode: "off" | "flagged" | "all";
  risk: string;
  status: string;
  versions: HeldVersion[];
  truncated: boolean;
}

const encodeId = (id: string) => id.split("/").map(encodeURIComponent).join("/");
const contentHref = (v: HeldVersion) => `/${v.item_type}/${encodeId(v.item_id)}?version=${encodeURIComponent(v.version)}`;

function modeText(a: Approvals): string {
  if (a.mode === "all") return "This registry holds every new version for approval.";
  if (a.mode === "flagged") return `This registry holds new versions whose publish-time review finds ${a.risk} risk${a.risk === "high" ? "" : " or more"}.`;
  return "This registry does not hold new versions for approval at the moment (versions held earlier are listed here).";
}

/**
 * The approvals page: versions held for approval (RYE_REGISTRY_APPROVAL) in the namespaces the signed-in person
 * reviews (owner/admin of an organization; every namespace for a registry admin; their own personal namespace's,
 * which registry admins approve), with the review's findings and Approve / Reject where they may decide.
 */
export default async function ApprovalsPage() {
  await requireSession("/settings/approvals");
  return (
    <div className="space-y-8">
      <div className="space-y-2">
        <h1 className="text-2xl font-semibold tracking-tight">Approvals</h1>
        <p className={help}>
          A version held for approval is invisible to everyone but the owners and admins of its namespace and the registry&apos;s administrators until it is
          approved. Nobody approves their own push; personal namespaces are approved by registry administrators. Every decision is audited.
        </p>
      </div>
      <Suspense fallback={<SectionSkeleton cards={2} />}>
        <Held />
      </Suspense>
    </div>
  );
}

async function Held() {
  const [pending, rejected] = await Promise.all([
    api<Approvals>("/v1/approvals", { session: true }),
    api<Approvals>("/v1/approvals?status=rejected", { session: true }),
  ]);
  return (
    <>
      <p className={help}>{modeText(pending)}</p>
      <section aria-labelledby="pending-heading" className="space-y-4">
        <h2 id="pending-heading" className="text-lg font-semibold">
          Waiting for approval
        </h2>
        {pending.versions.length === 0 ? (
          <p className={help}>Nothing is waiting for your review.</p>
        ) : (
          <ul className="space-y-3" aria-label="Versions held for approval">
            {pending.versions.map((v) => (
              <li key={`${v.item_type}/${v.item_id}@${v.version}`} className={`${card} space-y-3`}>
                <div className="flex flex-wrap items-center gap-2">
                  <h3 className="font-semibold">
                    <Link href={contentHref(v)} className={link}>
                      {v.item_id}@{v.version}
                    </Link>
                  </h3>
                  <span className={badge}>{v.item_type}</span>
                  <span className={badge}>{v.held_reason === "all" ? "every version is reviewed" : (v.held_reason ?? "held")}</span>
                </div>
                <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[8rem_1fr]">
                  <dt className="font-medium text-neutral-700 dark:text-neutral-300">Published by</dt>
                  <dd>{v.publisher}</dd>
                  <dt className="font-medium text-neutral-700 dark:text-neutral-300">Pushed</dt>
                  <dd>
                    <Time iso={v.created_at} />
                  </dd>
                  <dt className="font-medium text-neutral-700 dark:text-neutral-300">Review</dt>
                  <dd>{v.review?.risk ? `${v.review.risk} risk, ${v.review.findings?.length ?? 0} finding${v.review.findings?.length === 1 ? "" : "s"}` : "not reviewed"}</dd>
                </dl>
                {v.review?.findings?.length ? (
                  <ul className="space-y-1 text-sm" aria-label={`Findings of ${v.item_id}@${v.version}`}>
                    {v.review.findings.slice(0, 10).map((f, i) => (
                      <li key={i}>
                        <span className="font-medium">{f.risk}</span>: {f.message}{f.family ? ` (${f.family})` : ""} — <code className={code}>{f.path}:{f.line}</code> <code className={code}>{f.excerpt}</code>
                      </li>
                    ))}
                  </ul>
                ) : null}
                {v.can_approve ? (
                  <ApprovalActions type={v.item_type} id={v.item_id} version={v.version} />
                ) : (
                  <p className={help}>
                    {v.namespace === v.publisher ? "A registry administrator reviews versions of personal namespaces." : "Another owner or admin of the namespace, or a registry administrator, reviews this version."}
                  </p>
                )}
              </li>
            ))}
          </ul>
        )}
        {pending.truncated ? <p className={help}>Only the oldest 200 are shown.</p> : null}
      </section>
      <section aria-labelledby="rejected-heading" className="space-y-4">
        <h2 id="rejected-heading" className="text-lg font-semibold">
          Rejected
        </h2>
        {rejected.versions.length === 0 ? (
          <p className={help}>No rejected versions.</p>
        ) : (
          <ul className="space-y-2" aria-label="Rejected versions">
            {rejected.versions.map((v) => (
              <li key={`${v.item_type}/${v.item_id}@${v.version}`} className="text-sm">
                <span className="font-medium">
                  {v.item_type} {v.item_id}@{v.version}
                </span>{" "}
                — rejected by {v.decided_by ?? "?"}
                {v.decided_at ? (
                  <>
                    {" "}
                    on <Time iso={v.decided_at} />
                  </>
                ) : null}
                {v.reason ? `: ${v.reason}` : ""}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
