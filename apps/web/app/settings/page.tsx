import type { Metadata } from "next";
import { Suspense } from "react";
import Link from "next/link";
import { SignOutButton } from "@/components/auth/sign-out-button";
import { SectionSkeleton } from "@/components/settings/skeleton";
import type { MyInvitation, MyOrg, TokenInfo, UserKey } from "@/components/settings/types";
import { buttonSecondary, card, code, help, link } from "@/components/settings/ui";
import { api } from "@/lib/api";
import { requireSession } from "@/lib/session";

export const metadata: Metadata = {
  title: "Settings",
  description: "Your rye registry account: tokens, author keys and organizations.",
  openGraph: { title: "Settings · rye registry" },
  robots: { index: false },
};

export const dynamic = "force-dynamic";

export default async function SettingsPage() {
  const { user } = await requireSession("/settings");
  return (
    <div className="space-y-8">
      <div className="space-y-2">
        <h1 className="text-2xl font-semibold tracking-tight">Settings</h1>
        <p className={help}>Your account on this registry.</p>
      </div>
      <section aria-labelledby="account-heading" className={`${card} space-y-3`}>
        <h2 id="account-heading" className="text-lg font-semibold">
          Account
        </h2>
        <dl className="grid grid-cols-1 gap-x-4 gap-y-2 text-sm sm:grid-cols-[8rem_1fr]">
          <dt className="font-medium text-neutral-700 dark:text-neutral-300">Username</dt>
          <dd>
            <Link href={`/${user.username}`} className={link}>
              {user.username}
            </Link>{" "}
            <span className={help}>(your namespace: items are named {user.username}/…)</span>
          </dd>
          <dt className="font-medium text-neutral-700 dark:text-neutral-300">Email</dt>
          <dd>
            {user.email ?? "none"}
            {user.email ? <span className={`ml-2 ${help}`}>{user.email_verified ? "verified" : "not verified"}</span> : null}
          </dd>
        </dl>
        <SignOutButton className={buttonSecondary} />
      </section>
      <Suspense fallback={<SectionSkeleton cards={1} />}>
        <Sections />
      </Suspense>
      <section aria-labelledby="cli-heading" className="space-y-2">
        <h2 id="cli-heading" className="text-lg font-semibold">
          The command line
        </h2>
        <p className="text-sm">
          Run <code className={code}>rye login</code> to connect the <code className={code}>rye</code> command line to this account: it shows a code that you
          confirm on the <Link href="/device" className={link}>device page</Link>.
        </p>
      </section>
    </div>
  );
}

async function Sections() {
  const [tokens, keys, orgs, invitations] = await Promise.all([
    api<{ tokens: TokenInfo[] }>("/v1/tokens", { session: true }),
    api<{ keys: UserKey[] }>("/v1/me/keys", { session: true }),
    api<{ orgs: MyOrg[] }>("/v1/me/orgs", { session: true }),
    api<{ invitations: MyInvitation[] }>("/v1/me/invitations", { session: true }),
  ]);
  const now = Date.now();
  const activeTokens = tokens.tokens.filter((t) => !t.revoked && (!t.expires_at || Date.parse(t.expires_at) > now)).length;
  const activeKeys = keys.keys.filter((k) => !k.revoked).length;
  const sections = [
    { href: "/settings/tokens", title: "Tokens", summary: `${activeTokens} active personal token${activeTokens === 1 ? "" : "s"}`, text: "For CI and scripts: scoped, expiring, revocable." },
    { href: "/settings/keys", title: "Keys", summary: `${activeKeys} registered author key${activeKeys === 1 ? "" : "s"}`, text: "The Ed25519 public keys your items are signed with." },
    {
      href: "/settings/orgs",
      title: "Organizations",
      summary: `${orgs.orgs.length} organization${orgs.orgs.length === 1 ? "" : "s"}${invitations.invitations.length ? `, ${invitations.invitations.length} pending invitation${invitations.invitations.length === 1 ? "" : "s"}` : ""}`,
      text: "Shared namespaces with members, roles and CI tokens.",
    },
  ];
  return (
    <ul className="grid gap-4 sm:grid-cols-3">
      {sections.map((s) => (
        <li key={s.href} className={`${card} space-y-1`}>
          <h2 className="font-semibold">
            <Link href={s.href} className={link}>
              {s.title}
            </Link>
          </h2>
          <p className="text-sm">{s.summary}</p>
          <p className={help}>{s.text}</p>
        </li>
      ))}
    </ul>
  );
}
