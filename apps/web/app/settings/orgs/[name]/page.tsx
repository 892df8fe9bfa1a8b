import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { SuccessBox } from "@/components/auth/form-bits";
import { ConfirmAction } from "@/components/settings/confirm-action";
import { InviteForm } from "@/components/settings/invite-form";
import { MemberRole } from "@/components/settings/member-role";
import { OrgApproval } from "@/components/settings/org-approval";
import { OrgRemoteMcp } from "@/components/settings/org-remote-mcp";
import { Time } from "@/components/settings/time";
import { TokenCreateForm } from "@/components/settings/token-create-form";
import { TokenList } from "@/components/settings/token-list";
import type { OrgDetails, OrgInvitation, OrgRole, TokenInfo } from "@/components/settings/types";
import { badge, card, help, link } from "@/components/settings/ui";
import { api, apiOrNull } from "@/lib/api";
import { requireSession } from "@/lib/session";

/** The scopes an organization's CI token may have (apps/api/src/services/orgs.ts ORG_TOKEN_SCOPES). */
const ORG_TOKEN_SCOPES = ["items:read", "items:write"];
const ROLES: OrgRole[] = ["member", "admin", "owner"];

type Params = { params: Promise<{ name: string }> };

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { name } = await params;
  const title = `${decoded(name)} · Organizations`;
  return { title, openGraph: { title: `${title} · rye registry` }, robots: { index: false } };
}

export const dynamic = "force-dynamic";

export default async function OrgSettingsPage({ params, searchParams }: Params & { searchParams: Promise<{ joined?: string }> }) {
  const { name: raw } = await params;
  const name = decoded(raw);
  const { user } = await requireSession(`/settings/orgs/${encodeURIComponent(name)}`);
  const org = await apiOrNull<OrgDetails>(`/v1/orgs/${encodeURIComponent(name)}`, { session: true });
  // Not a member: the organization's settings are not the visitor's to see.
  if (!org || !org.role || !org.members) notFound();
  const manager = org.role === "owner" || org.role === "admin";
  const [invitations, tokens] = manager
    ? await Promise.all([
        api<{ invitations: OrgInvitation[] }>(`/v1/orgs/${encodeURIComponent(org.name)}/invitations`, { session: true }),
        api<{ tokens: TokenInfo[] }>(`/v1/orgs/${encodeURIComponent(org.name)}/tokens`, { session: true }),
      ])
    : [null, null];
  const approval = await apiOrNull<{ mode: "off" | "flagged" | "all"; registry_mode: string; effective_mode: string; risk: string }>(
    `/v1/orgs/${encodeURIComponent(org.name)}/approval`,
    { session: true },
  );
  const remoteMcp = await apiOrNull<{ allowed: boolean }>(`/v1/orgs/${encodeURIComponent(org.name)}/remote-mcp`, { session: true });
  const joined = (await searchParams).joined === "1";
  // Owners set any role; admins cannot make or touch owners (the API has the last word).
  const assignable: OrgRole[] = org.role === "owner" ? ROLES : ["member", "admin"];
  const base = `/v1/orgs/${encodeURIComponent(org.name)}`;

  return (
    <div className="space-y-8">
      <div className="space-y-2">
        <p className="text-sm">
          <Link href="/settings/orgs" className={link}>
            Organizations
          </Link>
        </p>
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-2xl font-semibold tracking-tight">{org.display_name || org.name}</h1>
          <span className={badge}>you: {org.role}</span>
        </div>
        <p className={help}>
          Namespace{" "}
          <Link href={`/${encodeURIComponent(org.name)}`} className={link}>
            {org.name}
          </Link>{" "}
          · {org.item_count} item{org.item_count === 1 ? "" : "s"} · created <Time iso={org.created_at} />
        </p>
        <p className={help}><Link href={`/settings/orgs/${encodeURIComponent(org.name)}/verification`} className={link}>Verified names</Link>: prove {org.name} controls a domain or a GitHub organization.</p>
      </div>
      {joined ? (
        <SuccessBox>
          You joined {org.name} as {org.role}.
        </SuccessBox>
      ) : null}

      <section aria-labelledby="members-heading" className="space-y-4">
        <h2 id="members-heading" className="text-lg font-semibold">
          Members ({org.members.length})
        </h2>
        <ul className="space-y-3" aria-label="Members">
          {org.members.map((member) => {
            const self = member.username === user.username;
            const canManage = manager && !self && (org.role === "owner" || member.role !== "owner");
            return (
              <li key={member.username} className={`${card} flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between`}>
                <div className="space-y-1">
                  <p className="flex flex-wrap items-center gap-2">
                    <Link href={`/${encodeURIComponent(member.username)}`} className={link}>
                      {member.username}
                    </Link>
                    {self ? <span className={help}>(you)</span> : null}
                    <span className={badge}>{member.role}</span>
                  </p>
                  <p className={help}>
                    Joined <Time iso={member.joined_at} />
                  </p>
                </div>
                <div className="flex flex-col gap-2 sm:items-end">
                  {canManage ? <MemberRole org={org.name} username={member.username} role={member.role} choices={assignable} /> : null}
                  {canManage ? (
                    <ConfirmAction
                      label="Remove"
                      accessibleLabel={`Remove ${member.username} from ${org.name}`}
                      question={`Remove ${member.username}? Their tokens for ${org.name} are revoked.`}
                      path={`${base}/members/${encodeURIComponent(member.username)}`}
                    />
                  ) : null}
                  {self ? (
                    <ConfirmAction
                      label="Leave"
                      accessibleLabel={`Leave ${org.name}`}
                      question={`Leave ${org.name}? Your tokens for it are revoked.`}
                      path={`${base}/members/${encodeURIComponent(member.username)}`}
                      redirectTo="/settings/orgs"
                    />
                  ) : null}
                </div>
              </li>
            );
          })}
        </ul>
      </section>

      {manager && invitations && tokens ? (
        <>
          <section aria-labelledby="invite-heading" className={`${card} space-y-4`}>
            <h2 id="invite-heading" className="text-lg font-semibold">
              Invite a member
            </h2>
            <InviteForm org={org.name} roles={assignable} />
          </section>

          <section aria-labelledby="pending-heading" className="space-y-4">
            <h2 id="pending-heading" className="text-lg font-semibold">
              Pending invitations
            </h2>
            {invitations.invitations.length === 0 ? (
              <p className={help}>No pending invitations.</p>
            ) : (
              <ul className="space-y-3" aria-label="Pending invitations">
                {invitations.invitations.map((inv) => (
                  <li key={inv.id} className={`${card} flex flex-col gap-2 sm:flex-row sm:items-start sm:justify-between`}>
                    <div className="space-y-1">
                      <p>
                        <strong>{inv.username ?? inv.email}</strong> as {inv.role}
                      </p>
                      <p className={help}>
                        Invited by {inv.invited_by ?? "a former member"} · expires <Time iso={inv.expires_at} />
                      </p>
                    </div>
                    {org.role === "owner" || inv.role !== "owner" ? (
                      <ConfirmAction
                        label="Withdraw"
                        accessibleLabel={`Withdraw the invitation of ${inv.username ?? inv.email}`}
                        question="Withdraw this invitation?"
                        path={`${base}/invitations/${encodeURIComponent(inv.id)}`}
                      />
                    ) : null}
                  </li>
                ))}
              </ul>
            )}
          </section>

          <section aria-labelledby="org-tokens-heading" className="space-y-4">
            <h2 id="org-tokens-heading" className="text-lg font-semibold">
              CI tokens
            </h2>
            <p className={help}>Tokens that act for {org.name} (not for you): for CI jobs that publish to its namespace. Removing a member revokes the tokens they created.</p>
            <div className={card}>
              <TokenCreateForm endpoint={`${base}/tokens`} scopes={ORG_TOKEN_SCOPES} defaultScopes={ORG_TOKEN_SCOPES} fixedNamespace={org.name} />
            </div>
            <TokenList tokens={tokens.tokens} revokePath={(id) => `${base}/tokens/${encodeURIComponent(id)}`} empty={`${org.name} has no CI tokens.`} />
          </section>
        </>
      ) : (
        <p className={help}>Owners and admins of {org.name} manage its members, invitations and CI tokens.</p>
      )}
      {approval ? (
        <section aria-labelledby="approval-heading" className="space-y-3">
          <h2 id="approval-heading" className="text-lg font-semibold">
            Approval
          </h2>
          <p className={help}>
            New versions pushed to {org.name}: {approval.effective_mode === "off" ? "published at once" : approval.effective_mode === "all" ? "every one is held for approval" : `held for approval when the review finds ${approval.risk} risk`}{" "}
            (registry: {approval.registry_mode}; {org.name}: {approval.mode}). Held versions are invisible until an owner or admin approves them on the{" "}
            <Link href="/settings/approvals" className={link}>
              Approvals
            </Link>{" "}
            page. The organization&apos;s setting can only make the registry&apos;s stricter.
          </p>
          {org.role === "owner" ? <OrgApproval org={org.name} mode={approval.mode} /> : null}
        </section>
      ) : null}
      {remoteMcp ? (
        <section aria-labelledby="remote-mcp-heading" className="space-y-3">
          <h2 id="remote-mcp-heading" className="text-lg font-semibold">
            Remote MCP clients
          </h2>
          <p className={help}>
            {remoteMcp.allowed
              ? `Chat apps and IDEs that reach this registry's MCP server (/mcp), and third-party apps a member signed in with, see ${org.name}'s private items for its members.`
              : `Remote MCP clients see none of ${org.name}'s private items or held versions, whoever signed them in; members still read them with rye and on this website.`}{" "}
            Public items are public either way.
          </p>
          {manager ? <OrgRemoteMcp org={org.name} allowed={remoteMcp.allowed} /> : null}
        </section>
      ) : null}
    </div>
  );
}
