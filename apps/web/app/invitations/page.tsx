import type { Metadata } from "next";
import Link from "next/link";
import { InvitationTokenForm } from "@/components/auth/invitation-token-form";
import { InvitationList } from "@/components/settings/invitation-list";
import type { MyInvitation } from "@/components/settings/types";
import { card, help, link } from "@/components/settings/ui";
import { api } from "@/lib/api";
import { requireSession } from "@/lib/session";

export const metadata: Metadata = {
  title: "Invitations",
  description: "Join an organization on the rye registry.",
  openGraph: { title: "Invitations · rye registry", description: "Join an organization on the rye registry." },
  robots: { index: false },
  // The link carries the invitation's secret: keep it out of Referer headers to other sites.
  referrer: "no-referrer",
};

export const dynamic = "force-dynamic";

const TOKEN_SHAPE = /^rye_inv_[A-Za-z0-9_-]{20,100}$/;

export default async function InvitationsPage({ searchParams }: { searchParams: Promise<{ token?: string | string[] }> }) {
  const raw = (await searchParams).token;
  const token = typeof raw === "string" ? raw.trim() : "";
  const { user } = await requireSession(token ? `/invitations?token=${encodeURIComponent(token)}` : "/invitations");
  const { invitations } = await api<{ invitations: MyInvitation[] }>("/v1/me/invitations", { session: true });
  return (
    <div className="mx-auto w-full max-w-2xl space-y-8">
      <div className="space-y-2">
        <h1 className="text-2xl font-semibold tracking-tight">Invitations</h1>
        <p className={help}>
          Signed in as <strong className="text-neutral-900 dark:text-neutral-100">{user.username}</strong>. Invitations are for one account: the invited username, or
          the invited email address once verified.
        </p>
      </div>
      {token ? (
        <section aria-labelledby="link-heading" className={`${card} space-y-3`}>
          <h2 id="link-heading" className="text-lg font-semibold">
            Join with your invitation link
          </h2>
          {TOKEN_SHAPE.test(token) ? (
            <>
              <p className="text-sm">Accepting makes you a member of the organization that invited you, with the role it chose.</p>
              <InvitationTokenForm token={token} />
            </>
          ) : (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              This link is incomplete: invitation links end with a code starting with rye_inv_. Copy the whole link and try again.
            </p>
          )}
        </section>
      ) : null}
      <section aria-labelledby="pending-heading" className="space-y-4">
        <h2 id="pending-heading" className="text-lg font-semibold">
          Pending invitations for you
        </h2>
        <InvitationList invitations={invitations} empty="No pending invitations for your account." />
      </section>
      <p className="text-sm">
        <Link href="/settings/orgs" className={link}>
          Your organizations
        </Link>
      </p>
    </div>
  );
}
