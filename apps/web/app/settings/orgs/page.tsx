import type { Metadata } from "next";
import { Suspense } from "react";
import Link from "next/link";
import { InvitationList } from "@/components/settings/invitation-list";
import { OrgCreateForm } from "@/components/settings/org-create-form";
import { SectionSkeleton } from "@/components/settings/skeleton";
import type { MyInvitation, MyOrg } from "@/components/settings/types";
import { badge, card, help, link } from "@/components/settings/ui";
import { api } from "@/lib/api";
import { requireSession } from "@/lib/session";

export const metadata: Metadata = {
  title: "Organizations",
  description: "Your organizations on the rye registry: shared namespaces with members, roles and CI tokens.",
  openGraph: { title: "Organizations · rye registry" },
  robots: { index: false },
};

export const dynamic = "force-dynamic";

export default async function OrgsPage() {
  await requireSession("/settings/orgs");
  return (
    <div className="space-y-8">
      <div className="space-y-2">
        <h1 className="text-2xl font-semibold tracking-tight">Organizations</h1>
        <p className={help}>An organization is a shared namespace: its members publish under its name, with roles and CI tokens of its own.</p>
      </div>
      <Suspense fallback={<SectionSkeleton />}>
        <Orgs />
      </Suspense>
      <section aria-labelledby="new-org-heading" className={`${card} space-y-4`}>
        <h2 id="new-org-heading" className="text-lg font-semibold">
          New organization
        </h2>
        <OrgCreateForm />
      </section>
    </div>
  );
}

async function Orgs() {
  const [{ orgs }, { invitations }] = await Promise.all([
    api<{ orgs: MyOrg[] }>("/v1/me/orgs", { session: true }),
    api<{ invitations: MyInvitation[] }>("/v1/me/invitations", { session: true }),
  ]);
  return (
    <>
      {invitations.length > 0 ? (
        <section aria-labelledby="invitations-heading" className="space-y-4">
          <h2 id="invitations-heading" className="text-lg font-semibold">
            Invitations
          </h2>
          <InvitationList invitations={invitations} />
        </section>
      ) : null}
      <section aria-labelledby="orgs-heading" className="space-y-4">
        <h2 id="orgs-heading" className="text-lg font-semibold">
          Your organizations
        </h2>
        {orgs.length === 0 ? (
          <p className={help}>You are not a member of any organization yet. Create one below, or ask an owner to invite you.</p>
        ) : (
          <ul className="grid gap-3 sm:grid-cols-2" aria-label="Your organizations">
            {orgs.map((org) => (
              <li key={org.name} className={`${card} space-y-1`}>
                <div className="flex flex-wrap items-center gap-2">
                  <h3 className="font-semibold">
                    <Link href={`/settings/orgs/${encodeURIComponent(org.name)}`} className={link}>
                      {org.display_name || org.name}
                    </Link>
                  </h3>
                  <span className={badge}>{org.role}</span>
                </div>
                <p className={help}>
                  {org.display_name ? `${org.name} · ` : ""}
                  {org.member_count} member{org.member_count === 1 ? "" : "s"}
                </p>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
